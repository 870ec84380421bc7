// Rule schedules: weekdays and a wall-clock window in an IANA time zone, evaluated at an injected instant. The
// days, the HH:MM form and the Intl arithmetic live in ../schedule/wall-clock.ts (scheduled operations use them too).
import { DAYS, HHMM, localDate, offsetAt, weekday, type Day, type Schedule } from '../schedule/wall-clock.js';

export { DAYS, HHMM, type Day, type Schedule };

/** Whether Intl knows the IANA zone (e.g. "Europe/Berlin"). */
export function isValidTimeZone(timezone: string): boolean {
  if (timezone.length === 0) return false;
  try {
    offsetAt(0, timezone);
    return true;
  } catch {
    return false;
  }
}

function minutesOf(hhmm: string): number {
  const m = HHMM.exec(hhmm);
  if (!m) throw new Error(`"${hhmm}" is not HH:MM`);
  return Number(m[1]) * 60 + Number(m[2]);
}

/** The weekday and minute of the day on the wall clock of `timezone` at `now` (DST included). */
export function wallClock(now: Date, timezone: string): { day: Day; minute: number } {
  const ms = now.getTime();
  const local = new Date(ms + offsetAt(ms, timezone));
  return { day: weekday(localDate(ms, timezone)), minute: local.getUTCHours() * 60 + local.getUTCMinutes() };
}

function previousDay(day: Day): Day {
  return DAYS[(DAYS.indexOf(day) + 6) % 7] as Day;
}

/**
 * Whether `now` falls in the schedule. The window belongs to the day it starts on: `fri 22:00–02:00`
 * covers Friday 22:00 through Saturday 02:00:59. Wall-clock times follow DST, so a window inside the
 * skipped hour of a spring-forward day does not occur that day.
 */
export function inSchedule(schedule: Schedule, now: Date): boolean {
  const { day, minute } = wallClock(now, schedule.timezone);
  const from = minutesOf(schedule.from);
  const to = minutesOf(schedule.to);
  if (from <= to) return schedule.days.includes(day) && minute >= from && minute <= to;
  if (minute >= from) return schedule.days.includes(day);
  return minute <= to && schedule.days.includes(previousDay(day));
}

const DAY_NAMES: Record<Day, string> = {
  mon: 'Mondays',
  tue: 'Tuesdays',
  wed: 'Wednesdays',
  thu: 'Thursdays',
  fri: 'Fridays',
  sat: 'Saturdays',
  sun: 'Sundays',
};

/** "Fridays 15:00–23:59 (Europe/Berlin)", "every day 22:00–06:00 the next day (UTC)". */
export function describeSchedule(schedule: Schedule): string {
  const unique = DAYS.filter((d) => schedule.days.includes(d));
  let days: string;
  if (unique.length === 7) days = 'every day';
  else if (unique.join() === 'mon,tue,wed,thu,fri') days = 'weekdays';
  else if (unique.join() === 'sat,sun') days = 'weekends';
  else days = joinWords(unique.map((d) => DAY_NAMES[d]));
  const wraps = minutesOf(schedule.from) > minutesOf(schedule.to);
  return `${days} ${schedule.from}–${schedule.to}${wraps ? ' the next day' : ''} (${schedule.timezone})`;
}

/** "a", "a and b", "a, b and c". */
export function joinWords(words: readonly string[]): string {
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}
