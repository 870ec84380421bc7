// Deploying a spec and observing it come up: Submit, DEPLOYED, JobManager DEPLOYING → DEPLOYED_NOT_READY → READY,
// job CREATED → RUNNING; or a JobManager whose image does not pull (ERROR), which may recover later; or a job whose
// state cannot be restored at its new parallelism (FAILED as it starts).
import { COMPONENTS, EVENT_TYPES, MESSAGES } from './events.js';
import { emit, epochMs, newJobId, readRef, realMs, type FlowEnv } from './flow-env.js';
import {
  errorJson,
  ERROR_TYPES,
  jobStatusOf,
  reconciliationOf,
  statusOf,
  writeStatus,
  type ResourceRef,
  type Status,
} from './flink-status.js';
import {
  LAST_STATE_PLACEHOLDER,
  markStableIfDeployed,
  observeJobState,
  setJobState,
  withJob,
  type Restore,
} from './job-steps.js';
import { checkpointPath } from './job-checkpoints.js';
import { recordJobFailure } from './job-exception-events.js';
import { jobGraphOf, specVertexParallelism } from './job-graph.js';
import { configuredMaxParallelism, restoreRefused, settleRun } from './max-parallelism.js';
import { clusterInfo, jobConf, kindOf, submitComponent } from './resource-conf.js';
import { imageFailsToPull, imagePullRecoverySeconds } from './scenarios.js';
import {
  jobOf,
  parseReconciledSpec,
  serializeReconciledSpec,
  specConf,
  taskManagerReplicas,
  type Spec,
} from './spec-json.js';
import { STEP_SECONDS } from './speed.js';
import type { KubeObject } from './store.js';

export interface DeployOptions {
  firstDeployment: boolean;
  /** The upgrade mode recorded in lastReconciledSpec. */
  recordedMode: string;
  restore: Restore;
  /** Savepoint redeploy: the spec is marked stable at once, before the job runs. */
  markStable?: boolean;
  /** Deploying lastStableSpec in a rollback: observedGeneration and lastReconciledSpec stay, the state becomes ROLLED_BACK. */
  rollback?: boolean;
  /** The operator resubmits a FAILED job itself: the reconciliation status and observedGeneration stay as they are. */
  resubmit?: boolean;
  /** The old job was cancelled first (a session job's id is then cleared, so a new one is generated). */
  jobCancelled?: boolean;
}

/** `job-failed`: the job failed as it started (its restore was refused). */
export type DeployOutcome = 'running' | 'job-failed' | 'image-pull-failed';

/** `updateStatusBeforeDeploymentAttempt`: the target spec, suspended, with UPGRADING and the new observedGeneration. */
export function writeBeforeDeployment(
  env: FlowEnv,
  ref: ResourceRef,
  spec: Spec,
  recordedMode: string,
  firstDeployment: boolean,
): KubeObject {
  return writeStatus(env.store, ref, (status, object) => {
    const reconciliation = reconciliationOf(status);
    reconciliation.state = 'UPGRADING';
    reconciliation.lastReconciledSpec = serializeReconciledSpec(
      kindOf(object),
      withJob(spec, { state: 'suspended', upgradeMode: recordedMode }),
      firstDeployment,
    );
    reconciliation.reconciliationTimestamp = epochMs(env);
    status.observedGeneration = object.metadata.generation;
    delete status.error;
  });
}

/**
 * Submits `spec` and observes it until RUNNING or a failed image pull. The final patch of the reconcile holds
 * DEPLOYED, the generation, JM DEPLOYING and job RECONCILING together. A session cluster gets no Submit event
 * (SessionReconciler emits none).
 */
export async function deployJob(
  env: FlowEnv,
  ref: ResourceRef,
  spec: Spec,
  options: DeployOptions,
): Promise<DeployOutcome> {
  const before = readRef(env, ref);
  const kind = kindOf(before);
  if (jobOf(spec)) emit(env, before, EVENT_TYPES.normal, 'Submit', submitComponent(kind), MESSAGES.submit);
  env.memo.imagePull = undefined;
  const deployed = jobOf(spec) ? withJob(spec, { state: 'running', upgradeMode: options.recordedMode }) : spec;
  writeStatus(
    env.store,
    ref,
    (status, object) => {
      recordDeployedSpec(env, status, object, deployed, options);
      if (kind === 'FlinkDeployment') {
        status.jobManagerDeploymentStatus = 'DEPLOYING';
        status.taskManager = {
          labelSelector: `component=taskmanager,app=${object.metadata.name}`,
          replicas: taskManagerReplicas(deployed),
        };
      }
      if (jobOf(deployed)) {
        submitJobStatus(env, status, object, options);
        settleMaxParallelism(env, status, object, deployed, options.restore);
      }
    },
    { conditions: true },
  );
  return observeDeployment(env, ref, deployed, options);
}

/** updateStatusForDeployedSpec: clears status.error; a rollback ends ROLLED_BACK without touching the reconciled spec. */
function recordDeployedSpec(
  env: FlowEnv,
  status: Status,
  object: KubeObject,
  deployed: Spec,
  options: DeployOptions,
): void {
  delete status.error;
  if (options.resubmit) return;
  const reconciliation = reconciliationOf(status);
  reconciliation.reconciliationTimestamp = epochMs(env);
  if (options.rollback) {
    reconciliation.state = 'ROLLED_BACK';
    return;
  }
  reconciliation.state = 'DEPLOYED';
  reconciliation.lastReconciledSpec = serializeReconciledSpec(kindOf(object), deployed, options.firstDeployment);
  status.observedGeneration = object.metadata.generation;
  if (options.markStable) reconciliation.lastStableSpec = reconciliation.lastReconciledSpec;
}

function submitJobStatus(env: FlowEnv, status: Status, object: KubeObject, options: DeployOptions): void {
  const { restore } = options;
  const jobStatus = jobStatusOf(status);
  // Only a FlinkDeployment's job id can be pinned: a session job always runs under the reconciler's own id.
  const fixed =
    kindOf(object) === 'FlinkDeployment' ? jobConf(env.store, object)['$internal.pipeline.job-id'] : undefined;
  // SessionJobReconciler reuses the id of a job still RECONCILING (a retry); the application one keeps it for HA.
  const reuse =
    kindOf(object) === 'FlinkSessionJob'
      ? jobStatus.state === 'RECONCILING' && !options.jobCancelled
      : restore.kind === 'ha';
  const keep = reuse && jobStatus.jobId !== undefined;
  jobStatus.jobName = object.metadata.name;
  jobStatus.jobId = fixed ?? (keep ? jobStatus.jobId : newJobId(env));
  jobStatus.startTime = String(epochMs(env));
  setJobState(status, 'RECONCILING', epochMs(env), false);
  if (restore.kind === 'path') jobStatus.upgradeSavepointPath = restore.path;
  if (restore.kind === 'ha') restoreFromHa(env, status, object);
  jobStatus.savepointInfo ??= { lastPeriodicSavepointTimestamp: 0, savepointHistory: [] };
  jobStatus.checkpointInfo ??= { lastPeriodicCheckpointTimestamp: 0 };
}

/**
 * Flink settles each vertex's max parallelism as the job starts: configured, else what the state it restores
 * carries, else derived; a restore the state cannot take is kept for the observer to fail the job on.
 */
function settleMaxParallelism(
  env: FlowEnv,
  status: Status,
  object: KubeObject,
  deployed: Spec,
  restore: Restore,
): void {
  const jobStatus = jobStatusOf(status);
  const restores =
    restore.kind === 'path' || (restore.kind === 'ha' && jobStatus.upgradeSavepointPath === LAST_STATE_PLACEHOLDER);
  const resource = object.metadata.uid ?? `${object.metadata.namespace}/${object.metadata.name}`;
  const vertices = jobGraphOf(object, deployed);
  const parallelism = specVertexParallelism(vertices, deployed);
  const configured = configuredMaxParallelism({ ...jobConf(env.store, object), ...specConf(deployed) });
  const run = settleRun(
    vertices.map((v, i) => ({ id: v.id, parallelism: parallelism[i] as number })),
    configured,
    restores ? env.jobManagers.restoredMaxima(resource) : undefined,
  );
  env.jobManagers.startRun(resource, String(jobStatus.jobId), run);
}

/**
 * A deploy from HA metadata: the placeholder is recorded only when the metadata holds a checkpoint
 * (atLeastOneCheckpoint); Flink then resumes the same job id from that checkpoint. Without one, the job starts
 * with no state and upgradeSavepointPath keeps what it held.
 */
function restoreFromHa(env: FlowEnv, status: Status, object: KubeObject): void {
  const jobStatus = jobStatusOf(status);
  const jobId = String(jobStatus.jobId);
  const remembered = env.memo.haCheckpoint;
  env.memo.haCheckpoint = undefined;
  const checkpoint = remembered?.jobId === jobId ? remembered.id : 0;
  if (checkpoint === 0) return;
  jobStatus.upgradeSavepointPath = LAST_STATE_PLACEHOLDER;
  const path = checkpointPath(env, object, jobId, checkpoint);
  if (path !== undefined) env.jobManagers.restoredFromHa(jobId, { path, at: epochMs(env) });
}

async function observeDeployment(
  env: FlowEnv,
  ref: ResourceRef,
  deployed: Spec,
  options: DeployOptions,
): Promise<DeployOutcome> {
  if (ref.resource !== 'flinkdeployments') {
    await env.sleep(STEP_SECONDS.jobCreated);
    return observeUntilRunning(env, ref, deployed);
  }
  await env.sleep(STEP_SECONDS.jmStart);
  const settings = env.settings(readRef(env, ref));
  const knob = !options.rollback && settings.scenarios.has('image-pull-failure');
  if (imageFailsToPull(deployed.image) || knob) {
    failImagePull(env, ref, String(deployed.image ?? ''));
    // Broken image names never pull; the knob with a duration lets the kubelet's retry succeed after it.
    const recoverAfterSeconds = imageFailsToPull(deployed.image) ? undefined : imagePullRecoverySeconds(settings);
    if (recoverAfterSeconds !== undefined) env.memo.imagePull = { failedAtMs: epochMs(env), recoverAfterSeconds };
    return 'image-pull-failed';
  }
  return observeUntilRunning(env, ref, deployed);
}

/** From a started JobManager pod to a RUNNING job: DEPLOYED_NOT_READY, READY (the REST API answers), CREATED, RUNNING. */
async function observeUntilRunning(env: FlowEnv, ref: ResourceRef, deployed: Spec): Promise<'running' | 'job-failed'> {
  if (ref.resource === 'flinkdeployments') {
    writeStatus(env.store, ref, (status) => void (status.jobManagerDeploymentStatus = 'DEPLOYED_NOT_READY'), {
      conditions: true,
    });
    await env.sleep(STEP_SECONDS.jmReady);
    const session = !jobOf(deployed);
    writeStatus(
      env.store,
      ref,
      (status) => {
        status.jobManagerDeploymentStatus = 'READY';
        status.clusterInfo = clusterInfo(deployed);
        // SessionObserver: a session cluster whose REST API answers is stable.
        if (session) markStableAndClearErrors(status);
      },
      { conditions: session },
    );
    if (session) return 'running';
  }
  observeJobState(env, ref, 'CREATED');
  await env.sleep(STEP_SECONDS.jobRunning);
  const jobId = String(statusOf(readRef(env, ref)).jobStatus?.jobId);
  const refused = env.jobManagers.restoreRefusal(jobId);
  if (refused !== undefined) {
    recordJobFailure(env, readRef(env, ref), restoreRefused(refused));
    return 'job-failed';
  }
  observeJobState(env, ref, 'RUNNING', markStableAndClearErrors);
  return 'running';
}

/** checkAndUpdateStableSpec, then clearErrorsIfDeploymentIsHealthy (JM not ERROR, job not FAILED, spec stable). */
function markStableAndClearErrors(status: Status): void {
  markStableIfDeployed(status);
  const reconciliation = reconciliationOf(status);
  const healthy = status.jobManagerDeploymentStatus !== 'ERROR' && status.jobStatus?.state !== 'FAILED';
  if (healthy && reconciliation.lastStableSpec === reconciliation.lastReconciledSpec) delete status.error;
}

/**
 * The JobManager pod cannot pull its image. The controller's DeploymentFailedException handler emits one
 * Warning with the kubelet's reason (`[container] message`) and then patches JM ERROR, job RECONCILING
 * (operator-written) and status.error. While ERROR persists it emits nothing more.
 */
function failImagePull(env: FlowEnv, ref: ResourceRef, image: string): void {
  const message = `[flink-main-container] Failed to pull image "${image}": rpc error: code = NotFound desc = failed to pull and unpack image "${image}": not found`;
  emit(env, readRef(env, ref), EVENT_TYPES.warning, 'ErrImagePull', COMPONENTS.jobManagerDeployment, message);
  writeStatus(
    env.store,
    ref,
    (status) => {
      status.jobManagerDeploymentStatus = 'ERROR';
      setJobState(status, 'RECONCILING', epochMs(env), false);
      status.error = errorJson(ERROR_TYPES.deploymentFailed, message);
    },
    { conditions: true },
  );
}

/** Real ms until a recovering image pull succeeds: 'now', a delay, or undefined when none is pending. */
export function imagePullRecoveryDue(env: FlowEnv, object: KubeObject): 'now' | number | undefined {
  const pending = env.memo.imagePull;
  if (!pending || statusOf(object).jobManagerDeploymentStatus !== 'ERROR') return undefined;
  const remaining = pending.failedAtMs + realMs(env, pending.recoverAfterSeconds) - epochMs(env);
  return remaining <= 0 ? 'now' : remaining;
}

/**
 * The kubelet's retry pulled the image: the observer finds an available JobManager replica and moves ERROR →
 * DEPLOYED_NOT_READY → READY (AbstractFlinkDeploymentObserver:119-131); the job comes up and the error clears.
 */
export async function recoverImagePull(env: FlowEnv, ref: ResourceRef): Promise<'done'> {
  env.memo.imagePull = undefined;
  const deployed = parseReconciledSpec(reconciliationOf(statusOf(readRef(env, ref))).lastReconciledSpec);
  if (deployed) await observeUntilRunning(env, ref, deployed);
  return 'done';
}
