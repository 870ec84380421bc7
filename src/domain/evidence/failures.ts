// What makes a submitted spec change FAILED (SPEC §5 "FAILED when"), and the warnings each kind fails on.
import { PATH, desiredFields, newStatusError, settledOnOurs, type Ctx } from './criteria.js';
import type { Failure } from './types.js';
import { describeEvent, isContainerReason, type EventView } from './events.js';
import { getPath } from '../model/merge-patch.js';
import {
  jobManagerStatusOf,
  jobStatusStateOf,
  lifecycleStateOf,
  observedGenerationOf,
  reconciliationStateOf,
  statusErrorOf,
} from '../model/resource.js';


/** Warning reasons that fail a suspend: the stop (with savepoint) did not work, or the spec was refused. */
const SUSPEND_FAILURE_REASONS = new Set(['SavepointError', 'UpgradeFailed', 'ValidationError']);

export function suspendWarning(event: EventView): 'failure' | undefined {
  return SUSPEND_FAILURE_REASONS.has(event.reason) ? 'failure' : undefined;
}

/** resume/restart/scale/upgrade/restore: a refused spec fails; a container reason fails once status.error says so. */
export function redeployWarning(ctx: Ctx, event: EventView): 'failure' | 'blocking' | undefined {
  if (event.reason === 'ValidationError') return 'failure';
  if (isContainerReason(event.reason)) return statusErrorOf(ctx.resource) === undefined ? 'blocking' : 'failure';
  return undefined;
}

class FailureBuilder {
  reason: string | undefined;
  rollback = false;
  readonly evidence: string[] = [];

  add(reason: string, ...evidence: string[]): void {
    this.reason ??= reason;
    for (const line of evidence) if (!this.evidence.includes(line)) this.evidence.push(line);
  }

  build(ctx: Ctx): Failure | undefined {
    if (this.reason === undefined) return undefined;
    const error = statusErrorOf(ctx.resource);
    if (error !== undefined) this.add(this.reason, `${PATH.error}: ${error}`);
    return { reason: this.reason, rollback: this.rollback, evidence: this.evidence };
  }
}

function eventReason(ctx: Ctx, event: EventView): string {
  if (event.reason === 'ValidationError') {
    return `the operator rejected the spec (ValidationError): ${event.message || statusErrorOf(ctx.resource) || 'no message'}; it keeps running the previous spec`;
  }
  if (isContainerReason(event.reason)) {
    return `the JobManager cannot start (${event.reason}): ${statusErrorOf(ctx.resource) ?? event.message}`;
  }
  return `${event.reason}: ${event.message || 'no message'}`;
}

/** The new values the spec still holds although the operator runs the last stable spec. */
function heldValues(ctx: Ctx): string {
  const fields = desiredFields(ctx.plan).map((f) => `${f.path}: ${JSON.stringify(getPath(ctx.resource, f.path.split('.')) ?? f.value)}`);
  return fields.length === 0 ? 'the new values' : fields.join(', ');
}

/** A rollback of our generation (FlinkDeployment only; observedGeneration keeps the failed generation). */
function addRollback(ctx: Ctx, out: FailureBuilder): void {
  if (ctx.sessionJob) return;
  const observed = observedGenerationOf(ctx.resource);
  const state = reconciliationStateOf(ctx.resource);
  const lifecycle = lifecycleStateOf(ctx.resource);
  if (observed === undefined || observed < ctx.submitted) return;
  if (state !== 'ROLLED_BACK' && lifecycle !== 'ROLLED_BACK') return;
  out.rollback = true;
  out.add(
    `the operator rolled back to the last stable spec: the change did not become stable in time; the spec still holds ${heldValues(ctx)}, ` +
      'but what runs is the previous spec — submit a corrected change to clear it',
    `${PATH.reconciliation}: ${state ?? 'unset'}`,
    `${PATH.lifecycle}: ${lifecycle ?? 'unset'}`,
    ...ctx.events.filter((e) => e.reason === 'Rollback').map(describeEvent),
  );
}

/** FAILED signals of resume, restart, scale, upgrade and restore (SPEC §5). */
export function redeployFailure(ctx: Ctx, failures: readonly EventView[]): Failure | undefined {
  const out = new FailureBuilder();
  addRollback(ctx, out);
  for (const event of failures) out.add(eventReason(ctx, event), describeEvent(event));
  // Status fields count only once they describe our generation: a restart of a FAILED job starts FAILED.
  if (settledOnOurs(ctx)) {
    const jm = jobManagerStatusOf(ctx.resource);
    const job = jobStatusStateOf(ctx.resource);
    const lifecycle = lifecycleStateOf(ctx.resource);
    const error = statusErrorOf(ctx.resource);
    const cause = error === undefined ? '' : `: ${error}`;
    if (!ctx.sessionJob && jm === 'ERROR') out.add(`the JobManager deployment is in ERROR after the redeploy${cause}`, `${PATH.jobManager}: ERROR`);
    if (!ctx.sessionCluster && job === 'FAILED') out.add(`the job FAILED after the redeploy${cause}`, `${PATH.job}: FAILED`);
    if (lifecycle === 'FAILED') out.add(`the operator reports the resource FAILED after the redeploy${cause}`, `${PATH.lifecycle}: FAILED`);
  }
  return out.build(ctx);
}

/** FAILED signals of a suspend: a failed stop, a refused spec, or a new status.error. */
export function suspendFailure(ctx: Ctx, failures: readonly EventView[]): Failure | undefined {
  const out = new FailureBuilder();
  for (const event of failures) {
    const reason =
      event.reason === 'ValidationError'
        ? eventReason(ctx, event)
        : `the job could not be stopped (${event.reason}): ${event.message || 'no message'}; ` +
          'the operator retries the stop while spec.job.state is suspended — resume (or undo) puts it back to running';
    out.add(reason, describeEvent(event));
  }
  const error = newStatusError(ctx);
  if (error !== undefined) out.add(`the operator reports an error: ${error}`, `${PATH.error}: ${error}`);
  return out.build(ctx);
}

/** Reported with a pending verdict: status.error that fails nothing on its own, a rollback in progress. */
export function statusNotes(ctx: Ctx): string[] {
  const notes: string[] = [];
  const error = newStatusError(ctx);
  if (error !== undefined) notes.push(`${PATH.error}: ${error}`);
  if (reconciliationStateOf(ctx.resource) === 'ROLLING_BACK') notes.push('the operator is rolling back to the last stable spec');
  return notes;
}
