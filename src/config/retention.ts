// RECORD_RETENTION and EVENT_RETENTION (docs/configuration.md#retention): how long Redis keeps operation records and the
// event stream. Written like the other durations, and in days too (`35d`); records at least 30 days, the stream at
// least one day and never longer than the records it points at.
import { z } from 'zod';
import { parseDuration } from '../domain/model/duration.js';

const DAY_MS = 24 * 60 * 60 * 1000;
export const MIN_RECORD_RETENTION_MS = 30 * DAY_MS;
export const MIN_EVENT_RETENTION_MS = DAY_MS;
const DAYS = /^(\d+)d$/;

/** `<n>d`, or a duration as everywhere else (`<n>ms|s|m|h`); the message is shown after the variable's name. */
export function parseRetention(text: string): { ok: true; ms: number } | { ok: false; message: string } {
  const days = DAYS.exec(text.trim());
  if (days) {
    const ms = Number(days[1]) * DAY_MS;
    return Number.isSafeInteger(ms) && ms > 0
      ? { ok: true, ms }
      : { ok: false, message: 'is not a positive number of days' };
  }
  const parsed = parseDuration(text);
  return parsed.ok ? parsed : { ok: false, message: 'is not a duration; write <n>d or <n>h, e.g. 35d' };
}

/** A retention variable: `fallback` when unset, at least `minMs`. */
export const retention = (name: string, fallback: string, minMs: number, minText: string) =>
  z
    .string()
    .default(fallback)
    .transform((text, ctx) => {
      const parsed = parseRetention(text);
      if (!parsed.ok) {
        ctx.addIssue({ code: 'custom', message: parsed.message });
        return z.NEVER;
      }
      if (parsed.ms < minMs) {
        ctx.addIssue({ code: 'custom', message: `is shorter than the minimum, ${minText}` });
        return z.NEVER;
      }
      return parsed.ms;
    })
    .describe(name);

/** The stream's entries point at records: they may not outlive them. */
export function retentionProblems(e: { RECORD_RETENTION: number; EVENT_RETENTION: number }): string[] {
  if (e.EVENT_RETENTION <= e.RECORD_RETENTION) return [];
  return ['EVENT_RETENTION: may not be longer than RECORD_RETENTION (the stream points at records)'];
}
