// How a simulated job fails for good, as its exception history and the operator's status then show it.
import type { ErrorCause } from './flink-status.js';

/** Why a job failed for good: the root exception its history shows, and the causes the operator records. */
export interface JobFailure {
  /** `<exception class>: <message>`, the entry of the exception history. */
  root: string;
  causes: ErrorCause[];
  /** What the failure arrives wrapped in (Flink's "Recovery is suppressed …" unless given). */
  wrapper?: { type: string; message: string };
  /** False for a job that failed before it ran: no checkpoint of it becomes the path to resume from. */
  checkpointed?: boolean;
}
