// The post-change judge (docs/lifecycle.md#after-completed): what the job looked like at COMPLETED, what it looks like
// now, and whether that is a regression — restarts, checkpoints failing, the job leaving RUNNING, the JobManager
// leaving READY. Pure: the worker (worker/post-change.ts) reads, this decides, slack/blocks says it.
import { getPath } from '../../model/merge-patch.js';

/** The history note of the first regression a post-change watch finds (one per watch). */
export const REGRESSED_NOTE = 'REGRESSED';
/** The history note of a post-change watch that ended quiet. */
export const HEALTHY_NOTE = 'HEALTHY';

export const REGRESSION_KINDS = ['restarts', 'checkpoints', 'job-state', 'jobmanager'] as const;
export type RegressionKind = (typeof REGRESSION_KINDS)[number];

/** Restarts since COMPLETED that make a regression, and failed checkpoints with none completed after them. */
export const RESTARTS_THRESHOLD = 3;
export const FAILED_CHECKPOINTS_THRESHOLD = 3;

export const SOURCE = {
  rest: 'Flink REST',
  events: 'JobException events',
  operator: 'operator status',
} as const;

export const isRegression = (entry: { type: string; name: string }): boolean =>
  entry.type === 'note' && entry.name === REGRESSED_NOTE;
export const isHealthy = (entry: { type: string; name: string }): boolean =>
  entry.type === 'note' && entry.name === HEALTHY_NOTE;

/** The numbers one Flink REST reading gives (any JSON: read defensively). */
export interface RestHealth {
  jobState?: string;
  /** `numRestarts` from `/jobs/<id>/metrics?get=numRestarts`, when the metric answered. */
  numRestarts?: number;
  /** Timestamps (JobManager clock) of the exception history's entries. */
  exceptionTimes?: number[];
  failedCheckpoints?: number;
  lastCompletedCheckpointId?: number;
  lastFailedCheckpointId?: number;
}

/** What the job looked like at COMPLETED; kept with the watch so every worker replica judges against it. */
export interface HealthBaseline {
  /** ms (the worker's clock): COMPLETED. */
  at: number;
  jobId: string;
  /** The Flink cluster whose REST service answers (a session job's session cluster). */
  clusterId: string;
  /** Absent: REST did not answer at COMPLETED (or the policy turns it off); then only the operator's view counts. */
  rest?: RestHealth;
  /** JobException event name → its count at COMPLETED. */
  exceptionEvents: Record<string, number>;
}

/** One look at the job while the watch runs. */
export interface HealthObservation {
  /** ms (the worker's clock). */
  now: number;
  /** The latest REST reading of the baseline's job, when REST answered. */
  rest?: RestHealth;
  /** From the operator status (the shared watch). */
  jobState?: string;
  jobManager?: string;
  /** JobException event name → count now. */
  exceptionEvents: Record<string, number>;
  /** ms (worker clock) of the first sighting of the job out of RUNNING / the JobManager out of READY, this episode. */
  notRunningSince?: number;
  notReadySince?: number;
  /** FAILURE_GRACE. */
  graceMs: number;
}

export interface Regression {
  kind: RegressionKind;
  /** "3 restarts in 4 min" */
  what: string;
  /** "numRestarts 0 → 3" */
  numbers: string;
  source: string;
  /** ms from COMPLETED to the observation. */
  afterMs: number;
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** The REST answers (job details, checkpoints, the numRestarts metric, exceptions; any may be missing) as numbers. */
export function readRestHealth(parts: {
  job?: unknown;
  checkpoints?: unknown;
  metrics?: unknown;
  exceptions?: unknown;
}): RestHealth {
  const state = getPath(parts.job, ['state']);
  const metric = Array.isArray(parts.metrics)
    ? (parts.metrics as unknown[]).find((m) => getPath(m, ['id']) === 'numRestarts')
    : undefined;
  const restarts = Number(getPath(metric, ['value']));
  const entries = getPath(parts.exceptions, ['exceptionHistory', 'entries']);
  const out: RestHealth = {
    ...(typeof state === 'string' ? { jobState: state } : {}),
    ...(metric !== undefined && Number.isFinite(restarts) ? { numRestarts: restarts } : {}),
    ...(Array.isArray(entries)
      ? {
          exceptionTimes: entries
            .map((e) => num(getPath(e, ['timestamp'])))
            .filter((t): t is number => t !== undefined),
        }
      : {}),
  };
  const failed = num(getPath(parts.checkpoints, ['counts', 'failed']));
  const completedId = num(getPath(parts.checkpoints, ['latest', 'completed', 'id']));
  const failedId = num(getPath(parts.checkpoints, ['latest', 'failed', 'id']));
  if (failed !== undefined) out.failedCheckpoints = failed;
  if (completedId !== undefined) out.lastCompletedCheckpointId = completedId;
  if (failedId !== undefined) out.lastFailedCheckpointId = failedId;
  return out;
}

/** "40 s", "4 min". */
export function spanWords(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 90 ? `${s} s` : `${Math.round(s / 60)} min`;
}

function restRestarts(base: RestHealth | undefined, now: RestHealth | undefined): { n: number; numbers: string } {
  if (base?.numRestarts !== undefined && now?.numRestarts !== undefined) {
    // A smaller counter is a new JobManager counting from zero: all of its restarts are new.
    const n = now.numRestarts >= base.numRestarts ? now.numRestarts - base.numRestarts : now.numRestarts;
    return { n, numbers: `numRestarts ${base.numRestarts} → ${now.numRestarts}` };
  }
  const latest = Math.max(-Infinity, ...(base?.exceptionTimes ?? []));
  const fresh = (now?.exceptionTimes ?? []).filter((t) => t > latest).length;
  return { n: fresh, numbers: `${fresh} new root exception${fresh === 1 ? '' : 's'} in the exception history` };
}

/**
 * New exceptions in the events since the baseline. Kubernetes drops an event an hour after its last update and the
 * operator writes the same name again from count 1 (docs/lifecycle.md#after-completed): a count below the baseline's is
 * that new event, every one of its exceptions new.
 */
function eventRestarts(base: Record<string, number>, now: Record<string, number>): number {
  let n = 0;
  for (const [name, count] of Object.entries(now)) {
    const before = base[name] ?? 0;
    n += count >= before ? count - before : count;
  }
  return n;
}

function restartsRegression(baseline: HealthBaseline, o: HealthObservation, afterMs: number): Regression | undefined {
  // REST where it answers (its counters are the job's own); the operator's JobException events only without it.
  const rest = o.rest && baseline.rest ? restRestarts(baseline.rest, o.rest) : undefined;
  const useRest = rest !== undefined;
  const n = useRest ? rest.n : eventRestarts(baseline.exceptionEvents, o.exceptionEvents);
  if (n < RESTARTS_THRESHOLD) return undefined;
  return {
    kind: 'restarts',
    what: `${n} restarts in ${spanWords(afterMs)}`,
    numbers: useRest ? rest.numbers : `${n} JobException event${n === 1 ? '' : 's'} since COMPLETED`,
    source: useRest ? SOURCE.rest : SOURCE.events,
    afterMs,
  };
}

function checkpointsRegression(base: RestHealth | undefined, now: RestHealth | undefined, afterMs: number) {
  if (base === undefined || now?.failedCheckpoints === undefined) return undefined;
  const failed = now.failedCheckpoints - (base.failedCheckpoints ?? 0);
  const completed = now.lastCompletedCheckpointId;
  const noneAfter =
    completed === undefined ||
    completed === base.lastCompletedCheckpointId ||
    (now.lastFailedCheckpointId !== undefined && completed < now.lastFailedCheckpointId);
  if (failed < FAILED_CHECKPOINTS_THRESHOLD || !noneAfter) return undefined;
  return {
    kind: 'checkpoints' as const,
    what: `${failed} checkpoints failed in ${spanWords(afterMs)}, none completed after them`,
    numbers: `failed checkpoints ${base.failedCheckpoints ?? 0} → ${now.failedCheckpoints}${completed === undefined ? '' : `, the last completed #${completed}`}`,
    source: SOURCE.rest,
    afterMs,
  };
}

/**
 * The job's state: FAILED when either source says so; else the operator's (the shared watch keeps it current, a REST
 * reading is up to 30 s old), else REST's.
 */
function jobStateOf(o: HealthObservation): { state: string | undefined; source: string } {
  if (o.rest?.jobState === 'FAILED' && o.jobState !== 'FAILED') return { state: 'FAILED', source: SOURCE.rest };
  if (o.jobState !== undefined) return { state: o.jobState, source: SOURCE.operator };
  return { state: o.rest?.jobState, source: SOURCE.rest };
}

function stateRegression(o: HealthObservation, afterMs: number): Regression | undefined {
  const { state, source } = jobStateOf(o);
  const lasting = (since: number | undefined) => since !== undefined && o.now - since >= o.graceMs;
  if (state === 'FAILED' || (state !== undefined && state !== 'RUNNING' && lasting(o.notRunningSince))) {
    const how = state === 'FAILED' ? '' : ` for ${spanWords(o.now - (o.notRunningSince ?? o.now))}`;
    return {
      kind: 'job-state',
      what: `the job left RUNNING: ${state}${how}`,
      numbers: `job state RUNNING → ${state}`,
      source,
      afterMs,
    };
  }
  if (o.jobManager !== undefined && o.jobManager !== 'READY' && lasting(o.notReadySince)) {
    return {
      kind: 'jobmanager',
      what: `the JobManager left READY: ${o.jobManager} for ${spanWords(o.now - (o.notReadySince ?? o.now))}`,
      numbers: `jobManagerDeploymentStatus READY → ${o.jobManager}`,
      source: SOURCE.operator,
      afterMs,
    };
  }
  return undefined;
}

/** The first regression `o` shows against `baseline`, or undefined while the job looks as healthy as at COMPLETED. */
export function judgeHealth(baseline: HealthBaseline, o: HealthObservation): Regression | undefined {
  const afterMs = Math.max(0, o.now - baseline.at);
  const failedNow = jobStateOf(o).state === 'FAILED';
  return (
    (failedNow ? stateRegression(o, afterMs) : undefined) ??
    restartsRegression(baseline, o, afterMs) ??
    checkpointsRegression(baseline.rest, o.rest, afterMs) ??
    stateRegression(o, afterMs)
  );
}

/** "regressed after the change: 3 restarts in 4 min (numRestarts 0 → 3, Flink REST)", from a REGRESSED note. */
export function regressionText(detail: Record<string, unknown>): string {
  const what = typeof detail.what === 'string' ? detail.what : 'the job regressed';
  const why = [detail.numbers, detail.source].filter((s): s is string => typeof s === 'string' && s !== '');
  return `regressed after the change: ${what}${why.length > 0 ? ` (${why.join(', ')})` : ''}`;
}

/** "healthy for 10 min after the change", from a HEALTHY note. */
export function healthyText(detail: Record<string, unknown>): string {
  const ms = num(detail.watchAfterMs);
  const sources = Array.isArray(detail.sources) ? detail.sources.filter((s) => typeof s === 'string') : [];
  const span = ms === undefined ? 'the watch' : spanWords(ms);
  return `healthy for ${span} after the change${sources.length > 0 ? ` (${sources.join(', ')})` : ''}`;
}
