// The worker's side of scheduled operations (docs/policy.md#scheduled-operations): a wake-up job at its time (never
// before: an early one re-delays itself), and a QUEUED window operation whose window closed before it could start.
import { fireScheduled, moveToNextOpening, type ScheduledDeps } from '../app/scheduling.js';
import type { OperationRecord } from '../domain/engines/operation.js';
import { windowStillOpen } from '../domain/kit/schedule/resolve.js';
import type { Logger } from '../log.js';
import type { RunnerDeps } from './context.js';

type Outcome = { type: 'done'; why: string } | { type: 'park'; delayMs: number; why: string };

function scheduledDeps(deps: RunnerDeps, log: Logger): ScheduledDeps {
  return {
    store: deps.store,
    queue: deps.queue,
    policy: deps.policy,
    now: deps.now,
    actor: deps.settings.actor,
    role: 'worker',
    log,
  };
}

/** A wake-up job: SCHEDULED → QUEUED (its run job enqueued), ABORTED or EXPIRED; or parked until its time. */
export async function wakeScheduled(deps: RunnerDeps, opId: string, log: Logger): Promise<Outcome> {
  const fired = await fireScheduled(scheduledDeps(deps, log), opId);
  switch (fired.type) {
    case 'early':
      return { type: 'park', delayMs: fired.delayMs, why: 'not yet its scheduled time' };
    case 'moved':
      return { type: 'done', why: `scheduled time came: ${fired.state}` };
    case 'gone':
      return { type: 'done', why: fired.why };
  }
}

/** Whether a QUEUED window operation can no longer start in this occurrence of its window. */
export function windowClosed(record: OperationRecord, now: number): boolean {
  return record.state === 'QUEUED' && record.schedule !== undefined && !windowStillOpen(record.schedule, now);
}

/** QUEUED → SCHEDULED at the window's next opening (within 7 days of the first), else → EXPIRED; it leaves the order. */
export async function rescheduleClosed(deps: RunnerDeps, record: OperationRecord, log: Logger): Promise<Outcome> {
  const state = await deps.policy.current();
  if (!state.ok) return { type: 'park', delayMs: deps.settings.leaseTtlMs, why: `policy not valid: ${state.message}` };
  const moved = await moveToNextOpening(scheduledDeps(deps, log), record, state.policy, deps.now());
  return { type: 'done', why: moved.type === 'moved' ? `window closed: ${moved.state}` : 'window closed; raced' };
}
