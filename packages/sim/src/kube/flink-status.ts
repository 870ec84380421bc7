// Flink CR status writes as the operator makes them: lifecycleState recomputed on each write, the 1.15 Running condition.
import { rfc3339, type KubeObject, type SimResource, type SimStore } from './store.js';
import { jobOf, parseReconciledSpec } from './spec-json.js';

export type Status = Record<string, unknown> & {
  jobStatus?: JobStatus;
  reconciliationStatus?: ReconciliationStatus;
  jobManagerDeploymentStatus?: string;
  lifecycleState?: string;
  observedGeneration?: number;
  error?: string;
  conditions?: Condition[];
  taskManager?: { labelSelector: string; replicas: number };
};
export type JobStatus = Record<string, unknown> & {
  state?: string;
  jobId?: string;
  jobName?: string;
  startTime?: string;
  updateTime?: string;
  upgradeSavepointPath?: string;
};
export type ReconciliationStatus = Record<string, unknown> & {
  state?: string;
  lastReconciledSpec?: string;
  lastStableSpec?: string;
  reconciliationTimestamp?: number;
};
export interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
  lastTransitionTime: string;
}

export interface ResourceRef {
  resource: Extract<SimResource, 'flinkdeployments' | 'flinksessionjobs'>;
  namespace: string;
  name: string;
}

/** The lifecycle state, computed in CommonStatus.getLifecycleState's order (release-1.15.0). */
export function lifecycleState(status: Status): string {
  const reconciliation = status.reconciliationStatus ?? {};
  const lastReconciled = parseReconciledSpec(reconciliation.lastReconciledSpec);
  if (!lastReconciled) return status.error ? 'FAILED' : 'CREATED';
  if (reconciliation.state === 'UPGRADING') return 'UPGRADING';
  if (reconciliation.state === 'ROLLING_BACK') return 'ROLLING_BACK';
  if (jobOf(lastReconciled)?.state === 'suspended') return 'SUSPENDED';
  if (status.jobStatus?.state === 'FAILED') return 'FAILED';
  if (isFlinkDeploymentStatus(status) && needsManualRestore(status)) return 'FAILED';
  if (reconciliation.state === 'ROLLED_BACK') return 'ROLLED_BACK';
  if (
    reconciliation.lastStableSpec !== undefined &&
    reconciliation.lastStableSpec === reconciliation.lastReconciledSpec
  )
    return 'STABLE';
  return 'DEPLOYED';
}

/** CommonStatus rule 7: an unrecoverable deployment, told apart from a transient error by the error text alone. */
export const MANUAL_RESTORE_MARKERS = [
  'Manual restore required.',
  'It is possible that the job has finished or terminally failed, or the configmaps have been deleted.',
  'HA metadata is not available',
] as const;

function needsManualRestore(status: Status): boolean {
  const jm = status.jobManagerDeploymentStatus;
  const error = status.error;
  return (
    (jm === 'ERROR' || jm === 'MISSING') && error !== undefined && MANUAL_RESTORE_MARKERS.some((m) => error.includes(m))
  );
}

/** Only FlinkDeploymentStatus has a JobManager deployment status (rule 7 does not apply to session jobs). */
function isFlinkDeploymentStatus(status: Status): boolean {
  return status.jobManagerDeploymentStatus !== undefined;
}

function camelCase(state: string): string {
  return state
    .toLowerCase()
    .split('_')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

/**
 * The one `Running` condition of a FlinkDeployment (1.15): application mode follows the job state, session
 * mode the JobManager. `observedGeneration` is never set; the transition time moves only when `status` flips.
 */
export function runningCondition(
  status: Status,
  isSession: boolean,
  previous: Condition[] | undefined,
  now: Date,
): Condition[] {
  let next: Omit<Condition, 'lastTransitionTime'>;
  if (isSession) {
    const jm = status.jobManagerDeploymentStatus ?? 'MISSING';
    next = {
      type: 'Running',
      status: jm === 'READY' ? 'True' : 'False',
      reason: camelCase(jm),
      message: `JobManager deployment status ${jm}`,
    };
  } else {
    const state = status.jobStatus?.state ?? 'RECONCILING';
    next = {
      type: 'Running',
      status: state === 'RUNNING' ? 'True' : 'False',
      reason: camelCase(state),
      message: `Job status ${state}`,
    };
  }
  const before = previous?.find((c) => c.type === 'Running');
  const lastTransitionTime = before && before.status === next.status ? before.lastTransitionTime : rfc3339(now);
  return [{ ...next, lastTransitionTime }];
}

export interface ErrorCause {
  type: string;
  message?: string;
}

/** status.error as the operator writes it: a FlinkResourceException as JSON (nulls left out), causes in throwableList. */
export function errorJson(type: string, message: string, causes: readonly ErrorCause[] = []): string {
  return JSON.stringify({
    type,
    message,
    throwableList: causes.map((c) =>
      c.message === undefined ? { type: c.type } : { type: c.type, message: c.message },
    ),
  });
}

export const ERROR_TYPES = {
  validation: 'org.apache.flink.kubernetes.operator.exception.ValidationException',
  deploymentFailed: 'org.apache.flink.kubernetes.operator.exception.DeploymentFailedException',
  upgradeFailure: 'org.apache.flink.kubernetes.operator.exception.UpgradeFailureException',
  reconciliation: 'org.apache.flink.kubernetes.operator.exception.ReconciliationException',
} as const;

export interface WriteOptions {
  /**
   * Rewrite status.conditions (FlinkDeployment only) from this write's state. The operator does so at the end
   * of a successful reconcile; writes in the middle of an upgrade keep the old list (so `Running=True` can
   * outlive the job it described).
   */
  conditions?: boolean;
}

/**
 * Mutates the status of a FlinkDeployment/FlinkSessionJob through the status subresource and recomputes
 * lifecycleState. Throws ApiError 404 when the resource is gone.
 */
export function writeStatus(
  store: SimStore,
  ref: ResourceRef,
  mutate: (status: Status, object: KubeObject) => void,
  options: WriteOptions = {},
): KubeObject {
  return store.update(
    ref.resource,
    ref.namespace,
    ref.name,
    (current) => {
      const status = structuredClone((current.status ?? {}) as Status);
      mutate(status, current);
      status.lifecycleState = lifecycleState(status);
      if (options.conditions && ref.resource === 'flinkdeployments') {
        status.conditions = runningCondition(status, jobOf(current.spec) === undefined, status.conditions, store.now());
      }
      return { ...current, status };
    },
    { subresource: 'status' },
  );
}

export function statusOf(object: KubeObject | undefined): Status {
  return (object?.status ?? {}) as Status;
}

export function reconciliationOf(status: Status): ReconciliationStatus {
  status.reconciliationStatus ??= {};
  return status.reconciliationStatus;
}

export function jobStatusOf(status: Status): JobStatus {
  status.jobStatus ??= {};
  return status.jobStatus;
}
