// How the operator stops a job for a spec change (AbstractJobReconciler/ApplicationReconciler.getJobUpgrade and
// cancelJob, release-1.15.0): the suspend mode it picks, the synchronous stops and the asynchronous cancel.
import { epochMs, newSavepointPath, readRef, realMs, type FlowEnv } from './flow-env.js';
import { jobStatusOf, reconciliationOf, statusOf, writeStatus, type ResourceRef, type Status } from './flink-status.js';
import { isTerminal, LAST_STATE_PLACEHOLDER, observeJobState, setJobState, withJob } from './job-steps.js';
import {
  haMetadataMissing,
  savepointFailure,
  savepointTimeout,
  terminalWithoutCheckpoint,
  type ReconcileError,
} from './reconcile-errors.js';
import { jobConf, kindOf } from './resource-conf.js';
import { savepointFailureMode } from './scenarios.js';
import { lastCompletedCheckpoint, rememberHaCheckpoint } from './job-checkpoints.js';
import { createUpgradeSnapshot } from './snapshots.js';
import {
  checkpointDir,
  confFlag,
  haEnabled,
  jobOf,
  parseReconciledSpec,
  savepointDir,
  serializeReconciledSpec,
  type FlinkConf,
  type Spec,
} from './spec-json.js';
import { STEP_SECONDS } from './speed.js';
import type { KubeObject, SimStore } from './store.js';

/** SuspendMode: stop-with-savepoint, HA-preserving delete, stateless delete, async cancel, or nothing (a stopped job). */
export type StopMechanism = 'savepoint' | 'last-state-ha' | 'stateless' | 'cancel' | 'noop';
export interface StopPlan {
  mechanism: StopMechanism;
  /** The upgrade mode written into lastReconciledSpec (JobUpgrade.restoreMode): the mode the restore will use. */
  recordedMode: string;
  /** ApplicationReconciler.deleteJmThatNeverStarted ran first: the JobManager is deleted. */
  jmNeverStarted?: boolean;
}
/** A plan, an exception the reconcile throws, or "not upgradable yet" (the operator waits for another reconcile). */
export type StopChoice = { kind: 'stop'; plan: StopPlan } | { kind: 'error'; error: ReconcileError } | { kind: 'wait' };

const LAST_STATE_FALLBACK = 'kubernetes.operator.job.upgrade.last-state-fallback.enabled';
const LAST_STATE_JOB_CANCEL = 'kubernetes.operator.job.upgrade.last-state.job-cancel.enabled';

function stop(mechanism: StopMechanism, recordedMode: string, jmNeverStarted = false): StopChoice {
  return { kind: 'stop', plan: { mechanism, recordedMode, ...(jmNeverStarted ? { jmNeverStarted } : {}) } };
}

/** getJobUpgrade: stateless first, then a terminal job (NOOP), savepoint while RUNNING, else the last-state rules. */
export function chooseStop(store: SimStore, object: KubeObject, lastReconciled: Spec): StopChoice {
  const spec = object.spec ?? {};
  const status = statusOf(object);
  const state = status.jobStatus?.state;
  const mode = String(jobOf(spec)?.upgradeMode ?? 'stateless');
  if (mode === 'stateless')
    return stop(
      isTerminal(state) ? 'noop' : kindOf(object) === 'FlinkSessionJob' ? 'cancel' : 'stateless',
      'stateless',
    );
  if (isTerminal(state)) return terminalStop(status, false);
  if (state === 'CANCELLING') return { kind: 'wait' };
  const conf = jobConf(store, object);
  const versionChanged = kindOf(object) === 'FlinkDeployment' && lastReconciled.flinkVersion !== spec.flinkVersion;
  if (mode === 'savepoint') {
    if (state === 'RUNNING') return stop('savepoint', 'savepoint');
    // Not running: no savepoint possible; the operator falls back to last-state (on by default).
    if (!versionChanged && !confFlag(conf, LAST_STATE_FALLBACK, true)) return { kind: 'wait' };
  }
  return lastStateStop(object, conf, versionChanged);
}

/**
 * JobUpgrade.pendingUpgrade / unavailable: nothing is written (the SpecChanged event is all there is); the
 * operator logs and looks again at its next periodic reconcile, when the job may be upgradable.
 */
export function waitForUpgradeableState(env: FlowEnv, ref: ResourceRef): 'done' {
  const state = statusOf(readRef(env, ref)).jobStatus?.state;
  env.log?.info(
    { resource: `${ref.namespace}/${ref.name}`, jobState: state },
    'simulated operator: job not upgradable, waiting for upgradeable state',
  );
  env.reconcileAfterMs(realMs(env, STEP_SECONDS.reconcileInterval));
  return 'done';
}

/**
 * useStatusSavepoint: a stopped job is restored from what the observer last recorded; nothing is stopped. The
 * HA placeholder there means no checkpoint is known: UpgradeFailed, "Manual restore required."
 */
function terminalStop(status: Status, jmNeverStarted: boolean): StopChoice {
  if (status.jobStatus?.upgradeSavepointPath === LAST_STATE_PLACEHOLDER)
    return { kind: 'error', error: terminalWithoutCheckpoint() };
  return stop('noop', 'savepoint', jmNeverStarted);
}

function lastStateStop(object: KubeObject, conf: FlinkConf, versionChanged: boolean): StopChoice {
  const state = statusOf(object).jobStatus?.state;
  const running = state === 'RUNNING';
  const session = kindOf(object) === 'FlinkSessionJob';
  if (versionChanged) {
    // HA metadata cannot carry a job across Flink versions: a savepoint if possible, else cancel.
    if (running && savepointDir(conf) !== undefined) return stop('savepoint', 'savepoint');
    return isJobCancellable(state) ? stop('cancel', 'savepoint') : { kind: 'wait' };
  }
  const cancellable =
    isJobCancellable(state) && (session || !haMetadataAvailable(object, conf) || confFlag(conf, LAST_STATE_JOB_CANCEL));
  // Cancel restores from the last checkpoint "as a savepoint" with a new jobId.
  if (cancellable) return stop('cancel', 'savepoint');
  if (running) return stop('last-state-ha', 'last-state');
  return session ? { kind: 'wait' } : applicationFallback(object, conf);
}

/** ApplicationReconciler.getJobUpgrade when no mode was available: HA restore, drop a JobManager that never started, or give up. */
function applicationFallback(object: KubeObject, conf: FlinkConf): StopChoice {
  const status = statusOf(object);
  if (haMetadataAvailable(object, conf)) return stop('last-state-ha', 'last-state');
  const jm = status.jobManagerDeploymentStatus;
  const recorded = jobOf(parseReconciledSpec(status.reconciliationStatus?.lastReconciledSpec))?.upgradeMode;
  // deleteJmThatNeverStarted marks the job FAILED, so it is judged again as a terminal job.
  if ((jm === 'ERROR' || jm === 'DEPLOYING') && recorded !== 'last-state') return terminalStop(status, true);
  if (jm === 'MISSING' || jm === 'ERROR') return { kind: 'error', error: haMetadataMissing() };
  return { kind: 'wait' };
}

/** CommonStatus.isJobCancellable: a job state is known, not RECONCILING and not globally terminal. */
function isJobCancellable(state: string | undefined): boolean {
  return state !== undefined && state !== 'RECONCILING' && !isTerminal(state);
}

/**
 * Whether the job's HA metadata (the checkpoint pointer in its config maps) exists: HA configured, the job not
 * stopped for good, and either its JobManager came up or it was itself restored from HA metadata.
 */
function haMetadataAvailable(object: KubeObject, conf: FlinkConf): boolean {
  const status = statusOf(object);
  if (kindOf(object) !== 'FlinkDeployment' || !haEnabled(conf) || isTerminal(status.jobStatus?.state)) return false;
  return (
    status.jobManagerDeploymentStatus !== 'ERROR' || status.jobStatus?.upgradeSavepointPath === LAST_STATE_PLACEHOLDER
  );
}

export type StopResult =
  { ok: true; jobState: 'FINISHED'; jm?: string; upgradeSavepointPath?: string } | { ok: false; error: ReconcileError };

/** A synchronous stop (every mechanism but `cancel`): the job ends FINISHED, written by the operator. */
export async function stopJob(env: FlowEnv, ref: ResourceRef, plan: StopPlan): Promise<StopResult> {
  switch (plan.mechanism) {
    case 'savepoint':
      return stopWithSavepoint(env, ref);
    case 'last-state-ha':
      // The HA metadata keeps the last completed checkpoint: the next HA restore resumes from it.
      rememberHaCheckpoint(env, readRef(env, ref));
      await env.sleep(STEP_SECONDS.suspend);
      return { ok: true, jobState: 'FINISHED', jm: 'MISSING' };
    case 'stateless':
      await env.sleep(STEP_SECONDS.suspend);
      return { ok: true, jobState: 'FINISHED', jm: 'MISSING' };
    case 'noop':
      // NOOP deletes nothing: the JobManager of a stopped application stays until the next deploy.
      return { ok: true, jobState: 'FINISHED', ...(plan.jmNeverStarted ? { jm: 'MISSING' } : {}) };
    case 'cancel':
      throw new Error('a cancel is asynchronous: use cancelAsync');
  }
}

async function stopWithSavepoint(env: FlowEnv, ref: ResourceRef): Promise<StopResult> {
  await env.sleep(STEP_SECONDS.savepoint);
  const object = readRef(env, ref);
  const jobId = statusOf(object).jobStatus?.jobId ?? '';
  const failure = stopFailure(env, object, jobId);
  if (failure) return { ok: false, error: failure };
  const dir = savepointDir(jobConf(env.store, object));
  if (dir === undefined) return { ok: false, error: savepointFailure() };
  const path = newSavepointPath(env, dir, jobId);
  // Savepoints share the checkpoint counter: this one takes the next id.
  env.jobManagers.completeSavepoint(jobId, { id: lastCompletedCheckpoint(env, object) + 1, path, at: epochMs(env) });
  createUpgradeSnapshot(env, object, path);
  return { ok: true, jobState: 'FINISHED', upgradeSavepointPath: path };
}

/** The `savepoint-failure` knob: `always` fails every attempt; `once` times out the first attempt of each generation. */
function stopFailure(env: FlowEnv, object: KubeObject, jobId: string): ReconcileError | undefined {
  const mode = savepointFailureMode(env.settings(object));
  if (mode === 'always') return savepointFailure();
  if (mode === 'once' && env.memo.stopFailedGeneration !== object.metadata.generation) {
    env.memo.stopFailedGeneration = object.metadata.generation;
    return savepointTimeout(jobId);
  }
  return undefined;
}

/**
 * The asynchronous cancel (SuspendMode.CANCEL, and every stateless or last-state stop of a session job). At the
 * start: CANCELLING, UPGRADING, lastReconciledSpec = the OLD spec with only upgradeMode changed, observedGeneration
 * untouched, the JobManager kept (CANCEL does not delete the cluster). Once CANCELED is observed, markSuspended
 * flips job.state to suspended. The new spec itself is only applied by a later reconcile.
 */
export async function cancelAsync(env: FlowEnv, ref: ResourceRef, lastReconciled: Spec, plan: StopPlan): Promise<void> {
  writeStatus(env.store, ref, (status, object) => {
    const reconciliation = reconciliationOf(status);
    reconciliation.state = 'UPGRADING';
    reconciliation.lastReconciledSpec = serializeReconciledSpec(
      kindOf(object),
      withJob(lastReconciled, { upgradeMode: plan.recordedMode }),
      false,
    );
    setJobState(status, 'CANCELLING', epochMs(env), false);
  });
  await env.sleep(STEP_SECONDS.cancel);
  const object = readRef(env, ref);
  const chk = checkpointDir(jobConf(env.store, object));
  const jobId = statusOf(object).jobStatus?.jobId ?? 'unknown';
  const checkpoint = chk === undefined ? undefined : `${chk}/${jobId}/chk-${1 + Math.floor(env.random() * 500)}`;
  observeJobState(env, ref, 'CANCELED', (status) => {
    markSuspended(status, kindOf(object));
    // SnapshotObserver.observeLatestCheckpoint: for a cancelled job the last checkpoint, or definitely none.
    if (checkpoint === undefined) delete jobStatusOf(status).upgradeSavepointPath;
    else jobStatusOf(status).upgradeSavepointPath = checkpoint;
  });
}

/** JobStatusObserver.markSuspended: only lastReconciledSpec.job.state moves (observedGeneration and UPGRADING stay). */
function markSuspended(status: Status, kind: ReturnType<typeof kindOf>): void {
  const reconciliation = reconciliationOf(status);
  const last = parseReconciledSpec(reconciliation.lastReconciledSpec);
  if (last)
    reconciliation.lastReconciledSpec = serializeReconciledSpec(kind, withJob(last, { state: 'suspended' }), false);
}
