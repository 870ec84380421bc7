// The checkpoints a simulated job completes, as its JobManager counts them: one per checkpointing interval while
// the job runs, numbered on from the checkpoint an HA restore resumed or the savepoint it restored (so a restored
// job never counts from 1).
import type { FlowEnv } from './flow-env.js';
import { reconciliationOf, statusOf } from './flink-status.js';
import { jobConf } from './resource-conf.js';
import { durationSeconds, incidentsAfterSeconds } from './scenarios.js';
import { checkpointDir, jobOf, parseReconciledSpec } from './spec-json.js';
import { parseFlinkDurationSeconds, scaledMs, type Speed } from './speed.js';
import type { KubeObject } from './store.js';

/**
 * Without a configured interval the simulator cannot tell whether the job checkpoints (many enable it in their
 * code): it assumes one checkpoint a minute and at least one completed, so an HA restore has something to resume.
 */
const ASSUMED_INTERVAL_SECONDS = 60;

/** What counting a job's checkpoints reads: the store, operator time, the knobs, what the JobManagers know. */
export type CheckpointEnv = Pick<FlowEnv, 'store' | 'speed' | 'settings' | 'jobManagers'>;

/** Real ms between two checkpoints of the job, or undefined when no interval is configured. */
function intervalMs(env: CheckpointEnv, object: KubeObject): number | undefined {
  const settings = env.settings(object);
  const inCode = settings.scenarios.has('checkpointing-in-code')
    ? durationSeconds(settings.values.get('checkpointing-in-code') ?? '')
    : undefined;
  const seconds = parseFlinkDurationSeconds(jobConf(env.store, object)['execution.checkpointing.interval']) ?? inCode;
  return seconds === undefined || seconds <= 0 ? undefined : scaledMs(env.speed, seconds);
}

/**
 * The checkpoint id the current run started from: the one its HA restore resumed, or the savepoint it restored
 * (CheckpointCoordinator.restoreSavepoint numbers on from the savepoint's id), else 0.
 */
function startingCheckpoint(env: CheckpointEnv, object: KubeObject, jobId: string, startMs: number): number {
  const restore = env.jobManagers.haRestore(jobId);
  if (restore !== undefined && restore.at <= startMs + 1) return Number(/\/chk-(\d+)$/.exec(restore.path)?.[1] ?? 0);
  const path = statusOf(object).jobStatus?.upgradeSavepointPath;
  const running = parseReconciledSpec(reconciliationOf(statusOf(object)).lastReconciledSpec);
  const stateless = jobOf(running)?.upgradeMode === 'stateless';
  return typeof path === 'string' && !stateless ? (env.jobManagers.savepointIdAt(path) ?? 0) : 0;
}

/**
 * From when (ms) a run's checkpoints fail under the `checkpoints-failing` knob: undefined while they complete,
 * -Infinity when all of them fail (the knob alone), else the moment `incidents-after` made them start failing
 * (`onset` reads what the JobManager recorded; nothing recorded yet means they still complete).
 */
export function checkpointsFailingFrom(
  failing: boolean,
  delayed: boolean,
  onset: () => number | undefined,
): number | undefined {
  if (!failing) return undefined;
  return delayed ? onset() : Number.NEGATIVE_INFINITY;
}

/** Operator seconds a simulated checkpoint takes at most from trigger to its last acknowledgement. */
const CHECKPOINT_SECONDS = 1;

/** Real ms from a checkpoint's trigger to its completion: a second, or less for short intervals (a third of one). */
export function checkpointDurationMs(speed: Speed, everyMs: number): number {
  return Math.max(1, Math.min(scaledMs(speed, CHECKPOINT_SECONDS), Math.floor(everyMs / 3)));
}

/** The latest of `ticks` checkpoints is still running `elapsedMs` after the start (not yet acknowledged). */
export function latestInProgress(ticks: number, elapsedMs: number, everyMs: number, durationMs: number): boolean {
  return ticks >= 1 && elapsedMs - ticks * everyMs < durationMs;
}

/** Of the `ticks` checkpoints triggered every `everyMs` since `startMs`, how many completed before `failingFrom`. */
export function completedBefore(ticks: number, startMs: number, everyMs: number, failingFrom?: number): number {
  if (failingFrom === undefined) return ticks;
  return Math.min(ticks, Math.max(0, Math.ceil((failingFrom - startMs) / everyMs) - 1));
}

/**
 * The id of the last checkpoint the job's current run completed (0: none yet). A job that left RUNNING
 * (RESTARTING, FAILING, …) stopped checkpointing when it left, which `updateTime` records.
 */
export function lastCompletedCheckpoint(env: CheckpointEnv, object: KubeObject): number {
  const jobStatus = statusOf(object).jobStatus;
  const jobId = jobStatus?.jobId;
  const startMs = Number(jobStatus?.startTime ?? Number.NaN);
  if (!jobId || !Number.isFinite(startMs)) return 0;
  const base = startingCheckpoint(env, object, jobId, startMs);
  const settings = env.settings(object);
  const failingFrom = checkpointsFailingFrom(
    settings.scenarios.has('checkpoints-failing'),
    incidentsAfterSeconds(settings) !== undefined,
    () => env.jobManagers.checkpointsFailingFrom(jobId, String(jobStatus?.startTime)),
  );
  if (failingFrom === Number.NEGATIVE_INFINITY) return base;
  const running = jobStatus?.state === 'RUNNING';
  const elapsed =
    (running ? env.store.now().getTime() : Number(jobStatus?.updateTime ?? env.store.now().getTime())) - startMs;
  const interval = intervalMs(env, object);
  const every = interval ?? scaledMs(env.speed, ASSUMED_INTERVAL_SECONDS);
  const ticks = Math.max(0, Math.floor(elapsed / every));
  let done = completedBefore(ticks, startMs, every, failingFrom);
  // The latest one still running is not completed yet (as `/checkpoints` shows it in progress).
  if (done === ticks && latestInProgress(ticks, elapsed, every, checkpointDurationMs(env.speed, every))) done -= 1;
  // Without a known interval at least one is assumed, unless checkpoints have started failing.
  return base + (interval === undefined && failingFrom === undefined ? Math.max(1, done) : done);
}

/** `<state.checkpoints.dir>/<jobId>/chk-<n>`, or undefined without a checkpoint directory. */
export function checkpointPath(env: FlowEnv, object: KubeObject, jobId: string, id: number): string | undefined {
  const dir = checkpointDir(jobConf(env.store, object));
  return dir === undefined ? undefined : `${dir}/${jobId}/chk-${id}`;
}

/** Remembers, at an HA-preserving stop, the checkpoint the next HA restore of this job resumes from. */
export function rememberHaCheckpoint(env: FlowEnv, object: KubeObject): void {
  const jobId = statusOf(object).jobStatus?.jobId;
  if (jobId) env.memo.haCheckpoint = { jobId, id: lastCompletedCheckpoint(env, object) };
}
