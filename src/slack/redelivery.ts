// Socket Mode redelivery: Slack sends an envelope again on a new connection when it saw no ack for it — also when
// the app did ack and act, but the link broke before the ack arrived. Each slash command, click and event is
// claimed in Redis under its own id (a command's or click's `trigger_id`, an event's `event_id`), so the copy is
// acknowledged and dropped. A claim whose ack could not be sent is released: that delivery did nothing (our
// handlers ack first), so the copy Slack sends again must run.
import type { AnyMiddlewareArgs, Middleware } from '@slack/bolt';
import type { Redis } from 'ioredis';
import type { Logger } from '../log.js';
import { notifierKeys } from '../store/keys.js';

/** Longer than Slack keeps retrying an unacknowledged envelope. */
const CLAIM_TTL_SECONDS = 3600;

export interface DeliveryClaims {
  /** true for the first claim of `id`, false for every later one until it is released or expires. */
  claim(id: string): Promise<boolean>;
  release(id: string): Promise<void>;
}

export function redisDeliveryClaims(redis: Pick<Redis, 'set' | 'del'>, prefix: string): DeliveryClaims {
  const key = notifierKeys(prefix).slackDelivery;
  return {
    claim: async (id) => (await redis.set(key(id), '1', 'EX', CLAIM_TTL_SECONDS, 'NX')) === 'OK',
    release: async (id) => {
      await redis.del(key(id));
    },
  };
}

/** The id that is the same on every delivery of one human act, and different for the next one. */
export function deliveryId(body: unknown): string | undefined {
  const b = body as { trigger_id?: unknown; event_id?: unknown; type?: unknown };
  if (typeof b.event_id === 'string' && b.event_id !== '') return `event:${b.event_id}`;
  if (typeof b.trigger_id === 'string' && b.trigger_id !== '') return `trigger:${b.trigger_id}`;
  return undefined;
}

/** @slack/socket-mode's errors when an ack cannot be written: `slack_socket_mode_send_while_…`, `…_websocket_error`. */
function ackNotSent(error: unknown): boolean {
  const e = error as { code?: unknown; originals?: unknown[] };
  if (typeof e.code === 'string' && e.code.startsWith('slack_socket_mode_')) return true;
  return Array.isArray(e.originals) && e.originals.some(ackNotSent);
}

/** Global Bolt middleware: a delivery already claimed is acknowledged and goes no further. */
export function dropRedeliveries(claims: DeliveryClaims, logger: Logger): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    const id = deliveryId(args.body);
    if (id === undefined) return args.next();
    let first: boolean;
    try {
      first = await claims.claim(id);
    } catch (error) {
      // Redis unreachable: acting on a possible copy beats dropping the original.
      logger.warn({ err: error, delivery: id }, 'could not check a Slack delivery for a redelivery; handling it');
      return args.next();
    }
    if (!first) {
      logger.info({ delivery: id }, 'Slack sent a delivery again that was already handled; acknowledged and ignored');
      if ('ack' in args && typeof args.ack === 'function') await (args.ack as () => Promise<void>)();
      return;
    }
    try {
      await args.next();
    } catch (error) {
      if (ackNotSent(error)) await claims.release(id).catch(() => undefined);
      throw error;
    }
  };
}
