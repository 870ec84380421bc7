// A recording fake of our queue port (OperationQueue's calls) for the unit tier: jobs by id with their state, as the
// sweep, the scheduler and the worker's Runner see them; no BullMQ, no Redis.
import { jobIdOf, scheduledJobIdOf, type OperationQueue } from '../../src/queue/queue.js';

type Port = Pick<OperationQueue, 'enqueue' | 'enqueueAt' | 'jobState' | 'removeFinished' | 'promote'>;
type State = Awaited<ReturnType<OperationQueue['jobState']>>;

export interface QueueCall {
  method: 'enqueue' | 'enqueueAt' | 'removeFinished' | 'promote';
  jobId: string;
  delayMs?: number;
  runAt?: number;
}

export class FakeQueue implements Port {
  readonly calls: QueueCall[] = [];
  readonly jobs = new Map<string, State>();

  async enqueue(opId: string, revision: number, options: { delayMs?: number } = {}): Promise<{ jobId: string }> {
    const jobId = jobIdOf(opId, revision);
    this.calls.push({
      method: 'enqueue',
      jobId,
      ...(options.delayMs === undefined ? {} : { delayMs: options.delayMs }),
    });
    if (!this.jobs.has(jobId)) this.jobs.set(jobId, options.delayMs ? 'delayed' : 'waiting');
    return { jobId };
  }

  async enqueueAt(opId: string, revision: number, runAt: number): Promise<{ jobId: string }> {
    const jobId = scheduledJobIdOf(opId, revision, runAt);
    this.calls.push({ method: 'enqueueAt', jobId, runAt });
    if (!this.jobs.has(jobId)) this.jobs.set(jobId, 'delayed');
    return { jobId };
  }

  async jobState(jobId: string): Promise<State> {
    return this.jobs.get(jobId) ?? 'unknown';
  }

  async removeFinished(jobId: string): Promise<boolean> {
    this.calls.push({ method: 'removeFinished', jobId });
    const state = this.jobs.get(jobId);
    if (state !== 'completed' && state !== 'failed') return false;
    this.jobs.delete(jobId);
    return true;
  }

  async promote(jobId: string): Promise<boolean> {
    this.calls.push({ method: 'promote', jobId });
    if (this.jobs.get(jobId) !== 'delayed') return false;
    this.jobs.set(jobId, 'waiting');
    return true;
  }

  /** The ids of the calls of one method, in order. */
  ids(method: QueueCall['method']): string[] {
    return this.calls.filter((c) => c.method === method).map((c) => c.jobId);
  }
}
