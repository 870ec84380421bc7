// What a session job shows after its session cluster was deleted and redeployed without HA: the new JobManager
// does not know the job (JobStatusObserver.onTargetJobNotFound). Stateful jobs stay DEPLOYED and RECONCILING with
// "Job Not Found"; a stateless one is marked suspended, so the next reconcile simply starts it again.
import { COMPONENTS, EVENT_TYPES } from './events.js';
import { emit, readRef, type FlowEnv } from './flow-env.js';
import { reconciliationOf, statusOf, writeStatus, type ResourceRef } from './flink-status.js';
import { isTerminal, withJob } from './job-steps.js';
import { kindOf, sessionClusterOf } from './resource-conf.js';
import { haEnabled, jobOf, parseReconciledSpec, serializeReconciledSpec, specConf } from './spec-json.js';
import type { KubeObject } from './store.js';

export const JOB_NOT_FOUND = 'Job Not Found';

/**
 * The job was submitted to an earlier incarnation of its cluster (the cluster was deployed after the job
 * started) and that cluster kept no HA metadata to recover its jobs from.
 */
function lostWithCluster(env: FlowEnv, job: KubeObject): boolean {
  const cluster = sessionClusterOf(env.store, job);
  const status = statusOf(job);
  const last = parseReconciledSpec(status.reconciliationStatus?.lastReconciledSpec);
  if (!cluster || jobOf(last)?.state !== 'running' || !status.jobStatus?.jobId || isTerminal(status.jobStatus.state))
    return false;
  if (haEnabled(specConf(cluster.spec))) return false;
  const clusterDeployedAt = Number(statusOf(cluster).reconciliationStatus?.reconciliationTimestamp ?? 0);
  return clusterDeployedAt > Number(status.jobStatus.startTime ?? Number.POSITIVE_INFINITY);
}

/**
 * The observe step of a session job's reconcile: a Warning `Missing` ("Job Not Found") on every observe that
 * does not find the job; the status (RECONCILING, status.error "Job Not Found", and for a stateless job the
 * reconciled spec marked suspended) is patched only when it changes. Returns whether the job was missing.
 */
export function observeLostSessionJob(env: FlowEnv, ref: ResourceRef): boolean {
  const object = readRef(env, ref);
  if (kindOf(object) !== 'FlinkSessionJob' || !lostWithCluster(env, object)) return false;
  emit(env, object, EVENT_TYPES.warning, 'Missing', COMPONENTS.job, JOB_NOT_FOUND);
  const status = statusOf(object);
  const stateless = jobOf(object.spec)?.upgradeMode === 'stateless';
  if (!stateless && status.jobStatus?.state === 'RECONCILING' && status.error === JOB_NOT_FOUND) return true;
  writeStatus(
    env.store,
    ref,
    (s, current) => {
      const reconciliation = reconciliationOf(s);
      const last = parseReconciledSpec(reconciliation.lastReconciledSpec);
      if (stateless && last)
        reconciliation.lastReconciledSpec = serializeReconciledSpec(
          kindOf(current),
          withJob(last, { state: 'suspended' }),
          false,
        );
      else reconciliation.state = 'DEPLOYED';
      (s.jobStatus ??= {}).state = 'RECONCILING';
      s.error = JOB_NOT_FOUND;
    },
    { conditions: true },
  );
  return true;
}
