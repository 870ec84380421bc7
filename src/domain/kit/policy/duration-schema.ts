// A duration in the policy file (`ttl`, `remindAfter`, `reviewWithin`, …): `10m`, `30s`, … as parseDuration reads
// them, the problem named by the key's path like every other policy error.
import { z } from 'zod';
import { parseDuration } from '../../model/duration.js';

export const DurationSchema = z.string().superRefine((value, ctx) => {
  const parsed = parseDuration(value);
  if (!parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.message });
});

/** The milliseconds of a duration DurationSchema accepted. */
export function durationMs(text: string): number {
  const parsed = parseDuration(text);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.ms;
}
