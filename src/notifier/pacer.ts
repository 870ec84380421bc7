// Pacing of Slack posts: one post at a time per channel, each at least an interval after the previous one ended,
// and per-method (or per method and channel) Retry-After gates; plus an abortable sleep.

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

function aborted(signal: AbortSignal | undefined): Promise<never> | undefined {
  if (signal === undefined) return undefined;
  return new Promise<never>((_, reject) => {
    if (signal.aborted) reject(new WaitAborted());
    else signal.addEventListener('abort', () => reject(new WaitAborted()), { once: true });
  });
}

/**
 * Per channel, posts run one at a time and each starts at least `intervalMs` after the previous one finished
 * (measured from completion, so the gap holds at Slack's end too). Per process: replicas each pace themselves,
 * so N bot replicas may together post up to N per interval to one channel; Slack's 429s catch the rest.
 */
export class ChannelPacer {
  private readonly tails = new Map<string, Promise<void>>();
  private readonly nextAt = new Map<string, number>();

  constructor(
    private readonly intervalMs: number,
    private readonly now: () => number = Date.now,
  ) {
    if (!(Number.isFinite(intervalMs) && intervalMs >= 0)) throw new Error(`channelIntervalMs must be a number ≥ 0, got ${intervalMs}`);
  }

  async run<T>(channel: string, fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const previous = this.tails.get(channel) ?? Promise.resolve();
    let release = (): void => undefined;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => mine);
    this.tails.set(channel, tail);
    let called = false;
    try {
      const abort = aborted(signal);
      await (abort === undefined ? previous : Promise.race([previous, abort]));
      await sleep((this.nextAt.get(channel) ?? 0) - this.now(), signal);
      called = true;
      return await fn();
    } finally {
      if (called) this.nextAt.set(channel, Math.max(this.nextAt.get(channel) ?? 0, this.now() + this.intervalMs));
      release();
      if (this.tails.get(channel) === tail) this.tails.delete(channel);
    }
  }

  /** Pushes the channel's next turn to at least `until` (ms), e.g. after a 429's Retry-After. */
  holdUntil(channel: string, until: number): void {
    this.nextAt.set(channel, Math.max(this.nextAt.get(channel) ?? 0, until));
  }
}

/** Retry-After gates: calls wait until the gate of their scope (a method, or a method in one channel) opens. */
export class RetryAfterGates {
  private readonly until = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  async wait(scope: string, signal?: AbortSignal): Promise<void> {
    // Loop: another call may push the gate further while this one sleeps.
    for (let at = this.until.get(scope) ?? 0; at > this.now(); at = this.until.get(scope) ?? 0) {
      await sleep(at - this.now(), signal);
    }
  }

  close(scope: string, retryAfterSec: number): void {
    const at = this.now() + Math.max(0, retryAfterSec) * 1000;
    this.until.set(scope, Math.max(this.until.get(scope) ?? 0, at));
  }
}
