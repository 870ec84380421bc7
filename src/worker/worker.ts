// The BullMQ worker of one cluster's queue `flink-ops.<cluster>`: runs each job through the Runner; parks waiting jobs; hands work back on shutdown.
import { DelayedError, UnrecoverableError, Worker, type Job } from 'bullmq';
import { forOperation, type Logger } from '../log.js';
import { isScheduledJobId, queueName, type OperationJobData } from '../queue/queue.js';
import type { RedisConnection } from '../store/connection.js';
import { bullmqPrefix } from '../store/keys.js';
import { RunInterrupted } from './lease-keeper.js';
import type { Runner } from './runner.js';

export interface OperationWorkerOptions {
  /** Made for use `worker` (`maxRetriesPerRequest: null`, store/connection.ts); BullMQ duplicates it for blocking reads. */
  connection: RedisConnection;
  prefix: string;
  /** The cluster whose queue (`flink-ops.<cluster>`) this worker consumes. */
  cluster: string;
  concurrency: number;
  /** BullMQ's job lock lasts as long as the target lease (LEASE_TTL). */
  lockDurationMs: number;
  /** How often stalled jobs (their worker died) are looked for; default half the lock duration. */
  stalledIntervalMs?: number;
  runner: Runner;
  logger: Logger;
}

export class OperationWorker {
  readonly worker: Worker<OperationJobData, string, string>;
  private readonly shutdown = new AbortController();
  private closing: Promise<void> | undefined;

  constructor(private readonly opts: OperationWorkerOptions) {
    this.worker = new Worker<OperationJobData, string, string>(
      queueName(opts.cluster),
      (job, token, signal) => this.process(job, token, signal),
      {
        connection: opts.connection,
        prefix: bullmqPrefix(opts.prefix),
        concurrency: opts.concurrency,
        lockDuration: opts.lockDurationMs,
        stalledInterval: opts.stalledIntervalMs ?? Math.max(1000, Math.floor(opts.lockDurationMs / 2)),
        // A crash is a stall; the store decides what runs, so stalls never fail a job (the sweep is the backstop).
        maxStalledCount: 1000,
        autorun: false,
      },
    );
    // BullMQ keeps the processor running when it cannot renew a job's lock: cancel it, so its signal fires.
    this.worker.on('lockRenewalFailed', (jobIds) => {
      for (const id of jobIds) {
        opts.logger.warn({ jobId: id }, 'job lock renewal failed; cancelling its run');
        this.worker.cancelJob(id, 'lock renewal failed');
      }
    });
    this.worker.on('error', (error) => opts.logger.error({ err: error }, 'queue worker error'));
    this.worker.on('failed', (job, error) => {
      opts.logger.warn(
        { jobId: job?.id, opId: job?.data.opId, err: error },
        'job failed; the sweep enqueues its operation again',
      );
    });
  }

  /** Starts taking jobs; resolves once the worker is connected. */
  async start(): Promise<void> {
    void this.worker.run().catch((error: unknown) => this.opts.logger.error({ err: error }, 'queue worker stopped'));
    await this.worker.waitUntilReady();
  }

  /**
   * Stops taking work, aborts in-flight runs (they leave their operation as recorded, release the lease and
   * park their job so another worker resumes it at once), then closes BullMQ's connections.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const closed = this.worker.close();
      this.shutdown.abort(new RunInterrupted('shutdown', 'the worker is shutting down'));
      await closed;
    })();
    return this.closing;
  }

  private async process(
    job: Job<OperationJobData, string, string>,
    token: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<string> {
    const opId = job.data?.opId;
    if (typeof opId !== 'string' || opId === '')
      throw new UnrecoverableError(`job ${job.id ?? '?'} carries no operation id`);
    const log = forOperation(this.opts.logger, opId);
    const signals = [this.shutdown.signal, ...(signal ? [signal] : [])];
    const wakeUp = isScheduledJobId(job.id);
    const outcome = await this.opts.runner.run({
      opId,
      signal: AbortSignal.any(signals),
      attempt: job.attemptsStarted || 1,
      wakeUp,
    });
    if (outcome.type === 'done') {
      log.debug({ jobId: job.id, why: outcome.why }, 'job done');
      return outcome.why;
    }
    log.debug({ jobId: job.id, why: outcome.why, delayMs: outcome.delayMs }, 'job parked');
    await job.moveToDelayed(Date.now() + outcome.delayMs, token);
    if (outcome.target && job.id) {
      await this.opts.runner
        .afterPark(opId, outcome.target, job.id)
        .catch((error: unknown) => log.warn({ err: error }, 'could not re-check the lease after parking'));
    }
    throw new DelayedError();
  }
}
