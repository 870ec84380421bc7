// Installation-wide pacing through Redis (docs/lifecycle.md#delivery-and-pacing): posts to one Slack channel, and edits
// of one card, take turns that every replica shares, so N bot replicas together keep the pace one process would.
//
// A turn: a replica asks Redis for the key's turn (lua/paceChannel.lua). It gets it only when no other replica's call
// is in flight on that key and `next` has passed; it then makes its one call and ends the turn, which sets `next` to
// the end of the call plus the interval. So the gap is measured from the completion of one call to the start of the
// next, whichever replicas made them: the response to call A arrived after Slack received A, and call B starts only
// after that plus the interval, hence Slack sees B at least an interval after A, whatever the latency of either
// (slots reserved by start time would let a slow call A and a fast call B arrive closer than the interval). Every
// time is Redis' TIME, so the replicas' clocks do not matter; waits are durations slept locally.
//
// Within a process the calls of one key run one at a time in the order they asked (a local queue in front of the
// shared turn), as the per-process pacer did. A turn whose holder died lapses after `turnTtlMs`.
import { randomUUID } from 'node:crypto';
import type { RedisConnection } from './connection.js';
import { notifierKeys } from './keys.js';
import { runScript } from './scripts.js';

/** Thrown by waits that were cut short by their AbortSignal (a stopping notifier). */
export class WaitAborted extends Error {
  constructor() {
    super('wait aborted: the notifier is stopping');
    this.name = 'WaitAborted';
  }
}

/** Resolves after `ms`, or rejects with WaitAborted as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted === true) return Promise.reject(new WaitAborted());
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new WaitAborted());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Waits for `promise`, or rejects with WaitAborted as soon as `signal` aborts; leaves no listener behind. */
async function unlessAborted(promise: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return promise;
  if (signal.aborted) throw new WaitAborted();
  let onAbort = (): void => undefined;
  try {
    await Promise.race([
      promise,
      new Promise<never>((_, reject) =>
        signal.addEventListener('abort', (onAbort = () => reject(new WaitAborted())), { once: true }),
      ),
    ]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** What `fn` of a turn tells the pacer: whether it made the call (a turn without a call costs no interval). */
export interface TurnResult<T> {
  value: T;
  called: boolean;
}

/** Runs calls keyed by a channel (or a card) one at a time, at least an interval apart, and honours Retry-After. */
export interface PostPacer {
  run<T>(key: string, fn: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  /** Like run, but `fn` says whether it made its call; when it did not, the interval is not spent. */
  turn<T>(key: string, fn: () => Promise<TurnResult<T>>, signal?: AbortSignal): Promise<T>;
  /** No turn of `key` starts before `ms` from now (a 429's Retry-After), in every replica. */
  holdFor(key: string, ms: number): Promise<void>;
}

export interface SharedPacerOptions {
  /** Between the end of one call and the start of the next on the same key, installation-wide (ms, ≥ 0). */
  intervalMs: number;
  /** A turn whose holder never ends it (a crash) lapses after this long: longer than one call may take. */
  turnTtlMs: number;
  /** The Redis key of a pacing key (a channel id or an operation id). */
  keyOf: (key: string) => string;
  /** How often to ask again while another replica's call is in flight (default: a tenth of the interval, 5–50 ms). */
  pollMs?: number;
  /** Called when ending a turn failed (the turn then lapses after turnTtlMs). */
  onError?: (error: unknown) => void;
}

/** The shared pacer over one Redis; `keyOf` tells channels' posts (pace) from cards' edits (coalescing window). */
export class SharedPacer implements PostPacer {
  private readonly tails = new Map<string, Promise<void>>();
  private readonly pollMs: number;

  constructor(
    private readonly redis: RedisConnection,
    private readonly opts: SharedPacerOptions,
  ) {
    if (!(Number.isFinite(opts.intervalMs) && opts.intervalMs >= 0))
      throw new Error(`the pace interval must be a number ≥ 0 ms, got ${opts.intervalMs}`);
    if (!(Number.isFinite(opts.turnTtlMs) && opts.turnTtlMs > 0))
      throw new Error(`the turn TTL must be a positive number of ms, got ${opts.turnTtlMs}`);
    this.pollMs = opts.pollMs ?? Math.min(50, Math.max(5, Math.round(opts.intervalMs / 10)));
  }

  /** Posts to a channel: `{prefix}:notifier:pace:<channel>`. */
  static channels(redis: RedisConnection, prefix: string, opts: Omit<SharedPacerOptions, 'keyOf'>): SharedPacer {
    const keys = notifierKeys(prefix);
    return new SharedPacer(redis, { ...opts, keyOf: (channel) => keys.pace(channel) });
  }

  /** Edits of an operation's card: `{prefix}:notifier:card-edit:<op id>`. */
  static cardEdits(redis: RedisConnection, prefix: string, opts: Omit<SharedPacerOptions, 'keyOf'>): SharedPacer {
    const keys = notifierKeys(prefix);
    return new SharedPacer(redis, { ...opts, keyOf: (opId) => keys.cardEdit(opId) });
  }

  get intervalMs(): number {
    return this.opts.intervalMs;
  }

  run<T>(key: string, fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    return this.turn(key, async () => ({ value: await fn(), called: true }), signal);
  }

  async turn<T>(key: string, fn: () => Promise<TurnResult<T>>, signal?: AbortSignal): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release = (): void => undefined;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => mine);
    this.tails.set(key, tail);
    try {
      await unlessAborted(previous, signal);
      const token = randomUUID();
      await this.acquire(key, token, signal);
      let called = true;
      try {
        const result = await fn();
        called = result.called;
        return result.value;
      } finally {
        await this.end(key, token, called);
      }
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  async holdFor(key: string, ms: number): Promise<void> {
    await runScript(this.redis, 'paceChannel', [this.opts.keyOf(key)], ['hold', Math.max(0, Math.ceil(ms))]);
  }

  /** Waits for the key's turn (Redis decides, on its own clock); resolves holding it. */
  private async acquire(key: string, token: string, signal?: AbortSignal): Promise<void> {
    const { intervalMs, turnTtlMs, keyOf } = this.opts;
    for (;;) {
      if (signal?.aborted === true) throw new WaitAborted();
      const wait = Number(
        await runScript(
          this.redis,
          'paceChannel',
          [keyOf(key)],
          ['acquire', token, intervalMs, turnTtlMs, this.pollMs],
        ),
      );
      if (wait <= 0) return;
      await sleep(wait, signal);
    }
  }

  private async end(key: string, token: string, called: boolean): Promise<void> {
    try {
      await runScript(
        this.redis,
        'paceChannel',
        [this.opts.keyOf(key)],
        ['release', token, this.opts.intervalMs, called ? '1' : '0'],
      );
    } catch (error) {
      this.opts.onError?.(error);
    }
  }
}
