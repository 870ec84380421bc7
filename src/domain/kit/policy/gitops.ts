// Policy `gitops` (docs/policy.md#gitops-managed-targets): what a change to a target Git manages does (warn, refuse,
// pause), how long the worker watches for a revert, and which operation kinds skip it. The block may stand at the top
// level, in a `namespaces` entry and in a rule, every key optional; engines/policy/gitops.ts resolves it key by key.
// The kinds are a parameter, and so is the default `exempt` list: the kit sits below the kinds
// (docs/development.md#layout-and-conventions).
import { z } from 'zod';
import { parseDuration } from '../../model/duration.js';

export const GITOPS_ON_MANAGED = ['warn', 'refuse', 'pause'] as const;
export type OnManaged = (typeof GITOPS_ON_MANAGED)[number];

export const DEFAULT_ON_MANAGED: OnManaged = 'warn';
export const DEFAULT_REVERT_WATCH = '15m';
export const DEFAULT_REVERT_WATCH_MS = 15 * 60_000;

/** One `gitops:` block as written; a key left out falls through to the next scope. */
export interface GitopsBlock<K extends string = string> {
  onManaged?: OnManaged;
  /** As written, e.g. "15m"; "0" when the watch is off. */
  revertWatch?: string;
  /** 0: no revert watch. Set exactly when `revertWatch` is. */
  revertWatchMs?: number;
  /** Kinds the GitOps handling skips; an empty list exempts none. */
  exempt?: K[];
}

/** A string that must be one of the values, its error naming the nearest one (schema.ts's `oneOf`). */
export type OneOf = <T extends string>(values: readonly T[], noun: string) => z.ZodType<T>;

/** `<n>ms|s|m|h`, or `0` / `0s` (any zero) to switch the watch off; the milliseconds, or the problem. */
export function revertWatchMs(text: string): { ok: true; ms: number } | { ok: false; message: string } {
  if (/^0+(ms|s|m|h)?$/.test(text.trim())) return { ok: true, ms: 0 };
  const parsed = parseDuration(text);
  return parsed.ok ? parsed : { ok: false, message: `${parsed.message}, or 0 to switch the revert watch off` };
}

const RevertWatchSchema = z.union([z.string(), z.number()]).transform((value, ctx) => {
  const text = String(value).trim();
  const parsed = revertWatchMs(text);
  if (parsed.ok) return { text, ms: parsed.ms };
  ctx.addIssue({ code: 'custom', message: parsed.message });
  return z.NEVER;
});

/** The strict schema of one `gitops:` block over `kinds`; `oneOf` words unknown values like the rest of the file. */
export function gitopsSchema<K extends string>(kinds: readonly K[], oneOf: OneOf): z.ZodType<GitopsBlock<K>> {
  return z
    .strictObject({
      onManaged: oneOf(GITOPS_ON_MANAGED, 'onManaged setting').optional(),
      revertWatch: RevertWatchSchema.optional(),
      exempt: z.array(oneOf(kinds, 'operation')).optional(),
    })
    .transform(({ onManaged, revertWatch, exempt }): GitopsBlock<K> => ({
      ...(onManaged === undefined ? {} : { onManaged }),
      ...(revertWatch === undefined ? {} : { revertWatch: revertWatch.text, revertWatchMs: revertWatch.ms }),
      ...(exempt === undefined ? {} : { exempt: [...new Set(exempt)] }),
    }));
}
