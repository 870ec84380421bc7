// App Home (docs/lifecycle.md#app-home): what one person sees on the bot's Home tab — approvals waiting for them, their
// operations, leases and freezes, the latest operations. Read-only: the buttons go through the card's own action
// handler.
import type { OperationRecord } from '../domain/engines/operation.js';
import { eligibility } from '../domain/kit/policy/approval.js';
import { effectiveRequirements } from '../domain/engines/policy/approvers.js';
import { formatTarget } from '../domain/model/target.js';
import type { BotDeps } from './context.js';
import { BreakGlassReviews } from './break-glass.js';
import { breakGlassOf } from '../domain/engines/policy/break-glass.js';
import type { HomeOperation, HomeView } from './views.js';
import { freezeView } from './queries.js';

/** How many of the latest operations Home lists (the `ops` query shows more). */
export const HOME_LATEST = 10;

function homeOperation(r: OperationRecord, withButtons: boolean): HomeOperation {
  const op: HomeOperation = {
    id: r.id,
    kind: r.kind,
    target: r.target,
    state: r.state,
    requester: r.requester,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
  if (r.expiresAt !== undefined) op.expiresAt = r.expiresAt;
  if (r.card !== undefined) op.card = { channel: r.card.channel, ts: r.card.ts };
  if (withButtons && r.plan !== undefined) op.planDigest = r.plan.digest;
  if (breakGlassOf(r)) op.breakGlass = true;
  if (r.state === 'SCHEDULED' && r.schedule !== undefined) {
    const { runAt, zone, window, closesAt } = r.schedule;
    op.schedule = {
      runAt,
      zone,
      ...(window === undefined ? {} : { window }),
      ...(closesAt === undefined ? {} : { closesAt }),
    };
  }
  return op;
}

const newestFirst = (a: OperationRecord, b: OperationRecord): number => b.createdAt - a.createdAt;

export class HomeService {
  constructor(private readonly deps: BotDeps) {}

  /** Faults (Redis, Slack user groups) throw; the caller logs them and publishes nothing. */
  async build(user: string): Promise<HomeView> {
    const [active, leases, freezes, latest] = await Promise.all([
      this.deps.store.activeIds().then((ids) => this.deps.store.getMany(ids)),
      this.deps.leases.listLeases(),
      this.deps.freezes.list(),
      this.deps.store.recent(HOME_LATEST),
    ]);
    const problems: string[] = [];
    const approvals = await this.approvalsFor(user, active, problems);
    const index = this.deps.breakGlass;
    const reviews = index ? await new BreakGlassReviews({ ...this.deps, index }).dueFor(user) : [];
    return {
      user,
      approvals: approvals.map((r) => homeOperation(r, true)),
      reviews: reviews.map((r) => homeOperation(r, false)),
      mine: active
        .filter((r) => r.requester === user)
        .sort(newestFirst)
        .map((r) => homeOperation(r, false)),
      leases: leases.map((l) => ({ target: formatTarget(l.target), opId: l.opId, since: l.since })),
      freezes: freezes.map(freezeView),
      latest: latest.map((r) => homeOperation(r, false)),
      problems,
    };
  }

  /** AWAITING_APPROVAL, not expired, the viewer eligible under the current policy and not yet voted for this plan. */
  private async approvalsFor(
    user: string,
    active: readonly OperationRecord[],
    problems: string[],
  ): Promise<OperationRecord[]> {
    const now = this.deps.now();
    const waiting = active.filter(
      (r) =>
        r.state === 'AWAITING_APPROVAL' &&
        r.plan !== undefined &&
        (r.expiresAt === undefined || r.expiresAt > now) &&
        !r.approvals.some((a) => a.user === user && a.planDigest === r.plan?.digest),
    );
    if (waiting.length === 0) return [];
    const state = await this.deps.policy.current();
    if (!state.ok) {
      problems.push(`approvals cannot be listed: ${state.message}`);
      return [];
    }
    const membership = this.deps.membership.for(state.policy, state.hash);
    const verdicts = await Promise.all(
      waiting.map((r) =>
        eligibility({
          user,
          requester: r.requester,
          requirements: effectiveRequirements(r),
          allowSelfApproval: state.policy.approval.allowSelfApproval,
          isMember: (u, group) => membership.isMember(u, group),
        }),
      ),
    );
    return waiting.filter((_, i) => verdicts[i]?.eligible === true).sort(newestFirst);
  }
}
