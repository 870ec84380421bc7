// The Slack notifier (bot role): reads the operation event stream with a consumer group and keeps each operation's
// card, thread and incident digests up to date, exactly once, across any number of replicas that may die at any time.
import { createLogger, type Logger } from '../log.js';
import { parseEvent } from '../store/events.js';
import { NotifierStream } from '../store/notifier-stream.js';
import { createDelivery, positive, type NotifierOptions } from './options.js';
import { StreamConsumer } from './stream-consumer.js';

export { METADATA_EVENT_TYPE, type WebClient } from '../slack-client/client.js';
export { createNotifierClient, DEFAULT_SLACK_TIMEOUT_MS } from './slack-calls.js';
export { NOTIFIER_GROUP } from '../store/notifier-stream.js';
export type { NotifierRenderers } from './delivery.js';
export type { NotifierOptions } from './options.js';

export class Notifier {
  private readonly consumer: StreamConsumer<string>;
  private readonly log: Logger;
  private readonly claimIdleMs: number;
  private state: 'new' | 'running' | 'stopping' | 'stopped' = 'new';

  constructor(opts: NotifierOptions) {
    this.log = (opts.logger ?? createLogger('silent')).child({ component: 'notifier', consumer: opts.consumer });
    if (opts.consumer.trim() === '') throw new Error('the notifier needs a consumer name unique to this process');
    this.claimIdleMs = positive('claimIdleMs', opts.claimIdleMs ?? 30_000);
    const holdMs = positive('holdMs', opts.holdMs ?? 250);
    const delivery = createDelivery(opts, this.log, holdMs);
    this.consumer = new StreamConsumer<string>({
      redis: opts.redis,
      stream: new NotifierStream(opts.redis, opts.prefix, opts.consumer),
      log: this.log,
      blockMs: positive('blockMs', opts.blockMs ?? 2_000),
      graceMs: positive('readDeadlineGraceMs', opts.readDeadlineGraceMs ?? 5_000),
      claimIdleMs: this.claimIdleMs,
      holdMs,
      maxConcurrent: positive('maxConcurrentOps', opts.maxConcurrentOps ?? 32),
      // Entries are wake-ups: each operation is delivered by one task that reads its record.
      route: (id, fields) => {
        const { op } = parseEvent([id, fields]);
        return { key: op, item: op };
      },
      sync: (op, _item, signal) => delivery.sync(op, signal),
      fields: (op) => ({ opId: op }),
      ...(opts.giveWay ? { giveWay: opts.giveWay } : {}),
    });
  }

  async start(): Promise<void> {
    if (this.state !== 'new') throw new Error(`the notifier was already started (${this.state})`);
    this.state = 'running';
    await this.consumer.start();
    this.log.info({ claimIdleMs: this.claimIdleMs }, 'notifier started');
  }

  /** Stops reading, cuts waits short and lets calls in flight finish; unfinished entries stay pending for others. */
  async stop(): Promise<void> {
    if (this.state !== 'running') return;
    this.state = 'stopping';
    await this.consumer.stop();
    this.state = 'stopped';
    this.log.info('notifier stopped');
  }
}
