// What one watched job shows wrong now (docs/alerts.md#what-is-watched): the facts the watcher feeds in (operator
// status, JobException warnings, Flink REST readings) and the judgement of each alert kind from them. No I/O, no
// clock: times are passed in, so the unit tests drive it step by step.
import { ALERT_KINDS, type AlertKind, type AlertSignal } from '../app/ports/alerts.js';
import type { AlertRule } from '../domain/engines/policy/alerts.js';
import { readEvent } from '../domain/kit/evidence/events.js';
import { flinkDurationMs } from '../domain/kit/policy/health-gate.js';
import {
  CHECKPOINT_INTERVAL_KEYS,
  CHECKPOINT_MIN_PAUSE_KEYS,
  CHECKPOINT_TIMEOUT_KEYS,
} from '../domain/model/checkpointing.js';
import { readFlinkConfig } from '../domain/model/flink-config.js';
import { getPath } from '../domain/model/merge-patch.js';
import {
  DEFAULT_CHECKPOINT_TIMEOUT_MS,
  judgeStall,
  seconds,
  STALLED_INTERVALS,
  type CheckpointCadence,
  type StallReading,
} from './checkpoint-stall.js';
import {
  jobIdOf,
  jobManagerStatusOf,
  jobStateOf,
  jobStatusStateOf,
  lifecycleStateOf,
  statusErrorOf,
} from '../domain/model/resource.js';

export const FAILOVER_REASON = 'JobException';
/** Event names remembered per job (their counts, so a repeated warning counts only its new occurrences). */
const MAX_EVENT_NAMES = 200;

export type Judgement =
  | { state: 'firing'; summary: string; source: string }
  | { state: 'clear' }
  /** Not known yet (no reading, or not watched long enough to say it is fine): what the incident says stays. */
  | { state: 'unknown' };

/** One Flink REST reading of the job: `numRestarts`, `/checkpoints` and `/jobs/<id>` as far as they answered. */
export interface RestSample {
  /** The worker's clock when it was read. */
  at: number;
  jobId: string;
  numRestarts?: number;
  checkpoints?: unknown;
  /** `now` of `/jobs/<id>`: the JobManager's clock in the same round. */
  jobNow?: number;
  /** When the job last started running by the JobManager's clock (`timestamps.RUNNING`, else `start-time`). */
  runningSince?: number;
}

const minutes = (ms: number) => Math.max(1, Math.round(ms / 60_000));

/** The facts of one job, as the watcher sees them; judged on demand. */
export class JobAlertState {
  private resource: unknown;
  private readonly startedAt: number;
  private errorSince: number | undefined;
  /**
   * The last FAILED run while the job has not run again: its error, and whether it is being started again. No times
   * in what it says, so every worker watching the job says the same.
   */
  private failure: { error: string | undefined; starting: boolean } | undefined;
  /** Event name → the count already counted. */
  private readonly eventCounts = new Map<string, number>();
  /** Worker-clock times of restarts seen in JobException warnings. */
  private restartTimes: number[] = [];
  /** REST readings within the restart window (numRestarts over time), oldest first. */
  private samples: RestSample[] = [];
  private checkpoints: { jobId: string; completed: number; failedBase: number } | undefined;
  private lastCheckpoints: unknown;
  /** The last reading's facts for the stall judgement: between reads the judgement is the last reading's. */
  private stallReading: StallReading | undefined;

  constructor(now: number) {
    this.startedAt = now;
  }

  get current(): unknown {
    return this.resource;
  }

  get jobId(): string | undefined {
    return jobIdOf(this.resource);
  }

  get jobState(): string | undefined {
    return jobStatusStateOf(this.resource);
  }

  onResource(resource: unknown, now: number): void {
    this.resource = resource;
    if (jobManagerStatusOf(resource) === 'ERROR') this.errorSince ??= now;
    else this.errorSince = undefined;
    const state = this.jobState;
    if (state === 'FAILED') {
      this.failure = { error: statusErrorOf(resource) ?? this.failure?.error, starting: false };
    } else if (failureEnded(resource)) this.failure = undefined;
    else if (this.failure) this.failure.starting = true;
  }

  /** A core/v1 Event about this job: each new JobException warning (or a higher count) is a restart. */
  onEvent(raw: unknown, now: number): void {
    const event = readEvent(raw);
    if (event?.name === undefined || event.type !== 'Warning' || event.reason !== FAILOVER_REASON) return;
    const counted = this.eventCounts.get(event.name) ?? 0;
    if (event.count <= counted) return;
    this.eventCounts.delete(event.name);
    this.eventCounts.set(event.name, event.count);
    // Kubernetes drops events after about an hour; the oldest names go first.
    if (this.eventCounts.size > MAX_EVENT_NAMES)
      this.eventCounts.delete(this.eventCounts.keys().next().value as string);
    // A warning listed at start may be an hour old: its own time, never later than now (clock skew).
    const at = Math.min(now, event.lastSeen ?? now);
    for (let i = counted; i < event.count; i++) this.restartTimes.push(at);
  }

  /**
   * The Event is gone: Kubernetes dropped it an hour after its last update (docs/lifecycle.md#operator-traps). The
   * operator writes the same name again from count 1, each of its occurrences new, so its count here is forgotten.
   */
  onEventGone(raw: unknown): void {
    const name = readEvent(raw)?.name;
    if (name !== undefined) this.eventCounts.delete(name);
  }

  onRest(sample: RestSample): void {
    const last = this.samples.at(-1);
    const failedOver =
      sample.numRestarts !== undefined && last?.jobId === sample.jobId && sample.numRestarts > (last.numRestarts ?? 0);
    if (sample.numRestarts !== undefined) {
      // A new job (another id, or the counter went down) counts from zero again.
      if (last && (last.jobId !== sample.jobId || (last.numRestarts ?? 0) > sample.numRestarts)) this.samples = [];
      this.samples.push(sample);
    }
    if (sample.checkpoints === undefined) return;
    this.onCheckpoints(sample);
    this.stallReading = {
      at: sample.jobNow ?? sample.at,
      ...(sample.runningSince === undefined ? {} : { runningSince: sample.runningSince }),
      checkpoints: sample.checkpoints,
      failedOver,
    };
  }

  private onCheckpoints(sample: RestSample): void {
    const completed = numberAt(sample.checkpoints, ['counts', 'completed']) ?? 0;
    const failed = numberAt(sample.checkpoints, ['counts', 'failed']) ?? 0;
    const held = this.checkpoints;
    this.lastCheckpoints = sample.checkpoints;
    if (held === undefined || held.jobId !== sample.jobId || completed < held.completed) {
      // First reading of this run: failures before a completed one are not known to be in a row.
      const failedBase = completed === 0 ? 0 : failed;
      this.checkpoints = { jobId: sample.jobId, completed, failedBase };
    } else if (completed > held.completed) {
      this.checkpoints = { ...held, completed, failedBase: failed };
    }
  }

  /** Each kind's judgement now, for `rule`; `graceMs` is FAILURE_GRACE. */
  judge(rule: AlertRule, now: number, graceMs: number): Record<AlertKind, Judgement> {
    return {
      'job-failed': this.judgeFailed(),
      restarting: this.judgeRestarts(rule, now),
      'checkpoints-failing': this.judgeCheckpoints(rule),
      'jobmanager-error': this.judgeJobManager(now, graceMs),
    };
  }

  /**
   * FAILED, until the job runs again (or is stopped on purpose): while it is being started again the incident stays
   * open and says so, so "recovered" means running. Without the failure seen (a worker that started mid-restart),
   * a job on its way back is not known, and the incident keeps what it has.
   */
  private judgeFailed(): Judgement {
    if (failureEnded(this.resource)) return { state: 'clear' };
    const failure = this.failure;
    if (failure === undefined) return this.jobState === undefined ? { state: 'clear' } : { state: 'unknown' };
    const why = failure.error === undefined ? '' : `: ${oneLine(failure.error)}`;
    if (!failure.starting)
      return { state: 'firing', summary: `job FAILED${why} (jobStatus.state, operator status)`, source: 'status' };
    return {
      state: 'firing',
      summary: `job FAILED${why}; being started again, not RUNNING yet (jobStatus.state, operator status)`,
      source: 'status',
    };
  }

  private judgeRestarts(rule: AlertRule, now: number): Judgement {
    const { count, windowMs, window } = rule.restarts;
    const from = now - windowMs;
    this.restartTimes = this.restartTimes.filter((t) => t > from);
    // The readings inside the window, and the last one before it as the base the growth is counted from.
    const inside = this.samples.findIndex((s) => s.at > from);
    this.samples = this.samples.slice(inside === -1 ? Math.max(0, this.samples.length - 1) : Math.max(0, inside - 1));
    const events = this.restartTimes.length;
    const rest = restDelta(this.samples);
    if (rest !== undefined && rest.delta >= count && rest.delta >= events) {
      return {
        state: 'firing',
        summary: `${rest.delta} restarts in ${minutes(rest.span)} min (numRestarts ${rest.from} → ${rest.to}, Flink REST)`,
        source: 'rest',
      };
    }
    if (events >= count) {
      const span = (this.restartTimes.at(-1) as number) - (this.restartTimes[0] as number);
      return {
        state: 'firing',
        summary: `${events} restarts in ${minutes(span)} min (${events} JobException warnings within ${window}, events)`,
        source: 'events',
      };
    }
    return now - this.startedAt >= windowMs ? { state: 'clear' } : { state: 'unknown' };
  }

  private judgeCheckpoints(rule: AlertRule): Judgement {
    const state = this.jobState;
    if (state !== 'RUNNING' && state !== 'RESTARTING') return { state: 'clear' };
    const held = this.checkpoints;
    if (held === undefined || held.jobId !== this.jobId) return { state: 'unknown' };
    const failed = numberAt(this.lastCheckpoints, ['counts', 'failed']) ?? 0;
    const inRow = failedInRow(this.lastCheckpoints) ?? failed - held.failedBase;
    if (inRow >= rule.checkpoints.failures) {
      return {
        state: 'firing',
        summary: `${inRow} checkpoints failed in a row (counts: ${held.completed} completed, ${failed} failed; Flink REST)`,
        source: 'rest',
      };
    }
    const cadence = cadenceOf(this.resource);
    if (state !== 'RUNNING' || cadence === undefined || this.stallReading === undefined) return { state: 'clear' };
    const stall = judgeStall(this.stallReading, cadence);
    if (!stall.stalled) return { state: 'clear' };
    const lastText = stall.lastId === undefined ? 'none completed yet' : `the last completed is ${stall.lastId}`;
    return {
      state: 'firing',
      summary: `no checkpoint completed in ${STALLED_INTERVALS} intervals of ${seconds(cadence.intervalMs)} (${lastText}; ${stall.why}; JobManager clock, Flink REST)`,
      source: 'rest',
    };
  }

  private judgeJobManager(now: number, graceMs: number): Judgement {
    if (this.errorSince === undefined) return { state: 'clear' };
    if (now - this.errorSince < graceMs) return { state: 'unknown' };
    const error = statusErrorOf(this.resource);
    const why = error === undefined ? '' : `: ${oneLine(error)}`;
    return {
      state: 'firing',
      summary: `JobManager deployment in ERROR for over ${minutes(graceMs)} min${why} (jobManagerDeploymentStatus, operator status)`,
      source: 'status',
    };
  }
}

/**
 * What to tell the store: every firing kind (first seen now unless `since` knows it), and each kind not known yet that
 * the open incident already has, as it has it.
 */
export function signalsOf(
  judgements: Record<AlertKind, Judgement>,
  open: readonly AlertSignal[],
  since: Map<AlertKind, number>,
  now: number,
): AlertSignal[] {
  const signals: AlertSignal[] = [];
  for (const kind of ALERT_KINDS) {
    const judgement = judgements[kind];
    if (judgement.state === 'firing') {
      if (!since.has(kind)) since.set(kind, now);
      signals.push({ kind, since: since.get(kind) as number, summary: judgement.summary, source: judgement.source });
      continue;
    }
    since.delete(kind);
    const held = open.find((s) => s.kind === kind);
    if (judgement.state === 'unknown' && held !== undefined) signals.push(held);
  }
  return signals;
}

/** The job's checkpointing configuration (docs/alerts.md#how-a-stall-is-judged); undefined without an interval. */
function cadenceOf(resource: unknown): CheckpointCadence | undefined {
  const intervalMs = flinkDurationMs(readFlinkConfig(resource, CHECKPOINT_INTERVAL_KEYS)?.value);
  if (intervalMs === undefined || intervalMs <= 0) return undefined;
  const timeout = flinkDurationMs(readFlinkConfig(resource, CHECKPOINT_TIMEOUT_KEYS)?.value);
  const minPause = flinkDurationMs(readFlinkConfig(resource, CHECKPOINT_MIN_PAUSE_KEYS)?.value);
  return {
    intervalMs,
    timeoutMs: timeout !== undefined && timeout > 0 ? timeout : DEFAULT_CHECKPOINT_TIMEOUT_MS,
    minPauseMs: minPause ?? 0,
  };
}

/** numRestarts' growth over the readings kept (the oldest within or just before the window, to the latest). */
function restDelta(
  samples: readonly RestSample[],
): { delta: number; from: number; to: number; span: number } | undefined {
  const first = samples[0];
  const last = samples.at(-1);
  if (first?.numRestarts === undefined || last?.numRestarts === undefined || first === last) return undefined;
  // From the base reading to the last growth: the same while nothing new happens, so the summary stays the same.
  const lastGrowth = samples.findLast((s, i) => i > 0 && (s.numRestarts ?? 0) > (samples[i - 1]?.numRestarts ?? 0));
  const span = (lastGrowth ?? last).at - first.at;
  return { delta: last.numRestarts - first.numRestarts, from: first.numRestarts, to: last.numRestarts, span };
}

/** Leading FAILED entries of `/checkpoints` `history` (newest first), where Flink lists it. */
function failedInRow(checkpoints: unknown): number | undefined {
  const history = getPath(checkpoints, ['history']);
  if (!Array.isArray(history) || history.length === 0) return undefined;
  const done = history.filter((h) => getPath(h, ['status']) !== 'IN_PROGRESS');
  const first = done.findIndex((h) => getPath(h, ['status']) !== 'FAILED');
  return first === -1 ? done.length : first;
}

function numberAt(value: unknown, path: string[]): number | undefined {
  const found = getPath(value, path);
  return typeof found === 'number' && Number.isFinite(found) ? found : undefined;
}

/**
 * The job runs again, or is to stay stopped (`job.state: suspended`, asked or done): a failure is over. FINISHED and
 * CANCELED are not enough: a redeploy of the failed job passes through them on its way back.
 */
function failureEnded(resource: unknown): boolean {
  return (
    jobStatusStateOf(resource) === 'RUNNING' ||
    jobStateOf(resource) === 'suspended' ||
    lifecycleStateOf(resource) === 'SUSPENDED'
  );
}

function oneLine(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

/** `/jobs/<id>/metrics?get=numRestarts` → the number, or undefined when the body does not carry it. */
export function numRestartsOf(body: unknown): number | undefined {
  if (!Array.isArray(body)) return undefined;
  const entry = body.find((m) => getPath(m, ['id']) === 'numRestarts');
  const value = Number(getPath(entry, ['value']));
  return entry !== undefined && Number.isFinite(value) ? value : undefined;
}
