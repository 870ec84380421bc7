// A background task run every interval (the sweep, the approval timers): one run at a time — a call while one runs
// shares it — and a failed run is reported, never thrown, so the next one simply tries again.

export class Periodic<T> {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<T> | undefined;

  constructor(
    private readonly task: () => Promise<T>,
    private readonly report: { done?: (result: T) => void; failed: (error: unknown) => void },
  ) {}

  /** Runs every `intervalMs` (and once at once with `immediately`); starting twice changes nothing. */
  start(intervalMs: number, opts: { immediately?: boolean } = {}): void {
    if (this.timer) return;
    if (opts.immediately) void this.runSafely();
    this.timer = setInterval(() => void this.runSafely(), intervalMs);
    this.timer.unref();
  }

  /** No further runs; waits for the one in progress. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }

  /** One run now; concurrent calls share the one in progress. */
  run(): Promise<T> {
    this.running ??= this.task().finally(() => (this.running = undefined));
    return this.running;
  }

  private async runSafely(): Promise<void> {
    try {
      const result = await this.run();
      this.report.done?.(result);
    } catch (error) {
      this.report.failed(error);
    }
  }
}
