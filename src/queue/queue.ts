// The BullMQ queues `flink-ops.<cluster>` (docs/lifecycle.md#queue-order-and-leases): one per cluster, one job per
// operation and plan revision, carrying only the op id; workers consume only their clusters' queues.
import { Queue, type JobState } from 'bullmq';
import { clusterOf, type Target } from '../domain/model/target.js';
import type { RedisConnection } from '../store/connection.js';
import { bullmqPrefix } from '../store/keys.js';

/** The queue of one cluster's operations. */
export function queueName(cluster: string): string {
  return `flink-ops.${cluster}`;
}
/** The BullMQ job name; every job of this queue is one operation run. */
export const JOB_NAME = 'run';

/** The store is the source of truth: a job names the operation and nothing else. */
export interface OperationJobData {
  opId: string;
}

/** Job states in which a job will still be processed (the sweep's "waiting, delayed or active"). */
export const LIVE_JOB_STATES = [
  'waiting',
  'delayed',
  'active',
  'prioritized',
  'waiting-children',
] as const satisfies readonly JobState[];

const DAY_S = 24 * 60 * 60;

/** `<op id>.<plan revision>` (BullMQ refuses `:` and all-digit ids; op ids have neither). */
export function jobIdOf(opId: string, revision: number): string {
  if (!/^op-[a-z0-9]+$/.test(opId)) throw new Error(`"${opId}" is not an operation id`);
  if (!Number.isSafeInteger(revision) || revision < 1)
    throw new Error(`plan revision must be a positive integer, got ${revision}`);
  return `${opId}.${revision}`;
}

/**
 * The delayed job that wakes a SCHEDULED operation at its time (docs/policy.md#scheduled-operations): `<op
 * id>.<revision>.at<runAt ms>`, apart from the run job `<op id>.<revision>` so each can exist while the other has
 * finished; a new time is a new job.
 */
export function scheduledJobIdOf(opId: string, revision: number, runAt: number): string {
  if (!Number.isSafeInteger(runAt) || runAt < 0) throw new Error(`runAt must be a time in ms, got ${runAt}`);
  return `${jobIdOf(opId, revision)}.at${runAt}`;
}

/** Whether a job id is a scheduled operation's wake-up job rather than a run job. */
export function isScheduledJobId(jobId: string | undefined): boolean {
  return /^op-[a-z0-9]+\.\d+\.at\d+$/.test(jobId ?? '');
}

/** The op id and revision a job id names, or undefined when it is not one of ours. */
export function parseJobId(jobId: string | undefined): { opId: string; revision: number } | undefined {
  const match = /^(op-[a-z0-9]+)\.(\d+)$/.exec(jobId ?? '');
  if (!match) return undefined;
  return { opId: match[1] as string, revision: Number(match[2]) };
}

export interface OperationQueueOptions {
  /** The cluster whose operations this queue carries. */
  cluster: string;
  /**
   * A connection for commands (store/connection.ts: standalone, Sentinel or Cluster); shared with the stores is
   * fine (BullMQ never closes a connection it was given). On a Cluster the prefix's hash tag keeps every key of
   * every queue on one slot, which BullMQ's scripts need.
   */
  connection: RedisConnection;
  /** REDIS_PREFIX: BullMQ's prefix becomes the same hash tag `{prefix}` as every key of ours. */
  prefix: string;
  /** How long finished jobs are kept (their ids stay taken meanwhile); default 1 day completed, 7 days failed. */
  keepCompletedSec?: number;
  keepFailedSec?: number;
}

export class OperationQueue {
  readonly queue: Queue<OperationJobData, string, string>;
  readonly cluster: string;
  private readonly keepCompletedSec: number;
  private readonly keepFailedSec: number;

  constructor(opts: OperationQueueOptions) {
    this.cluster = opts.cluster;
    this.queue = new Queue<OperationJobData, string, string>(queueName(opts.cluster), {
      connection: opts.connection,
      prefix: bullmqPrefix(opts.prefix),
    });
    this.keepCompletedSec = opts.keepCompletedSec ?? DAY_S;
    this.keepFailedSec = opts.keepFailedSec ?? 7 * DAY_S;
  }

  /**
   * Adds the job of `opId` at `revision`. An id that already exists in any state is silently kept as it is
   * (BullMQ's jobId rule): enqueueing twice is harmless, and a finished job must be removed to run again.
   */
  async enqueue(opId: string, revision: number, options: { delayMs?: number } = {}): Promise<{ jobId: string }> {
    const jobId = jobIdOf(opId, revision);
    const delay = Math.max(0, Math.round(options.delayMs ?? 0));
    await this.queue.add(
      JOB_NAME,
      { opId },
      {
        jobId,
        ...(delay > 0 ? { delay } : {}),
        removeOnComplete: { age: this.keepCompletedSec },
        removeOnFail: { age: this.keepFailedSec },
      },
    );
    return { jobId };
  }

  /**
   * The wake-up job of a SCHEDULED operation, delayed until `runAt` (by `now`, the caller's clock); a finished job of
   * the same id is removed first, so the sweep can re-create a lost one.
   */
  async enqueueAt(opId: string, revision: number, runAt: number, now: number): Promise<{ jobId: string }> {
    const jobId = scheduledJobIdOf(opId, revision, runAt);
    await this.removeFinished(jobId);
    const delay = Math.max(0, Math.ceil(runAt - now));
    await this.queue.add(
      JOB_NAME,
      { opId },
      {
        jobId,
        ...(delay > 0 ? { delay } : {}),
        removeOnComplete: { age: this.keepCompletedSec },
        removeOnFail: { age: this.keepFailedSec },
      },
    );
    return { jobId };
  }

  async jobState(jobId: string): Promise<JobState | 'unknown'> {
    return this.queue.getJobState(jobId);
  }

  /** Whether the job of `opId` at `revision` is waiting, delayed or active. */
  async hasLiveJob(opId: string, revision: number): Promise<boolean> {
    const state = await this.jobState(jobIdOf(opId, revision));
    return (LIVE_JOB_STATES as readonly string[]).includes(state);
  }

  /** Removes the job when it is completed or failed (so its id can run again); true when it was removed. */
  async removeFinished(jobId: string): Promise<boolean> {
    const state = await this.jobState(jobId);
    if (state !== 'completed' && state !== 'failed') return false;
    try {
      await this.queue.remove(jobId);
      return true;
    } catch {
      // Removed or picked up by someone else in between: either way it is not ours to remove any more.
      return false;
    }
  }

  /** Moves a delayed job to waiting now; false when it is not delayed (already running, gone or waiting). */
  async promote(jobId: string): Promise<boolean> {
    const job = await this.queue.getJob(jobId);
    if (!job) return false;
    try {
      await job.promote();
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}

/** The queues of every cluster a process sees, each made on first use; a target's queue is its cluster's. */
export class OperationQueues {
  private readonly made = new Map<string, OperationQueue>();

  constructor(private readonly opts: Omit<OperationQueueOptions, 'cluster'> & { clusters: readonly string[] }) {}

  get clusters(): readonly string[] {
    return this.opts.clusters;
  }

  of(target: Pick<Target, 'cluster'>): OperationQueue {
    return this.named(clusterOf(target, this.opts.clusters));
  }

  named(cluster: string): OperationQueue {
    let queue = this.made.get(cluster);
    if (!queue) {
      if (!this.opts.clusters.includes(cluster))
        throw new Error(`cluster "${cluster}" has no queue here (${this.opts.clusters.join(', ')})`);
      const { clusters: _clusters, ...rest } = this.opts;
      queue = new OperationQueue({ ...rest, cluster });
      this.made.set(cluster, queue);
    }
    return queue;
  }

  /** The queue of every cluster (made now if not yet), e.g. for queue-depth metrics. */
  all(): OperationQueue[] {
    return this.opts.clusters.map((c) => this.named(c));
  }

  async close(): Promise<void> {
    await Promise.all([...this.made.values()].map((q) => q.close()));
  }
}
