// Scheduled operations (docs/policy.md#scheduled-operations), the use-case side shared by bot, worker and sweep:
// entering SCHEDULED, its wake-up job, the policy re-check at its time, SCHEDULED → QUEUED, a closed window moving to
// its next opening, and the sweep.
import type { EntryInput, OperationRecord } from '../domain/engines/operation.js';
import { evaluate } from '../domain/engines/policy/evaluate.js';
import type { Policy } from '../domain/engines/policy/schema.js';
import {
  RESCHEDULED,
  nextOpening,
  windowStillOpen,
  type OperationSchedule,
  type SchedulePolicy,
} from '../domain/kit/schedule/resolve.js';
import { clusterOf, type Target } from '../domain/model/target.js';
import { forOperation, type Logger } from '../log.js';
import { LIVE_JOB_STATES, jobIdOf, scheduledJobIdOf, type OperationQueue } from '../queue/queue.js';
import type { Enqueuer, OperationStore } from './ports/index.js';

/** A SCHEDULED record this long past its time without a live wake-up job gets one again from the sweep. */
export const SCHEDULE_SWEEP_GRACE_MS = 5_000;

export type ScheduleQueue = Pick<OperationQueue, 'enqueueAt' | 'enqueue' | 'removeFinished' | 'jobState'>;
type Role = 'bot' | 'worker' | 'sweep';

/** The schedule to enter SCHEDULED with: a window occurrence that closed meanwhile (a late approval) gives way to the next. */
export function scheduleOnEntry(schedule: OperationSchedule, policy: SchedulePolicy, now: number): OperationSchedule {
  return windowStillOpen(schedule, now) ? schedule : (nextOpening(schedule, policy, now) ?? schedule);
}

/** The state entry into SCHEDULED; its detail carries the time so the thread can say when it runs. */
export function scheduledEntry(
  schedule: OperationSchedule,
  actor: string,
  role: Role,
  detail: Record<string, unknown>,
): EntryInput {
  const when = {
    runAt: schedule.runAt,
    zone: schedule.zone,
    ...(schedule.window === undefined ? {} : { window: schedule.window, closesAt: schedule.closesAt }),
  };
  return { type: 'state', name: 'SCHEDULED', actor, role, detail: { ...detail, ...when } };
}

/**
 * The reasons deny rules in force at `now` give (a deny rule in force at its time aborts it:
 * docs/policy.md#scheduled-operations).
 */
export function denialsAt(policy: Policy, record: OperationRecord, now: number): string[] {
  const decision = evaluate(policy, {
    intentKind: record.kind,
    namespace: record.target.namespace,
    ...(record.target.cluster === undefined ? {} : { cluster: record.target.cluster }),
    ...(record.plan?.effectiveUpgradeMode ? { upgradeMode: record.plan.effectiveUpgradeMode } : {}),
    now: new Date(now),
    checks: [],
    ...(record.intent.breakGlass === true ? { breakGlass: true } : {}),
  });
  return decision.outcome === 'deny' ? decision.reasons : [];
}

/** Puts the wake-up job of a SCHEDULED record on its cluster's queue (failures are logged: the sweep re-creates it). */
export async function enqueueWakeUp(
  queue: Pick<ScheduleQueue, 'enqueueAt'>,
  record: OperationRecord,
  now: number,
  log: Logger,
): Promise<void> {
  if (record.schedule === undefined || record.plan === undefined) return;
  try {
    const { jobId } = await queue.enqueueAt(record.id, record.plan.revision, record.schedule.runAt, now);
    log.info({ jobId, runAt: record.schedule.runAt }, 'scheduled');
  } catch (error) {
    log.error({ err: error }, 'could not enqueue the scheduled job; the sweep creates it again');
  }
}

/** Its run job again: a finished one of the same id (from before a re-schedule) is removed first. */
export async function enqueueRun(
  queue: Pick<ScheduleQueue, 'enqueue' | 'removeFinished'>,
  record: OperationRecord,
  log: Logger,
): Promise<void> {
  if (record.plan === undefined) return;
  try {
    await queue.removeFinished(jobIdOf(record.id, record.plan.revision));
    await queue.enqueue(record.id, record.plan.revision);
  } catch (error) {
    log.error({ err: error }, 'could not enqueue the run job; the sweep enqueues it again');
  }
}

export interface ScheduledDeps {
  store: OperationStore;
  queue: ScheduleQueue;
  policy: { current(): Promise<{ ok: true; policy: Policy } | { ok: false; message: string }> };
  now: () => number;
  actor: string;
  role: 'worker' | 'sweep';
  log: Logger;
}

export type FireOutcome =
  { type: 'early'; delayMs: number } | { type: 'moved'; state: string } | { type: 'gone'; why: string };

/**
 * A SCHEDULED operation at its time: never before `runAt` (early → the caller re-delays); a window that closed
 * meanwhile → its next opening, or EXPIRED past 7 days; a deny rule or invalid policy now → ABORTED; else QUEUED
 * and its run job enqueued (from then on it runs like any other QUEUED operation).
 */
export async function fireScheduled(deps: ScheduledDeps, opId: string): Promise<FireOutcome> {
  const record = await deps.store.get(opId);
  if (record?.state !== 'SCHEDULED' || record.schedule === undefined)
    return { type: 'gone', why: `${record?.state ?? 'gone'}: not scheduled` };
  const now = deps.now();
  if (now < record.schedule.runAt) return { type: 'early', delayMs: record.schedule.runAt - now };
  const state = await deps.policy.current();
  if (state.ok && !windowStillOpen(record.schedule, now)) return moveToNextOpening(deps, record, state.policy, now);
  const reasons = state.ok ? denialsAt(state.policy, record, now) : [`the policy is not valid: ${state.message}`];
  const { actor, role } = deps;
  const result = await deps.store.apply(opId, (current) => {
    if (current.state !== 'SCHEDULED' || current.schedule?.runAt !== record.schedule?.runAt) return { refuse: 'raced' };
    if (reasons.length > 0)
      return {
        entries: [
          {
            type: 'state',
            name: 'ABORTED',
            actor,
            role,
            detail: { reason: `at its time, ${reasons.join('; ')}`, reasons },
          },
        ],
      };
    return {
      entries: [
        {
          type: 'state',
          name: 'QUEUED',
          actor,
          role,
          detail: { reason: 'its scheduled time came', runAt: record.schedule?.runAt },
        },
      ],
    };
  });
  if (!result.ok) return { type: 'gone', why: result.reason };
  if (result.record.state === 'QUEUED') await enqueueRun(deps.queue, result.record, deps.log);
  deps.log.info({ state: result.record.state }, 'scheduled time came');
  return { type: 'moved', state: result.record.state };
}

/** SCHEDULED or QUEUED with its window closed: the next opening (a note, or QUEUED → SCHEDULED), else EXPIRED. */
export async function moveToNextOpening(
  deps: ScheduledDeps,
  record: OperationRecord,
  policy: SchedulePolicy,
  now: number,
): Promise<FireOutcome> {
  const schedule = record.schedule as OperationSchedule;
  const next = nextOpening(schedule, policy, now);
  const { actor, role } = deps;
  const closed = `window ${schedule.window ?? '?'} closed before it could start`;
  const result = await deps.store.apply(
    record.id,
    (current): { refuse: string } | { set?: { schedule: OperationSchedule }; entries: EntryInput[] } => {
      if (current.schedule?.runAt !== schedule.runAt || (current.state !== 'SCHEDULED' && current.state !== 'QUEUED'))
        return { refuse: 'raced' };
      const back: EntryInput[] =
        current.state === 'QUEUED' ? [scheduledEntry(schedule, actor, 'worker', { reason: closed })] : [];
      if (next === undefined) {
        const reason = `${closed}, and it does not open again within 7 days of when it was first scheduled`;
        return {
          entries: [
            ...back,
            {
              type: 'state',
              name: 'EXPIRED',
              actor,
              role: current.state === 'QUEUED' ? 'worker' : role,
              detail: { reason },
            },
          ],
        };
      }
      const detail = {
        reason: `${closed}; moved to its next opening`,
        runAt: next.runAt,
        zone: next.zone,
        window: next.window,
        closesAt: next.closesAt,
      };
      if (current.state === 'QUEUED')
        return { set: { schedule: next }, entries: [scheduledEntry(next, actor, 'worker', { reason: detail.reason })] };
      return { set: { schedule: next }, entries: [{ type: 'note', name: RESCHEDULED, actor, detail }] };
    },
  );
  if (!result.ok) return { type: 'gone', why: result.reason };
  if (result.record.state === 'SCHEDULED') await enqueueWakeUp(deps.queue, result.record, now, deps.log);
  deps.log.info({ state: result.record.state, runAt: next?.runAt }, 'window closed; moved on');
  return { type: 'moved', state: result.record.state };
}

/** Whether the wake-up job of a SCHEDULED record is waiting, delayed or running. */
async function hasWakeUp(queue: Pick<ScheduleQueue, 'jobState'>, record: OperationRecord): Promise<boolean> {
  if (record.schedule === undefined || record.plan === undefined) return true;
  const state = await queue.jobState(scheduledJobIdOf(record.id, record.plan.revision, record.schedule.runAt));
  return (LIVE_JOB_STATES as readonly string[]).includes(state);
}

export interface ScheduledSweepDeps {
  queues: {
    readonly clusters: readonly string[];
    of(target: Pick<Target, 'cluster'>): Pick<ScheduleQueue, 'enqueueAt' | 'jobState'>;
  };
  logger: Logger;
}

/**
 * The sweep's backstop (docs/lifecycle.md#the-sweep): a SCHEDULED record past its time with no live wake-up job gets it
 * again, due now.
 */
export async function sweepScheduled(
  deps: ScheduledSweepDeps,
  records: readonly OperationRecord[],
  now: number,
): Promise<string[]> {
  const woken: string[] = [];
  for (const record of records) {
    if (record.state !== 'SCHEDULED' || record.schedule === undefined || !record.plan) continue;
    if (now < record.schedule.runAt + SCHEDULE_SWEEP_GRACE_MS) continue;
    if (!deps.queues.clusters.includes(clusterOf(record.target, deps.queues.clusters))) continue;
    const queue = deps.queues.of(record.target);
    if (await hasWakeUp(queue, record)) continue;
    await enqueueWakeUp(queue, record, now, forOperation(deps.logger, record.id));
    woken.push(record.id);
  }
  return woken;
}

/** The bot's way to the wake-up job: through its Enqueuer port, on the record's cluster queue. */
export async function enqueueScheduled(
  deps: { enqueuer: Enqueuer; now: () => number },
  record: OperationRecord,
  log: Logger,
): Promise<void> {
  const enqueueAt = async (opId: string, revision: number, runAt: number, now: number) => {
    await deps.enqueuer.enqueueAt(opId, revision, record.target, runAt, now);
    return { jobId: scheduledJobIdOf(opId, revision, runAt) };
  };
  await enqueueWakeUp({ enqueueAt }, record, deps.now(), log);
}

/**
 * Who besides the requester may cancel a SCHEDULED operation (docs/commands.md#flink-cancel): an approver of its rules.
 */
export async function approverOfItsRules(
  record: OperationRecord,
  user: string,
  isMember: (user: string, group: string) => Promise<boolean>,
): Promise<boolean> {
  if (record.state !== 'SCHEDULED') return false;
  const requirements = [
    ...(record.decision?.requirements ?? []),
    ...(record.decision?.breakGlass?.skippedRequirements ?? []),
  ];
  for (const group of new Set(requirements.flatMap((r) => r.from))) {
    if (await isMember(user, group)) return true;
  }
  return false;
}
