// Socket Mode and the ack (docs/deployment.md#socket-mode-two-bots-or-more). Slack retries an Events API envelope it
// saw no ack for, on a link of its choosing — also when the app did ack and act, but the link broke before the ack
// arrived. Each event is claimed in Redis under its `event_id`, so the copy is acknowledged and dropped; a claim whose
// ack could not be sent is released, since that delivery did nothing (our handlers ack first) and the retry must run.
// Slash commands and clicks are never sent again: when their ack could not be sent, Slack shows the person an error
// after 3 s and nothing was done (the handlers ack first), so the person is told so through the response_url.
import type { AnyMiddlewareArgs, Middleware } from '@slack/bolt';
import type { Redis } from 'ioredis';
import type { Responder } from '../app/ports/index.js';
import type { Logger } from '../log.js';
import { notifierKeys } from '../store/keys.js';

/** Longer than Slack keeps retrying an unacknowledged event (three retries, the last after 5 min). */
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

/** The id that is the same on every delivery of one event, and different for the next one. */
export function deliveryId(body: unknown): string | undefined {
  const b = body as { event_id?: unknown };
  return typeof b.event_id === 'string' && b.event_id !== '' ? `event:${b.event_id}` : undefined;
}

/** @slack/socket-mode's errors when an ack cannot be written: `slack_socket_mode_send_while_…`, `…_websocket_error`. */
function ackNotSent(error: unknown): boolean {
  const e = error as { code?: unknown; originals?: unknown[] };
  if (typeof e.code === 'string' && e.code.startsWith('slack_socket_mode_')) return true;
  return Array.isArray(e.originals) && e.originals.some(ackNotSent);
}

export interface SocketAckDeps {
  claims: DeliveryClaims;
  responder: Responder;
  logger: Logger;
}

type MiddlewareArgs = Parameters<Middleware<AnyMiddlewareArgs>>[0];

/** Global Bolt middleware: an event already claimed is acknowledged and goes no further; a lost ack is answered. */
export function socketAcks(deps: SocketAckDeps): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    const id = deliveryId(args.body);
    if (id === undefined) return interaction(deps, args);
    let first: boolean;
    try {
      first = await deps.claims.claim(id);
    } catch (error) {
      // Redis unreachable: acting on a possible copy beats dropping the original.
      deps.logger.warn({ err: error, delivery: id }, 'could not check a Slack event for a redelivery; handling it');
      return args.next();
    }
    if (!first) {
      deps.logger.info(
        { delivery: id },
        'Slack sent an event again that was already handled; acknowledged and ignored',
      );
      if ('ack' in args && typeof args.ack === 'function') await (args.ack as () => Promise<void>)();
      return;
    }
    try {
      await args.next();
    } catch (error) {
      if (ackNotSent(error)) await deps.claims.release(id).catch(() => undefined);
      throw error;
    }
  };
}

/** A command or click: handled once; when its ack could not be sent, the person learns that nothing was done. */
async function interaction(deps: SocketAckDeps, args: MiddlewareArgs): Promise<void> {
  try {
    await args.next();
  } catch (error) {
    const responseUrl = (args.body as { response_url?: unknown }).response_url;
    if (!ackNotSent(error) || typeof responseUrl !== 'string') throw error;
    deps.logger.warn({ err: error, what: actName(args.body) }, 'a Slack ack could not be sent; nothing was done');
    await deps.responder
      .respond(responseUrl, { text: notTakenText(args.body), response_type: 'ephemeral', replace_original: false })
      .catch((err: unknown) => deps.logger.warn({ err }, 'could not tell the person their request was not taken'));
  }
}

/** `/flink scale …` for a command, the button's label for a click. */
function actName(body: unknown): string {
  const b = body as { command?: unknown; text?: unknown; actions?: { text?: { text?: unknown } }[] };
  if (typeof b.command === 'string') return `\`${`${b.command} ${String(b.text ?? '')}`.trim()}\``;
  const label = b.actions?.[0]?.text?.text;
  return typeof label === 'string' ? `your click on *${label}*` : 'your click';
}

function notTakenText(body: unknown): string {
  return (
    `Slack's link to this app broke before ${actName(body)} could be acknowledged, so Slack showed you an error: ` +
    'nothing was done. Please try again.'
  );
}
