// Wall-clock arithmetic in IANA zones with Intl only: the instant of a local date and time (DST gaps and folds
// decided here), the next HH:MM after an instant, and a window's current or next opening with its close.

export const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Day = (typeof DAYS)[number];

/** Weekdays and a wall-clock window in an IANA zone: a policy rule's `when.schedule`, an execution window. */
export interface Schedule {
  days: Day[];
  /** "HH:MM", inclusive. */
  from: string;
  /** "HH:MM", inclusive through the end of that minute; before `from` means the window runs past midnight. */
  to: string;
  timezone: string;
}

export const HHMM = /^([01]\d|2[0-3]):([0-5]\d)$/;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** A calendar date on a wall clock (month 1–12). */
export interface LocalDate {
  year: number;
  month: number;
  day: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(zone, f);
  }
  return f;
}

/** The wall clock of `zone` at `ms`, as if it were UTC (so offset = that − ms). */
function wallAsUtc(ms: number, zone: string): number {
  const parts = formatter(zone).formatToParts(new Date(ms));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return Date.UTC(get('year'), get('month') - 1, get('day'), get('hour') % 24, get('minute'), get('second'));
}

/** The zone's UTC offset at `ms`, in ms (whole seconds; sub-second parts of `ms` ignored). */
export function offsetAt(ms: number, zone: string): number {
  const whole = Math.floor(ms / 1000) * 1000;
  return wallAsUtc(whole, zone) - whole;
}

/** The local calendar date in `zone` at `ms`. */
export function localDate(ms: number, zone: string): LocalDate {
  const d = new Date(ms + offsetAt(ms, zone));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

/** `date` moved by `days` calendar days (month and year roll over). */
export function addDays(date: LocalDate, days: number): LocalDate {
  const d = new Date(Date.UTC(date.year, date.month - 1, date.day + days));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

export function weekday(date: LocalDate): Day {
  // getUTCDay: 0 = Sunday; DAYS starts on Monday.
  return DAYS[(new Date(Date.UTC(date.year, date.month - 1, date.day)).getUTCDay() + 6) % 7] as Day;
}

/**
 * The instant the wall clock of `zone` shows `date` at `minuteOfDay`. Decisions where DST makes that
 * ambiguous: a time that occurs twice (autumn fold) is its first occurrence; a time that does not occur
 * (spring gap) is the first instant after the gap, i.e. the moment the clocks jump (02:30 in Berlin on
 * 2026-03-29 → 03:00 CEST). Nothing scheduled into the gap is skipped or runs before its wall time.
 */
export function zonedInstant(date: LocalDate, minuteOfDay: number, zone: string): number {
  return zonedInstants(date, minuteOfDay, zone)[0] as number;
}

/** Every instant the wall clock shows that time (two in a fold), or the jump for a time in the gap; ascending. */
export function zonedInstants(date: LocalDate, minuteOfDay: number, zone: string): number[] {
  const wall = Date.UTC(date.year, date.month - 1, date.day) + minuteOfDay * MINUTE;
  const before = offsetAt(wall - DAY, zone);
  const after = offsetAt(wall + DAY, zone);
  const candidates = [...new Set([wall - before, wall - after])]
    .filter((t) => t + offsetAt(t, zone) === wall)
    .sort((a, b) => a - b);
  if (candidates.length > 0) return candidates;
  // In the gap: the transition lies between the two readings; find the first minute with the later offset.
  let lo = Math.min(wall - before, wall - after);
  let hi = Math.max(wall - before, wall - after);
  while (hi - lo > MINUTE) {
    const mid = lo + Math.floor((hi - lo) / 2 / MINUTE) * MINUTE;
    if (offsetAt(mid, zone) === offsetAt(lo, zone)) lo = mid;
    else hi = mid;
  }
  return [hi];
}

/** Minutes since midnight of "HH:MM". */
export function minuteOf(hhmm: string): number {
  const m = HHMM.exec(hhmm);
  if (!m) throw new Error(`"${hhmm}" is not HH:MM`);
  return Number(m[1]) * 60 + Number(m[2]);
}

/** The first instant strictly after `now` at which the wall clock of `zone` shows hour:minute (gap: the jump). */
export function nextClockTime(now: number, hour: number, minute: number, zone: string): number {
  const today = localDate(now, zone);
  for (let k = 0; k < 3; k++) {
    // In a fold the wall time comes twice; between the two, the next one is the second.
    const t = zonedInstants(addDays(today, k), hour * 60 + minute, zone).find((c) => c > now);
    if (t !== undefined) return t;
  }
  // Unreachable for real zones (a day later is always after now); kept total for the type.
  return zonedInstant(addDays(today, 3), hour * 60 + minute, zone);
}

/** One occurrence of a window: it may start from `opensAt` and must have started before `closesAt`. */
export interface WindowOccurrence {
  opensAt: number;
  closesAt: number;
}

/**
 * The window occurrence that is open at `now`, else the next one to open, looking `horizonDays` ahead.
 * An occurrence belongs to the day it starts on (`fri 22:00–02:00` is Friday night into Saturday); `to` is
 * inclusive through the end of that minute, as `inSchedule` reads rule schedules.
 */
export function windowOccurrence(window: Schedule, now: number, horizonDays = 8): WindowOccurrence | undefined {
  const from = minuteOf(window.from);
  const to = minuteOf(window.to);
  const today = localDate(now, window.timezone);
  for (let k = -1; k <= horizonDays; k++) {
    const date = addDays(today, k);
    if (!window.days.includes(weekday(date))) continue;
    const opensAt = zonedInstant(date, from, window.timezone);
    const closesAt = zonedInstant(from <= to ? date : addDays(date, 1), to, window.timezone) + MINUTE;
    if (closesAt > now && closesAt > opensAt) return { opensAt, closesAt };
  }
  return undefined;
}
