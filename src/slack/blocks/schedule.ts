// When a scheduled operation runs (docs/policy.md#scheduled-operations), in words: "runs at 02:00 Europe/Berlin", with
// the date when it is not today in that zone, or "runs in window nightly (next opening …)"; for the card, thread
// replies and `op`.
import type { OperationRecord } from '../../domain/engines/operation.js';
import { escapeText } from './text.js';

/** What a SCHEDULED entry's detail or a record's `schedule` says about when it runs. */
export interface When {
  runAt: number;
  zone: string;
  window?: string;
  closesAt?: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function parts(ms: number, zone: string): { date: string; time: string } {
  let f = formatters.get(zone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-GB', {
      timeZone: zone,
      weekday: 'short',
      day: 'numeric',
      month: 'short',
      year: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(zone, f);
  }
  const p = f.formatToParts(new Date(ms));
  const get = (type: string) => p.find((x) => x.type === type)?.value ?? '';
  return {
    date: `${get('weekday')} ${get('day')} ${get('month')} ${get('year')}`,
    time: `${get('hour')}:${get('minute')}`,
  };
}

/** `02:00 Europe/Berlin`, or `Wed 2 Dec 2026 02:00 Europe/Berlin` when that is not today in the zone. */
export function zonedTime(ms: number, zone: string, now: number): string {
  const at = parts(ms, zone);
  const today = parts(now, zone).date === at.date;
  return escapeText(`${today ? '' : `${at.date} `}${at.time} ${zone}`);
}

/** "runs at 02:00 Europe/Berlin" / "runs in window nightly (next opening Wed 2 Dec 2026 02:00 Europe/Berlin)". */
export function runsLine(when: When, now: number): string {
  if (when.window === undefined) return `runs at ${zonedTime(when.runAt, when.zone, now)}`;
  const name = escapeText(when.window);
  if (when.runAt <= now && when.closesAt !== undefined)
    return `runs in window ${name} (open now, until ${zonedTime(when.closesAt, when.zone, now)})`;
  return `runs in window ${name} (next opening ${zonedTime(when.runAt, when.zone, now)})`;
}

/**
 * When a scheduled operation waiting for approval would run, for its card and approver DMs: "runs at 12:30 UTC once
 * approved" (docs/policy.md#scheduled-operations). Undefined when it is not waiting or has no schedule.
 */
export function onceApprovedLine(record: OperationRecord, now: number): string | undefined {
  if (record.state !== 'AWAITING_APPROVAL' || record.schedule === undefined) return undefined;
  return `${runsLine(record.schedule, now)} once approved`;
}

/** The record's schedule in words, or undefined when it has none. */
export function scheduleLine(record: OperationRecord, now: number): string | undefined {
  return record.schedule === undefined ? undefined : runsLine(record.schedule, now);
}

/** The time a history entry's detail carries (SCHEDULED and `rescheduled` entries), if any. */
export function whenOf(detail: Record<string, unknown>): When | undefined {
  const { runAt, zone, window, closesAt } = detail;
  if (typeof runAt !== 'number' || typeof zone !== 'string') return undefined;
  return {
    runAt,
    zone,
    ...(typeof window === 'string' ? { window } : {}),
    ...(typeof closesAt === 'number' ? { closesAt } : {}),
  };
}
