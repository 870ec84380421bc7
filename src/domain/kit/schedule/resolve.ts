// When a scheduled operation may start (docs/policy.md#scheduled-operations): `--at`/`--window` resolved against the
// policy and the clock of the request, and a window operation moved to its next opening. Pure: `now` is always a
// parameter.
import type { RunAt } from './run-at.js';
import type { Schedule } from '../policy/schedule.js';
import { nextClockTime, windowOccurrence } from './wall-clock.js';

/** The history note written when a window operation moves to its window's next opening (SCHEDULED stays). */
export const RESCHEDULED = 'rescheduled';

/** At most this far ahead (from when it was first scheduled). */
export const MAX_SCHEDULE_AHEAD_MS = 7 * 24 * 60 * 60_000;

/** What an operation record keeps about its schedule. */
export interface OperationSchedule {
  /** It may not start before this instant (ms). */
  runAt: number;
  /** The zone its times are shown in. */
  zone: string;
  /** `--window`: the window's name and when this occurrence closes (it must have started by then). */
  window?: string;
  closesAt?: number;
  /** The first `runAt` it was given; later openings must lie within 7 days of it. */
  firstRunAt: number;
}

/** The part of the policy this reads. */
export interface SchedulePolicy {
  timezone?: string;
  windows?: Record<string, Omit<Schedule, 'timezone'> & { timezone?: string }>;
}

export type ScheduleResolution = { ok: true; schedule?: OperationSchedule } | { ok: false; message: string };

const DEFAULT_ZONE = 'UTC';

function windowSchedule(policy: SchedulePolicy, name: string): Schedule | undefined {
  const w = policy.windows?.[name];
  return w === undefined ? undefined : { ...w, timezone: w.timezone ?? policy.timezone ?? DEFAULT_ZONE };
}

function unknownWindow(policy: SchedulePolicy, name: string): string {
  const known = Object.keys(policy.windows ?? {});
  if (known.length === 0)
    return `unknown window "${name}": the policy defines no windows (add them under \`windows:\`)`;
  return `unknown window "${name}"; the policy's windows are ${known.join(', ')}`;
}

/** `--at`/`--window` of an intent → its schedule (none when neither was given), or why it is refused. */
export function resolveSchedule(
  intent: { at?: RunAt; window?: string },
  policy: SchedulePolicy,
  now: number,
): ScheduleResolution {
  const policyZone = policy.timezone ?? DEFAULT_ZONE;
  if (intent.window !== undefined) {
    const window = windowSchedule(policy, intent.window);
    if (window === undefined) return { ok: false, message: unknownWindow(policy, intent.window) };
    const next = windowOccurrence(window, now);
    if (next === undefined || next.opensAt - now > MAX_SCHEDULE_AHEAD_MS) {
      return { ok: false, message: `window ${intent.window} does not open within the next 7 days` };
    }
    const runAt = Math.max(next.opensAt, now);
    return {
      ok: true,
      schedule: { runAt, zone: window.timezone, window: intent.window, closesAt: next.closesAt, firstRunAt: runAt },
    };
  }
  if (intent.at === undefined) return { ok: true };
  const at = intent.at;
  const zone = at.kind === 'clock' ? (at.zone ?? policyZone) : policyZone;
  const runAt = at.kind === 'clock' ? nextClockTime(now, at.hour, at.minute, zone) : at.ms;
  if (runAt <= now)
    return { ok: false, message: `--at ${new Date(runAt).toISOString()} is in the past; give a time ahead` };
  if (runAt - now > MAX_SCHEDULE_AHEAD_MS)
    return { ok: false, message: '--at is more than 7 days ahead; schedule at most 7 days out' };
  return { ok: true, schedule: { runAt, zone, firstRunAt: runAt } };
}

/**
 * A window operation that could not start before its window closed: the next opening after `now`, if it lies
 * within 7 days of when it was first scheduled; undefined means it expires. Undefined too for `--at`.
 */
export function nextOpening(
  schedule: OperationSchedule,
  policy: SchedulePolicy,
  now: number,
): OperationSchedule | undefined {
  if (schedule.window === undefined) return undefined;
  const window = windowSchedule(policy, schedule.window);
  if (window === undefined) return undefined;
  const next = windowOccurrence(window, Math.max(now, schedule.closesAt ?? now));
  if (next === undefined || next.opensAt - schedule.firstRunAt > MAX_SCHEDULE_AHEAD_MS) return undefined;
  return { ...schedule, runAt: Math.max(next.opensAt, now), closesAt: next.closesAt, zone: window.timezone };
}

/** Whether a window operation may still start at `now` (an `--at` one always may, once its time came). */
export function windowStillOpen(schedule: OperationSchedule, now: number): boolean {
  return schedule.closesAt === undefined || now < schedule.closesAt;
}
