// Subtasks that never get a slot (the `tasks-waiting` knob): Flink fails the job once its slot request has waited
// `slot.request.timeout` (5 min unless configured), with NoResourceAvailableException as the root exception
// (docs/sandbox.md#subtasks-and-vertex-status).
import type { JobFailure } from './job-failure.js';
import { parseFlinkDurationSeconds } from './speed.js';
import type { FlinkConf } from './spec-json.js';

/** Flink's default `slot.request.timeout`: 300000 ms. */
const DEFAULT_SLOT_REQUEST_TIMEOUT_SECONDS = 300;

/** Operator seconds a slot request waits before Flink gives up on it (a bare number is milliseconds, as in Flink). */
export function slotRequestTimeoutSeconds(conf: FlinkConf): number {
  return parseFlinkDurationSeconds(conf['slot.request.timeout']) ?? DEFAULT_SLOT_REQUEST_TIMEOUT_SECONDS;
}

/** The failure Flink reports when a bulk of slot requests timed out (PhysicalSlotRequestBulkCheckerImpl). */
export function slotRequestTimedOut(): JobFailure {
  const message =
    'Slot request bulk is not fulfillable! Could not allocate the required slot within slot request timeout';
  const type = 'org.apache.flink.runtime.jobmanager.scheduler.NoResourceAvailableException';
  return {
    root: `${type}: ${message}`,
    causes: [
      { type, message },
      { type: 'java.util.concurrent.TimeoutException', message: 'Slot request bulk is not fulfillable!' },
    ],
  };
}
