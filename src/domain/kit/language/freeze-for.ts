// `lock --for <duration>` (docs/policy.md#freezes): how long a freeze holds before it ends by itself.
import { MAX_FREEZE_MS } from '../../model/freeze.js';
import { badValue, okValue, show, type ValueSpec } from './values.js';

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 24 * 3_600_000 } as const;
const FOR = /^([0-9]{1,6})(m|h|d)$/;

/** Milliseconds from `30m`, `2h` or `3d`, from one minute to 30 days, or why not. */
export function freezeForMs(text: string): { ok: true; ms: number } | { ok: false; message: string } {
  const match = FOR.exec(text.trim());
  if (match === null) return { ok: false, message: `--for takes a duration like 30m, 2h or 3d; got ${show(text)}` };
  const ms = Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  if (ms < UNIT_MS.m || ms > MAX_FREEZE_MS)
    return {
      ok: false,
      message: `--for takes from 1m to 30d (a longer freeze is lifted with unlock); got ${show(text)}`,
    };
  return { ok: true, ms };
}

export const FREEZE_FOR: ValueSpec = {
  placeholder: '<duration>',
  description: 'how long the freeze holds: `<n>m`, `<n>h` or `<n>d`, from 1m to 30d (default: until `unlock`)',
  example: '2h',
  check: (text) => {
    const parsed = freezeForMs(text);
    return parsed.ok ? okValue(parsed.ms) : badValue(parsed.message);
  },
};
