// `--at <time>` as typed: an RFC 3339 instant, or a wall-clock HH:MM with an optional IANA zone (resolved later,
// against the policy's timezone and the clock of the request). Parsing never throws.
import { z } from 'zod';
import { isValidTimeZone } from '../policy/schedule.js';

export const RunAtSchema = z.discriminatedUnion('kind', [
  /** An absolute instant (RFC 3339 with an offset or Z). */
  z.strictObject({ kind: z.literal('instant'), ms: z.number().int() }),
  /** The next such wall-clock time; `zone` absent means the policy's timezone (default UTC). */
  z.strictObject({
    kind: z.literal('clock'),
    hour: z.number().int().min(0).max(23),
    minute: z.number().int().min(0).max(59),
    zone: z.string().min(1).optional(),
  }),
]);
export type RunAt = z.infer<typeof RunAtSchema>;

/** Names of execution windows in the policy (`windows:` keys) and in `--window`. */
export const WINDOW_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/;

export type AtParse = { ok: true; value: RunAt } | { ok: false; message: string };

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?([Zz]|[+-]\d{2}:\d{2})$/;
const CLOCK = /^(\d{1,2}):(\d{2})$/;
const EXAMPLES = '`02:00`, `02:00 Europe/Berlin` or `2026-12-02T02:00:00+01:00`';

/** The IANA name as Intl spells it (`europe/berlin` → `Europe/Berlin`), or undefined when unknown. */
export function canonicalZone(zone: string): string | undefined {
  if (!isValidTimeZone(zone)) return undefined;
  return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
}

/** Whether an unquoted word after `--at HH:MM` is meant as its zone (`Europe/Berlin`, `UTC`), not as a target. */
export function looksLikeZone(clock: string, word: string): boolean {
  if (!CLOCK.test(clock.trim())) return false;
  // Kubernetes names are lowercase, so a capitalised Area/City can only be a (possibly mistyped) zone.
  return isValidTimeZone(word) || /^[A-Z][A-Za-z_]*(?:\/[A-Za-z0-9_+-]+)+$/.test(word);
}

function instant(m: RegExpExecArray, text: string): AtParse {
  const [, y, mo, d, h, mi, s = '0', frac = '', offset = 'Z'] = m;
  const fields = [y, mo, d, h, mi, s].map(Number) as [number, number, number, number, number, number];
  const [year, month, day, hour, minute, second] = fields;
  const local = Date.UTC(year, month - 1, day, hour, minute, second);
  const back = new Date(local);
  const valid =
    back.getUTCFullYear() === year &&
    back.getUTCMonth() === month - 1 &&
    back.getUTCDate() === day &&
    hour < 24 &&
    minute < 60 &&
    second < 60;
  if (!valid) return { ok: false, message: `--at ${JSON.stringify(text)} is not a real date and time` };
  let shift = 0;
  if (offset.toUpperCase() !== 'Z') {
    const [oh, om] = offset.slice(1).split(':').map(Number) as [number, number];
    if (oh > 23 || om > 59)
      return { ok: false, message: `--at ${JSON.stringify(text)} has an impossible UTC offset ${offset}` };
    shift = (offset.startsWith('-') ? -1 : 1) * (oh * 60 + om) * 60_000;
  }
  const ms = local - shift + Math.floor(Number(`0${frac || '.0'}`) * 1000);
  return { ok: true, value: { kind: 'instant', ms } };
}

function clock(m: RegExpExecArray, zone: string | undefined, text: string): AtParse {
  const hour = Number(m[1]);
  const minute = Number(m[2]);
  if (hour > 23 || minute > 59)
    return { ok: false, message: `--at ${JSON.stringify(text)}: the time must be HH:MM from 00:00 to 23:59` };
  if (zone === undefined) return { ok: true, value: { kind: 'clock', hour, minute } };
  const canonical = canonicalZone(zone);
  if (canonical === undefined) {
    return {
      ok: false,
      message: `--at: unknown time zone ${JSON.stringify(zone)}; use an IANA name such as Europe/Berlin, America/New_York or UTC`,
    };
  }
  return { ok: true, value: { kind: 'clock', hour, minute, zone: canonical } };
}

/** `2026-12-02T02:00:00+01:00`, `2026-12-02T02:00Z`, `02:00`, `2:00 Europe/Berlin`. */
export function parseAt(text: string): AtParse {
  const written = text.trim();
  const full = RFC3339.exec(written);
  if (full) return instant(full, written);
  const [time = '', zone, ...extra] = written.split(/\s+/);
  const hhmm = CLOCK.exec(time);
  if (hhmm && extra.length === 0) return clock(hhmm, zone, written);
  if (/^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(written)) {
    return {
      ok: false,
      message: `--at ${JSON.stringify(written)} needs a UTC offset or Z at the end, e.g. 2026-12-02T02:00:00+01:00`,
    };
  }
  return { ok: false, message: `--at takes a time: ${EXAMPLES}; got ${JSON.stringify(written.slice(0, 60))}` };
}
