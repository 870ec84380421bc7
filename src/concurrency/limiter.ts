// At most `limit` tasks at once, the rest waiting in arrival order (docs/operating.md#under-a-burst): a burst of
// slash commands plans a few at a time, so the acks of the requests still arriving are not starved of the event loop.
export class Limiter {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`limit must be a positive integer, got ${limit}`);
  }

  /** Runs `task` once a slot is free; its answer or error is the caller's. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running += 1;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      // The slot passes straight to the next in line, so a newcomer cannot jump the queue.
      if (next) next();
      else this.running -= 1;
    }
  }

  /** Tasks running, and tasks waiting for a slot. */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }
}
