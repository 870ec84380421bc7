// One reconcile of a FlinkDeployment or FlinkSessionJob: validate, diff against lastReconciledSpec, act.
import { applyAutoscaler } from './autoscaler.js';
import { COMPONENTS, EVENT_TYPES } from './events.js';
import { emit, readRef, realMs, type FlowEnv } from './flow-env.js';
import { errorJson, ERROR_TYPES, reconciliationOf, statusOf, writeStatus, type ResourceRef } from './flink-status.js';
import { imagePullRecoveryDue, recoverImagePull } from './job-deploy.js';
import { resubmitFailedJob, wantsResubmit } from './job-resubmit.js';
import { observeLostSessionJob } from './session-jobs-after-redeploy.js';
import { canScaleInPlace } from './in-place-scale.js';
import {
  firstDeploy,
  resume,
  rollBack,
  savepointRedeploy,
  scaleInPlace,
  upgradeRunning,
  type StepResult,
} from './job-upgrades.js';
import { validationProblem } from './operator-validation.js';
import { reportReconcileError, terminalWithoutCheckpoint } from './reconcile-errors.js';
import { kindOf, sessionClusterOf } from './resource-conf.js';
import {
  confFlag,
  diffSpecs,
  haEnabled,
  isFirstDeploymentSpec,
  jobOf,
  parseReconciledSpec,
  specChangedMessage,
  specConf,
  type Spec,
  type SpecDiff,
} from './spec-json.js';
import { parseFlinkDurationSeconds } from './speed.js';
import type { KubeObject } from './store.js';

export type { StepResult };

export async function reconcileJobResource(env: FlowEnv, ref: ResourceRef): Promise<StepResult> {
  let object = readRef(env, ref);
  if (!statusOf(object).reconciliationStatus) object = writeInitialStatus(env, ref, object);
  // SessionJobReconciler.readyToReconcile: nothing happens (no status, no event) until the cluster is READY.
  if (kindOf(object) === 'FlinkSessionJob' && !sessionClusterReady(env, object)) return 'done';
  if (observeLostSessionJob(env, ref)) object = readRef(env, ref);
  let last = parseReconciledSpec(statusOf(object).reconciliationStatus?.lastReconciledSpec);
  const problem = validationProblem(env.store, object, last, env.settings(object), env.operatorVersion);
  if (problem !== undefined) return reportInvalid(env, ref, object, problem);
  if (!last) return jobOf(object.spec)?.state === 'suspended' ? 'done' : firstDeploy(env, ref);
  // The autoscaler runs before the diff: its overrides become part of the spec this reconcile works with.
  object = applyAutoscaler(env, ref, object, last);
  last = parseReconciledSpec(statusOf(object).reconciliationStatus?.lastReconciledSpec) ?? last;
  const spec = object.spec ?? {};
  const interrupted = interruptedDeployment(object);
  if (interrupted === 'first') return firstDeploy(env, ref);
  if (interrupted === 'session-cluster') return resume(env, ref, last);
  if (interruptedSuspend(object, last)) return upgradeRunning(env, ref, last);
  const diff = diffSpecs(kindOf(object), last, spec);
  if (diff.type === 'IGNORE') return noSpecChange(env, ref, object, last);
  if (env.memo.specChangedGeneration !== object.metadata.generation) {
    env.memo.specChangedGeneration = object.metadata.generation;
    const generation = String(object.metadata.generation);
    emit(
      env,
      object,
      EVENT_TYPES.normal,
      'SpecChanged',
      COMPONENTS.jobManagerDeployment,
      specChangedMessage(kindOf(object), diff),
      `SpecChange: ${generation}`,
    );
  }
  return route(env, ref, object, last, diff);
}

function route(
  env: FlowEnv,
  ref: ResourceRef,
  object: KubeObject,
  last: Spec,
  diff: SpecDiff,
): Promise<StepResult> | StepResult {
  const reconciliation = reconciliationOf(statusOf(object));
  const stable = parseReconciledSpec(reconciliation.lastStableSpec);
  if (
    reconciliation.state === 'ROLLED_BACK' &&
    stable &&
    diffSpecs(kindOf(object), stable, object.spec ?? {}).type === 'IGNORE'
  ) {
    return markAlreadyDeployed(env, ref);
  }
  if (diff.type === 'SAVEPOINT_REDEPLOY') return savepointRedeploy(env, ref, last);
  if (diff.type === 'SCALE' && canScaleInPlace(object, last, diff)) return scaleInPlace(env, ref, last);
  const current = jobOf(last)?.state ?? 'running';
  const desired = jobOf(object.spec)?.state ?? 'running';
  // The `upgrade-failed` knob: getJobUpgrade throws before anything is written, on every reconcile.
  if (desired === 'running' && jobOf(object.spec) && env.settings(object).scenarios.has('upgrade-failed')) {
    return reportReconcileError(env, ref, terminalWithoutCheckpoint());
  }
  if (current === 'running') return upgradeRunning(env, ref, last);
  if (desired === 'running') return resume(env, ref, last);
  // suspended → suspended (AbstractJobReconciler:211): SpecChanged only, nothing recorded until a resume.
  return 'done';
}

function writeInitialStatus(env: FlowEnv, ref: ResourceRef, object: KubeObject): KubeObject {
  return writeStatus(env.store, ref, (status) => {
    status.jobStatus = {
      checkpointInfo: { lastPeriodicCheckpointTimestamp: 0 },
      savepointInfo: { lastPeriodicSavepointTimestamp: 0, savepointHistory: [] },
    };
    if (kindOf(object) === 'FlinkDeployment') status.jobManagerDeploymentStatus = 'MISSING';
    status.reconciliationStatus = { state: 'UPGRADING' };
  });
}

function sessionClusterReady(env: FlowEnv, object: KubeObject): boolean {
  const cluster = sessionClusterOf(env.store, object);
  return cluster !== undefined && statusOf(cluster).jobManagerDeploymentStatus === 'READY';
}

/** ValidationError event and status.error; observedGeneration stays and the previous spec keeps running. */
function reportInvalid(env: FlowEnv, ref: ResourceRef, object: KubeObject, problem: string): StepResult {
  if (env.memo.invalidGeneration === object.metadata.generation) return 'done';
  env.memo.invalidGeneration = object.metadata.generation;
  // validateDeployment emits the event, then the error is patched with the status.
  emit(env, object, EVENT_TYPES.warning, 'ValidationError', COMPONENTS.operator, problem);
  writeStatus(env.store, ref, (status) => void (status.error = errorJson(ERROR_TYPES.validation, problem)));
  return 'done';
}

/**
 * A deployment cut short (a knob's wait was interrupted) after it wrote UPGRADING and before it submitted:
 * the first deployment is started again; a session cluster, whose spec has no job.state to diff, is redeployed.
 * (A job resource's suspended target spec diffs as suspended → running and resumes by itself.)
 */
function interruptedDeployment(object: KubeObject): 'first' | 'session-cluster' | undefined {
  const reconciliation = reconciliationOf(statusOf(object));
  if (reconciliation.state !== 'UPGRADING') return undefined;
  const job = jobOf(object.spec);
  if (isFirstDeploymentSpec(reconciliation.lastReconciledSpec) && job?.state !== 'suspended') return 'first';
  if (kindOf(object) === 'FlinkDeployment' && !job && statusOf(object).jobManagerDeploymentStatus === 'MISSING')
    return 'session-cluster';
  return undefined;
}

/** A suspend that was cut short after it wrote UPGRADING while the job still runs: finish it. */
function interruptedSuspend(object: KubeObject, last: Spec): boolean {
  const status = statusOf(object);
  return (
    status.reconciliationStatus?.state === 'UPGRADING' &&
    jobOf(last)?.state === 'suspended' &&
    jobOf(object.spec)?.state === 'suspended' &&
    ['RUNNING', 'CREATED', 'RECONCILING'].includes(String(status.jobStatus?.state))
  );
}

/**
 * Nothing to deploy. Since 1.11 observedGeneration still advances for IGNORE-class changes (nothing else
 * moves) — but not while UPGRADING, which counts as a spec change: a cancel-based suspend that left UPGRADING
 * is suspended → suspended and writes nothing. Then the deadlines of a JobManager in ERROR: the rollback, and
 * the image pull that succeeds after a while.
 */
async function noSpecChange(env: FlowEnv, ref: ResourceRef, object: KubeObject, last: Spec): Promise<StepResult> {
  const status = statusOf(object);
  if (status.reconciliationStatus?.state === 'UPGRADING' && jobOf(last)?.state === 'suspended') return 'done';
  if (status.observedGeneration !== object.metadata.generation) {
    writeStatus(env.store, ref, (s, current) => {
      s.observedGeneration = current.metadata.generation;
      if (s.error?.includes(ERROR_TYPES.validation)) delete s.error;
    });
  }
  if (wantsResubmit(env.store, readRef(env, ref))) return resubmitFailedJob(env, ref);
  if (kindOf(object) !== 'FlinkDeployment') return 'done';
  const current = readRef(env, ref);
  const rollback = rollbackDue(env, current);
  if (rollback === 'now') return rollBack(env, ref);
  const recovery = imagePullRecoveryDue(env, current);
  if (recovery === 'now') return recoverImagePull(env, ref);
  const next = Math.min(...[rollback, recovery].filter((ms): ms is number => ms !== undefined));
  if (Number.isFinite(next)) env.reconcileAfterMs(next);
  return 'done';
}

/**
 * AbstractFlinkResourceReconciler.shouldRollBack: enabled, a non-suspended lastStableSpec, not stable within
 * the readiness timeout (scaled by speed) since reconciliationTimestamp, same flinkVersion, and HA metadata —
 * or a savepoint-mode deploy whose JobManager never started. Returns 'now', ms until due, or undefined.
 */
function rollbackDue(env: FlowEnv, object: KubeObject): 'now' | number | undefined {
  const status = statusOf(object);
  const reconciliation = reconciliationOf(status);
  if (reconciliation.state !== 'DEPLOYED' || reconciliation.lastStableSpec === reconciliation.lastReconciledSpec)
    return undefined;
  const stable = parseReconciledSpec(reconciliation.lastStableSpec);
  const last = parseReconciledSpec(reconciliation.lastReconciledSpec);
  if (!stable || !last || jobOf(stable)?.state === 'suspended' || stable.flinkVersion !== last.flinkVersion)
    return undefined;
  const conf = specConf(object.spec);
  if (!confFlag(conf, 'kubernetes.operator.deployment.rollback.enabled')) return undefined;
  const mode = jobOf(last)?.upgradeMode;
  const jmNeverStarted = status.jobManagerDeploymentStatus !== 'READY';
  if (!(haEnabled(conf) || mode === 'stateless' || (mode === 'savepoint' && jmNeverStarted))) return undefined;
  const timeoutSeconds = parseFlinkDurationSeconds(conf['kubernetes.operator.deployment.readiness.timeout']) ?? 300;
  const remaining =
    Number(reconciliation.reconciliationTimestamp ?? 0) + realMs(env, timeoutSeconds) - env.store.now().getTime();
  return remaining <= 0 ? 'now' : remaining;
}

/** checkNewSpecAlreadyDeployed: after a rollback, a spec equal to lastStableSpec is marked DEPLOYED as is. */
function markAlreadyDeployed(env: FlowEnv, ref: ResourceRef): StepResult {
  writeStatus(
    env.store,
    ref,
    (status, current) => {
      const reconciliation = reconciliationOf(status);
      reconciliation.state = 'DEPLOYED';
      reconciliation.lastReconciledSpec = reconciliation.lastStableSpec;
      status.observedGeneration = current.metadata.generation;
      delete status.error;
    },
    { conditions: true },
  );
  return 'done';
}
