// The operator's building blocks for job resources: stop a job by upgrade mode, deploy a spec and observe it.
import { COMPONENTS, EVENT_TYPES, MESSAGES } from './events.js';
import { emit, epochMs, newJobId, newSavepointPath, readRef, type FlowEnv } from './flow-env.js';
import { errorJson, ERROR_TYPES, jobStatusOf, reconciliationOf, statusOf, writeStatus, type ResourceRef, type Status } from './flink-status.js';
import { imageFailsToPull } from './scenarios.js';
import { clusterInfo, jobConf, kindOf, submitComponent, type JobKind } from './resource-conf.js';
import { createUpgradeSnapshot } from './snapshots.js';
import { checkpointDir, confFlag, haEnabled, jobOf, savepointDir, serializeReconciledSpec, taskManagerReplicas, type Spec } from './spec-json.js';
import { STEP_SECONDS } from './speed.js';
import type { KubeObject } from './store.js';

export const LAST_STATE_PLACEHOLDER = 'KUBERNETES_OPERATOR_LAST_STATE';

/** How a running job is stopped: stop-with-savepoint, HA-preserving delete, stateless delete, or async cancel. */
export type StopMechanism = 'savepoint' | 'last-state-ha' | 'stateless' | 'cancel';
export interface StopPlan {
  mechanism: StopMechanism;
  /** The upgrade mode written into lastReconciledSpec: the mode the restore will really use. */
  recordedMode: string;
}

/** AbstractJobReconciler.getAvailableUpgradeMode + SuspendMode, for the knobs the simulation models. */
export function chooseStop(store: FlowEnv['store'], object: KubeObject, lastReconciled: Spec): StopPlan {
  const kind = kindOf(object);
  const spec = object.spec ?? {};
  const mode = String(jobOf(spec)?.upgradeMode ?? 'stateless');
  const conf = jobConf(store, object);
  const jobRunning = statusOf(object).jobStatus?.state === 'RUNNING';
  if (mode === 'stateless') return { mechanism: kind === 'FlinkSessionJob' ? 'cancel' : 'stateless', recordedMode: 'stateless' };
  if (kind === 'FlinkDeployment' && !jobRunning) {
    // Nothing to snapshot: HA keeps the state when configured, else the last known savepoint path is reused.
    return haEnabled(conf) ? { mechanism: 'last-state-ha', recordedMode: 'last-state' } : { mechanism: 'stateless', recordedMode: mode };
  }
  const versionChanged = kind === 'FlinkDeployment' && lastReconciled.flinkVersion !== spec.flinkVersion;
  if (mode === 'savepoint' || versionChanged) return { mechanism: 'savepoint', recordedMode: 'savepoint' };
  const jobCancel = confFlag(conf, 'kubernetes.operator.job.upgrade.last-state.job-cancel.enabled');
  if (kind === 'FlinkDeployment' && haEnabled(conf) && !jobCancel) return { mechanism: 'last-state-ha', recordedMode: 'last-state' };
  // Cancel restores from the last checkpoint "as a savepoint" with a new jobId.
  return { mechanism: 'cancel', recordedMode: 'savepoint' };
}

export type StopResult =
  | { ok: true; jobState: 'FINISHED' | 'CANCELED'; jm?: string; upgradeSavepointPath?: string }
  | { ok: false; message: string };

/**
 * Stops the running job. Synchronous mechanisms only wait; `cancel` writes CANCELLING (UPGRADING, the target
 * spec already in lastReconciledSpec, observedGeneration untouched) and then the observed CANCELED.
 */
export async function stopJob(env: FlowEnv, ref: ResourceRef, plan: StopPlan, target: Spec, firstDeployment: boolean): Promise<StopResult> {
  const object = readRef(env, ref);
  const status = statusOf(object);
  const jobId = status.jobStatus?.jobId;
  const conf = jobConf(env.store, object);
  switch (plan.mechanism) {
    case 'savepoint': {
      await env.sleep(STEP_SECONDS.savepoint);
      const dir = savepointDir(conf);
      if (env.settings(object).scenarios.has('savepoint-failure') || dir === undefined) {
        return {
          ok: false,
          message: dir === undefined
            ? 'Savepoint directory state.savepoints.dir is not set; stop-with-savepoint cannot complete'
            : `Stop-with-savepoint of job ${jobId ?? '(unknown)'} failed: org.apache.flink.runtime.checkpoint.CheckpointException: Failure to finalize checkpoint.`,
        };
      }
      const path = newSavepointPath(env, dir, jobId);
      createUpgradeSnapshot(env, object, path);
      return { ok: true, jobState: 'FINISHED', upgradeSavepointPath: path };
    }
    case 'last-state-ha':
      await env.sleep(STEP_SECONDS.suspend);
      return { ok: true, jobState: 'FINISHED', jm: 'MISSING' };
    case 'stateless':
      await env.sleep(STEP_SECONDS.suspend);
      return { ok: true, jobState: 'FINISHED', jm: 'MISSING' };
    case 'cancel':
      return cancelJob(env, ref, plan, target, firstDeployment);
  }
}

async function cancelJob(env: FlowEnv, ref: ResourceRef, plan: StopPlan, target: Spec, firstDeployment: boolean): Promise<StopResult> {
  const kind = ref.resource === 'flinkdeployments' ? 'FlinkDeployment' : 'FlinkSessionJob';
  const suspended = withJob(target, { state: 'suspended', upgradeMode: plan.recordedMode });
  writeStatus(env.store, ref, (status) => {
    const reconciliation = reconciliationOf(status);
    reconciliation.state = 'UPGRADING';
    reconciliation.lastReconciledSpec = serializeReconciledSpec(kind, suspended, firstDeployment);
    setJobState(status, 'CANCELLING', epochMs(env));
  });
  await env.sleep(STEP_SECONDS.cancel);
  const object = observeJobState(env, ref, 'CANCELED');
  const chk = checkpointDir(jobConf(env.store, object));
  const jobId = statusOf(object).jobStatus?.jobId ?? 'unknown';
  const upgradeSavepointPath = chk === undefined ? undefined : `${chk}/${jobId}/chk-${1 + Math.floor(env.random() * 500)}`;
  return { ok: true, jobState: 'CANCELED', jm: kind === 'FlinkDeployment' ? 'MISSING' : undefined, upgradeSavepointPath };
}

export type Restore = { kind: 'none' } | { kind: 'path'; path: string } | { kind: 'ha' };

export interface DeployOptions {
  firstDeployment: boolean;
  /** The upgrade mode recorded in lastReconciledSpec. */
  recordedMode: string;
  restore: Restore;
  /** Savepoint redeploy: the spec is marked stable at once, before the job runs. */
  markStable?: boolean;
  /** Deploying lastStableSpec in a rollback: reconciliation state and lastReconciledSpec stay as they are. */
  rollback?: boolean;
}

export type DeployOutcome = 'running' | 'image-pull-failed';

/** `updateStatusBeforeDeploymentAttempt`: the target spec, suspended, with UPGRADING and the new observedGeneration. */
export function writeBeforeDeployment(env: FlowEnv, ref: ResourceRef, spec: Spec, recordedMode: string, firstDeployment: boolean): KubeObject {
  return writeStatus(env.store, ref, (status, object) => {
    const reconciliation = reconciliationOf(status);
    reconciliation.state = 'UPGRADING';
    reconciliation.lastReconciledSpec = serializeReconciledSpec(kindOf(object), withJob(spec, { state: 'suspended', upgradeMode: recordedMode }), firstDeployment);
    reconciliation.reconciliationTimestamp = epochMs(env);
    status.observedGeneration = object.metadata.generation;
  });
}

/** Submits `spec` (Submit event, DEPLOYED, job RECONCILING) and observes it until RUNNING or an image pull error. */
export async function deployJob(env: FlowEnv, ref: ResourceRef, spec: Spec, options: DeployOptions): Promise<DeployOutcome> {
  const before = readRef(env, ref);
  const kind = kindOf(before);
  emit(env, before, EVENT_TYPES.normal, 'Submit', submitComponent(kind), MESSAGES.submit);
  const deployed = jobOf(spec) ? withJob(spec, { state: 'running', upgradeMode: options.recordedMode }) : spec;
  writeStatus(
    env.store,
    ref,
    (status, object) => {
      const reconciliation = reconciliationOf(status);
      if (!options.rollback) {
        reconciliation.state = 'DEPLOYED';
        reconciliation.lastReconciledSpec = serializeReconciledSpec(kind, deployed, options.firstDeployment);
        reconciliation.reconciliationTimestamp = epochMs(env);
        status.observedGeneration = object.metadata.generation;
        if (options.markStable) reconciliation.lastStableSpec = reconciliation.lastReconciledSpec;
        delete status.error;
      }
      if (kind === 'FlinkDeployment') {
        status.jobManagerDeploymentStatus = 'DEPLOYING';
        status.taskManager = { labelSelector: `component=taskmanager,app=${object.metadata.name}`, replicas: taskManagerReplicas(deployed) };
      }
      if (jobOf(deployed)) submitJobStatus(env, status, object, options.restore);
    },
    { conditions: true },
  );
  return observeDeployment(env, ref, deployed, options);
}

function submitJobStatus(env: FlowEnv, status: Status, object: KubeObject, restore: Restore): void {
  const jobStatus = jobStatusOf(status);
  const fixed = jobConf(env.store, object)['$internal.pipeline.job-id'];
  const keep = restore.kind === 'ha' && jobStatus.jobId !== undefined;
  jobStatus.jobName = object.metadata.name;
  jobStatus.jobId = fixed ?? (keep ? jobStatus.jobId : newJobId(env));
  const now = String(epochMs(env));
  jobStatus.startTime = now;
  setJobState(status, 'RECONCILING', epochMs(env));
  if (restore.kind === 'path') jobStatus.upgradeSavepointPath = restore.path;
  if (restore.kind === 'ha') jobStatus.upgradeSavepointPath = LAST_STATE_PLACEHOLDER;
  jobStatus.savepointInfo ??= { lastPeriodicSavepointTimestamp: 0, savepointHistory: [] };
  jobStatus.checkpointInfo ??= { lastPeriodicCheckpointTimestamp: 0 };
}

async function observeDeployment(env: FlowEnv, ref: ResourceRef, deployed: Spec, options: DeployOptions): Promise<DeployOutcome> {
  const isDeployment = ref.resource === 'flinkdeployments';
  if (isDeployment) {
    await env.sleep(STEP_SECONDS.jmStart);
    const object = readRef(env, ref);
    if (imageFailsToPull(deployed.image) || (!options.rollback && env.settings(object).scenarios.has('image-pull-failure'))) {
      failImagePull(env, ref, String(deployed.image ?? ''));
      return 'image-pull-failed';
    }
    writeStatus(env.store, ref, (status) => void (status.jobManagerDeploymentStatus = 'DEPLOYED_NOT_READY'), { conditions: true });
    await env.sleep(STEP_SECONDS.jmReady);
    if (!jobOf(deployed)) {
      writeStatus(env.store, ref, (status) => {
        status.jobManagerDeploymentStatus = 'READY';
        status.clusterInfo = clusterInfo(deployed);
        markStableIfDeployed(status);
      }, { conditions: true });
      return 'running';
    }
    writeStatus(env.store, ref, (status) => {
      status.jobManagerDeploymentStatus = 'READY';
      status.clusterInfo = clusterInfo(deployed);
    });
  } else {
    await env.sleep(STEP_SECONDS.jobCreated);
  }
  observeJobState(env, ref, 'CREATED');
  await env.sleep(STEP_SECONDS.jobRunning);
  observeJobState(env, ref, 'RUNNING', (status) => {
    const reconciliation = reconciliationOf(status);
    if (reconciliation.state === 'ROLLING_BACK') reconciliation.state = 'ROLLED_BACK';
    else markStableIfDeployed(status);
    delete status.error;
  });
  return 'running';
}

/** lastStableSpec follows lastReconciledSpec once the job (or session JM) is seen healthy while DEPLOYED. */
function markStableIfDeployed(status: Status): void {
  const reconciliation = reconciliationOf(status);
  if (reconciliation.state === 'DEPLOYED') reconciliation.lastStableSpec = reconciliation.lastReconciledSpec;
}

/** Writes an observed job state with its `JobStatusChanged` event ("Job status changed from X to Y"). */
export function observeJobState(env: FlowEnv, ref: ResourceRef, state: string, extra?: (status: Status) => void): KubeObject {
  const previous = statusOf(readRef(env, ref)).jobStatus?.state ?? 'RECONCILING';
  const updated = writeStatus(env.store, ref, (status) => {
    setJobState(status, state, epochMs(env));
    extra?.(status);
  }, { conditions: reconciliationOf(statusOf(readRef(env, ref))).state !== 'UPGRADING' });
  if (previous !== state) {
    emit(env, updated, EVENT_TYPES.normal, 'JobStatusChanged', COMPONENTS.job, `Job status changed from ${previous} to ${state}`);
  }
  return updated;
}

export function setJobState(status: Status, state: string, nowMs: number): void {
  const jobStatus = jobStatusOf(status);
  if (jobStatus.state !== state) jobStatus.updateTime = String(nowMs);
  jobStatus.state = state;
}

/** The JobManager pod cannot pull its image: JM ERROR, job RECONCILING, status.error, an ErrImagePull Warning. */
function failImagePull(env: FlowEnv, ref: ResourceRef, image: string): void {
  const message = `Failed to pull image "${image}": rpc error: code = NotFound desc = failed to pull and unpack image "${image}": not found`;
  const updated = writeStatus(env.store, ref, (status) => {
    status.jobManagerDeploymentStatus = 'ERROR';
    setJobState(status, 'RECONCILING', epochMs(env));
    status.error = errorJson(ERROR_TYPES.deploymentFailed, message);
  }, { conditions: true });
  emit(env, updated, EVENT_TYPES.warning, 'ErrImagePull', COMPONENTS.jobManagerDeployment, message);
}

/** The kubelet keeps retrying: an `ImagePullBackOff` Warning, deduplicated into one event with a growing count. */
export function reportImagePullBackOff(env: FlowEnv, object: KubeObject): void {
  const image = String(parseImage(object));
  emit(env, object, EVENT_TYPES.warning, 'ImagePullBackOff', COMPONENTS.jobManagerDeployment, `Back-off pulling image "${image}"`);
}

function parseImage(object: KubeObject): unknown {
  const last = reconciliationOf(statusOf(object)).lastReconciledSpec;
  try {
    return (JSON.parse(String(last)) as { spec: Spec }).spec.image;
  } catch {
    return object.spec?.image;
  }
}

/** A copy of `spec` with some job fields replaced. */
export function withJob(spec: Spec, fields: Record<string, unknown>): Spec {
  const job = jobOf(spec);
  if (!job) return structuredClone(spec);
  return { ...structuredClone(spec), job: { ...structuredClone(job), ...fields } };
}

export type { JobKind };
