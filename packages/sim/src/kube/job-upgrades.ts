// Spec changes the operator acts on: upgrade or suspend a running job, resume, savepoint redeploy, rollback.
import { COMPONENTS, EVENT_TYPES, MESSAGES } from './events.js';
import { emit, epochMs, readRef, type FlowEnv } from './flow-env.js';
import { reconciliationOf, statusOf, writeStatus, type ResourceRef, type Status } from './flink-status.js';
import { startInPlaceRescale } from './in-place-scale.js';
import { deployJob, writeBeforeDeployment, type DeployOutcome } from './job-deploy.js';
import { LAST_STATE_PLACEHOLDER, setJobState, suspendedSpec, withJob, type Restore } from './job-steps.js';
import {
  cancelAsync,
  chooseStop,
  stopJob,
  waitForUpgradeableState,
  type StopPlan,
  type StopResult,
} from './job-stop.js';
import { nullJobId, reportReconcileError } from './reconcile-errors.js';
import { jobConf, kindOf } from './resource-conf.js';
import { haEnabled, jobOf, parseReconciledSpec, serializeReconciledSpec, type Spec } from './spec-json.js';
import { STEP_SECONDS } from './speed.js';

export type StepResult = 'done' | 'retry';

/** The slow-reconcile and stuck-upgrading knobs, applied while the resource shows UPGRADING. */
export async function applyKnobs(env: FlowEnv, ref: ResourceRef): Promise<void> {
  const settings = env.settings(readRef(env, ref));
  if (settings.scenarios.has('slow-reconcile')) await env.interruptibleSleep(settings.slowReconcileSeconds);
  while (env.settings(readRef(env, ref)).scenarios.has('stuck-upgrading'))
    await env.interruptibleSleep(STEP_SECONDS.stuckPoll);
}

function hasKnobs(env: FlowEnv, ref: ResourceRef): boolean {
  const { scenarios } = env.settings(readRef(env, ref));
  return scenarios.has('slow-reconcile') || scenarios.has('stuck-upgrading');
}

/**
 * A running job (or session cluster) gets a new spec: stop it the way getJobUpgrade chooses, then redeploy or
 * stay suspended. `Suspended` is emitted only when something is stopped (not for NOOP, nor by SessionReconciler).
 */
export async function upgradeRunning(env: FlowEnv, ref: ResourceRef, last: Spec): Promise<StepResult> {
  const object = readRef(env, ref);
  const spec = object.spec ?? {};
  const choice = chooseStop(env.store, object, last);
  if (choice.kind === 'wait') return waitForUpgradeableState(env, ref);
  if (choice.kind === 'error') return reportReconcileError(env, ref, choice.error);
  const { plan } = choice;
  if (plan.mechanism !== 'noop' && jobOf(spec))
    emit(env, object, EVENT_TYPES.normal, 'Suspended', COMPONENTS.jobManagerDeployment, MESSAGES.suspended);
  if (plan.mechanism === 'cancel') {
    await cancelAsync(env, ref, last, plan);
    // A suspend is done once CANCELED; an upgrade is deployed by the next reconcile (suspended → running).
    return jobOf(spec)?.state === 'suspended' ? 'done' : 'retry';
  }
  return stopSynchronously(env, ref, spec, plan);
}

async function stopSynchronously(env: FlowEnv, ref: ResourceRef, spec: Spec, plan: StopPlan): Promise<StepResult> {
  const suspending = jobOf(spec)?.state === 'suspended';
  if (suspending && hasKnobs(env, ref)) {
    writeBeforeDeployment(env, ref, spec, plan.recordedMode, false);
    await applyKnobs(env, ref);
  }
  const result = await stopJob(env, ref, plan);
  if (!result.ok) return reportReconcileError(env, ref, result.error);
  if (suspending) {
    finishSuspend(env, ref, spec, plan.recordedMode, result);
    return 'done';
  }
  writeStatus(env.store, ref, (status, current) => {
    const reconciliation = reconciliationOf(status);
    reconciliation.state = 'UPGRADING';
    reconciliation.lastReconciledSpec = serializeReconciledSpec(
      kindOf(current),
      suspendedSpec(spec, plan.recordedMode),
      false,
    );
    reconciliation.reconciliationTimestamp = epochMs(env);
    status.observedGeneration = current.metadata.generation;
    delete status.error;
    applyStop(env, status, result, jobOf(current.spec) !== undefined);
  });
  await applyKnobs(env, ref);
  await env.sleep(STEP_SECONDS.pickup);
  return afterDeploy(
    await deployJob(env, ref, spec, {
      firstDeployment: false,
      recordedMode: plan.recordedMode,
      restore: restoreFor(env, ref, plan.recordedMode),
    }),
  );
}

/** What a synchronous stop leaves: FINISHED (written by the operator), the JobManager as the mode leaves it, no TaskManagers. */
function applyStop(env: FlowEnv, status: Status, result: Extract<StopResult, { ok: true }>, hasJob = true): void {
  if (hasJob) setJobState(status, result.jobState, epochMs(env), false);
  if (result.jm !== undefined) status.jobManagerDeploymentStatus = result.jm;
  if (result.upgradeSavepointPath !== undefined)
    (status.jobStatus ??= {}).upgradeSavepointPath = result.upgradeSavepointPath;
  if (status.taskManager) status.taskManager = { labelSelector: '', replicas: 0 };
}

/**
 * A synchronous suspend: the stop and updateStatusForDeployedSpec in one patch — DEPLOYED, the generation, job
 * FINISHED, the suspended spec marked stable. A completed stop of a session job clears its jobId.
 */
function finishSuspend(
  env: FlowEnv,
  ref: ResourceRef,
  spec: Spec,
  mode: string,
  result: Extract<StopResult, { ok: true }>,
): void {
  writeStatus(
    env.store,
    ref,
    (status, current) => {
      const reconciliation = reconciliationOf(status);
      status.observedGeneration = current.metadata.generation;
      applyStop(env, status, result);
      if (ref.resource === 'flinksessionjobs' && status.jobStatus) delete status.jobStatus.jobId;
      reconciliation.state = 'DEPLOYED';
      reconciliation.lastReconciledSpec = serializeReconciledSpec(kindOf(current), suspendedSpec(spec, mode), false);
      reconciliation.lastStableSpec = reconciliation.lastReconciledSpec;
      reconciliation.reconciliationTimestamp = epochMs(env);
      delete status.error;
    },
    { conditions: true },
  );
}

/** Where a restore starts: the recorded mode decides (savepoint → upgradeSavepointPath, last-state → HA). */
function restoreFor(env: FlowEnv, ref: ResourceRef, mode: string): Restore {
  const object = readRef(env, ref);
  const path = statusOf(object).jobStatus?.upgradeSavepointPath;
  const usablePath: Restore = path && path !== LAST_STATE_PLACEHOLDER ? { kind: 'path', path } : { kind: 'none' };
  if (mode === 'savepoint') return usablePath;
  if (mode === 'last-state')
    return kindOf(object) === 'FlinkDeployment' && haEnabled(jobConf(env.store, object)) ? { kind: 'ha' } : usablePath;
  return { kind: 'none' };
}

/** suspended → running: the mode recorded at suspension is inherited unless the spec now says stateless. */
export async function resume(env: FlowEnv, ref: ResourceRef, last: Spec): Promise<StepResult> {
  const spec = readRef(env, ref).spec ?? {};
  const wanted = String(jobOf(spec)?.upgradeMode ?? 'stateless');
  const mode = wanted === 'stateless' ? 'stateless' : String(jobOf(last)?.upgradeMode ?? 'stateless');
  writeBeforeDeployment(env, ref, spec, mode, false);
  await applyKnobs(env, ref);
  return afterDeploy(
    await deployJob(env, ref, spec, {
      firstDeployment: false,
      recordedMode: mode,
      restore: restoreFor(env, ref, mode),
    }),
  );
}

/** First deployment: initialSavepointPath is honoured only here (and by savepoint redeploy). */
export async function firstDeploy(env: FlowEnv, ref: ResourceRef): Promise<StepResult> {
  const spec = readRef(env, ref).spec ?? {};
  const job = jobOf(spec);
  const mode = String(job?.upgradeMode ?? 'stateless');
  const initial = job?.initialSavepointPath;
  writeBeforeDeployment(env, ref, spec, mode, true);
  await applyKnobs(env, ref);
  const restore: Restore =
    typeof initial === 'string' && initial !== '' ? { kind: 'path', path: initial } : { kind: 'none' };
  return afterDeploy(await deployJob(env, ref, spec, { firstDeployment: true, recordedMode: mode, restore }));
}

function afterDeploy(outcome: DeployOutcome): StepResult {
  // A failed pull is watched further (recovery, rollback deadline) by the next reconcile.
  return outcome === 'image-pull-failed' ? 'retry' : 'done';
}

/**
 * savepointRedeployNonce + initialSavepointPath: cancel without savepoint, deploy from the path with a new jobId,
 * and mark the spec stable at once (before the job runs). On a suspended target only the path is recorded.
 * A session job whose jobId a savepoint suspend cleared cannot be cancelled: `Error` on every reconcile.
 */
export async function savepointRedeploy(env: FlowEnv, ref: ResourceRef, last: Spec): Promise<StepResult> {
  const current = readRef(env, ref);
  if (kindOf(current) === 'FlinkSessionJob' && !statusOf(current).jobStatus?.jobId)
    return reportReconcileError(env, ref, nullJobId());
  const spec = current.spec ?? {};
  const path = String(jobOf(spec)?.initialSavepointPath ?? '');
  const wasRunning = jobOf(last)?.state === 'running';
  if (wasRunning) await env.sleep(STEP_SECONDS.suspend);
  if (jobOf(spec)?.state === 'running') {
    return afterDeploy(
      await deployJob(env, ref, spec, {
        firstDeployment: false,
        recordedMode: 'savepoint',
        restore: { kind: 'path', path },
        markStable: true,
        jobCancelled: wasRunning,
      }),
    );
  }
  writeStatus(
    env.store,
    ref,
    (status, object) => {
      const reconciliation = reconciliationOf(status);
      reconciliation.state = 'DEPLOYED';
      reconciliation.lastReconciledSpec = serializeReconciledSpec(
        kindOf(object),
        suspendedSpec(spec, 'savepoint'),
        false,
      );
      reconciliation.lastStableSpec = reconciliation.lastReconciledSpec;
      reconciliation.reconciliationTimestamp = epochMs(env);
      status.observedGeneration = object.metadata.generation;
      if (wasRunning)
        applyStop(env, status, {
          ok: true,
          jobState: 'FINISHED',
          jm: ref.resource === 'flinkdeployments' ? 'MISSING' : undefined,
        });
      (status.jobStatus ??= {}).upgradeSavepointPath = path;
      delete status.error;
    },
    { conditions: true },
  );
  return 'done';
}

/** In-place rescale (parallelism overrides, adaptive scheduler, Flink ≥ 1.18): a Scaling event, no redeploy. */
export function scaleInPlace(env: FlowEnv, ref: ResourceRef, last: Spec): StepResult {
  const object = readRef(env, ref);
  const spec = withJob(object.spec ?? {}, { upgradeMode: jobOf(last)?.upgradeMode ?? 'stateless' });
  // Requirements that already match are not sent again: no event, but the spec is recorded all the same.
  if (startInPlaceRescale(env, object, last, spec))
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

/**
 * Rolls back to lastStableSpec: the user spec and observedGeneration stay. ROLLING_BACK while the failed deploy
 * is torn down, ROLLED_BACK as soon as the stable spec is deployed (updateStatusForSpecReconciliation), before
 * its job runs.
 */
export async function rollBack(env: FlowEnv, ref: ResourceRef): Promise<StepResult> {
  const object = readRef(env, ref);
  const stable = parseReconciledSpec(reconciliationOf(statusOf(object)).lastStableSpec);
  if (!stable) return 'done';
  emit(env, object, EVENT_TYPES.normal, 'Rollback', COMPONENTS.jobManagerDeployment, MESSAGES.rollback);
  writeStatus(env.store, ref, (status) => void (reconciliationOf(status).state = 'ROLLING_BACK'));
  await env.sleep(STEP_SECONDS.suspend);
  const mode = String(jobOf(stable)?.upgradeMode ?? 'stateless');
  await deployJob(env, ref, stable, {
    firstDeployment: false,
    recordedMode: mode,
    restore: restoreFor(env, ref, mode),
    rollback: true,
  });
  return 'done';
}
