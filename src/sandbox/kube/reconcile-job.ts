// One reconcile of a FlinkDeployment or FlinkSessionJob: validate, diff against lastReconciledSpec, act.
import { COMPONENTS, EVENT_TYPES } from './events.js';
import { emit, readRef, realMs, type FlowEnv } from './flow-env.js';
import { errorJson, ERROR_TYPES, reconciliationOf, statusOf, writeStatus, type ResourceRef } from './flink-status.js';
import { imagePullRecoveryDue, recoverImagePull } from './job-deploy.js';
import { firstDeploy, resume, rollBack, savepointRedeploy, scaleInPlace, upgradeRunning, type StepResult } from './job-upgrades.js';
import { validationProblem } from './operator-validation.js';
import { reportReconcileError, terminalWithoutCheckpoint } from './reconcile-errors.js';
import { kindOf, sessionClusterOf } from './resource-conf.js';
import {
  confFlag,
  diffSpecs,
  haEnabled,
  isFirstDeploymentSpec,
  jobOf,
  PARALLELISM_OVERRIDES,
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
  const last = parseReconciledSpec(statusOf(object).reconciliationStatus?.lastReconciledSpec);
  const problem = validationProblem(env.store, object, last, env.settings(object));
  if (problem !== undefined) return reportInvalid(env, ref, object, problem);
  const spec = object.spec ?? {};
  if (!last) return jobOf(spec)?.state === 'suspended' ? 'done' : firstDeploy(env, ref);
  const interrupted = interruptedDeployment(object);
  if (interrupted === 'first') return firstDeploy(env, ref);
  if (interrupted === 'session-cluster') return resume(env, ref, last);
  if (interruptedSuspend(object, last)) return upgradeRunning(env, ref, last);
  const diff = diffSpecs(kindOf(object), last, spec);
  if (diff.type === 'IGNORE') return noSpecChange(env, ref, object, last);
  if (env.memo.specChangedGeneration !== object.metadata.generation) {
    env.memo.specChangedGeneration = object.metadata.generation;
    const generation = String(object.metadata.generation);
    emit(env, object, EVENT_TYPES.normal, 'SpecChanged', COMPONENTS.jobManagerDeployment, specChangedMessage(kindOf(object), diff), `SpecChange: ${generation}`);
  }
  return route(env, ref, object, last, diff);
}

function route(env: FlowEnv, ref: ResourceRef, object: KubeObject, last: Spec, diff: SpecDiff): Promise<StepResult> | StepResult {
  const reconciliation = reconciliationOf(statusOf(object));
  const stable = parseReconciledSpec(reconciliation.lastStableSpec);
  if (reconciliation.state === 'ROLLED_BACK' && stable && diffSpecs(kindOf(object), stable, object.spec ?? {}).type === 'IGNORE') {
    return markAlreadyDeployed(env, ref);
  }
  if (diff.type === 'SAVEPOINT_REDEPLOY') return savepointRedeploy(env, ref, last);
  if (diff.type === 'SCALE' && canScaleInPlace(object, diff)) return scaleInPlace(env, ref, last);
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
    status.jobStatus = { checkpointInfo: { lastPeriodicCheckpointTimestamp: 0 }, savepointInfo: { lastPeriodicSavepointTimestamp: 0, savepointHistory: [] } };
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
  if (kindOf(object) === 'FlinkDeployment' && !job && statusOf(object).jobManagerDeploymentStatus === 'MISSING') return 'session-cluster';
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
  if (reconciliation.state !== 'DEPLOYED' || reconciliation.lastStableSpec === reconciliation.lastReconciledSpec) return undefined;
  const stable = parseReconciledSpec(reconciliation.lastStableSpec);
  const last = parseReconciledSpec(reconciliation.lastReconciledSpec);
  if (!stable || !last || jobOf(stable)?.state === 'suspended' || stable.flinkVersion !== last.flinkVersion) return undefined;
  const conf = specConf(object.spec);
  if (!confFlag(conf, 'kubernetes.operator.deployment.rollback.enabled')) return undefined;
  const mode = jobOf(last)?.upgradeMode;
  const jmNeverStarted = status.jobManagerDeploymentStatus !== 'READY';
  if (!(haEnabled(conf) || mode === 'stateless' || (mode === 'savepoint' && jmNeverStarted))) return undefined;
  const timeoutSeconds = parseFlinkDurationSeconds(conf['kubernetes.operator.deployment.readiness.timeout']) ?? 300;
  const remaining = Number(reconciliation.reconciliationTimestamp ?? 0) + realMs(env, timeoutSeconds) - env.store.now().getTime();
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

/** In-place rescaling needs only the overrides key changed, the adaptive scheduler, Flink ≥ 1.18 and a RUNNING job. */
function canScaleInPlace(object: KubeObject, diff: SpecDiff): boolean {
  if (kindOf(object) !== 'FlinkDeployment' || object.spec?.mode === 'standalone') return false;
  const conf = specConf(object.spec);
  const onlyOverrides = diff.diffs.every((d) => d.type === 'IGNORE' || d.path === `flinkConfiguration.${PARALLELISM_OVERRIDES}`);
  const version = /^v(\d+)_(\d+)$/.exec(String(object.spec?.flinkVersion ?? ''));
  const recent = version !== null && (Number(version[1]) > 1 || Number(version[2]) >= 18);
  return (
    onlyOverrides &&
    recent &&
    conf['jobmanager.scheduler'] === 'adaptive' &&
    confFlag(conf, 'kubernetes.operator.job.upgrade.inplace-scaling.enabled', true) &&
    statusOf(object).jobStatus?.state === 'RUNNING'
  );
}
