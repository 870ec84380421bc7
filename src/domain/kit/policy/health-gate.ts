// The health gate (docs/deep-verification.md#the-health-gate): before a change, is the job already unhealthy? Read from
// Flink REST on the JobManager's own clock: restarts in the window (health-restarts.ts), the last completed checkpoint
// older than three intervals, checkpoints failing. Shown like the other built-in checks, with the numbers; warn or fail
// per policy, saying how to look and the ways through (health-gate-hints.ts).
import type { CheckResult } from '../../model/decision.js';
import { getPath } from '../../model/merge-patch.js';
import { lookHint, waysThrough, type GateHints } from './health-gate-hints.js';
import { calmWords, failoversIn, stormWords } from './health-restarts.js';
import type { HealthGate, RestartLimit } from './verify.js';

export const HEALTH_GATE_CHECK = 'health-gate';

/** The policy's gate for the target's environment (`verify.<env>.healthGate`). */
export interface GateSettings {
  outcome: HealthGate;
  restartLimit: RestartLimit;
}

/** How the operation meets the gate, and what its hints may name. */
export interface GateContext {
  /** An undo only warns: it puts back what ran before. */
  undo?: boolean;
  hints?: GateHints;
}

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

interface Found {
  problems: string[];
  facts: string[];
  /** When the restart storm ends by itself (JobManager clock). */
  passesAt?: number;
  /** Checkpoints are failing or late. */
  checkpoints: boolean;
}

/** Each problem found, in words with its numbers; empty when healthy. */
function problems(reading: HealthReading, limit: RestartLimit, now: number): Found {
  const out: Found = { problems: [], facts: [], checkpoints: false };
  const failovers = failoversIn(reading.exceptions, limit, now);
  if (failovers.storm) {
    out.problems.push(stormWords(failovers, limit));
    if (failovers.passesAt !== undefined) out.passesAt = failovers.passesAt;
  } else out.facts.push(calmWords(failovers, limit));
  if (reading.intervalMs === undefined && !restShowsCheckpointing(reading.checkpoints)) {
    out.facts.push('checkpointing is off');
    return out;
  }
  checkpointProblems(reading, now, out);
  return out;
}

/** Failing or late checkpoints (a savepoint-mode change may then fail or hang), else the facts. */
function checkpointProblems(reading: HealthReading, now: number, out: Found): void {
  const completedAt = num(getPath(reading.checkpoints, ['latest', 'completed', 'latest_ack_timestamp']));
  const failed = num(getPath(reading.checkpoints, ['counts', 'failed'])) ?? 0;
  const failedAt = num(getPath(reading.checkpoints, ['latest', 'failed', 'failure_timestamp']));
  // Enabled in the job's code: REST shows it, but not the interval the age would be judged against.
  const interval =
    reading.intervalMs === undefined
      ? 'checkpointing enabled in the job, interval not in the configuration'
      : `interval ${ago(reading.intervalMs)}`;
  if (failed > 0 && (completedAt === undefined || (failedAt !== undefined && failedAt > completedAt))) {
    out.checkpoints = true;
    out.problems.push(
      `checkpoints are failing: ${failed} failed${completedAt === undefined ? ' and none completed' : `, the last completed ${ago(now - completedAt)} ago`} (${interval})`,
    );
  } else if (
    completedAt !== undefined &&
    reading.intervalMs !== undefined &&
    now - completedAt > 3 * reading.intervalMs
  ) {
    out.checkpoints = true;
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
}

/**
 * The health gate as a built-in check; `now` is the JobManager's (`now` in `/jobs/<id>`), else `readAt`. For an
 * undo it only warns: an undo puts back what ran before. Break-glass does not soften it (docs/policy.md#break-glass).
 */
export function healthGateCheck(
  reading: HealthReading,
  gate: GateSettings,
  readAt: number,
  context: GateContext = {},
): CheckResult {
  const now = num(getPath(reading.job, ['now'])) ?? readAt;
  const found = problems(reading, gate.restartLimit, now);
  if (found.problems.length === 0)
    return { name: HEALTH_GATE_CHECK, outcome: 'pass', message: `the job is healthy: ${found.facts.join('; ')}` };
  const hints = context.hints ?? {};
  const outcome = context.undo === true ? 'warn' : gate.outcome;
  const tail =
    context.undo === true
      ? 'an undo only warns: it puts back what ran before'
      : outcome === 'fail'
        ? waysThrough(hints, found.passesAt, found.checkpoints)
        : 'a savepoint-mode change may fail or hang';
  return {
    name: HEALTH_GATE_CHECK,
    outcome,
    message: `the job is not healthy: ${found.problems.join('; ')} — ${[...lookHint(hints), tail].join('; ')}`,
  };
}
