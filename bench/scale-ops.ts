// Follows the `{prefix}:events` stream for bench/scale.ts: which operations were recorded and which reached a
// terminal state (and which), so phases can wait for "all recorded" and "all finished".
import { Redis } from 'ioredis';
import { TERMINAL_STATES } from '../src/domain/model/lifecycle.js';
import { lastEventId, waitForEvents } from '../src/store/events.js';

export class OpsTracker {
  readonly recorded = new Set<string>();
  readonly terminal = new Map<string, string>();
  private readonly blocking: Redis;
  private stopped = false;
  private loop: Promise<void> | undefined;
  private changed: (() => void) | undefined;
  private failure: unknown;

  constructor(
    url: string,
    private readonly prefix: string,
  ) {
    this.blocking = new Redis(url, { maxRetriesPerRequest: null });
  }

  async start(): Promise<void> {
    let after = await lastEventId(this.blocking, this.prefix);
    this.loop = (async () => {
      while (!this.stopped) {
        const events = await waitForEvents(this.blocking, this.prefix, after, 500, 1000);
        for (const e of events) {
          after = e.id;
          if (e.type !== 'state') continue;
          this.recorded.add(e.op);
          if ((TERMINAL_STATES as readonly string[]).includes(e.name)) this.terminal.set(e.op, e.name);
        }
        if (events.length > 0) this.changed?.();
      }
    })().catch((error: unknown) => {
      this.failure = error;
      this.changed?.();
    });
  }

  /** Resolves once `predicate` holds (checked after every batch of events); rejects after `timeoutMs`. */
  async until(predicate: () => boolean, timeoutMs: number, what: string): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      if (this.failure) throw this.failure;
      if (Date.now() > deadline)
        throw new Error(
          `timed out after ${timeoutMs / 1000} s waiting for ${what} (recorded ${this.recorded.size}, finished ${this.terminal.size})`,
        );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 1000);
        this.changed = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /** How many of `ops` ended in each terminal state. */
  outcomes(ops: Iterable<string>): Map<string, number> {
    const out = new Map<string, number>();
    for (const op of ops) {
      const state = this.terminal.get(op);
      if (state) out.set(state, (out.get(state) ?? 0) + 1);
    }
    return out;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
    this.blocking.disconnect();
  }
}
