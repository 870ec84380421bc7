// Spec changes the operator acts on: upgrade or suspend a running job, resume, savepoint redeploy, rollback.
import { COMPONENTS, EVENT_TYPES, MESSAGES } from './events.js';
import { emit, epochMs, readRef, type FlowEnv } from './flow-env.js';
import { errorJson, ERROR_TYPES, reconciliationOf, statusOf, writeStatus, type ResourceRef, type Status } from './flink-status.js';
import { chooseStop, deployJob, stopJob, withJob, writeBeforeDeployment, setJobState, type DeployOutcome, type Restore, type StopResult } from './job-steps.js';
import { jobConf, kindOf } from './resource-conf.js';
import { haEnabled, jobOf, parseReconciledSpec, serializeReconciledSpec, type Spec } from './spec-json.js';
import { STEP_SECONDS } from './speed.js';

export type StepResult = 'done' | 'retry';

/** The slow-reconcile and stuck-upgrading knobs, applied while the resource shows UPGRADING. */
export async function applyKnobs(env: FlowEnv, ref: ResourceRef): Promise<void> {
  const settings = env.settings(readRef(env, ref));
  if (settings.scenarios.has('slow-reconcile')) await env.interruptibleSleep(settings.slowReconcileSeconds);
  while (env.settings(readRef(env, ref)).scenarios.has('stuck-upgrading')) await env.interruptibleSleep(STEP_SECONDS.stuckPoll);
}

function hasKnobs(env: FlowEnv, ref: ResourceRef): boolean {
  const { scenarios } = env.settings(readRef(env, ref));
  return scenarios.has('slow-reconcile') || scenarios.has('stuck-upgrading');
}

/** A running job (or session cluster) gets a new spec: stop it by its upgrade mode, then redeploy or stay suspended. */
export async function upgradeRunning(env: FlowEnv, ref: ResourceRef, last: Spec): Promise<StepResult> {
  const object = readRef(env, ref);
  const spec = object.spec ?? {};
  const suspending = jobOf(spec)?.state === 'suspended';
  emit(env, object, EVENT_TYPES.normal, 'Suspended', COMPONENTS.jobManagerDeployment, MESSAGES.suspended);
  const plan = chooseStop(env.store, object, last);
  if (suspending && plan.mechanism !== 'cancel' && hasKnobs(env, ref)) {
    writeBeforeDeployment(env, ref, spec, plan.recordedMode, false);
    await applyKnobs(env, ref);
  }
  const result = await stopJob(env, ref, plan, spec, false);
  if (!result.ok) return savepointFailed(env, ref, result.message);
  if (suspending) {
    finishSuspend(env, ref, spec, plan.recordedMode, result, plan.mechanism === 'cancel');
    return 'done';
  }
  writeStatus(env.store, ref, (status, current) => {
    const reconciliation = reconciliationOf(status);
    reconciliation.state = 'UPGRADING';
    reconciliation.lastReconciledSpec = serializeReconciledSpec(kindOf(current), suspendedSpec(spec, plan.recordedMode), false);
    reconciliation.reconciliationTimestamp = epochMs(env);
    status.observedGeneration = current.metadata.generation;
    applyStop(env, status, result, jobOf(current.spec) !== undefined);
  });
  await applyKnobs(env, ref);
  await env.sleep(STEP_SECONDS.pickup);
  return afterDeploy(await deployJob(env, ref, spec, { firstDeployment: false, recordedMode: plan.recordedMode, restore: restoreFor(env, ref, plan.recordedMode) }));
}

function suspendedSpec(spec: Spec, mode: string): Spec {
  return jobOf(spec) ? withJob(spec, { state: 'suspended', upgradeMode: mode }) : spec;
}

/** What a stop leaves in the status: FINISHED (written by the operator) or CANCELED, JM, TaskManagers gone. */
function applyStop(env: FlowEnv, status: Status, result: Extract<StopResult, { ok: true }>, hasJob = true): void {
  if (hasJob) setJobState(status, result.jobState, epochMs(env));
  if (result.jm !== undefined) status.jobManagerDeploymentStatus = result.jm;
  if (result.upgradeSavepointPath !== undefined) (status.jobStatus ??= {}).upgradeSavepointPath = result.upgradeSavepointPath;
  if (status.taskManager) status.taskManager = { labelSelector: '', replicas: 0 };
}

/**
 * The end of a suspend. Synchronous: DEPLOYED, job FINISHED, spec marked stable. Cancel-based: only
 * observedGeneration moves; reconciliation stays UPGRADING (as the reference reads the code).
 */
function finishSuspend(env: FlowEnv, ref: ResourceRef, spec: Spec, mode: string, result: Extract<StopResult, { ok: true }>, cancelBased: boolean): void {
  writeStatus(
    env.store,
    ref,
    (status, current) => {
      const reconciliation = reconciliationOf(status);
      status.observedGeneration = current.metadata.generation;
      applyStop(env, status, result);
      if (ref.resource === 'flinksessionjobs' && !cancelBased && status.jobStatus) delete status.jobStatus.jobId;
      if (cancelBased) return;
      reconciliation.state = 'DEPLOYED';
      reconciliation.lastReconciledSpec = serializeReconciledSpec(kindOf(current), suspendedSpec(spec, mode), false);
      reconciliation.lastStableSpec = reconciliation.lastReconciledSpec;
      reconciliation.reconciliationTimestamp = epochMs(env);
      delete status.error;
    },
    { conditions: !cancelBased },
  );
}

/** Stop-with-savepoint failed: SavepointError, status.error, nothing else moves; the operator retries later. */
async function savepointFailed(env: FlowEnv, ref: ResourceRef, message: string): Promise<StepResult> {
  const updated = writeStatus(env.store, ref, (status) => void (status.error = errorJson(ERROR_TYPES.upgradeFailure, message)));
  emit(env, updated, EVENT_TYPES.warning, 'SavepointError', COMPONENTS.jobManagerDeployment, message);
  await env.interruptibleSleep(STEP_SECONDS.reconcileRetry);
  return 'retry';
}

/** Where a restore starts: the recorded mode decides (savepoint → upgradeSavepointPath, last-state → HA). */
function restoreFor(env: FlowEnv, ref: ResourceRef, mode: string): Restore {
  const object = readRef(env, ref);
  const path = statusOf(object).jobStatus?.upgradeSavepointPath;
  const usablePath: Restore = path && path !== 'KUBERNETES_OPERATOR_LAST_STATE' ? { kind: 'path', path } : { kind: 'none' };
  if (mode === 'savepoint') return usablePath;
  if (mode === 'last-state') return kindOf(object) === 'FlinkDeployment' && haEnabled(jobConf(env.store, object)) ? { kind: 'ha' } : usablePath;
  return { kind: 'none' };
}

/** suspended → running: the mode recorded at suspension is inherited unless the spec now says stateless. */
export async function resume(env: FlowEnv, ref: ResourceRef, last: Spec): Promise<StepResult> {
  const spec = readRef(env, ref).spec ?? {};
  const wanted = String(jobOf(spec)?.upgradeMode ?? 'stateless');
  const mode = wanted === 'stateless' ? 'stateless' : String(jobOf(last)?.upgradeMode ?? 'stateless');
  writeBeforeDeployment(env, ref, spec, mode, false);
  await applyKnobs(env, ref);
  return afterDeploy(await deployJob(env, ref, spec, { firstDeployment: false, recordedMode: mode, restore: restoreFor(env, ref, mode) }));
}

/** First deployment: initialSavepointPath is honoured only here (and by savepoint redeploy). */
export async function firstDeploy(env: FlowEnv, ref: ResourceRef): Promise<StepResult> {
  const spec = readRef(env, ref).spec ?? {};
  const job = jobOf(spec);
  const mode = String(job?.upgradeMode ?? 'stateless');
  const initial = job?.initialSavepointPath;
  writeBeforeDeployment(env, ref, spec, mode, true);
  await applyKnobs(env, ref);
  const restore: Restore = typeof initial === 'string' && initial !== '' ? { kind: 'path', path: initial } : { kind: 'none' };
  return afterDeploy(await deployJob(env, ref, spec, { firstDeployment: true, recordedMode: mode, restore }));
}

function afterDeploy(outcome: DeployOutcome): StepResult {
  // A failed pull is watched further (ImagePullBackOff, rollback deadline) by the next reconcile.
  return outcome === 'image-pull-failed' ? 'retry' : 'done';
}

/**
 * savepointRedeployNonce + initialSavepointPath: cancel without savepoint, deploy from the path with a new jobId,
 * and mark the spec stable at once (before the job runs). On a suspended target only the path is recorded.
 */
export async function savepointRedeploy(env: FlowEnv, ref: ResourceRef, last: Spec): Promise<StepResult> {
  const spec = readRef(env, ref).spec ?? {};
  const path = String(jobOf(spec)?.initialSavepointPath ?? '');
  const wasRunning = jobOf(last)?.state === 'running';
  if (wasRunning) await env.sleep(STEP_SECONDS.suspend);
  if (jobOf(spec)?.state === 'running') {
    return afterDeploy(await deployJob(env, ref, spec, { firstDeployment: false, recordedMode: 'savepoint', restore: { kind: 'path', path }, markStable: true }));
  }
  writeStatus(
    env.store,
    ref,
    (status, current) => {
      const reconciliation = reconciliationOf(status);
      reconciliation.state = 'DEPLOYED';
      reconciliation.lastReconciledSpec = serializeReconciledSpec(kindOf(current), suspendedSpec(spec, 'savepoint'), false);
      reconciliation.lastStableSpec = reconciliation.lastReconciledSpec;
      reconciliation.reconciliationTimestamp = epochMs(env);
      status.observedGeneration = current.metadata.generation;
      if (wasRunning) applyStop(env, status, { ok: true, jobState: 'FINISHED', jm: ref.resource === 'flinkdeployments' ? 'MISSING' : undefined });
      (status.jobStatus ??= {}).upgradeSavepointPath = path;
      delete status.error;
    },
    { conditions: true },
  );
  return 'done';
}

/** A suspended resource whose other fields changed: the new spec is recorded, nothing runs. */
export function recordSuspendedSpec(env: FlowEnv, ref: ResourceRef): StepResult {
  writeStatus(env.store, ref, (status, current) => {
    const reconciliation = reconciliationOf(status);
    reconciliation.lastReconciledSpec = serializeReconciledSpec(kindOf(current), current.spec ?? {}, false);
    if (reconciliation.state === 'DEPLOYED') reconciliation.lastStableSpec = reconciliation.lastReconciledSpec;
    reconciliation.reconciliationTimestamp = epochMs(env);
    status.observedGeneration = current.metadata.generation;
    delete status.error;
  });
  return 'done';
}

/** In-place rescale (parallelism overrides, adaptive scheduler, Flink ≥ 1.18): a Scaling event, no redeploy. */
export function scaleInPlace(env: FlowEnv, ref: ResourceRef, last: Spec): StepResult {
  const object = readRef(env, ref);
  const spec = withJob(object.spec ?? {}, { upgradeMode: jobOf(last)?.upgradeMode ?? 'stateless' });
  emit(env, object, EVENT_TYPES.normal, 'Scaling', COMPONENTS.job, MESSAGES.inPlaceScaling);
  writeStatus(
    env.store,
    ref,
    (status, current) => {
      const reconciliation = reconciliationOf(status);
      reconciliation.state = 'DEPLOYED';
      reconciliation.lastReconciledSpec = serializeReconciledSpec(kindOf(current), spec, false);
      reconciliation.lastStableSpec = reconciliation.lastReconciledSpec;
      reconciliation.reconciliationTimestamp = epochMs(env);
      status.observedGeneration = current.metadata.generation;
    },
    { conditions: true },
  );
  return 'done';
}

/** Rolls back to lastStableSpec: the user spec and observedGeneration stay; ROLLING_BACK → ROLLED_BACK. */
export async function rollBack(env: FlowEnv, ref: ResourceRef): Promise<StepResult> {
  const object = readRef(env, ref);
  const stable = parseReconciledSpec(reconciliationOf(statusOf(object)).lastStableSpec);
  if (!stable) return 'done';
  emit(env, object, EVENT_TYPES.normal, 'Rollback', COMPONENTS.jobManagerDeployment, MESSAGES.rollback);
  writeStatus(env.store, ref, (status) => void (reconciliationOf(status).state = 'ROLLING_BACK'));
  await env.sleep(STEP_SECONDS.suspend);
  const mode = String(jobOf(stable)?.upgradeMode ?? 'stateless');
  await deployJob(env, ref, stable, { firstDeployment: false, recordedMode: mode, restore: restoreFor(env, ref, mode), rollback: true });
  return 'done';
}
