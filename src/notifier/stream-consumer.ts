// A consumer-group reader of one Redis stream whose entries are wake-ups (docs/lifecycle.md#delivery-and-pacing):
// entries are grouped by a key (an operation, a job), one task per key brings Slack up to date with the store, and
// the entries are acknowledged only once it did. Entries a dead replica left are claimed after `claimIdleMs`; a
// deferred key is looked at again with backoff. The notifier (operation cards and threads) and the alert delivery
// (job alerts) are two of these.
import type { Logger } from '../log.js';
import type { RedisConnection } from '../store/connection.js';
import type { NotifierStream, RawEntry } from '../store/notifier-stream.js';
import type { SyncOutcome } from './delivery.js';
import { sleep, WaitAborted } from './pacer.js';
import { StreamReader } from './stream-reader.js';

export interface StreamConsumerOptions<T> {
  /** The command connection (duplicated for the blocking reads). */
  redis: RedisConnection;
  stream: NotifierStream;
  log: Logger;
  /** XREADGROUP BLOCK, ms; and how long past it a read is taken as lost (stream-reader.ts). */
  blockMs: number;
  graceMs: number;
  claimIdleMs: number;
  /** First delay before a deferred key is looked at again. */
  holdMs: number;
  /** Keys worked on at once by this process. */
  maxConcurrent: number;
  /** The key an entry wakes up and what its task needs; throws for an unreadable entry (acknowledged, skipped). */
  route(id: string, fields: string[]): { key: string; item: T };
  /** Brings the key's Slack messages up to date, or says when to look again. */
  sync(key: string, item: T, signal: AbortSignal): Promise<SyncOutcome>;
  /** Log fields naming a key (e.g. `{opId}`). */
  fields(key: string): Record<string, unknown>;
  /** Awaited before each sync: the process's more urgent work (acks under a burst) goes first; absent: none. */
  giveWay?: () => Promise<void>;
}

interface Task<T> {
  item: T;
  ids: string[];
  dirty: boolean;
  done: Promise<void>;
}

const READ_COUNT = 100;
const MAX_HOLD_MS = 5_000;
const MAX_ERROR_BACKOFF_MS = 30_000;

export class StreamConsumer<T> {
  private readonly reader: StreamReader;
  /** Entry ids this process is working on or holding back: never dispatched twice, kept claimed. */
  private readonly tracked = new Set<string>();
  private readonly tasks = new Map<string, Task<T>>();
  private readonly held = new Map<string, { item: T; ids: string[]; timer: NodeJS.Timeout }>();
  private readonly attempts = new Map<string, number>();
  private slotWaiters: (() => void)[] = [];
  private readonly abort = new AbortController();
  private loops: Promise<void>[] = [];
  private running = false;

  constructor(private readonly opts: StreamConsumerOptions<T>) {
    const { redis, stream, blockMs, graceMs, log } = opts;
    this.reader = new StreamReader({ redis, stream, blockMs, graceMs, log });
  }

  /** Creates the group if needed, takes this consumer's pending entries first, then reads and claims. */
  async start(): Promise<void> {
    this.running = true;
    await this.opts.stream.ensureGroup();
    // Entries delivered to this consumer name before a restart come first.
    this.accept(await this.reader.pending());
    this.loops = [this.readLoop(), this.claimLoop()];
  }

  /** Stops reading, cuts waits short and lets calls in flight finish; unfinished entries stay pending for others. */
  async stop(): Promise<void> {
    this.running = false;
    this.abort.abort();
    for (const { timer } of this.held.values()) clearTimeout(timer);
    this.held.clear();
    this.reader.close();
    this.slotWaiters.splice(0).forEach((wake) => wake());
    await Promise.allSettled([...this.loops, ...[...this.tasks.values()].map((t) => t.done)]);
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
        this.opts.log.warn({ err: error, stream: this.opts.stream.key }, 'reading the stream failed; trying again');
        if (String((error as Error).message).includes('NOGROUP'))
          await this.opts.stream.ensureGroup().catch(() => undefined);
        await sleep(Math.min(100 * 2 ** failures, 5_000), this.abort.signal).catch(() => undefined);
      }
    }
  }

  private async claimLoop(): Promise<void> {
    const interval = Math.max(50, Math.floor(this.opts.claimIdleMs / 3));
    while (this.running) {
      try {
        await sleep(interval, this.abort.signal);
        await this.opts.stream.touch([...this.tracked]);
        this.accept(await this.opts.stream.claimIdle(this.opts.claimIdleMs, READ_COUNT));
      } catch (error) {
        if (!this.running) break;
        this.opts.log.warn({ err: error, stream: this.opts.stream.key }, 'claiming idle entries failed; trying again');
      }
    }
  }

  private async freeSlot(): Promise<void> {
    while (this.running && this.tasks.size >= this.opts.maxConcurrent) {
      await new Promise<void>((resolve) => this.slotWaiters.push(resolve));
    }
  }

  /** Entries are wake-ups: grouped by key, each key worked on by one task that reads the store. */
  private accept(entries: RawEntry[]): void {
    const byKey = new Map<string, { item: T; ids: string[] }>();
    const useless: string[] = [];
    for (const [id, fields] of entries) {
      if (this.tracked.has(id)) continue;
      if (fields === null) {
        useless.push(id);
        continue;
      }
      try {
        const { key, item } = this.opts.route(id, fields);
        this.tracked.add(id);
        byKey.set(key, { item, ids: [...(byKey.get(key)?.ids ?? []), id] });
      } catch (error) {
        this.opts.log.error({ err: error, id }, 'unreadable stream entry; acknowledged and skipped');
        useless.push(id);
      }
    }
    if (useless.length > 0)
      this.opts.stream.ack(useless).catch((error: unknown) => this.opts.log.warn({ err: error }, 'ack failed'));
    for (const [key, { item, ids }] of byKey) this.enqueue(key, item, ids);
  }

  private enqueue(key: string, item: T, ids: string[]): void {
    const running = this.tasks.get(key);
    if (running !== undefined) {
      running.ids.push(...ids);
      running.dirty = true;
      return;
    }
    const held = this.held.get(key);
    if (held !== undefined) {
      clearTimeout(held.timer);
      this.held.delete(key);
    }
    const task: Task<T> = { item, ids: [...(held?.ids ?? []), ...ids], dirty: false, done: Promise.resolve() };
    this.tasks.set(key, task);
    task.done = this.run(key, task);
  }

  private async run(key: string, task: Task<T>): Promise<void> {
    let outcome: SyncOutcome;
    try {
      do {
        task.dirty = false;
        await this.opts.giveWay?.();
        outcome = await this.opts.sync(key, task.item, this.abort.signal);
      } while (task.dirty && outcome.kind === 'done' && this.running);
    } catch (error) {
      outcome = this.failed(key, error);
    }
    this.tasks.delete(key);
    this.slotWaiters.splice(0).forEach((wake) => wake());
    if (!this.running) return;
    if (outcome.kind === 'done' && !task.dirty) return this.finish(key, task, outcome.note);
    this.hold(
      key,
      task,
      outcome.kind === 'defer' ? outcome.delayMs : this.opts.holdMs,
      outcome.kind === 'defer' ? outcome.reason : 'stopping',
    );
  }

  private async finish(key: string, task: Task<T>, note: string | undefined): Promise<void> {
    this.attempts.delete(key);
    if (note !== undefined) this.opts.log.info(this.opts.fields(key), note);
    try {
      await this.opts.stream.ack(task.ids);
      task.ids.forEach((id) => this.tracked.delete(id));
    } catch (error) {
      this.opts.log.warn({ err: error, ...this.opts.fields(key) }, 'ack failed; the entries will be delivered again');
    }
  }

  private failed(key: string, error: unknown): SyncOutcome {
    if (error instanceof WaitAborted) return { kind: 'defer', reason: 'stopping', delayMs: this.opts.holdMs };
    const n = (this.attempts.get(key) ?? 0) + 1;
    this.opts.log.warn({ err: error, ...this.opts.fields(key), attempt: n }, 'delivering failed; trying again later');
    return {
      kind: 'defer',
      reason: String((error as Error).message),
      delayMs: Math.min(this.opts.holdMs * 2 ** n, MAX_ERROR_BACKOFF_MS),
    };
  }

  /** Leaves the entries unacknowledged and looks again later (sooner when a new entry for the key arrives). */
  private hold(key: string, task: Task<T>, delayMs: number, reason: string): void {
    const n = (this.attempts.get(key) ?? 0) + 1;
    this.attempts.set(key, n);
    const delay = Math.max(delayMs, Math.min(this.opts.holdMs * 2 ** (n - 1), MAX_HOLD_MS));
    this.opts.log.debug({ ...this.opts.fields(key), reason, delayMs: delay }, 'holding back');
    const timer = setTimeout(() => {
      this.held.delete(key);
      if (this.running) this.enqueue(key, task.item, task.ids);
    }, delay);
    this.held.set(key, { item: task.item, ids: task.ids, timer });
  }
}
