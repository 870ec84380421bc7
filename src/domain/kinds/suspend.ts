// suspend: stop the job (spec.job.state: suspended), with the operator's stop mechanism and its evidence.
import { z } from 'zod';
import {
  PATH,
  criterion,
  generationObserved,
  jobStateIn,
  lifecycleIs,
  noBlockingWarnings,
  reconciledDeployed,
  specReconciled,
  type Ctx,
} from '../kit/evidence/criteria.js';
import { stopRetries, suspendFailure } from '../kit/evidence/failures.js';
import { classifyWarnings } from '../kit/evidence/warnings.js';
import { suspendProof } from '../kit/evidence/proof.js';
import type { Criterion, Judgement } from '../kit/evidence/types.js';
import { MODE_FLAG, OPERATION_FLAGS, TARGET } from '../kit/language/verb-kit.js';
import { readFlinkConfig } from '../model/flink-config.js';
import { COMMON_INTENT_FIELDS } from '../kit/language/intent-base.js';
import { getPath } from '../model/merge-patch.js';
import { jobStateOf, jobStatusStateOf, lifecycleStateOf, upgradeSavepointPathOf } from '../model/resource.js';
import { TargetSchema } from '../model/target.js';
import { MODE, UPGRADE_MODES, effectiveUpgradeMode } from '../model/upgrade-mode.js';
import { PATHS, modeEdit, patchOutcome, refusal, who } from '../kit/planning/edits.js';
import type { KindModule } from './kind.js';

export const SuspendIntent = z.object({
  kind: z.literal('suspend'),
  target: TargetSchema,
  mode: z.enum(UPGRADE_MODES).optional(),
  ...COMMON_INTENT_FIELDS,
});
type Intent = z.infer<typeof SuspendIntent>;

/** The placeholder the operator writes after an HA last-state deploy: not a savepoint. */
const LAST_STATE_PLACEHOLDER = 'KUBERNETES_OPERATOR_LAST_STATE';
const HA_KEYS = ['high-availability.type', 'high-availability'];
const JOB_CANCEL_KEY = 'kubernetes.operator.job.upgrade.last-state.job-cancel.enabled';

/**
 * A cancel stops the job asynchronously and may leave the reconciliation UPGRADING (docs/lifecycle.md#operator-traps):
 * session jobs unless in savepoint mode; last-state without HA or with job-cancel enabled; or whenever
 * the job is seen CANCELLING/CANCELED, which only a cancel produces.
 */
function cancelBased(ctx: Ctx): boolean {
  if (noopStop(ctx)) return false;
  const job = jobStatusStateOf(ctx.resource);
  if (job === 'CANCELED' || job === 'CANCELLING') return true;
  if (ctx.sessionJob) return ctx.upgradeMode !== MODE.savepoint;
  if (ctx.upgradeMode !== MODE.lastState) return false;
  const ha = readFlinkConfig(ctx.resource, HA_KEYS)?.value.trim().toLowerCase() ?? '';
  const jobCancel = readFlinkConfig(ctx.resource, JOB_CANCEL_KEY)?.value.trim().toLowerCase() === 'true';
  return ha === '' || ha === 'none' || jobCancel;
}

/** Globally terminal job states: the operator stops nothing for them (docs/lifecycle.md#operator-traps). */
const TERMINAL_JOB_STATES = new Set(['FAILED', 'FINISHED', 'CANCELED']);

/**
 * A job already terminal before the submission, in savepoint or stateless mode: the operator suspends with NOOP
 * (no savepoint, no `Suspended` event), writes FINISHED and records the mode, in one status write.
 */
function noopStop(ctx: Ctx): boolean {
  const before = jobStatusStateOf(ctx.before);
  return before !== undefined && TERMINAL_JOB_STATES.has(before) && ctx.upgradeMode !== MODE.lastState;
}

/** The upgrade mode the operator recorded for the suspend, once lastReconciledSpec shows the suspend. */
function recordedSuspendMode(ctx: Ctx): unknown {
  return getPath(ctx.reconciled, ['job', 'state']) === 'suspended'
    ? getPath(ctx.reconciled, ['job', 'upgradeMode'])
    : undefined;
}

function savepointRecorded(ctx: Ctx): Criterion {
  const path = upgradeSavepointPathOf(ctx.resource);
  const previous = upgradeSavepointPathOf(ctx.before);
  const met = path !== undefined && path !== LAST_STATE_PLACEHOLDER && (ctx.before === undefined || path !== previous);
  return criterion(ctx, 'savepoint-recorded', met, path, `${PATH.upgradeSavepointPath} (a new one)`);
}

function suspendRule(ctx: Ctx): Judgement {
  const cancel = cancelBased(ctx);
  const warnings = classifyWarnings(ctx, true);
  const retries = stopRetries(ctx, warnings);
  const notes = [...warnings.notes, ...retries.notes];
  const recorded = recordedSuspendMode(ctx);
  const savepointMode = ctx.upgradeMode === MODE.savepoint && !cancel;
  const noop = noopStop(ctx);
  const expectSavepoint = savepointMode && !noop && (recorded === undefined || recorded === MODE.savepoint);
  if (savepointMode && noop) {
    const path = upgradeSavepointPathOf(ctx.resource) ?? upgradeSavepointPathOf(ctx.before);
    notes.push(
      `no savepoint was taken: the job had already stopped (${String(jobStatusStateOf(ctx.before))}); resume restores from ${path ?? 'its last recorded savepoint (none is recorded)'}`,
    );
  } else if (savepointMode && !expectSavepoint) {
    notes.push(
      `the operator stopped the job with ${String(recorded)} instead of a savepoint (the job was not RUNNING): no new savepoint was taken`,
    );
  }
  const blocked = noBlockingWarnings(ctx, warnings.blocking);
  let criteria: Criterion[];
  if (cancel) {
    criteria = [...specReconciled(ctx), jobStateIn(ctx, 'job-stopped', ['CANCELED', 'FINISHED']), blocked];
    notes.push(
      `lifecycleState: ${lifecycleStateOf(ctx.resource) ?? 'unset'} (recorded, not required for a cancel-based suspend)`,
    );
  } else {
    const savepoint = expectSavepoint ? [savepointRecorded(ctx)] : [];
    criteria = [
      generationObserved(ctx),
      reconciledDeployed(ctx),
      ...specReconciled(ctx),
      lifecycleIs(ctx, 'lifecycle-suspended', 'SUSPENDED'),
      // The operator itself writes FINISHED after every suspend (docs/lifecycle.md#operator-traps); Flink's SUSPENDED
      // never shows.
      jobStateIn(ctx, 'job-finished', ['FINISHED']),
      ...savepoint,
      blocked,
    ];
  }
  const path = expectSavepoint ? upgradeSavepointPathOf(ctx.resource) : undefined;
  return {
    criteria,
    failure: suspendFailure(ctx, warnings),
    notes,
    blocking: warnings.blocking,
    proof: suspendProof(ctx, cancel ? 'cancel' : 'stop', path),
    alerts: retries.alerts,
  };
}

export const suspend = {
  intent: SuspendIntent,
  verb: {
    group: 'operation',
    summary: 'stop the job (spec.job.state: suspended)',
    args: [TARGET],
    flags: [MODE_FLAG, ...OPERATION_FLAGS],
    examples: [
      'suspend analytics/clickstream --mode savepoint --reason "schema migration"',
      'suspend sessionjob:analytics/sessionizer',
    ],
    synonyms: ['stop', 'pause', 'halt'],
    build: (b) => ({ target: b.target, mode: b.mode }),
  },
  traits: {
    change: 'patch',
    stopsJob: true,
    redeploys: true,
    hasMode: true,
    usesUpgradeMode: true,
    onSessionCluster: false,
    onSessionJob: true,
    readsLastSavepoint: false,
    refusedWhileSuspended: false,
  },
  plan: ({ intent, resource }) => {
    if (jobStateOf(resource) === 'suspended') {
      return refusal(`${who(intent.target)} is already suspended (spec.job.state: suspended); nothing to do`);
    }
    const mode = modeEdit(intent.mode, resource);
    return patchOutcome(
      [{ path: PATHS.jobState, after: 'suspended' }, ...mode.edits],
      mode.notes,
      effectiveUpgradeMode(intent.mode, resource),
    );
  },
  evidence: suspendRule,
  undo: { inverse: 'resume', paths: [PATHS.jobState, PATHS.upgradeMode] },
  asInverse: (target) => ({ kind: 'suspend', target, incidentChannels: [] }),
  describe: (intent) => (intent.mode ? ` (mode ${intent.mode})` : ''),
} as const satisfies KindModule<Intent>;
