// The evidence rule of each operation kind (SPEC §5 table): its criteria, its failure signals, its proof.
import {
  PATH,
  criterion,
  desiredFields,
  generationObserved,
  jobManagerReady,
  jobStateIn,
  jobTimes,
  lifecycleIs,
  noBlockingWarnings,
  reconciledDeployed,
  reconciledRunning,
  specReconciled,
  splitWarnings,
  type Ctx,
} from './criteria.js';
import { redeployFailure, redeployWarning, statusNotes, suspendFailure, suspendWarning } from './failures.js';
import { redeployProof, restoreProof, scaleNotes, suspendProof } from './proof.js';
import { savepointRule } from './snapshot.js';
import type { Criterion, EvidenceKind, Judgement } from './types.js';
import type { EventView } from './events.js';
import { readFlinkConfig } from '../model/flink-config.js';
import { getPath } from '../model/merge-patch.js';
import { jobIdOf, jobStateOf, jobStatusStateOf, lifecycleStateOf, upgradeSavepointPathOf } from '../model/resource.js';

/** The placeholder the operator writes after an HA last-state deploy: not a savepoint. */
const LAST_STATE_PLACEHOLDER = 'KUBERNETES_OPERATOR_LAST_STATE';
const HA_KEYS = ['high-availability.type', 'high-availability'];
const JOB_CANCEL_KEY = 'kubernetes.operator.job.upgrade.last-state.job-cancel.enabled';

/** resume, restart, scale, upgrade: the base predicate (without job criteria on a session cluster). */
function redeployRule(ctx: Ctx): Judgement {
  const split = splitWarnings(ctx.events, (e) => redeployWarning(ctx, e));
  const criteria = [
    generationObserved(ctx),
    reconciledDeployed(ctx),
    ...specReconciled(ctx),
    ...(ctx.sessionCluster ? [] : reconciledRunning(ctx)),
    ...(ctx.sessionJob ? [] : [jobManagerReady(ctx)]),
    ...(ctx.sessionCluster ? [] : [jobStateIn(ctx, 'job-running', ['RUNNING'])]),
    lifecycleIs(ctx, 'lifecycle-stable', 'STABLE'),
    noBlockingWarnings(ctx, split.blocking),
  ];
  return {
    criteria,
    failure: redeployFailure(ctx, split.failures),
    notes: [...split.notes, ...statusNotes(ctx), ...scaleNotes(ctx)],
    blocking: split.blocking,
    proof: redeployProof(ctx),
  };
}

/**
 * A cancel stops the job asynchronously and may leave the reconciliation UPGRADING (reference §4.1):
 * session jobs unless in savepoint mode; last-state without HA or with job-cancel enabled; or whenever
 * the job is seen CANCELLING/CANCELED, which only a cancel produces.
 */
function cancelBased(ctx: Ctx): boolean {
  const job = jobStatusStateOf(ctx.resource);
  if (job === 'CANCELED' || job === 'CANCELLING') return true;
  if (ctx.sessionJob) return ctx.upgradeMode !== 'savepoint';
  if (ctx.upgradeMode !== 'last-state') return false;
  const ha = readFlinkConfig(ctx.resource, HA_KEYS)?.value.trim().toLowerCase() ?? '';
  const jobCancel = readFlinkConfig(ctx.resource, JOB_CANCEL_KEY)?.value.trim().toLowerCase() === 'true';
  return ha === '' || ha === 'none' || jobCancel;
}

/** The upgrade mode the operator recorded for the suspend, once lastReconciledSpec shows the suspend. */
function recordedSuspendMode(ctx: Ctx): unknown {
  return getPath(ctx.reconciled, ['job', 'state']) === 'suspended' ? getPath(ctx.reconciled, ['job', 'upgradeMode']) : undefined;
}

function savepointRecorded(ctx: Ctx): Criterion {
  const path = upgradeSavepointPathOf(ctx.resource);
  const previous = upgradeSavepointPathOf(ctx.before);
  const met = path !== undefined && path !== LAST_STATE_PLACEHOLDER && (ctx.before === undefined || path !== previous);
  return criterion(ctx, 'savepoint-recorded', met, path, `${PATH.upgradeSavepointPath} (a new one)`);
}

function suspendRule(ctx: Ctx): Judgement {
  const cancel = cancelBased(ctx);
  const split = splitWarnings(ctx.events, suspendWarning);
  const notes = [...split.notes];
  const recorded = recordedSuspendMode(ctx);
  const savepointMode = ctx.upgradeMode === 'savepoint' && !cancel;
  const expectSavepoint = savepointMode && (recorded === undefined || recorded === 'savepoint');
  if (savepointMode && !expectSavepoint) {
    notes.push(`the operator stopped the job with ${String(recorded)} instead of a savepoint (the job was not RUNNING): no new savepoint was taken`);
  }
  const blocked = noBlockingWarnings(ctx, split.blocking);
  let criteria: Criterion[];
  if (cancel) {
    criteria = [...specReconciled(ctx), jobStateIn(ctx, 'job-stopped', ['CANCELED', 'FINISHED']), blocked];
    notes.push(`lifecycleState: ${lifecycleStateOf(ctx.resource) ?? 'unset'} (recorded, not required for a cancel-based suspend)`);
  } else {
    const savepoint = expectSavepoint ? [savepointRecorded(ctx)] : [];
    criteria = [
      generationObserved(ctx),
      reconciledDeployed(ctx),
      ...specReconciled(ctx),
      lifecycleIs(ctx, 'lifecycle-suspended', 'SUSPENDED'),
      // The operator itself writes FINISHED after every suspend (reference §1.1); Flink's SUSPENDED never shows.
      jobStateIn(ctx, 'job-finished', ['FINISHED']),
      ...savepoint,
      blocked,
    ];
  }
  const path = expectSavepoint ? upgradeSavepointPathOf(ctx.resource) : undefined;
  return {
    criteria,
    failure: suspendFailure(ctx, split.failures),
    notes,
    blocking: split.blocking,
    proof: suspendProof(ctx, cancel ? 'cancel' : 'stop', path),
  };
}

/** The newest `Submit` event after the submission. */
function latestSubmit(events: readonly EventView[]): EventView | undefined {
  let best: EventView | undefined;
  for (const event of events) {
    if (event.reason !== 'Submit') continue;
    if (best === undefined || (event.lastSeen ?? 0) > (best.lastSeen ?? 0)) best = event;
  }
  return best;
}

/** RUNNING, and (when both times are known) observed no earlier than the Submit event's second. */
function runningAfterSubmit(ctx: Ctx, submit: EventView | undefined): Criterion {
  const state = jobStatusStateOf(ctx.resource);
  const { update } = jobTimes(ctx.resource);
  const second = submit?.lastSeen === undefined ? undefined : Math.floor(submit.lastSeen / 1000) * 1000;
  const ordered = update === undefined || second === undefined || update >= second;
  return criterion(ctx, 'job-running', state === 'RUNNING' && ordered, state, `${PATH.job} (after the Submit event)`);
}

/** Restore: our savepointRedeployNonce reconciled and the job running again from the given path. */
function restoreRule(ctx: Ctx): Judgement {
  const uri = desiredFields(ctx.plan).find((f) => f.path === 'spec.job.initialSavepointPath')?.value;
  if (typeof uri !== 'string') throw new TypeError('evidence: a restore plan must set spec.job.initialSavepointPath');
  const suspended = jobStateOf(ctx.resource) === 'suspended';
  const split = splitWarnings(ctx.events, (e) => redeployWarning(ctx, e));
  const current = upgradeSavepointPathOf(ctx.resource);
  const applied = criterion(ctx, 'savepoint-path-applied', current === uri, current, PATH.upgradeSavepointPath);
  const blocked = noBlockingWarnings(ctx, split.blocking);
  const notes = [...split.notes, ...statusNotes(ctx)];
  let criteria: Criterion[];
  if (suspended) {
    criteria = [...specReconciled(ctx), applied, blocked];
    notes.push(`the target is suspended: the job stays suspended until \`resume\`, which restores from ${uri}`);
  } else {
    const submit = latestSubmit(ctx.events);
    const jobId = jobIdOf(ctx.resource);
    const newJob = jobId !== undefined && (ctx.previousJobId === undefined || jobId !== ctx.previousJobId);
    criteria = [
      generationObserved(ctx),
      reconciledDeployed(ctx),
      ...specReconciled(ctx),
      ...reconciledRunning(ctx),
      applied,
      ...(ctx.sessionJob ? [] : [jobManagerReady(ctx)]),
      criterion(ctx, 'submit-event', submit !== undefined, submit?.lastSeen === undefined ? null : new Date(submit.lastSeen).toISOString(), 'event Submit'),
      runningAfterSubmit(ctx, submit),
      criterion(ctx, 'job-id-new', newJob, { jobId, previous: ctx.previousJobId }, PATH.jobId),
      blocked,
    ];
    // The operator marks a savepoint redeploy stable before the job runs: lifecycleState proves nothing here.
    notes.push(`lifecycleState: ${lifecycleStateOf(ctx.resource) ?? 'unset'} (not evidence for a restore)`);
  }
  return { criteria, failure: redeployFailure(ctx, split.failures), notes, blocking: split.blocking, proof: restoreProof(ctx, uri, suspended) };
}

export type Rule = (ctx: Ctx) => Judgement;

export const RULES = {
  suspend: suspendRule,
  resume: redeployRule,
  restart: redeployRule,
  scale: redeployRule,
  upgrade: redeployRule,
  savepoint: savepointRule,
  restore: restoreRule,
} as const satisfies Record<EvidenceKind, Rule>;
