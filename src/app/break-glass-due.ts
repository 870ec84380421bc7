// Unreviewed break-glass operations past `reviewWithin` (docs/policy.md#break-glass): the sweep's daily reminder (a
// `review-due` note in the history, so the thread gets a reply), and the number `/metrics` exports. Both read the
// index, not every record.
import {
  awaitsReview,
  DEFAULT_REVIEW_WITHIN,
  endedAt,
  reminderDue,
  reviewOf,
  reviewOverdue,
  REVIEW_DUE_ENTRY,
  wentAhead,
} from '../domain/engines/policy/break-glass.js';
import { parseDuration } from '../domain/model/duration.js';
import type { OperationRecord } from '../domain/engines/operation.js';
import { isTerminal } from '../domain/model/lifecycle.js';
import type { Logger } from '../log.js';
import type { BreakGlassIndex, OperationStore } from './ports/index.js';
import { reviewersOf } from './break-glass.js';
import type { PolicyProvider } from './policy-source.js';
import type { Policy } from '../domain/engines/policy/schema.js';

export interface BreakGlassDueDeps {
  store: Pick<OperationStore, 'getMany' | 'apply'>;
  index: Pick<BreakGlassIndex, 'remove' | 'list'>;
  policy: PolicyProvider;
  logger: Logger;
}

/** An indexed id whose record is still missing this long after indexing belongs to a request that failed. */
export const ORPHAN_AFTER_MS = 10 * 60_000;
const DEFAULT_WITHIN_MS = (parseDuration(DEFAULT_REVIEW_WITHIN) as { ms: number }).ms;

const withinOf = (policy: Policy | undefined): number => policy?.breakGlass?.reviewWithinMs ?? DEFAULT_WITHIN_MS;

/** Indexed records, with the ids that no longer need a review dropped from the index. */
async function indexedRecords(deps: BreakGlassDueDeps, now: number): Promise<OperationRecord[]> {
  const indexed = await deps.index.list();
  if (indexed.length === 0) return [];
  const records = await deps.store.getMany(indexed.map((i) => i.id));
  const byId = new Map(records.map((r) => [r.id, r]));
  const stale = indexed.filter(({ id, at }) => {
    const r = byId.get(id);
    if (r === undefined) return now - at > ORPHAN_AFTER_MS;
    return reviewOf(r) !== undefined || (isTerminal(r.state) && !wentAhead(r));
  });
  for (const { id } of stale) await deps.index.remove(id);
  return records.filter((r) => awaitsReview(r) || !isTerminal(r.state));
}

/**
 * The sweep's call (every process, every 30 s): a `review-due` note on each overdue operation, at most one a day.
 * The note is committed with a compare-and-set that re-checks the last one, so racing replicas add it once.
 */
export async function remindDueReviews(deps: BreakGlassDueDeps, now: number): Promise<string[]> {
  const records = await indexedRecords(deps, now);
  const state = await deps.policy.current();
  const policy = state.ok ? state.policy : undefined;
  const within = withinOf(policy);
  const reminded: string[] = [];
  for (const record of records) {
    if (!reminderDue(record, within, now)) continue;
    const reviewers = policy ? reviewersOf(record, policy) : [];
    const result = await deps.store.apply(record.id, (current) => {
      if (!reminderDue(current, within, now)) return { refuse: 'not due' };
      const ended = endedAt(current) ?? now;
      const who =
        reviewers.length > 0 ? `; ${reviewers.join(', ')}: please review it (Reviewed button on the card)` : '';
      const message = `break-glass review due: ${current.id} ended more than ${policy?.breakGlass?.reviewWithin ?? DEFAULT_REVIEW_WITHIN} ago and nobody has reviewed it${who}`;
      return {
        entries: [
          { ...REVIEW_DUE_ENTRY, actor: 'sweep', detail: { message, endedAt: ended, reviewerGroups: reviewers } },
        ],
      };
    });
    if (result.ok) reminded.push(record.id);
  }
  if (reminded.length > 0) deps.logger.info({ reminded }, 'break-glass reviews due: reminded');
  return reminded;
}

/** `flink_chatops_break_glass_unreviewed`: break-glass operations past `reviewWithin` after they ended, not reviewed. */
export async function countOverdueReviews(
  deps: Pick<BreakGlassDueDeps, 'store' | 'index' | 'policy'>,
  now: number,
): Promise<number> {
  const indexed = await deps.index.list();
  if (indexed.length === 0) return 0;
  const state = await deps.policy.current();
  const within = withinOf(state.ok ? state.policy : undefined);
  const records = await deps.store.getMany(indexed.map((i) => i.id));
  return records.filter((r) => reviewOverdue(r, within, now)).length;
}
