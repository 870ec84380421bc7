// `/jobs/<id>/checkpoints` of the simulated JobManager REST API: checkpoints advancing at the configured interval
// (or the one set in the job's code), the latest savepoint Flink completed, and the pointer the job restored
// from in the form Flink reports it.
import { checkpointDir, jobOf } from './spec-json.js';
import { parseFlinkDurationSeconds, scaledMs } from './speed.js';
import { durationSeconds } from './scenarios.js';
import { LAST_STATE_PLACEHOLDER } from './job-steps.js';
import { num, type JobView } from './flink-rest-jobs.js';
import { checkpointDurationMs, checkpointsFailingFrom, completedBefore, latestInProgress } from './job-checkpoints.js';

type Raw = Record<string, unknown>;

/** The authority a simulated cluster's default HDFS (`hdfs:///…`) resolves to. */
export const DEFAULT_HDFS_AUTHORITY = 'namenode:8020';
/** The `checkpointing-in-code` knob's interval when it has no value (operator seconds). */
export const DEFAULT_CODE_CHECKPOINT_SECONDS = 10;

/**
 * A checkpoint or savepoint pointer as Flink reports it after resolving it: the directory of a `…/_metadata`
 * file, no trailing `/`, no doubled `/`, `file:///x` and a bare `/x` as `file:/x`, and `hdfs:///p` qualified
 * with the default file system's authority (`hdfs://namenode:8020/p`).
 */
export function normalisePointer(pointer: string, hdfsAuthority: string = DEFAULT_HDFS_AUTHORITY): string {
  const match = /^([a-zA-Z][a-zA-Z0-9+.-]*):(.*)$/.exec(pointer.trim());
  const scheme = match ? (match[1] as string).toLowerCase() : 'file';
  let rest = match ? (match[2] as string) : pointer.trim();
  let authority = '';
  if (rest.startsWith('//')) {
    const end = rest.indexOf('/', 2);
    authority = end < 0 ? rest.slice(2) : rest.slice(2, end);
    rest = end < 0 ? '/' : rest.slice(end);
  }
  let path = rest.replace(/\/{2,}/g, '/').replace(/\/+$/, '');
  if (path.endsWith('/_metadata')) path = path.slice(0, -'/_metadata'.length);
  if (path === '') path = '/';
  if (scheme === 'hdfs' && authority === '') authority = hdfsAuthority;
  return authority === '' ? `${scheme}:${path}` : `${scheme}://${authority}${path}`;
}

/** `chk-<n>` of a checkpoint pointer, else undefined (a savepoint has no number in its path). */
function checkpointNumber(path: string): number | undefined {
  const match = /\/chk-(\d+)$/.exec(path);
  return match ? Number(match[1]) : undefined;
}

/**
 * Checkpoint interval the job runs with (operator seconds): its configuration's, else the one the
 * `checkpointing-in-code` knob sets in its code (the operator model counts checkpoints the same way).
 */
function intervalSeconds(view: JobView): number | undefined {
  const configured = parseFlinkDurationSeconds(view.conf['execution.checkpointing.interval']);
  if (configured !== undefined || !view.has('checkpointing-in-code')) return configured;
  const value = view.value('checkpointing-in-code');
  return (value === undefined ? undefined : durationSeconds(value)) ?? DEFAULT_CODE_CHECKPOINT_SECONDS;
}

/** What the job restored from, as `latest.restored`: the recorded savepoint or checkpoint, or its HA checkpoint. */
export function restored(view: JobView): Raw | null {
  const path = view.status.upgradeSavepointPath;
  if (typeof path !== 'string' || path === '' || jobOf(view.spec)?.upgradeMode === 'stateless') return null;
  const ha = path === LAST_STATE_PLACEHOLDER ? view.jobManagers?.haRestore(view.jobId) : undefined;
  if (path === LAST_STATE_PLACEHOLDER && ha === undefined) return null;
  const resolved = normalisePointer(ha?.path ?? path);
  const external = view.has('restored-elsewhere')
    ? `${resolved.replace(/\/[^/]*$/, '')}/savepoint-someone-elses`
    : resolved;
  // CheckpointCoordinator.restoreSavepoint: a savepoint is restored under its own checkpoint id.
  const own = view.has('restored-elsewhere') ? undefined : view.jobManagers?.savepointIdAt(ha?.path ?? path);
  const id = checkpointNumber(external) ?? own ?? 0;
  const at = ha?.at ?? num(view.status.startTime) ?? view.now;
  return {
    id,
    restore_timestamp: at,
    is_savepoint: ha === undefined && checkpointNumber(external) === undefined,
    external_path: external,
  };
}

/** `latest.savepoint`: the latest savepoint the JobManager completed for this job, else null. */
function latestSavepoint(view: JobView): Raw | null {
  const savepoint = view.jobManagers?.latestSavepoint(view.jobId);
  if (savepoint === undefined) return null;
  return {
    className: 'completed',
    id: savepoint.id,
    status: 'COMPLETED',
    is_savepoint: true,
    savepointFormat: 'CANONICAL',
    checkpoint_type: 'SAVEPOINT',
    trigger_timestamp: savepoint.triggeredAt ?? savepoint.at,
    latest_ack_timestamp: savepoint.at,
    external_path: normalisePointer(savepoint.path),
    discarded: false,
  };
}

/** Checkpoint stats entries Flink keeps for the history (`web.checkpoints.history`, 10 by default). */
const HISTORY_SIZE = 10;
/** How a simulated checkpoint fails: CheckpointFailureReason.CHECKPOINT_ASYNC_EXCEPTION. */
const FAILURE_MESSAGE = 'Asynchronous task checkpoint failed.';

type Outcome = 'completed' | 'failed' | 'in_progress';

/** Tick `k` of the run (the k-th checkpoint triggered since the job started): completed, failed or still running. */
function checkpointEntry(
  view: JobView,
  tick: { k: number; base: number; at: number; ackAt: number; outcome: Outcome },
): Raw {
  const id = tick.base + tick.k;
  const common = { id, is_savepoint: false, checkpoint_type: 'CHECKPOINT', trigger_timestamp: tick.at };
  if (tick.outcome === 'in_progress')
    return { className: 'in_progress', ...common, status: 'IN_PROGRESS', latest_ack_timestamp: -1 };
  if (tick.outcome === 'failed')
    return {
      className: 'failed',
      ...common,
      status: 'FAILED',
      latest_ack_timestamp: -1,
      failure_timestamp: tick.at,
      failure_message: FAILURE_MESSAGE,
    };
  const dir = checkpointDir(view.conf);
  return {
    className: 'completed',
    ...common,
    status: 'COMPLETED',
    latest_ack_timestamp: tick.ackAt,
    external_path: dir ? normalisePointer(`${dir}/${view.jobId}/chk-${id}`) : '<checkpoint-not-externally-addressable>',
    discarded: false,
  };
}

/**
 * The body of `/jobs/<id>/checkpoints`: one checkpoint per interval while the job runs, each triggered on the
 * JobManager's clock and acknowledged a moment later (a second, a third of a short interval), the latest shown in
 * progress until then; with `checkpoints-failing` every one fails, or with `incidents-after` too only those after the
 * moment the JobManager started failing them (docs/sandbox.md#knobs-that-only-the-rest-api-shows). Completed, failed
 * and running checkpoints share the id counter.
 */
export function checkpoints(view: JobView): Raw {
  const start = num(view.status.startTime) ?? view.now;
  const seconds = intervalSeconds(view);
  const everyMs = scaledMs(view.speed, seconds ?? 0);
  const elapsed = Math.max(0, view.now - start);
  const ticks = seconds && view.status.state === 'RUNNING' ? Math.floor(elapsed / everyMs) : 0;
  const failingFrom = checkpointsFailingFrom(view.has('checkpoints-failing'), view.has('incidents-after'), () =>
    view.jobManagers?.checkpointsFailingFrom(view.jobId, String(view.status.startTime ?? '')),
  );
  const done = completedBefore(ticks, start, everyMs, failingFrom);
  const durationMs = checkpointDurationMs(view.speed, everyMs);
  const running = done === ticks && latestInProgress(ticks, elapsed, everyMs, durationMs) ? 1 : 0;
  const completed = done - running;
  const restore = restored(view);
  // After a restore (checkpoint or savepoint), Flink numbers the next checkpoints on from its id.
  const base = restore ? Number(restore.id) : 0;
  const entry = (k: number): Raw => {
    const at = start + k * everyMs;
    const outcome: Outcome = k <= completed ? 'completed' : k <= done ? 'in_progress' : 'failed';
    return checkpointEntry(view, { k, base, at, ackAt: at + durationMs, outcome });
  };
  const history: Raw[] = [];
  for (let k = ticks; k >= 1 && history.length < HISTORY_SIZE; k--) history.push(entry(k));
  return {
    counts: { restored: restore ? 1 : 0, total: ticks, in_progress: running, completed, failed: ticks - done },
    latest: {
      completed: completed === 0 ? null : entry(completed),
      savepoint: latestSavepoint(view),
      failed: ticks > done ? entry(ticks) : null,
      restored: restore,
    },
    history,
  };
}
