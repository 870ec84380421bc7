// What makes a submitted spec change FAILED (docs/lifecycle.md#evidence): terminal failures for every kind, the
// redeploy and suspend failures, transient JobManager failures (judged with the grace), and the retried stops of a
// suspend.
import { untouchedValidationHint } from './validation-rules.js';
import { PATH, desiredFields, newStatusError, settledOnOurs, type Ctx } from './criteria.js';
import type { Alert, Failure, Transient } from './types.js';
import { describeEvent, type EventView } from './events.js';
import { MANUAL_RESTORE_MARKERS, type TargetWarnings } from './warnings.js';
import { readFlinkConfig } from '../../model/flink-config.js';
import { getPath } from '../../model/merge-patch.js';
import { shownAt } from '../../model/secret-config.js';
import {
  errorText,
  jobFailureOf,
  jobManagerStatusOf,
  jobStatusStateOf,
  lifecycleStateOf,
  observedGenerationOf,
  reconciliationStateOf,
  statusErrorOf,
} from '../../model/resource.js';
import { formatTarget } from '../../model/target.js';

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

/** What a person must do when the operator waits for one (docs/lifecycle.md#evidence). */
function manualAdvice(ctx: Ctx): string {
  return (
    `the operator will not proceed without a person: restore the job from a savepoint (\`restore ${formatTarget(ctx.plan.target)} --from <savepoint path>\`), ` +
    'or delete and recreate it with spec.job.initialSavepointPath'
  );
}

function needsPerson(text: string): boolean {
  return MANUAL_RESTORE_MARKERS.some((marker) => text.includes(marker));
}

/**
 * ValidationError, UpgradeFailed and a status.error that needs a person: FAILED at once, for every kind
 * (docs/lifecycle.md#evidence).
 */
function addTerminal(ctx: Ctx, terminal: readonly EventView[], out: FailureBuilder): void {
  for (const event of terminal) {
    const message = errorText(event.message) || statusErrorOf(ctx.resource) || 'no message';
    if (event.reason === 'ValidationError') {
      out.add(
        `the operator rejected the spec (ValidationError): ${message}; it keeps running the previous spec${untouchedValidationHint(ctx, message)}`,
        describeEvent(event),
      );
    } else {
      out.add(
        `the operator could not apply the change (${event.reason}): ${message} — ${manualAdvice(ctx)}`,
        describeEvent(event),
      );
    }
  }
  const error = newStatusError(ctx);
  if (error !== undefined && needsPerson(error))
    out.add(`the operator reports: ${error} — ${manualAdvice(ctx)}`, `${PATH.error}: ${error}`);
}

/** The new values the spec still holds although the operator runs the last stable spec. */
function heldValues(ctx: Ctx): string {
  const fields = desiredFields(ctx.plan).map(
    (f) => `${f.path}: ${JSON.stringify(shownAt(f.path, getPath(ctx.resource, f.path.split('.')) ?? f.value))}`,
  );
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

/**
 * FAILED signals of resume, restart, scale, upgrade and restore (docs/lifecycle.md#per-kind); JobManager ERROR is
 * transient (below).
 */
export function redeployFailure(ctx: Ctx, warnings: TargetWarnings): Failure | undefined {
  const out = new FailureBuilder();
  addRollback(ctx, out);
  addTerminal(ctx, warnings.terminal, out);
  // Status fields count only once they describe our generation: a restart of a FAILED job starts FAILED.
  if (settledOnOurs(ctx)) {
    const job = jobStatusStateOf(ctx.resource);
    const lifecycle = lifecycleStateOf(ctx.resource);
    const error = jobFailureOf(ctx.resource);
    const cause = error === undefined ? '' : `: ${error}`;
    const resubmitted = !ctx.sessionCluster && job === 'FAILED' && operatorRestartsFailed(ctx);
    if (!ctx.sessionCluster && job === 'FAILED' && !resubmitted)
      out.add(`the job FAILED after the redeploy${cause}`, `${PATH.job}: FAILED`);
    // A FAILED job makes the lifecycle FAILED too: while the operator resubmits the job, that is the same transient.
    if (lifecycle === 'FAILED' && !resubmitted)
      out.add(`the operator reports the resource FAILED after the redeploy${cause}`, `${PATH.lifecycle}: FAILED`);
  }
  return out.build(ctx);
}

const RESTART_FAILED = ['kubernetes.operator.job.restart.failed'];

/** `kubernetes.operator.job.restart.failed: true`: the operator resubmits a FAILED job itself (no generation change). */
export function operatorRestartsFailed(ctx: Ctx): boolean {
  return (
    readFlinkConfig(ctx.resource, RESTART_FAILED, ctx.observation.sessionCluster)?.value.trim().toLowerCase() === 'true'
  );
}

/** A job FAILED on our generation that the operator resubmits itself: FAILED only if it persists for the grace. */
export function jobFailedTransient(ctx: Ctx): Transient[] {
  if (
    ctx.sessionCluster ||
    !settledOnOurs(ctx) ||
    jobStatusStateOf(ctx.resource) !== 'FAILED' ||
    !operatorRestartsFailed(ctx)
  )
    return [];
  const error = jobFailureOf(ctx.resource);
  const cause = error === undefined ? '' : `: ${error}`;
  return [
    {
      key: 'job-failed',
      what: `job FAILED${cause} (kubernetes.operator.job.restart.failed is true: the operator resubmits it)`,
      reason: `the job FAILED after the redeploy${cause}`,
      evidence: [`${PATH.job}: FAILED`, 'kubernetes.operator.job.restart.failed: true'],
    },
  ];
}

/**
 * A JobManager that cannot start (container reasons, ERROR): the operator's observer recovers ERROR → READY when
 * the pod comes up, so it is FAILED only once it persists for the grace. Container Warnings while the JobManager
 * is not in ERROR block like any other Warning until the job runs again.
 */
export function jobManagerTransient(
  ctx: Ctx,
  warnings: TargetWarnings,
): { transient: Transient[]; blocking: string[] } {
  const container = warnings.container;
  const latest = container.reduce<EventView | undefined>(
    (a, b) => (a === undefined || (b.lastSeen ?? 0) >= (a.lastSeen ?? 0) ? b : a),
    undefined,
  );
  const jm = jobManagerStatusOf(ctx.resource);
  const inError = !ctx.sessionJob && jm === 'ERROR' && (settledOnOurs(ctx) || latest !== undefined);
  const pending = latest !== undefined && !inError && jm !== 'READY' && jm !== 'DEPLOYED_NOT_READY';
  if (!inError && !pending) return { transient: [], blocking: container.map(describeEvent) };
  const error = statusErrorOf(ctx.resource);
  const what =
    latest === undefined
      ? `JobManager ERROR${error === undefined ? '' : `: ${error}`}`
      : `${latest.reason}: ${errorText(latest.message) || error || 'no message'}`;
  const evidence = [`${PATH.jobManager}: ${jm ?? 'unset'}`, ...container.map(describeEvent)];
  const reason = `the JobManager cannot start (${what})`;
  return { transient: [{ key: 'jobmanager-error', what, reason, evidence }], blocking: [] };
}

/**
 * FAILED signals of a suspend: only terminal ones; a failed stop is retried by the operator
 * (docs/lifecycle.md#per-kind).
 */
export function suspendFailure(ctx: Ctx, warnings: TargetWarnings): Failure | undefined {
  const out = new FailureBuilder();
  addTerminal(ctx, warnings.terminal, out);
  return out.build(ctx);
}

/** `stop failed, the operator retries (×N): …`: said in the thread once per new count, kept as a note. */
export function stopRetries(ctx: Ctx, warnings: TargetWarnings): { notes: string[]; alerts: Alert[] } {
  const error = newStatusError(ctx);
  const count = warnings.retries.reduce((n, e) => n + e.count, 0);
  if (count === 0 && (error === undefined || needsPerson(error))) return { notes: [], alerts: [] };
  const latest = warnings.retries.reduce<EventView | undefined>(
    (a, b) => (a === undefined || (b.lastSeen ?? 0) >= (a.lastSeen ?? 0) ? b : a),
    undefined,
  );
  const last =
    latest === undefined ? (error ?? '') : `${latest.reason}: ${errorText(latest.message) || error || 'no message'}`;
  const times = Math.max(count, 1);
  const message = `stop failed, the operator retries (×${times}): ${last}`;
  return { notes: [message], alerts: [{ key: `stop-retry:${times}`, message }] };
}

/** Reported with a pending verdict: status.error that fails nothing on its own, a rollback in progress. */
export function statusNotes(ctx: Ctx): string[] {
  const notes: string[] = [];
  const error = newStatusError(ctx);
  if (error !== undefined && !needsPerson(error)) notes.push(`${PATH.error}: ${error}`);
  if (reconciliationStateOf(ctx.resource) === 'ROLLING_BACK')
    notes.push('the operator is rolling back to the last stable spec');
  return notes;
}
