// One run of one operation (docs/lifecycle.md#queue-order-and-leases): load → lease (or wait in order) → re-check →
// submit → verify → release.
import type { OperationRecord } from '../domain/engines/operation.js';
import { isOrdered, isTerminal } from '../domain/model/lifecycle.js';
import type { Target } from '../domain/model/target.js';
import { forOperation, type Logger } from '../log.js';
import { jobIdOf } from '../queue/queue.js';
import type { AcquireResult, Lease } from '../app/ports/index.js';
import { interrupted, readWithRetry, unreachableSaid, type Handback, type Run, type RunnerDeps } from './context.js';
import { abortForIntegrity, recordProblem } from './integrity.js';
import { LeaseKeeper } from './lease-keeper.js';
import { precheck } from './replan.js';
import { rescheduleClosed, wakeScheduled, windowClosed } from './scheduled.js';
import { resumeSubmission, submitFromQueued } from './submit.js';
import { verify } from './verify.js';

export type RunOutcome =
  /** Nothing more for this job: the operation ended, was already handled, or is not ours to run. */
  | { type: 'done'; why: string }
  /** Park the job (delayed) and run it again later; `target` set when it waits for the target's lease. */
  | { type: 'park'; delayMs: number; why: string; target?: Target };

export interface RunRequest {
  opId: string;
  /** Aborted when the job is cancelled or the process shuts down. */
  signal: AbortSignal;
  /** How often this job was started (1 the first time): the waiting backoff grows with it. */
  attempt: number;
  /**
   * A scheduled operation's wake-up job (`<op>.<rev>.at<ms>`), not its run job (docs/policy.md#scheduled-operations).
   */
  wakeUp?: boolean;
}

const FIRST_WAIT_MS = 250;

export class Runner {
  constructor(readonly deps: RunnerDeps) {}

  async run(request: RunRequest): Promise<RunOutcome> {
    const { deps } = this;
    const log = forOperation(deps.logger, request.opId);
    const record = await deps.store.get(request.opId);
    if (!record) return { type: 'done', why: 'the operation record is gone' };
    if (isTerminal(record.state)) return { type: 'done', why: `already ${record.state}` };
    if (request.wakeUp === true || record.state === 'SCHEDULED') return wakeScheduled(deps, record.id, log);
    if (windowClosed(record, deps.now())) return rescheduleClosed(deps, record, log);
    if (!isOrdered(record.state)) return { type: 'done', why: `${record.state}: not queued for execution` };
    if (!record.plan) return { type: 'done', why: 'no plan recorded' };
    const acquired = await deps.leases.tryAcquire(record.target, record.id, deps.settings.leaseTtlMs);
    if (!acquired.acquired) return this.wait(record, acquired, request.attempt, log);
    if (record.state === 'QUEUED') this.observeLockWait(record);
    return this.withLease(record, acquired.lease, request.signal, log);
  }

  private observeLockWait(record: OperationRecord): void {
    const queued = record.history.findLast((e) => e.type === 'state' && e.name === 'QUEUED');
    if (queued && this.deps.onLockWait) this.deps.onLockWait(Math.max(0, this.deps.now() - queued.at) / 1000);
  }

  /** After parking: if the lease is free now and this op heads the order, wake its job at once (no lost wake-up). */
  async afterPark(opId: string, target: Target, jobId: string): Promise<void> {
    const [head, holder] = await Promise.all([this.deps.store.head(target), this.deps.leases.holder(target)]);
    if (head === opId && holder === undefined) await this.deps.queue.promote(jobId);
  }

  private async withLease(
    record: OperationRecord,
    lease: Lease,
    signal: AbortSignal,
    log: Logger,
  ): Promise<RunOutcome> {
    const { deps } = this;
    const keeper = new LeaseKeeper(deps.leases, lease, deps.settings.leaseTtlMs, log, deps.now);
    keeper.start();
    const run: Run = { opId: record.id, deps, log, signal: AbortSignal.any([signal, keeper.signal]), lease };
    try {
      return await this.execute(run);
    } catch (error) {
      if (run.signal.aborted) return outcomeOf(interrupted(run));
      log.error({ err: error }, 'run failed; the operation stays as recorded and is tried again');
      return {
        type: 'park',
        delayMs: deps.settings.leaseTtlMs,
        why: error instanceof Error ? error.message : String(error),
      };
    } finally {
      keeper.stop();
      run.view?.close();
      await this.release(lease, log);
    }
  }

  /** The operation from its recorded state, read again now that the lease is held. */
  private async execute(run: Run): Promise<RunOutcome> {
    const record = await run.deps.store.get(run.opId);
    if (!record?.plan || !isOrdered(record.state))
      return { type: 'done', why: `${record?.state ?? 'gone'} under the lease` };
    run.unreachable = unreachableSaid(record.history);
    if (record.state === 'SUBMITTED') return outcomeOf(await verify(run, record, record.plan));
    // Nothing is written for a record whose MAC or digest does not hold (docs/lifecycle.md#record-integrity).
    const problem = recordProblem(run, record);
    if (problem !== undefined) return outcomeOf(await abortForIntegrity(run, [record.state], 'mac', problem));
    let submission;
    if (record.state === 'QUEUED') {
      const { kind, namespace, name } = record.plan.target;
      const read = await readWithRetry(run, `reading ${namespace}/${name}`, (o) =>
        run.deps.kube.get(kind, namespace, name, o),
      );
      if (!read.ok) return outcomeOf(read.handback);
      const checked = await precheck(run, record, record.plan, read.value);
      if (checked.type !== 'proceed') return outcomeOf(checked);
      submission = await submitFromQueued(run, checked);
    } else {
      submission = await resumeSubmission(run, record, record.plan);
    }
    if (submission.type !== 'submitted') return outcomeOf(submission);
    const submitted = submission.record;
    return outcomeOf(await verify(run, submitted, submitted.plan ?? record.plan));
  }

  private async wait(
    record: OperationRecord,
    result: Extract<AcquireResult, { acquired: false }>,
    attempt: number,
    log: Logger,
  ): Promise<RunOutcome> {
    const behind = result.holder?.opId ?? result.head;
    const delayMs = Math.min(
      this.deps.settings.leaseTtlMs,
      FIRST_WAIT_MS * 2 ** Math.min(Math.max(attempt - 1, 0), 16),
    );
    if (behind === undefined) {
      // Not in the order at all: its state moved on while we looked (e.g. cancelled); the next run sees it.
      return { type: 'park', delayMs, why: 'not in the target order' };
    }
    if (behind !== record.id) await this.noteWaiting(record.id, behind, result.reason, log);
    return { type: 'park', delayMs, why: `waiting behind ${behind}`, target: record.target };
  }

  /**
   * A `waiting` entry naming the operation ahead, only when that changed since the last one
   * (docs/lifecycle.md#queue-order-and-leases).
   */
  private async noteWaiting(opId: string, behind: string, reason: 'held' | 'not-head', log: Logger): Promise<void> {
    const actor = this.deps.settings.actor;
    const result = await this.deps.store.apply(opId, (current) => {
      if (!isOrdered(current.state)) return { refuse: `${current.state}` };
      const last = current.history.findLast((e) => e.type === 'waiting');
      if (last?.detail.behind === behind) return { refuse: 'unchanged' };
      const why = reason === 'held' ? `${behind} holds the target's lease` : `${behind} is ahead in the target's order`;
      return { entries: [{ type: 'waiting', name: 'waiting', actor, detail: { behind, reason: why } }] };
    });
    if (result.ok) log.info({ behind }, 'waiting behind another operation');
  }

  /** Token-checked release, then the next head's parked job is woken so it does not sit out its backoff. */
  private async release(lease: Lease, log: Logger): Promise<void> {
    try {
      await this.deps.leases.release(lease);
      const head = await this.deps.store.head(lease.target);
      if (head === undefined) return;
      const next = await this.deps.store.get(head);
      if (next?.plan) await this.deps.queue.promote(jobIdOf(head, next.plan.revision));
    } catch (error) {
      log.warn({ err: error }, 'releasing the lease or waking the next operation failed; the lease expires on its own');
    }
  }
}

function outcomeOf(result: { type: 'ended' } | Handback): RunOutcome {
  return result.type === 'ended'
    ? { type: 'done', why: 'ended' }
    : { type: 'park', delayMs: result.delayMs, why: result.why };
}
