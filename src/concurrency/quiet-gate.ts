// Work that may wait gives way to work that may not (docs/operating.md#under-a-burst): while acks are still going out,
// planning holds back until none has gone for `quietMs`, and no one is held longer than `maxHoldMs`, so a steady
// stream of commands still gets planned.
import { performance } from 'node:perf_hooks';

interface Held {
  since: number;
  release: () => void;
}

export class QuietGate {
  private lastNoise = Number.NEGATIVE_INFINITY;
  private readonly held: Held[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly quietMs: number,
    private readonly maxHoldMs: number,
    private readonly clock: () => number = () => performance.now(),
  ) {
    for (const [name, value] of [
      ['quietMs', quietMs],
      ['maxHoldMs', maxHoldMs],
    ] as const) {
      if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a number ≥ 0, got ${value}`);
    }
  }

  /** Something that must not wait happened now (an ack went out): the quiet starts again. */
  noise(): void {
    this.lastNoise = this.clock();
  }

  /** Resolves once it has been quiet for `quietMs`, or after `maxHoldMs` at most. */
  async quiet(): Promise<void> {
    const now = this.clock();
    if (now - this.lastNoise >= this.quietMs && this.held.length === 0) return;
    await new Promise<void>((release) => {
      this.held.push({ since: now, release });
      this.schedule();
    });
  }

  /** How many wait for the quiet. */
  get holding(): number {
    return this.held.length;
  }

  private schedule(): void {
    if (this.timer !== undefined || this.held.length === 0) return;
    const oldest = (this.held[0] as Held).since;
    const at = Math.min(this.lastNoise + this.quietMs, oldest + this.maxHoldMs);
    this.timer = setTimeout(() => this.wake(), Math.max(0, at - this.clock()));
  }

  private wake(): void {
    this.timer = undefined;
    const now = this.clock();
    const quiet = now - this.lastNoise >= this.quietMs;
    // In arrival order: once quiet, everyone; before that, those held for `maxHoldMs`.
    while (this.held.length > 0 && (quiet || now - (this.held[0] as Held).since >= this.maxHoldMs)) {
      (this.held.shift() as Held).release();
    }
    this.schedule();
  }
}
