// The Slack notifier (bot role): reads the operation event stream with a consumer group and keeps each operation's
// card, thread and incident digests up to date, exactly once, across any number of replicas that may die at any time.
import { createLogger, type Logger } from '../log.js';
import { parseEvent } from '../store/events.js';
import { type SyncOutcome, type OperationDelivery } from './delivery.js';
import { NotifierStream, type RawEntry } from '../store/notifier-stream.js';
import { sleep, WaitAborted } from './pacer.js';
import { createDelivery, positive, type NotifierOptions } from './options.js';
import { StreamReader } from './stream-reader.js';

export { METADATA_EVENT_TYPE, type WebClient } from '../slack-client/client.js';
export { createNotifierClient, DEFAULT_SLACK_TIMEOUT_MS } from './slack-calls.js';
export { NOTIFIER_GROUP } from '../store/notifier-stream.js';
export type { NotifierRenderers } from './delivery.js';
export type { NotifierOptions } from './options.js';

interface Task {
  ids: string[];
  dirty: boolean;
  done: Promise<void>;
}

const READ_COUNT = 100;
const MAX_HOLD_MS = 5_000;
const MAX_ERROR_BACKOFF_MS = 30_000;

export class Notifier {
  private readonly stream: NotifierStream;
  private readonly delivery: OperationDelivery;
  private readonly log: Logger;
  private readonly claimIdleMs: number;
  private readonly reader: StreamReader;
  private readonly holdMs: number;
  private readonly maxConcurrentOps: number;
  /** Entry ids this process is working on or holding back: never dispatched twice, kept claimed. */
  private readonly tracked = new Set<string>();
  private readonly tasks = new Map<string, Task>();
  private readonly held = new Map<string, { ids: string[]; timer: NodeJS.Timeout }>();
  private readonly attempts = new Map<string, number>();
  private slotWaiters: (() => void)[] = [];
  private abort = new AbortController();
  private loops: Promise<void>[] = [];
  private state: 'new' | 'running' | 'stopping' | 'stopped' = 'new';

  constructor(private readonly opts: NotifierOptions) {
    this.log = (opts.logger ?? createLogger('silent')).child({ component: 'notifier', consumer: opts.consumer });
    if (opts.consumer.trim() === '') throw new Error('the notifier needs a consumer name unique to this process');
    this.claimIdleMs = positive('claimIdleMs', opts.claimIdleMs ?? 30_000);
    this.holdMs = positive('holdMs', opts.holdMs ?? 250);
    this.maxConcurrentOps = positive('maxConcurrentOps', opts.maxConcurrentOps ?? 32);
    this.stream = new NotifierStream(opts.redis, opts.prefix, opts.consumer);
    this.delivery = createDelivery(opts, this.log, this.holdMs);
    this.reader = new StreamReader({
      redis: opts.redis,
      stream: this.stream,
      blockMs: positive('blockMs', opts.blockMs ?? 2_000),
      graceMs: positive('readDeadlineGraceMs', opts.readDeadlineGraceMs ?? 5_000),
      log: this.log,
    });
  }

  async start(): Promise<void> {
    if (this.state !== 'new') throw new Error(`the notifier was already started (${this.state})`);
    this.state = 'running';
    await this.stream.ensureGroup();
    // Entries delivered to this consumer name before a restart come first.
    this.accept(await this.reader.pending());
    this.loops = [this.readLoop(), this.claimLoop()];
    this.log.info({ claimIdleMs: this.claimIdleMs }, 'notifier started');
  }

  /** Stops reading, cuts waits short and lets calls in flight finish; unfinished entries stay pending for others. */
  async stop(): Promise<void> {
    if (this.state !== 'running') return;
    this.state = 'stopping';
    this.abort.abort();
    for (const { timer } of this.held.values()) clearTimeout(timer);
    this.held.clear();
    this.reader.close();
    this.slotWaiters.splice(0).forEach((wake) => wake());
    await Promise.allSettled([...this.loops, ...[...this.tasks.values()].map((t) => t.done)]);
    this.state = 'stopped';
    this.log.info('notifier stopped');
  }

  private get running(): boolean {
    return this.state === 'running';
  }

  private async readLoop(): Promise<void> {
    for (let failures = 0; this.running;) {
      try {
        await this.freeSlot();
        if (!this.running) break;
        this.accept(await this.reader.next(READ_COUNT));
        failures = 0;
      } catch (error) {
        if (!this.running) break;
        failures++;
        this.log.warn({ err: error }, 'reading the event stream failed; trying again');
        if (String((error as Error).message).includes('NOGROUP'))
          await this.stream.ensureGroup().catch(() => undefined);
        await sleep(Math.min(100 * 2 ** failures, 5_000), this.abort.signal).catch(() => undefined);
      }
    }
  }

  private async claimLoop(): Promise<void> {
    const interval = Math.max(50, Math.floor(this.claimIdleMs / 3));
    while (this.running) {
      try {
        await sleep(interval, this.abort.signal);
        await this.stream.touch([...this.tracked]);
        this.accept(await this.stream.claimIdle(this.claimIdleMs, READ_COUNT));
      } catch (error) {
        if (!this.running) break;
        this.log.warn({ err: error }, 'claiming idle entries failed; trying again');
      }
    }
  }

  private async freeSlot(): Promise<void> {
    while (this.running && this.tasks.size >= this.maxConcurrentOps) {
      await new Promise<void>((resolve) => this.slotWaiters.push(resolve));
    }
  }

  /** Entries are wake-ups: grouped by operation, each operation delivered by one task that reads its record. */
  private accept(entries: RawEntry[]): void {
    const byOp = new Map<string, string[]>();
    const useless: string[] = [];
    for (const [id, fields] of entries) {
      if (this.tracked.has(id)) continue;
      if (fields === null) {
        useless.push(id);
        continue;
      }
      try {
        const { op } = parseEvent([id, fields]);
        this.tracked.add(id);
        byOp.set(op, [...(byOp.get(op) ?? []), id]);
      } catch (error) {
        this.log.error({ err: error, id }, 'unreadable event stream entry; acknowledged and skipped');
        useless.push(id);
      }
    }
    if (useless.length > 0)
      this.stream.ack(useless).catch((error: unknown) => this.log.warn({ err: error }, 'ack failed'));
    for (const [op, ids] of byOp) this.enqueue(op, ids);
  }

  private enqueue(op: string, ids: string[]): void {
    const running = this.tasks.get(op);
    if (running !== undefined) {
      running.ids.push(...ids);
      running.dirty = true;
      return;
    }
    const held = this.held.get(op);
    if (held !== undefined) {
      clearTimeout(held.timer);
      this.held.delete(op);
    }
    const task: Task = { ids: [...(held?.ids ?? []), ...ids], dirty: false, done: Promise.resolve() };
    this.tasks.set(op, task);
    task.done = this.run(op, task);
  }

  private async run(op: string, task: Task): Promise<void> {
    let outcome: SyncOutcome;
    try {
      do {
        task.dirty = false;
        outcome = await this.delivery.sync(op, this.abort.signal);
      } while (task.dirty && outcome.kind === 'done' && this.running);
    } catch (error) {
      outcome = this.failed(op, error);
    }
    this.tasks.delete(op);
    this.slotWaiters.splice(0).forEach((wake) => wake());
    if (!this.running) return;
    if (outcome.kind === 'done' && !task.dirty) {
      this.attempts.delete(op);
      if (outcome.note !== undefined) this.log.info({ opId: op }, outcome.note);
      try {
        await this.stream.ack(task.ids);
        task.ids.forEach((id) => this.tracked.delete(id));
      } catch (error) {
        this.log.warn({ err: error, opId: op }, 'ack failed; the entries will be delivered again');
      }
      return;
    }
    this.hold(
      op,
      task.ids,
      outcome.kind === 'defer' ? outcome.delayMs : this.holdMs,
      outcome.kind === 'defer' ? outcome.reason : 'stopping',
    );
  }

  private failed(op: string, error: unknown): SyncOutcome {
    if (error instanceof WaitAborted) return { kind: 'defer', reason: 'stopping', delayMs: this.holdMs };
    const n = (this.attempts.get(op) ?? 0) + 1;
    this.log.warn({ err: error, opId: op, attempt: n }, 'delivering the operation failed; trying again later');
    return {
      kind: 'defer',
      reason: String((error as Error).message),
      delayMs: Math.min(this.holdMs * 2 ** n, MAX_ERROR_BACKOFF_MS),
    };
  }

  /** Leaves the entries unacknowledged and looks again later (sooner when a new entry for the operation arrives). */
  private hold(op: string, ids: string[], delayMs: number, reason: string): void {
    const n = (this.attempts.get(op) ?? 0) + 1;
    this.attempts.set(op, n);
    const delay = Math.max(delayMs, Math.min(this.holdMs * 2 ** (n - 1), MAX_HOLD_MS));
    this.log.debug({ opId: op, reason, delayMs: delay }, 'holding the operation back');
    const timer = setTimeout(() => {
      this.held.delete(op);
      if (this.running) this.enqueue(op, ids);
    }, delay);
    this.held.set(op, { ids, timer });
  }
}
