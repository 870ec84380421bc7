// Break-glass (docs/policy.md#break-glass): the policy's `breakGlass` block, and the pure facts about one break-glass
// operation (who may review it, whether it is reviewed, when its review is due). The skipping itself is in evaluate.ts.
import { z } from 'zod';
import { DurationSchema, durationMs } from '../../kit/policy/duration-schema.js';
import type { BreakGlassUse } from '../../model/decision.js';
import { isTerminal } from '../../model/lifecycle.js';
import type { HistoryEntry, OperationRecord } from '../operation.js';

export const DEFAULT_REVIEW_WITHIN = '24h';
/** Unreviewed break-glass operations past `reviewWithin` are reminded once a day (docs/policy.md#break-glass). */
export const REVIEW_REMINDER_EVERY_MS = 24 * 60 * 60 * 1000;

/** History entries of the review: `command` / `reviewed` by the reviewer, `note` / `review-due` by the sweep. */
export const REVIEWED_ENTRY = { type: 'command', name: 'reviewed' } as const;
export const REVIEW_DUE_ENTRY = { type: 'note', name: 'review-due' } as const;

export interface BreakGlassPolicy {
  /** Policy groups whose members may use `--break-glass`. */
  groups: string[];
  /** Environments (namespace `environment`) where it may be used. */
  environments: string[];
  /** As written, e.g. "24h". */
  reviewWithin: string;
  reviewWithinMs: number;
}

const nonEmpty = (what: string) => ({ error: `list at least one ${what}; without any, nobody can use --break-glass` });

export const BreakGlassSchema = z
  .strictObject({
    groups: z.array(z.string().min(1)).min(1, nonEmpty('group')),
    environments: z.array(z.string().min(1)).min(1, nonEmpty('environment')),
    reviewWithin: DurationSchema.default(DEFAULT_REVIEW_WITHIN),
  })
  .transform((b): BreakGlassPolicy => ({ ...b, reviewWithinMs: durationMs(b.reviewWithin) }));

/** The break-glass use recorded on an operation's decision, if any (read defensively: records outlive code). */
export function breakGlassOf(record: Pick<OperationRecord, 'decision'>): BreakGlassUse | undefined {
  const use = (record.decision as { breakGlass?: unknown } | undefined)?.breakGlass;
  if (typeof use !== 'object' || use === null) return undefined;
  const { skippedRequirements, skippedDenies } = use as Partial<BreakGlassUse>;
  return {
    skippedRequirements: Array.isArray(skippedRequirements) ? skippedRequirements : [],
    skippedDenies: Array.isArray(skippedDenies) ? skippedDenies : [],
  };
}

/**
 * The policy groups whose members review it: every group of the skipped requirements; when none was skipped (only a
 * time-window deny, or nothing), `fallback` (the caller passes the groups that approve in the namespace, else the
 * break-glass groups), so every break-glass operation has someone other than its requester to look at it.
 */
export function reviewerGroups(use: BreakGlassUse, fallback: readonly string[] = []): string[] {
  const groups = [...new Set(use.skippedRequirements.flatMap((r) => r.from))];
  return groups.length > 0 ? groups : [...new Set(fallback)];
}

/** It went ahead because of break-glass (QUEUED or SCHEDULED at some point): only then is a review owed. */
export function wentAhead(record: Pick<OperationRecord, 'decision' | 'history'>): boolean {
  return (
    breakGlassOf(record) !== undefined &&
    record.history.some((e) => e.type === 'state' && (e.name === 'QUEUED' || e.name === 'SCHEDULED'))
  );
}

const isEntry = (e: HistoryEntry, kind: { type: string; name: string }) => e.type === kind.type && e.name === kind.name;

/** The `reviewed` entry, once someone reviewed it. */
export function reviewOf(record: Pick<OperationRecord, 'history'>): HistoryEntry | undefined {
  return record.history.find((e) => isEntry(e, REVIEWED_ENTRY));
}

/** When it ended: the time of its terminal state entry (undefined while it runs). */
export function endedAt(record: Pick<OperationRecord, 'state' | 'history'>): number | undefined {
  if (!isTerminal(record.state)) return undefined;
  for (let i = record.history.length - 1; i >= 0; i--) {
    const e = record.history[i];
    if (e?.type === 'state' && e.name === record.state) return e.at;
  }
  return undefined;
}

/** A break-glass operation that ended and nobody has reviewed yet. */
export function awaitsReview(record: Pick<OperationRecord, 'decision' | 'state' | 'history'>): boolean {
  return wentAhead(record) && endedAt(record) !== undefined && reviewOf(record) === undefined;
}

/** Past `reviewWithin` after it ended and still unreviewed (what `/metrics` counts and the sweep reminds). */
export function reviewOverdue(
  record: Pick<OperationRecord, 'decision' | 'state' | 'history'>,
  reviewWithinMs: number,
  now: number,
): boolean {
  const ended = endedAt(record);
  return awaitsReview(record) && ended !== undefined && now >= ended + reviewWithinMs;
}

/**
 * Whether a `review-due` reminder is due now: overdue, and no reminder in the last day. The sweep commits it
 * with a compare-and-set on the record, so racing replicas post it once.
 */
export function reminderDue(
  record: Pick<OperationRecord, 'decision' | 'state' | 'history'>,
  reviewWithinMs: number,
  now: number,
): boolean {
  if (!reviewOverdue(record, reviewWithinMs, now)) return false;
  const last = record.history.findLast((e) => isEntry(e, REVIEW_DUE_ENTRY));
  return last === undefined || now - last.at >= REVIEW_REMINDER_EVERY_MS;
}
