// `kubernetes.operator.job.restart.failed`: the operator resubmits a FAILED job by itself (reconcileOtherChanges),
// with no spec change: the cluster of the failed job is deleted, the error cleared, the job submitted again
// (docs/sandbox.md#what-the-simulated-operator-does-on-real-jobs). With the `job-failure` and `incidents-after`
// knobs the new run fails again later, and is resubmitted again: a job that keeps failing on its own.
import { readRef, type FlowEnv } from './flow-env.js';
import { statusOf, writeStatus, type ResourceRef } from './flink-status.js';
import { deployJob } from './job-deploy.js';
import { LAST_STATE_PLACEHOLDER, type Restore } from './job-steps.js';
import { jobConf, kindOf } from './resource-conf.js';
import { confFlag, jobOf, parseReconciledSpec } from './spec-json.js';
import { STEP_SECONDS } from './speed.js';
import type { KubeObject, SimStore } from './store.js';

export const RESTART_FAILED = 'kubernetes.operator.job.restart.failed';

/** A FAILED job whose configuration asks the operator to restart it (off by default). */
export function wantsResubmit(store: SimStore, object: KubeObject): boolean {
  const state = statusOf(object).jobStatus?.state;
  if (state !== 'FAILED' || (kindOf(object) === 'FlinkDeployment' && !jobOf(object.spec))) return false;
  return (
    statusOf(object).reconciliationStatus?.state === 'DEPLOYED' && confFlag(jobConf(store, object), RESTART_FAILED)
  );
}

/**
 * cleanupAfterFailedJob + resubmitJob(requireHaMetadata=false): the deployed spec again, from the recorded
 * upgradeSavepointPath when the mode keeps state and one is known (savepoint mode), else without state. The job
 * gets a new id (not a last-state deploy); lastReconciledSpec, observedGeneration and the reconciliation state
 * stay; the Submit event and JobStatusChanged events are all that tells the story.
 */
export async function resubmitFailedJob(env: FlowEnv, ref: ResourceRef): Promise<'done' | 'retry'> {
  const object = readRef(env, ref);
  const deployed = parseReconciledSpec(statusOf(object).reconciliationStatus?.lastReconciledSpec);
  if (!deployed) return 'done';
  if (kindOf(object) === 'FlinkDeployment') {
    // ApplicationReconciler.cleanupAfterFailedJob deletes the cluster; the job keeps its terminal state.
    writeStatus(env.store, ref, (status) => {
      status.jobManagerDeploymentStatus = 'MISSING';
      if (status.taskManager) status.taskManager = { labelSelector: '', replicas: 0 };
      delete status.error;
    });
    await env.sleep(STEP_SECONDS.suspend);
  }
  const mode = String(jobOf(deployed)?.upgradeMode ?? 'stateless');
  const outcome = await deployJob(env, ref, deployed, {
    firstDeployment: false,
    recordedMode: mode,
    restore: restoreOf(env, ref, mode),
    resubmit: true,
  });
  return outcome === 'image-pull-failed' ? 'retry' : 'done';
}

/** resubmitJob/restoreJob: a stateful mode restores from upgradeSavepointPath, else from the last savepoint. */
function restoreOf(env: FlowEnv, ref: ResourceRef, mode: string): Restore {
  const jobStatus = statusOf(readRef(env, ref)).jobStatus;
  const last = (jobStatus?.savepointInfo as { lastSavepoint?: { location?: unknown } } | undefined)?.lastSavepoint;
  const path = jobStatus?.upgradeSavepointPath ?? (typeof last?.location === 'string' ? last.location : undefined);
  if (mode === 'stateless' || !path || path === LAST_STATE_PLACEHOLDER) return { kind: 'none' };
  return { kind: 'path', path };
}
