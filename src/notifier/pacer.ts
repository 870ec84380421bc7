// Pacing of Slack calls. Posts to one channel and edits of one card take turns shared by every replica through
// Redis (src/store/pacing.ts: one call at a time per channel, each at least an interval after the previous one
// ended, installation-wide); here, this process' Retry-After gates per method (or per method and channel).
import { sleep } from '../store/pacing.js';

export { SharedPacer, sleep, WaitAborted, type PostPacer } from '../store/pacing.js';

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
