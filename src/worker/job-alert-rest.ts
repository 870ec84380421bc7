// The job-alert watch's Flink REST reads (docs/alerts.md#cost): at most one per job per interval, only for RUNNING or
// RESTARTING jobs, a few at a time per cluster (each next one as one ends), so 2,000 jobs never burst on the API
// server. A reading goes into the job's state and the job is judged again.
import { deploymentNameOf } from '../domain/model/resource.js';
import type { Target } from '../domain/model/target.js';
import type { FlinkRest } from '../kube/flink-rest.js';
import { numRestartsOf, type JobAlertState } from './job-alert-signals.js';

/** REST reads in flight at once per cluster. */
const REST_CONCURRENCY = 8;
const REST_TIMEOUT_MS = 3_000;

export interface RestReadable {
  target: Target;
  state: JobAlertState;
  /** ms: no read before. */
  restDueAt: number;
  /** A read is queued or in flight. */
  reading: boolean;
}

export class JobAlertRestReads<J extends RestReadable> {
  private inFlight = 0;
  private readonly queue: J[] = [];
  private closed = false;

  constructor(
    private readonly rest: FlinkRest | undefined,
    private readonly intervalMs: number,
    private readonly now: () => number,
    /** Called with the job once its reading is in its state. */
    private readonly onRead: (job: J) => void,
  ) {}

  /** Queues the job's read when one is due. */
  due(job: J, now: number): void {
    const jobState = job.state.jobState;
    if (this.rest === undefined || job.reading || now < job.restDueAt || job.state.jobId === undefined) return;
    if (jobState !== 'RUNNING' && jobState !== 'RESTARTING') return;
    job.reading = true;
    job.restDueAt = now + this.intervalMs;
    this.queue.push(job);
    this.pump();
  }

  close(): void {
    this.closed = true;
    this.queue.length = 0;
  }

  private pump(): void {
    const { rest } = this;
    while (rest !== undefined && !this.closed && this.inFlight < REST_CONCURRENCY) {
      const job = this.queue.shift();
      if (job === undefined) return;
      const jobId = job.state.jobId;
      const clusterId = job.target.kind === 'FlinkSessionJob' ? deploymentNameOf(job.state.current) : job.target.name;
      if (jobId === undefined || clusterId === undefined) {
        job.reading = false;
        continue;
      }
      this.inFlight += 1;
      void this.read(rest, job, clusterId, jobId).finally(() => {
        job.reading = false;
        this.inFlight -= 1;
        this.pump();
      });
    }
  }

  private async read(rest: FlinkRest, job: J, clusterId: string, jobId: string): Promise<void> {
    const { namespace } = job.target;
    const options = { timeoutMs: REST_TIMEOUT_MS };
    const [metrics, checkpoints] = await Promise.all([
      rest.get(namespace, clusterId, `/jobs/${jobId}/metrics?get=numRestarts`, options),
      rest.get(namespace, clusterId, `/jobs/${jobId}/checkpoints`, options),
    ]);
    if (this.closed) return;
    const numRestarts = metrics.ok ? numRestartsOf(metrics.value) : undefined;
    job.state.onRest({
      at: this.now(),
      jobId,
      ...(numRestarts === undefined ? {} : { numRestarts }),
      ...(checkpoints.ok ? { checkpoints: checkpoints.value } : {}),
    });
    this.onRead(job);
  }
}
