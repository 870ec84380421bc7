// Job alerts, the bot side (docs/alerts.md#the-alert-message): reads the alert stream with consumer group `alerts`,
// takes over entries a dead replica left, and makes Slack show each target's incident as it is now, then acks. The
// posts share the channels' installation-wide pace with cards and replies; edits are coalesced like card edits.
import type { AlertStore } from '../app/ports/alerts.js';
import { TARGET_KINDS, TargetSchema, type Target } from '../domain/model/target.js';
import { createLogger, type Logger } from '../log.js';
import type { WebClient } from '../slack-client/client.js';
import type { RedisConnection } from '../store/connection.js';
import { DeliveryState } from '../store/delivery.js';
import { storeKeys } from '../store/keys.js';
import { NotifierStream } from '../store/notifier-stream.js';
import { DEFAULT_ALERT_RETENTION_MS } from '../store/alerts.js';
import { AlertDigests, DEFAULT_DIGEST_THRESHOLD } from './alert-digest.js';
import { AlertMessages } from './alert-messages.js';
import { positive } from './options.js';
import { SharedPacer, type PostPacer } from './pacer.js';
import { DEFAULT_SLACK_TIMEOUT_MS, SlackCalls } from './slack-calls.js';
import { StreamConsumer } from './stream-consumer.js';

/** The consumer group every bot replica reads the alert stream with (each entry goes to one of them). */
export const ALERTS_GROUP = 'alerts';

export interface AlertDeliveryOptions {
  redis: RedisConnection;
  prefix: string;
  store: AlertStore;
  /** Built by `createNotifierClient`: no retries of its own, 429s rejected, a timeout. */
  client: WebClient;
  /** Unique per process: the consumer name in the group. */
  consumer: string;
  command?: string;
  /** The channels' pace shared with the notifier and the card poster (SharedPacer.channels); default: one of its own. */
  pacer?: PostPacer;
  channelIntervalMs?: number;
  /** Edits of one alert (or digest): one per this many ms, installation-wide (default 1000). */
  editWindowMs?: number;
  claimIdleMs?: number;
  blockMs?: number;
  readDeadlineGraceMs?: number;
  holdMs?: number;
  lockTtlMs?: number;
  requestTimeoutMs?: number;
  settleMs?: number;
  /** More than this many incidents of one channel awaiting their first post get one digest (default 10). */
  digestThreshold?: number;
  logger?: Logger;
  /** The clock messages show; waits and marks use the real clock. */
  now?: () => number;
  /** Awaited before each target's delivery: the acks of a burst go out first (docs/operating.md#under-a-burst). */
  giveWay?: () => Promise<void>;
}

/** Which job an alert stream entry is about. */
interface Ref {
  cluster: string;
  target: Target;
}

const MAX_CONCURRENT = 32;

/** The stream entry's `target` field (a target key: `kind/ns/name` or `kind/cluster/ns/name`) and its cluster. */
export function parseAlertEntry(fields: readonly string[]): Ref {
  const get = (name: string): string | undefined => {
    for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === name) return fields[i + 1];
    return undefined;
  };
  const parts = (get('target') ?? '').split('/');
  const [kind, ...rest] = parts;
  if (!(TARGET_KINDS as readonly string[]).includes(kind ?? '') || (rest.length !== 2 && rest.length !== 3))
    throw new Error(`unreadable alert entry target "${get('target')}"`);
  const [namespace, name] = rest.slice(-2);
  const target = TargetSchema.parse({ kind, namespace, name, ...(rest.length === 3 ? { cluster: rest[0] } : {}) });
  return { cluster: get('cluster') ?? '', target };
}

export class AlertDelivery {
  private readonly consumer: StreamConsumer<Ref>;
  private readonly log: Logger;
  private state: 'new' | 'running' | 'stopping' | 'stopped' = 'new';

  constructor(opts: AlertDeliveryOptions) {
    if (opts.consumer.trim() === '') throw new Error('alert delivery needs a consumer name unique to this process');
    this.log = (opts.logger ?? createLogger('silent')).child({ component: 'alerts', consumer: opts.consumer });
    const holdMs = positive('holdMs', opts.holdMs ?? 250);
    const messages = createAlertMessages(opts, this.log, holdMs);
    const where = (ref: Ref) => ({ cluster: ref.cluster, target: `${ref.target.namespace}/${ref.target.name}` });
    this.consumer = new StreamConsumer<Ref>({
      redis: opts.redis,
      stream: new NotifierStream(opts.redis, opts.prefix, opts.consumer, {
        key: storeKeys(opts.prefix).alertEvents,
        group: ALERTS_GROUP,
      }),
      log: this.log,
      blockMs: positive('blockMs', opts.blockMs ?? 2_000),
      graceMs: positive('readDeadlineGraceMs', opts.readDeadlineGraceMs ?? 5_000),
      claimIdleMs: positive('claimIdleMs', opts.claimIdleMs ?? 30_000),
      holdMs,
      maxConcurrent: MAX_CONCURRENT,
      // Entries are wake-ups, grouped by target: one task shows the target's incident as the store has it.
      route: (_id, fields) => {
        const ref = parseAlertEntry(fields);
        return { key: `${ref.cluster}|${JSON.stringify(ref.target)}`, item: ref };
      },
      sync: (_key, ref, signal) => messages.sync(ref.cluster, ref.target, this.log.child(where(ref)), signal),
      fields: (key) => ({ alertTarget: key }),
      ...(opts.giveWay ? { giveWay: opts.giveWay } : {}),
    });
  }

  async start(): Promise<void> {
    if (this.state !== 'new') throw new Error(`alert delivery was already started (${this.state})`);
    this.state = 'running';
    await this.consumer.start();
    this.log.info('alert delivery started');
  }

  /** Stops reading and cuts waits short; unfinished entries stay pending for another replica. */
  async stop(): Promise<void> {
    if (this.state !== 'running') return;
    this.state = 'stopping';
    await this.consumer.stop();
    this.state = 'stopped';
  }
}

/** The per-incident messages and the channels' digests, with their pacers and delivery marks. */
function createAlertMessages(opts: AlertDeliveryOptions, log: Logger, holdMs: number): AlertMessages {
  const settleMs = opts.settleMs ?? 1_000;
  const requestTimeoutMs = opts.requestTimeoutMs ?? DEFAULT_SLACK_TIMEOUT_MS;
  const turnTtlMs = requestTimeoutMs + settleMs + 1_000;
  const onError = (error: unknown): void => log.warn({ err: error }, 'ending a pacing turn failed; it lapses');
  const pacer =
    opts.pacer ??
    SharedPacer.channels(opts.redis, opts.prefix, { intervalMs: opts.channelIntervalMs ?? 1_000, turnTtlMs, onError });
  const deps = {
    store: opts.store,
    state: new DeliveryState(opts.redis, opts.prefix, DEFAULT_ALERT_RETENTION_MS),
    slack: new SlackCalls(opts.client, log),
    pacer,
    // Keyed by incident (or digest) id, as card edits are by operation id: one window per message.
    edits: SharedPacer.cardEdits(opts.redis, opts.prefix, {
      intervalMs: opts.editWindowMs ?? 1_000,
      turnTtlMs,
      onError,
    }),
    consumer: opts.consumer,
    command: opts.command ?? '/flink',
    now: Date.now,
    renderNow: opts.now ?? Date.now,
    holdMs,
    lockTtlMs: positive('lockTtlMs', opts.lockTtlMs ?? 30_000),
    settleMs,
    staleMs: requestTimeoutMs + settleMs,
  };
  return new AlertMessages(deps, new AlertDigests(deps, opts.digestThreshold ?? DEFAULT_DIGEST_THRESHOLD));
}
