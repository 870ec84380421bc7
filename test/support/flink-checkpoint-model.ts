// A healthy Flink job's checkpoints as its JobManager reports them (`/jobs/<id>/checkpoints`, `/jobs/<id>`,
// numRestarts), on the JobManager's clock: one checkpoint at a time, the next triggered an interval after the last
// trigger or when the last completes if it took longer; a task failover aborts the one in progress, and once the
// tasks run again the scheduler starts over after a random delay of at most an interval (CheckpointCoordinator's
// periodic scheduler). For the alert unit tests and the soak bench (docs/alerts.md#how-a-stall-is-judged).

export interface ModelOptions {
  /** JobManager clock (ms) the job started running at. */
  start: number;
  intervalMs: number;
  /** How long checkpoint `k` takes (may exceed the interval; stays under the timeout). */
  durationMs: (k: number) => number;
  /** Task failovers: when each starts (JobManager clock) and how long the tasks take to run again. */
  failovers?: { at: number; recoveryMs: number }[];
  /** [0, 1): the scheduler's random first delay after a failover. */
  random?: () => number;
}

interface Entry {
  id: number;
  trigger: number;
  /** Completed at; undefined: failed at `failedAt`. */
  ack?: number;
  failedAt?: number;
}

const HISTORY = 10;

export class HealthyCheckpointingJob {
  private readonly entries: Entry[] = [];
  private nextTrigger: number;
  private failoverIndex = 0;

  constructor(private readonly opts: ModelOptions) {
    this.nextTrigger = opts.start + opts.intervalMs;
  }

  /** Failovers started by `t`. */
  restartsAt(t: number): number {
    return (this.opts.failovers ?? []).filter((f) => f.at <= t).length;
  }

  /** Triggers (and failover aborts) up to `t`. */
  private advance(t: number): void {
    const failovers = this.opts.failovers ?? [];
    while (this.nextTrigger <= t) {
      const failover = failovers[this.failoverIndex];
      const trigger = this.nextTrigger;
      if (failover !== undefined && failover.at <= trigger) {
        this.failoverIndex += 1;
        const back = failover.at + failover.recoveryMs;
        this.nextTrigger = back + Math.max(1, Math.floor((this.opts.random ?? Math.random)() * this.opts.intervalMs));
        continue;
      }
      const id = this.entries.length + 1;
      const ack = trigger + this.opts.durationMs(id);
      const entry: Entry = { id, trigger };
      // A failover while it runs aborts it.
      if (failover !== undefined && failover.at < ack) entry.failedAt = failover.at;
      else entry.ack = ack;
      this.entries.push(entry);
      this.nextTrigger = Math.max(trigger + this.opts.intervalMs, entry.ack ?? trigger);
    }
  }

  /** What a read at JobManager time `t` answers. */
  reading(t: number): { checkpoints: unknown; numRestarts: number; jobNow: number; runningSince: number } {
    this.advance(t);
    const seen = this.entries.filter((e) => e.trigger <= t);
    const status = (e: Entry) =>
      e.ack !== undefined && e.ack <= t
        ? 'COMPLETED'
        : e.failedAt !== undefined && e.failedAt <= t
          ? 'FAILED'
          : 'IN_PROGRESS';
    const body = (e: Entry) => ({
      id: e.id,
      status: status(e),
      trigger_timestamp: e.trigger,
      latest_ack_timestamp: status(e) === 'COMPLETED' ? e.ack : -1,
    });
    const completed = seen.filter((e) => status(e) === 'COMPLETED');
    const failed = seen.filter((e) => status(e) === 'FAILED').length;
    const last = completed.at(-1);
    return {
      checkpoints: {
        counts: {
          completed: completed.length,
          failed,
          in_progress: seen.length - completed.length - failed,
          total: seen.length,
        },
        latest: { completed: last === undefined ? null : body(last) },
        history: seen.slice(-HISTORY).reverse().map(body),
      },
      numRestarts: this.restartsAt(t),
      jobNow: t,
      runningSince: this.opts.start,
    };
  }
}
