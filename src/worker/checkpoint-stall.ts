// Whether a job's checkpoints have stalled (docs/alerts.md#how-a-stall-is-judged), judged from one Flink REST reading
// alone: Flink's own timestamps of the last completed checkpoint and of one in progress, against the JobManager's
// clock when it was read (`now` of `/jobs/<id>`). Never the worker's clock against when the worker last looked: reads
// come about once a minute, and between two reads the judgement is the last reading's.
import { getPath } from '../domain/model/merge-patch.js';

/** "None completed in N checkpoint intervals" (docs/alerts.md#thresholds). */
export const STALLED_INTERVALS = 3;
/** `execution.checkpointing.timeout` when the job does not set it (Flink's default: 10 min). */
export const DEFAULT_CHECKPOINT_TIMEOUT_MS = 10 * 60_000;

/** The checkpointing the job is configured with, in ms. */
export interface CheckpointCadence {
  intervalMs: number;
  /** `execution.checkpointing.timeout`. */
  timeoutMs: number;
  /** `execution.checkpointing.min-pause`: the next trigger waits this long after a completion. */
  minPauseMs: number;
}

/** What one reading tells: the JobManager's clock, when the job last (re)started, its checkpoints, a failover seen. */
export interface StallReading {
  /** The JobManager's `now` (or the reading's time when `/jobs/<id>` did not answer). */
  at: number;
  /** When the job last started running (`timestamps.RUNNING`, else `start-time`), JobManager clock. */
  runningSince?: number;
  checkpoints: unknown;
  /** numRestarts grew since the reading before: a failover explains a gap until the next reading. */
  failedOver: boolean;
}

export type Stall = { stalled: false } | { stalled: true; forMs: number; lastId: number | undefined; why: string };

/**
 * Stalled: nothing in progress younger than the timeout, and no checkpoint completed (nor the job started) for
 * STALLED_INTERVALS intervals (or min-pauses, when longer) by the JobManager's clock. A checkpoint in progress may
 * take longer than the interval: Flink triggers the next one only after it, so it stalls only once it outlives the
 * timeout.
 */
export function judgeStall(reading: StallReading, cadence: CheckpointCadence): Stall {
  const cp = reading.checkpoints;
  const lastAck = numberAt(cp, ['latest', 'completed', 'latest_ack_timestamp']);
  const lastId = numberAt(cp, ['latest', 'completed', 'id']);
  const since = Math.max(lastAck ?? -Infinity, reading.runningSince ?? -Infinity);
  if (!Number.isFinite(since) || reading.failedOver) return { stalled: false };
  const quietMs = reading.at - since;
  const inProgress = (numberAt(cp, ['counts', 'in_progress']) ?? 0) > 0;
  if (inProgress) {
    // The oldest one in progress Flink lists; unlisted, it was triggered after `since` at the earliest.
    const triggered = oldestInProgress(cp) ?? since;
    const runningMs = reading.at - triggered;
    if (runningMs < cadence.timeoutMs + (triggered === since ? cadence.intervalMs : 0)) return { stalled: false };
    return {
      stalled: true,
      forMs: quietMs,
      lastId,
      why: `one in progress past the timeout of ${seconds(cadence.timeoutMs)}`,
    };
  }
  const allowedMs = STALLED_INTERVALS * Math.max(cadence.intervalMs, cadence.minPauseMs);
  if (quietMs < allowedMs) return { stalled: false };
  return { stalled: true, forMs: quietMs, lastId, why: 'none in progress' };
}

/** The earliest `trigger_timestamp` of the IN_PROGRESS entries of `history`. */
function oldestInProgress(checkpoints: unknown): number | undefined {
  const history = getPath(checkpoints, ['history']);
  if (!Array.isArray(history)) return undefined;
  const times = history
    .filter((h) => getPath(h, ['status']) === 'IN_PROGRESS')
    .map((h) => numberAt(h, ['trigger_timestamp']))
    .filter((t): t is number => t !== undefined && t > 0);
  return times.length === 0 ? undefined : Math.min(...times);
}

function numberAt(value: unknown, path: string[]): number | undefined {
  const found = getPath(value, path);
  return typeof found === 'number' && Number.isFinite(found) ? found : undefined;
}

export const seconds = (ms: number): string =>
  ms >= 120_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 1000)} s`;
