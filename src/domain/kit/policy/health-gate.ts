// The health gate (docs/deep-verification.md#the-health-gate): before a change, is the job already unhealthy? Read from
// Flink REST on the JobManager's own clock: a restart in the last 10 minutes, the last completed checkpoint older than
// three intervals, checkpoints failing. Shown like the other built-in checks, with the numbers; warn or fail per
// policy.
import type { CheckResult } from '../../model/decision.js';
import { getPath } from '../../model/merge-patch.js';
import type { HealthGate } from './verify.js';

export const HEALTH_GATE_CHECK = 'health-gate';
const RECENT_RESTART_MS = 10 * 60_000;

/** What REST said about the running job (any JSON: read defensively). */
export interface HealthReading {
  job: unknown;
  checkpoints: unknown;
  exceptions: unknown;
  /** execution.checkpointing.interval in ms, when the configuration sets one. */
  intervalMs: number | undefined;
}

/**
 * Checkpointing is on when the configuration sets an interval, or when REST shows checkpoints (`counts.total > 0`
 * or a `latest.completed`): jobs often enable it in their own code, where the CR does not show it.
 */
export function restShowsCheckpointing(checkpoints: unknown): boolean {
  const total = num(getPath(checkpoints, ['counts', 'total'])) ?? 0;
  const completed = getPath(checkpoints, ['latest', 'completed']);
  return total > 0 || (typeof completed === 'object' && completed !== null);
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

function ago(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 120 ? `${s} s` : `${Math.round(s / 60)} min`;
}

function clock(ms: number): string {
  return `${new Date(ms).toISOString().slice(11, 19)} UTC`;
}

/** Flink durations as `execution.checkpointing.interval` takes them: `30s`, `1 min`, `500 ms`, plain ms. */
export function flinkDurationMs(text: string | undefined): number | undefined {
  const match =
    /^(\d+(?:\.\d+)?)\s*(ms|milli|millis|milliseconds|s|sec|secs|second|seconds|m|min|mins|minute|minutes|h|hour|hours|d|day|days)?$/.exec(
      (text ?? '').trim().toLowerCase(),
    );
  if (!match) return undefined;
  const unit = match[2] ?? 'ms';
  const factor =
    unit.startsWith('ms') || unit.startsWith('milli')
      ? 1
      : unit.startsWith('s')
        ? 1_000
        : unit.startsWith('m')
          ? 60_000
          : unit.startsWith('h')
            ? 3_600_000
            : 86_400_000;
  return Number(match[1]) * factor;
}

/** Each problem found, in words with its numbers; empty when healthy. */
function problems(reading: HealthReading, now: number): { problems: string[]; facts: string[] } {
  const out = { problems: [] as string[], facts: [] as string[] };
  const entries = getPath(reading.exceptions, ['exceptionHistory', 'entries']);
  const times = (Array.isArray(entries) ? entries : [])
    .map((e) => num(getPath(e, ['timestamp'])))
    .filter((t): t is number => t !== undefined);
  const recent = times.filter((t) => now - t <= RECENT_RESTART_MS);
  if (recent.length > 0)
    out.problems.push(
      `the job restarted ${recent.length} time(s) in the last 10 min (the last at ${clock(Math.max(...recent))}, JobManager clock)`,
    );
  else out.facts.push('no restart in the last 10 min');
  if (reading.intervalMs === undefined && !restShowsCheckpointing(reading.checkpoints)) {
    out.facts.push('checkpointing is off');
    return out;
  }
  const completedAt = num(getPath(reading.checkpoints, ['latest', 'completed', 'latest_ack_timestamp']));
  const failed = num(getPath(reading.checkpoints, ['counts', 'failed'])) ?? 0;
  const failedAt = num(getPath(reading.checkpoints, ['latest', 'failed', 'failure_timestamp']));
  // Enabled in the job's code: REST shows it, but not the interval the age would be judged against.
  const interval =
    reading.intervalMs === undefined
      ? 'checkpointing enabled in the job, interval not in the configuration'
      : `interval ${ago(reading.intervalMs)}`;
  if (failed > 0 && (completedAt === undefined || (failedAt !== undefined && failedAt > completedAt))) {
    out.problems.push(
      `checkpoints are failing: ${failed} failed${completedAt === undefined ? ' and none completed' : `, the last completed ${ago(now - completedAt)} ago`} (${interval})`,
    );
  } else if (
    completedAt !== undefined &&
    reading.intervalMs !== undefined &&
    now - completedAt > 3 * reading.intervalMs
  ) {
    out.problems.push(
      `the last completed checkpoint is ${ago(now - completedAt)} old, more than three checkpoint intervals (${interval})`,
    );
  } else {
    out.facts.push(
      completedAt === undefined
        ? `no checkpoint completed yet (${interval})`
        : `last checkpoint ${ago(now - completedAt)} ago (${interval}); ${failed} failed`,
    );
  }
  return out;
}

/**
 * The health gate as a built-in check; `now` is the JobManager's (`now` in `/jobs/<id>`), else `readAt`. For an
 * undo it only warns: an unhealthy job is what an undo is for, and it puts back what ran before.
 */
export function healthGateCheck(reading: HealthReading, gate: HealthGate, readAt: number, undo = false): CheckResult {
  const now = num(getPath(reading.job, ['now'])) ?? readAt;
  const found = problems(reading, now);
  if (found.problems.length === 0)
    return { name: HEALTH_GATE_CHECK, outcome: 'pass', message: `the job is healthy: ${found.facts.join('; ')}` };
  const outcome = undo ? 'warn' : gate;
  const tail = undo
    ? '; an undo only warns: it puts back what ran before'
    : gate === 'fail'
      ? " — fix the job first, or change the policy's verify.healthGate"
      : '; a savepoint-mode change may fail or hang';
  return {
    name: HEALTH_GATE_CHECK,
    outcome,
    message: `the job is not healthy: ${found.problems.join('; ')}${tail}`,
  };
}
