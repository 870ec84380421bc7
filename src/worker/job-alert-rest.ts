// The job-alert watch's Flink REST reads (docs/alerts.md#cost): at most one per job per interval for the whole
// installation (the replica that takes the turn reads, the others use its reading: shared-read.ts), only for RUNNING
// or RESTARTING jobs, a few at a time per cluster (each next one as one ends), so 2,000 jobs never burst on the API
// server. A reading goes into the job's state and the job is judged again.
import type { SharedReadings } from '../app/ports/shared-readings.js';
import { restClusterOf } from '../domain/model/rest-address.js';
import { isJobId, targetKey, type Target } from '../domain/model/target.js';
import { getPath } from '../domain/model/merge-patch.js';
import type { FlinkRest } from '../kube/flink-rest.js';
import type { Logger } from '../log.js';
import { numRestartsOf, type JobAlertState, type RestSample } from './job-alert-signals.js';
import { lookAgainMs, sharedRead } from './shared-read.js';

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
  /** ms: the reading last put into the state (this replica's or another's). */
  restAt?: number;
}

export interface JobAlertRestOptions<J> {
  rest: FlinkRest | undefined;
  /** Where the replicas share their readings; absent: this replica reads every job itself. */
  readings?: SharedReadings;
  cluster: string;
  intervalMs: number;
  now: () => number;
  logger: Logger;
  /** Called with the job once a reading is in its state. */
  onRead: (job: J) => void;
}

type Reading = Omit<RestSample, 'at'>;

export class JobAlertRestReads<J extends RestReadable> {
  private inFlight = 0;
  private readonly queue: J[] = [];
  private closed = false;

  constructor(private readonly opts: JobAlertRestOptions<J>) {}

  /** Queues the job's read when one is due. */
  due(job: J, now: number): void {
    const jobState = job.state.jobState;
    if (this.opts.rest === undefined || job.reading || now < job.restDueAt || job.state.jobId === undefined) return;
    if (jobState !== 'RUNNING' && jobState !== 'RESTARTING') return;
    job.reading = true;
    job.restDueAt = now + this.opts.intervalMs;
    this.queue.push(job);
    this.pump();
  }

  close(): void {
    this.closed = true;
    this.queue.length = 0;
  }

  private pump(): void {
    const { rest } = this.opts;
    while (rest !== undefined && !this.closed && this.inFlight < REST_CONCURRENCY) {
      const job = this.queue.shift();
      if (job === undefined) return;
      const jobId = job.state.jobId;
      const cluster = restClusterOf(job.target, job.state.current);
      // A cluster name or job id that is not valid in a URL is never polled (docs/deep-verification.md#how-rest-is-reached).
      if (jobId === undefined || !isJobId(jobId) || !cluster.ok) {
        job.reading = false;
        continue;
      }
      this.inFlight += 1;
      void this.read(rest, job, cluster.clusterId, jobId).finally(() => {
        job.reading = false;
        this.inFlight -= 1;
        this.pump();
      });
    }
  }

  private async read(rest: FlinkRest, job: J, clusterId: string, jobId: string): Promise<void> {
    const { intervalMs, now } = this.opts;
    const got = await sharedRead({
      readings: this.opts.readings,
      key: `alerts:${this.opts.cluster}:${targetKey(job.target)}:${jobId}`,
      intervalMs,
      now,
      logger: this.opts.logger,
      read: () => readJob(rest, job.target.namespace, clusterId, jobId),
    });
    if (this.closed) return;
    if (got === undefined || got.at <= (job.restAt ?? -Infinity)) {
      // The turn's holder is still reading (or died reading): its reading, or the turn, comes soon.
      job.restDueAt = now() + lookAgainMs(intervalMs);
      return;
    }
    job.restAt = got.at;
    job.restDueAt = got.at + intervalMs;
    job.state.onRest({ ...got.value, at: got.at });
    this.opts.onRead(job);
  }
}

/**
 * `numRestarts`, `/checkpoints` and `/jobs/<id>` (for the JobManager's clock), as far as they answered; of each only
 * what the judgement reads.
 */
async function readJob(rest: FlinkRest, namespace: string, clusterId: string, jobId: string): Promise<Reading> {
  const options = { timeoutMs: REST_TIMEOUT_MS };
  const [metrics, checkpoints, details] = await Promise.all([
    rest.get(namespace, clusterId, `/jobs/${jobId}/metrics?get=numRestarts`, options),
    rest.get(namespace, clusterId, `/jobs/${jobId}/checkpoints`, options),
    rest.get(namespace, clusterId, `/jobs/${jobId}`, options),
  ]);
  const numRestarts = metrics.ok ? numRestartsOf(metrics.value) : undefined;
  return {
    jobId,
    ...(numRestarts === undefined ? {} : { numRestarts }),
    ...(checkpoints.ok ? { checkpoints: slimCheckpoints(checkpoints.value) } : {}),
    ...(details.ok ? jobClock(details.value) : {}),
  };
}

/** `now` and when the job last started running (`timestamps.RUNNING`, else `start-time`), JobManager clock. */
export function jobClock(body: unknown): { jobNow?: number; runningSince?: number } {
  const time = (path: string[]): number | undefined => {
    const value = getPath(body, path);
    return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
  };
  const jobNow = time(['now']);
  const runningSince = time(['timestamps', 'RUNNING']) ?? time(['start-time']);
  return {
    ...(jobNow === undefined ? {} : { jobNow }),
    ...(runningSince === undefined ? {} : { runningSince }),
  };
}

/**
 * `/checkpoints` cut to what job-alert-signals.ts reads: the counts, the latest completed one's id and timestamps, each
 * history entry's status and trigger time (docs/alerts.md#how-a-stall-is-judged).
 */
export function slimCheckpoints(body: unknown): unknown {
  const history = getPath(body, ['history']);
  const latest = (key: string) => getPath(body, ['latest', 'completed', key]);
  const counts = (key: string) => getPath(body, ['counts', key]);
  return {
    counts: { completed: counts('completed'), failed: counts('failed'), in_progress: counts('in_progress') },
    latest: {
      completed: {
        id: latest('id'),
        trigger_timestamp: latest('trigger_timestamp'),
        latest_ack_timestamp: latest('latest_ack_timestamp'),
      },
    },
    ...(Array.isArray(history)
      ? {
          history: history.map((h) => ({
            status: getPath(h, ['status']),
            trigger_timestamp: getPath(h, ['trigger_timestamp']),
          })),
        }
      : {}),
  };
}
