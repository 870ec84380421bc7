// Break-glass reviews (docs/policy.md#break-glass): after a break-glass operation ends, an approver of the rules it
// skipped clicks Reviewed (never its requester); the reviews due for one person (App Home). Reminders and the gauge:
// break-glass-due.ts.
import {
  awaitsReview,
  breakGlassOf,
  reviewerGroups,
  reviewOf,
  REVIEWED_ENTRY,
  wentAhead,
} from '../domain/engines/policy/break-glass.js';
import type { OperationRecord } from '../domain/engines/operation.js';
import { isTerminal } from '../domain/model/lifecycle.js';
import { approverGroups } from '../domain/engines/policy/groups.js';
import type { Policy } from '../domain/engines/policy/schema.js';
import { joinWords } from '../domain/kit/policy/schedule.js';
import { forOperation, type Logger } from '../log.js';
import type { MembershipSource } from './context.js';
import type { MembershipLookup } from './groups.js';
import type { PolicyProvider } from './policy-source.js';
import type { ActionOutcome, BreakGlassIndex, OperationStore } from './ports/index.js';

export interface BreakGlassDeps {
  store: Pick<OperationStore, 'get' | 'getMany' | 'apply'>;
  index: BreakGlassIndex;
  policy: PolicyProvider;
  membership: Pick<MembershipSource, 'for'>;
  logger: Logger;
}

/** Who reviews `record` under `policy`: the skipped rules' groups, else the namespace's approvers, else the break-glass groups. */
export function reviewersOf(record: OperationRecord, policy: Policy): string[] {
  const use = breakGlassOf(record);
  if (!use) return [];
  const approvers = approverGroups(policy, record.target.namespace, undefined, record.target.cluster);
  return reviewerGroups(use, approvers.length > 0 ? approvers : (policy.breakGlass?.groups ?? []));
}

async function isReviewer(user: string, groups: readonly string[], membership: MembershipLookup): Promise<boolean> {
  for (const group of groups) if (await membership.isMember(user, group)) return true;
  return false;
}

const refused = (message: string): ActionOutcome => ({ type: 'refused', message });

/** Why `record` cannot be reviewed by anyone now (undefined: it can). */
function notReviewable(record: OperationRecord): string | undefined {
  const id = record.id;
  if (!breakGlassOf(record)) return `${id} was not a break-glass operation; there is nothing to review`;
  if (!wentAhead(record)) return `${id} never went ahead with break-glass; there is nothing to review`;
  if (!isTerminal(record.state))
    return `${id} is ${record.state} now: review it after it has ended (nothing was recorded)`;
  const review = reviewOf(record);
  if (review) return `${id} was already reviewed by <@${review.actor}>; nothing changed`;
  return undefined;
}

export class BreakGlassReviews {
  constructor(private readonly deps: BreakGlassDeps) {}

  /** The Reviewed button (`flink_ops_review`): refusals are answered privately and change nothing. */
  async review(opId: string, user: string): Promise<ActionOutcome> {
    const record = await this.deps.store.get(opId);
    if (!record) return refused(`there is no operation ${opId}`);
    const why = notReviewable(record);
    if (why !== undefined) return refused(why);
    if (record.requester === user)
      return refused(
        `${opId}: you requested it with --break-glass, so one of its approvers reviews it, not you; nothing changed`,
      );
    const state = await this.deps.policy.current();
    if (!state.ok) return refused(`${opId}: ${state.message}`);
    const groups = reviewersOf(record, state.policy);
    if (!(await isReviewer(user, groups, this.deps.membership.for(state.policy, state.hash)))) {
      return refused(
        `${opId}: only members of ${joinWords(groups)} (the approvers of the rules it skipped) can review it; nothing changed`,
      );
    }
    const result = await this.deps.store.apply(opId, (current) => {
      const again = notReviewable(current);
      if (again !== undefined) return { refuse: again };
      return { entries: [{ ...REVIEWED_ENTRY, actor: user, detail: { reviewerGroups: groups } }] };
    });
    if (!result.ok) return refused(result.reason);
    await this.unindex(opId);
    forOperation(this.deps.logger, opId).info({ user }, 'break-glass operation reviewed');
    return { type: 'done', record: result.record, message: `${opId}: break-glass reviewed by <@${user}>; thank you` };
  }

  /** Break-glass operations that ended unreviewed and that `user` may review (App Home), oldest first. */
  async dueFor(user: string): Promise<OperationRecord[]> {
    const indexed = await this.deps.index.list();
    if (indexed.length === 0) return [];
    const state = await this.deps.policy.current();
    if (!state.ok) return [];
    const membership = this.deps.membership.for(state.policy, state.hash);
    const records = (await this.deps.store.getMany(indexed.map((i) => i.id))).filter(
      (r) => awaitsReview(r) && r.requester !== user,
    );
    const mine = await Promise.all(records.map((r) => isReviewer(user, reviewersOf(r, state.policy), membership)));
    return records.filter((_, i) => mine[i] === true);
  }

  /** The index is a worklist: failing to shorten it only costs the sweep a look later. */
  private async unindex(opId: string): Promise<void> {
    await this.deps.index
      .remove(opId)
      .catch((error: unknown) =>
        forOperation(this.deps.logger, opId).warn(
          { err: error },
          'could not remove a reviewed operation from the break-glass index',
        ),
      );
  }
}
