// Wall-clock arithmetic for --at and --window (docs/policy.md#scheduled-operations) across DST switches and midnight,
// in real IANA zones.
import { describe, expect, it } from 'vitest';
import { nextClockTime, windowOccurrence, zonedInstant } from '../../../../../src/domain/kit/schedule/wall-clock.js';
import { nextOpening, resolveSchedule } from '../../../../../src/domain/kit/schedule/resolve.js';
import type { Schedule } from '../../../../../src/domain/kit/policy/schedule.js';

const utc = (iso: string) => Date.parse(iso);
const BERLIN = 'Europe/Berlin';
const NY = 'America/New_York';

describe('zonedInstant', () => {
  it.each([
    ['Berlin winter', { year: 2026, month: 1, day: 15 }, '02:00', BERLIN, '2026-01-15T01:00:00Z'],
    ['Berlin summer', { year: 2026, month: 7, day: 15 }, '02:00', BERLIN, '2026-07-15T00:00:00Z'],
    ['Berlin spring gap → the jump', { year: 2026, month: 3, day: 29 }, '02:30', BERLIN, '2026-03-29T01:00:00Z'],
    ['Berlin just before the gap', { year: 2026, month: 3, day: 29 }, '01:59', BERLIN, '2026-03-29T00:59:00Z'],
    ['Berlin just after the gap', { year: 2026, month: 3, day: 29 }, '03:00', BERLIN, '2026-03-29T01:00:00Z'],
    ['Berlin autumn fold → first', { year: 2026, month: 10, day: 25 }, '02:30', BERLIN, '2026-10-25T00:30:00Z'],
    ['Berlin after the fold', { year: 2026, month: 10, day: 25 }, '03:00', BERLIN, '2026-10-25T02:00:00Z'],
    ['New York spring gap', { year: 2026, month: 3, day: 8 }, '02:15', NY, '2026-03-08T07:00:00Z'],
    ['New York autumn fold → first', { year: 2026, month: 11, day: 1 }, '01:30', NY, '2026-11-01T05:30:00Z'],
    ['New York after the fold', { year: 2026, month: 11, day: 1 }, '02:00', NY, '2026-11-01T07:00:00Z'],
    ['UTC midnight', { year: 2026, month: 12, day: 31 }, '00:00', 'UTC', '2026-12-31T00:00:00Z'],
  ])('%s', (_name, date, hhmm, zone, want) => {
    const [h, m] = hhmm.split(':').map(Number) as [number, number];
    expect(new Date(zonedInstant(date, h * 60 + m, zone)).toISOString()).toBe(new Date(utc(want)).toISOString());
  });
});

describe('nextClockTime', () => {
  it('is later today when the time is still ahead, else tomorrow', () => {
    expect(nextClockTime(utc('2026-12-01T10:00:00Z'), 11, 0, 'UTC')).toBe(utc('2026-12-01T11:00:00Z'));
    expect(nextClockTime(utc('2026-12-01T11:00:00Z'), 11, 0, 'UTC')).toBe(utc('2026-12-02T11:00:00Z'));
    expect(nextClockTime(utc('2026-12-31T23:30:00Z'), 0, 15, 'UTC')).toBe(utc('2027-01-01T00:15:00Z'));
  });

  it('follows the zone across midnight and DST', () => {
    // 23:30 UTC on 28 March is 00:30 CET on the 29th: 02:30 that day falls in the gap → the jump at 01:00Z.
    expect(nextClockTime(utc('2026-03-28T23:30:00Z'), 2, 30, BERLIN)).toBe(utc('2026-03-29T01:00:00Z'));
    // The day after the switch, 02:00 is CEST.
    expect(nextClockTime(utc('2026-03-29T12:00:00Z'), 2, 0, BERLIN)).toBe(utc('2026-03-30T00:00:00Z'));
    // Between the two 02:30s of the fold, the next 02:30 is the second one.
    expect(nextClockTime(utc('2026-10-25T00:45:00Z'), 2, 30, BERLIN)).toBe(utc('2026-10-25T01:30:00Z'));
    expect(nextClockTime(utc('2026-10-31T12:00:00Z'), 23, 0, NY)).toBe(utc('2026-11-01T03:00:00Z'));
    expect(nextClockTime(utc('2026-11-01T12:00:00Z'), 23, 0, NY)).toBe(utc('2026-11-02T04:00:00Z'));
  });
});

describe('windowOccurrence', () => {
  const nightly: Schedule = { days: ['mon', 'tue', 'wed', 'thu'], from: '02:00', to: '04:00', timezone: BERLIN };
  const overnight: Schedule = { days: ['fri'], from: '22:00', to: '02:00', timezone: 'UTC' };

  it('gives the next opening, and the close at the end of the "to" minute', () => {
    // Tuesday 2026-12-01 10:00 UTC → Wednesday 02:00 CET.
    expect(windowOccurrence(nightly, utc('2026-12-01T10:00:00Z'))).toStrictEqual({
      opensAt: utc('2026-12-02T01:00:00Z'),
      closesAt: utc('2026-12-02T03:01:00Z'),
    });
  });

  it('gives the open occurrence while it is open, and skips days not listed', () => {
    expect(windowOccurrence(nightly, utc('2026-12-02T02:00:00Z'))?.opensAt).toBe(utc('2026-12-02T01:00:00Z'));
    // Thursday after the window → next Monday.
    expect(windowOccurrence(nightly, utc('2026-12-03T04:00:00Z'))?.opensAt).toBe(utc('2026-12-07T01:00:00Z'));
  });

  it('runs a window past midnight from its start day', () => {
    const saturdayEarly = utc('2026-12-05T01:00:00Z');
    expect(windowOccurrence(overnight, saturdayEarly)).toStrictEqual({
      opensAt: utc('2026-12-04T22:00:00Z'),
      closesAt: utc('2026-12-05T02:01:00Z'),
    });
    expect(windowOccurrence(overnight, utc('2026-12-05T03:00:00Z'))?.opensAt).toBe(utc('2026-12-11T22:00:00Z'));
  });

  it('opens at the jump when the window starts in the spring gap, and is shorter by the hour', () => {
    const sunday: Schedule = { days: ['sun'], from: '02:00', to: '04:00', timezone: BERLIN };
    expect(windowOccurrence(sunday, utc('2026-03-28T12:00:00Z'))).toStrictEqual({
      opensAt: utc('2026-03-29T01:00:00Z'),
      closesAt: utc('2026-03-29T02:01:00Z'),
    });
    // Autumn: opens at the first 02:00 and lasts three hours of real time.
    expect(windowOccurrence(sunday, utc('2026-10-24T12:00:00Z'))).toStrictEqual({
      opensAt: utc('2026-10-25T00:00:00Z'),
      closesAt: utc('2026-10-25T03:01:00Z'),
    });
  });
});

describe('resolveSchedule and nextOpening', () => {
  const policy = { timezone: BERLIN, windows: { nightly: { days: ['wed' as const], from: '02:00', to: '04:00' } } };
  const now = utc('2026-12-01T10:00:00Z');

  it('resolves --at HH:MM in the policy zone, its own zone, and RFC 3339', () => {
    expect(resolveSchedule({ at: { kind: 'clock', hour: 2, minute: 0 } }, policy, now)).toStrictEqual({
      ok: true,
      schedule: { runAt: utc('2026-12-02T01:00:00Z'), zone: BERLIN, firstRunAt: utc('2026-12-02T01:00:00Z') },
    });
    expect(resolveSchedule({ at: { kind: 'clock', hour: 2, minute: 0, zone: NY } }, policy, now)).toMatchObject({
      schedule: { runAt: utc('2026-12-02T07:00:00Z'), zone: NY },
    });
    expect(resolveSchedule({ at: { kind: 'clock', hour: 2, minute: 0 } }, {}, now)).toMatchObject({
      schedule: { zone: 'UTC', runAt: utc('2026-12-02T02:00:00Z') },
    });
    expect(resolveSchedule({}, policy, now)).toStrictEqual({ ok: true });
  });

  it('refuses the past, more than 7 days ahead, and unknown windows', () => {
    expect(resolveSchedule({ at: { kind: 'instant', ms: now - 1 } }, policy, now)).toMatchObject({
      ok: false,
      message: expect.stringMatching(/is in the past/),
    });
    expect(resolveSchedule({ at: { kind: 'instant', ms: now + 8 * 86_400_000 } }, policy, now)).toMatchObject({
      ok: false,
      message: expect.stringMatching(/more than 7 days ahead/),
    });
    expect(resolveSchedule({ window: 'weekly' }, policy, now)).toStrictEqual({
      ok: false,
      message: 'unknown window "weekly"; the policy\'s windows are nightly',
    });
    expect(resolveSchedule({ window: 'weekly' }, {}, now)).toMatchObject({
      ok: false,
      message: expect.stringMatching(/defines no windows/),
    });
  });

  it('resolves a window in the policy zone and moves it to the next opening within 7 days, else none', () => {
    const first = resolveSchedule({ window: 'nightly' }, policy, now);
    expect(first).toMatchObject({
      ok: true,
      schedule: { runAt: utc('2026-12-02T01:00:00Z'), closesAt: utc('2026-12-02T03:01:00Z'), window: 'nightly' },
    });
    const schedule = (first as { schedule: NonNullable<ReturnType<typeof nextOpening>> }).schedule;
    const moved = nextOpening(schedule, policy, utc('2026-12-02T03:01:00Z'));
    expect(moved).toMatchObject({ runAt: utc('2026-12-09T01:00:00Z'), firstRunAt: schedule.runAt });
    expect(nextOpening(moved!, policy, utc('2026-12-09T03:01:00Z'))).toBeUndefined();
  });
});
