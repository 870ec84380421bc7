// Whether a job checkpoints: an interval in its configuration, or checkpoints Flink's REST API shows (set in code).
import { readFlinkConfig } from './flink-config.js';
import { getPath } from './merge-patch.js';

export const CHECKPOINT_INTERVAL_KEYS = ['execution.checkpointing.interval'] as const;
/** How long a checkpoint may take before Flink fails it (default 10 min). */
export const CHECKPOINT_TIMEOUT_KEYS = ['execution.checkpointing.timeout'] as const;
/** The least time between a completed checkpoint and the next trigger (default 0). */
export const CHECKPOINT_MIN_PAUSE_KEYS = ['execution.checkpointing.min-pause'] as const;

/** The configuration sets a checkpoint interval (not empty, not 0). */
export function checkpointIntervalSet(resource: unknown, sessionCluster?: unknown): boolean {
  const value = readFlinkConfig(resource, CHECKPOINT_INTERVAL_KEYS, sessionCluster)?.value.trim();
  return value !== undefined && value !== '' && !/^0+(\s*[a-z]*)?$/i.test(value);
}

/** A `/jobs/<id>/checkpoints` reading shows checkpoints: `counts.total > 0` or a `latest.completed`. */
export function restShowsCheckpoints(checkpoints: unknown): boolean {
  const total = getPath(checkpoints, ['counts', 'total']);
  const completed = getPath(checkpoints, ['latest', 'completed']);
  return (typeof total === 'number' && total > 0) || (completed !== undefined && completed !== null);
}

/** Checkpointing is on when the configuration sets an interval or REST shows checkpoints (enabled in the job's code). */
export function checkpointingOn(resource: unknown, sessionCluster: unknown, checkpoints: unknown): boolean {
  return checkpointIntervalSet(resource, sessionCluster) || restShowsCheckpoints(checkpoints);
}
