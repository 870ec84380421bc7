// Small building blocks shared by the operator's job flows: job states, observed state changes, spec copies.
import { COMPONENTS, EVENT_TYPES } from './events.js';
import { emit, epochMs, readRef, type FlowEnv } from './flow-env.js';
import { jobStatusOf, reconciliationOf, statusOf, writeStatus, type ResourceRef, type Status } from './flink-status.js';
import { jobOf, type Spec } from './spec-json.js';
import type { KubeObject } from './store.js';

/** The upgradeSavepointPath an HA last-state deploy records (AbstractJobReconciler.LAST_STATE_DUMMY_SP_PATH). */
export const LAST_STATE_PLACEHOLDER = 'KUBERNETES_OPERATOR_LAST_STATE';

/** Flink's globally terminal job states: the operator takes no savepoint of such a job and suspends it with NOOP. */
export const TERMINAL_JOB_STATES: ReadonlySet<string> = new Set(['FAILED', 'FINISHED', 'CANCELED']);

export function isTerminal(state: unknown): boolean {
  return typeof state === 'string' && TERMINAL_JOB_STATES.has(state);
}

/**
 * Sets the job state. `observed` says whether the observer saw it through Flink's REST API: only then does
 * `updateTime` move (JobStatusObserver:340); states the operator writes itself (RECONCILING on submit,
 * CANCELLING, FINISHED after a stop) leave it alone.
 */
export function setJobState(status: Status, state: string, nowMs: number, observed: boolean): void {
  const jobStatus = jobStatusOf(status);
  if (observed && jobStatus.state !== state) jobStatus.updateTime = String(nowMs);
  jobStatus.state = state;
}

/**
 * An observed job state with its `JobStatusChanged` event ("Job status changed from X to Y"). The observer
 * records the event while it observes and the status is patched after the observe step: event first.
 */
export function observeJobState(
  env: FlowEnv,
  ref: ResourceRef,
  state: string,
  extra?: (status: Status) => void,
): KubeObject {
  const current = readRef(env, ref);
  const previous = statusOf(current).jobStatus?.state;
  if (previous !== state) {
    const message =
      previous === undefined ? `Job status changed to ${state}` : `Job status changed from ${previous} to ${state}`;
    emit(env, current, EVENT_TYPES.normal, 'JobStatusChanged', COMPONENTS.job, message);
  }
  return writeStatus(
    env.store,
    ref,
    (status) => {
      setJobState(status, state, epochMs(env), true);
      extra?.(status);
    },
    { conditions: reconciliationOf(statusOf(current)).state !== 'UPGRADING' },
  );
}

/** lastStableSpec follows lastReconciledSpec once the job (or session JM) is seen healthy while DEPLOYED. */
export function markStableIfDeployed(status: Status): void {
  const reconciliation = reconciliationOf(status);
  if (reconciliation.state === 'DEPLOYED') reconciliation.lastStableSpec = reconciliation.lastReconciledSpec;
}

/** A copy of `spec` with some job fields replaced. */
export function withJob(spec: Spec, fields: Record<string, unknown>): Spec {
  const job = jobOf(spec);
  if (!job) return structuredClone(spec);
  return { ...structuredClone(spec), job: { ...structuredClone(job), ...fields } };
}

/** The spec as a suspended reconciled spec records it (a session cluster has no job state to record). */
export function suspendedSpec(spec: Spec, mode: string): Spec {
  return jobOf(spec) ? withJob(spec, { state: 'suspended', upgradeMode: mode }) : spec;
}

export type Restore = { kind: 'none' } | { kind: 'path'; path: string } | { kind: 'ha' };
