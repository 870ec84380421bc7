// Warning events after the submission, classified once for every kind (docs/lifecycle.md#evidence): terminal,
// transient, retried stops, task failovers, autoscaler reports, and the rest, which block only while they are the
// latest word.
import { settledOnOurs, type Ctx } from './criteria.js';
import { clockTime, describeEvent, isContainerReason, isNonBlocking, type EventView } from './events.js';
import { jobStatusStateOf } from '../../model/resource.js';
import { jobTimes } from './criteria.js';

/** Failures the operator will not get past without a person, or a spec it refused: FAILED at once, every kind. */
export const TERMINAL_REASONS = new Set(['ValidationError', 'UpgradeFailed']);
/** One per new root exception of the running job: task failovers happen in healthy jobs too. */
export const FAILOVER_REASON = 'JobException';
/** A stop the operator retries on every reconcile while the spec says suspended (session jobs report `Error`). */
export const STOP_RETRY_REASONS = new Set(['SavepointError', 'Error', 'CleanupFailed']);
/** status.error texts of failures that need a person (CommonStatus: lifecycle FAILED with JM MISSING/ERROR). */
export const MANUAL_RESTORE_MARKERS = ['Manual restore required.', 'HA metadata is not available'];

export interface TargetWarnings {
  terminal: EventView[];
  /** Container reasons (ErrImagePull, CrashLoopBackOff, …): transient while the JobManager is in ERROR. */
  container: EventView[];
  /** Stop failures the operator retries (suspend only). */
  retries: EventView[];
  failovers: EventView[];
  notes: string[];
  blocking: string[];
}

/**
 * When the job last reached RUNNING on our deployed generation, by the cluster's clock (the newest `JobStatusChanged
 * … to RUNNING` event after the submission, or jobStatus.updateTime while RUNNING); undefined when it has not.
 */
export function runningSince(ctx: Ctx): number | undefined {
  if (!settledOnOurs(ctx) || jobStatusStateOf(ctx.resource) !== 'RUNNING') return undefined;
  let latest: number | undefined;
  for (const e of ctx.events) {
    if (e.reason === 'JobStatusChanged' && /\bto RUNNING\b/.test(e.message) && e.lastSeen !== undefined)
      latest = Math.max(latest ?? 0, e.lastSeen);
  }
  const { update } = jobTimes(ctx.resource);
  return update === undefined ? latest : Math.max(latest ?? 0, update);
}

/** A Warning is the latest word until the job reached RUNNING on our generation in the same second or later. */
function superseded(event: EventView, running: number | undefined): boolean {
  if (running === undefined || event.lastSeen === undefined) return false;
  return Math.floor(running / 1000) >= Math.floor(event.lastSeen / 1000);
}

/** `2 task failovers after the change: … (java.lang.RuntimeException: …)`. */
function failoverNote(failovers: readonly EventView[]): string {
  const count = failovers.reduce((n, e) => n + e.count, 0);
  const last = failovers.reduce((a, b) => ((b.lastSeen ?? 0) > (a.lastSeen ?? 0) ? b : a));
  const when = last.lastSeen === undefined ? '' : ` at ${clockTime(last.lastSeen)}`;
  const head = last.message.split('\n')[0]?.slice(0, 200) ?? '';
  return `${count} task failover${count === 1 ? '' : 's'} after the change (JobException; the job restarts failed tasks), the last${when}: ${head}`;
}

/** The target's Warnings after the submission, by what they mean; `stopping`: a suspend (stop failures are retries). */
export function classifyWarnings(ctx: Ctx, stopping: boolean): TargetWarnings {
  const out: TargetWarnings = { terminal: [], container: [], retries: [], failovers: [], notes: [], blocking: [] };
  const running = runningSince(ctx);
  for (const event of ctx.events) {
    if (event.type !== 'Warning') continue;
    if (TERMINAL_REASONS.has(event.reason)) out.terminal.push(event);
    else if (event.reason === FAILOVER_REASON) out.failovers.push(event);
    else if (stopping && STOP_RETRY_REASONS.has(event.reason)) out.retries.push(event);
    else if (isNonBlocking(event.reason)) out.notes.push(describeEvent(event));
    else if (superseded(event, running))
      out.notes.push(`${describeEvent(event)} (before the job reached RUNNING on the new generation)`);
    else if (isContainerReason(event.reason)) out.container.push(event);
    else out.blocking.push(describeEvent(event));
  }
  if (out.failovers.length > 0) out.notes.unshift(failoverNote(out.failovers));
  return out;
}
