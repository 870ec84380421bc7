// Reconcile exceptions as the operator's controllers report them: a Warning event first, then status.error, then
// a retry (the spec still differs, so the next reconcile tries again).
import { COMPONENTS, EVENT_TYPES } from './events.js';
import { emit, readRef, type FlowEnv } from './flow-env.js';
import { errorJson, ERROR_TYPES, writeStatus, type ErrorCause, type ResourceRef } from './flink-status.js';
import { kindOf } from './resource-conf.js';
import { STEP_SECONDS } from './speed.js';

/** An exception a reconcile throws: UpgradeFailureException's reason (or `Error` for anything else), class, message, causes. */
export interface ReconcileError {
  reason: 'SavepointError' | 'UpgradeFailed' | 'CleanupFailed' | 'Error';
  type: string;
  message: string;
  causes?: ErrorCause[];
}

export const MSG_MANUAL_RESTORE_REQUIRED = 'Manual restore required.';

/** ExceptionUtils.getExceptionMessage: `message -> cause -> cause`, three levels at most, a class's simple name when it has no message. */
export function exceptionChain(error: Pick<ReconcileError, 'message' | 'causes'>): string {
  const parts = [error.message, ...(error.causes ?? []).map((c) => c.message ?? simpleName(c.type))];
  return parts.slice(0, 3).join(' -> ');
}

function simpleName(type: string): string {
  return type.slice(type.lastIndexOf('.') + 1);
}

/** AbstractJobReconciler.getJobUpgrade on a terminal job whose last state is the HA placeholder. */
export function terminalWithoutCheckpoint(): ReconcileError {
  return {
    reason: 'UpgradeFailed',
    type: ERROR_TYPES.upgradeFailure,
    message: `Job is in terminal state but last checkpoint is unknown, possibly due to an unrecoverable restore error. ${MSG_MANUAL_RESTORE_REQUIRED}`,
  };
}

/** ApplicationReconciler.getJobUpgrade: no JobManager, no HA metadata, no mode left to upgrade with. */
export function haMetadataMissing(): ReconcileError {
  return {
    reason: 'UpgradeFailed',
    type: ERROR_TYPES.upgradeFailure,
    message:
      'JobManager deployment is missing and HA metadata is not available to make stateful upgrades. ' +
      `It is possible that the job has finished or terminally failed, or the configmaps have been deleted.${MSG_MANUAL_RESTORE_REQUIRED}`,
  };
}

/** stopWithSavepoint did not answer within execution.checkpointing.timeout (a transient failure: the retry may well succeed). */
export function savepointTimeout(jobId: string): ReconcileError {
  return {
    reason: 'SavepointError',
    type: ERROR_TYPES.upgradeFailure,
    message: `Timed out stopping the job ${jobId} with savepoint, please configure a larger timeout via 'execution.checkpointing.timeout'`,
    causes: [{ type: 'java.util.concurrent.TimeoutException' }],
  };
}

/** stopWithSavepoint failed in Flink (the `Savepoint Error` wrapper around the checkpoint failure). */
export function savepointFailure(): ReconcileError {
  const cause = 'Failure to finalize checkpoint.';
  return {
    reason: 'SavepointError',
    type: ERROR_TYPES.upgradeFailure,
    message: 'Savepoint Error',
    causes: [
      {
        type: 'java.util.concurrent.ExecutionException',
        message: `org.apache.flink.runtime.checkpoint.CheckpointException: ${cause}`,
      },
      { type: 'org.apache.flink.runtime.checkpoint.CheckpointException', message: cause },
    ],
  };
}

/** `JobID.fromHexString(null)`: what cancelling a session job without a jobId (after a savepoint suspend) throws. */
export function nullJobId(): ReconcileError {
  return {
    reason: 'Error',
    type: 'java.lang.IllegalArgumentException',
    message:
      'Cannot parse JobID from "null". The expected format is [0-9a-fA-F]{32}, e.g. fd72014d4c864993a2e5a9287b4a9c5d.',
    causes: [
      { type: 'java.lang.NullPointerException', message: 'Cannot invoke "String.length()" because "hex" is null' },
    ],
  };
}

/**
 * FlinkDeploymentController: an UpgradeFailureException gives a Warning with its own reason (SavepointError,
 * UpgradeFailed, …) from JobManagerDeployment and status.error; anything else gives `Error` and is rethrown.
 * FlinkSessionJobController: every exception gives `Error` from component Job and is rethrown. A rethrown
 * exception reaches status.error as the JOSDK retry's ReconciliationException. Event first, status second.
 */
export async function reportReconcileError(env: FlowEnv, ref: ResourceRef, error: ReconcileError): Promise<'retry'> {
  const object = readRef(env, ref);
  const session = kindOf(object) === 'FlinkSessionJob';
  const rethrown = session || error.reason === 'Error';
  const reason = session ? 'Error' : error.reason;
  emit(
    env,
    object,
    EVENT_TYPES.warning,
    reason,
    session ? COMPONENTS.job : COMPONENTS.jobManagerDeployment,
    exceptionChain(error),
  );
  const json = rethrown
    ? errorJson(ERROR_TYPES.reconciliation, `${error.type}: ${error.message}`, [
        { type: error.type, message: error.message },
        ...(error.causes ?? []),
      ])
    : errorJson(error.type, error.message, error.causes);
  writeStatus(env.store, ref, (status) => void (status.error = json), { conditions: !rethrown });
  // JOSDK retries a rethrown exception after a short back-off; an UpgradeFailureException waits for the next reconcile.
  await env.interruptibleSleep(rethrown ? STEP_SECONDS.errorRetry : STEP_SECONDS.reconcileRetry);
  return 'retry';
}
