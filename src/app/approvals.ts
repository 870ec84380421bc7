// Approve and Reject clicks (docs/policy.md#approvals): digest binding, eligibility, one vote per person, the drift
// re-check, quorum.
import { auditOpOf, UNKNOWN_TEAM } from '../domain/engines/audit/operation-events.js';
import { enqueueQueued } from './enqueue.js';
import { enqueueScheduled, scheduleOnEntry, scheduledEntry } from './scheduling.js';
import {
  addApproval,
  canReject,
  eligibility,
  tally,
  type Eligibility,
  type Remaining,
} from '../domain/kit/policy/approval.js';
import type { Approval, Requirement } from '../domain/model/decision.js';
import { effectiveRequirements } from '../domain/engines/policy/approvers.js';
import { checkDrift, desiredStateHolds } from '../domain/kit/planning/drift.js';
import { OURS_LOOKBACK, ourSubmissionsAfter } from '../domain/kit/planning/ours.js';
import type { EntryInput } from '../domain/engines/operation.js';
import { joinWords } from '../domain/kit/policy/schedule.js';
import { forOperation } from '../log.js';
import { readLive } from './assess.js';
import type { BotDeps } from './context.js';
import type { ActionOutcome } from './ports/index.js';
import { abortAtApproval, alreadyDecided, PLAN_CHANGED, replan, type Planned } from './replan.js';

export interface Click {
  opId: string;
  /** Slack user id of who clicked. */
  user: string;
  /** The clicker's workspace and Enterprise Grid org, as the click names them (the audit events' `actor`). */
  team?: string;
  enterprise?: string;
  /** The actions block's `approval:<first 16 hex of the plan digest>`; undefined when the click carried none. */
  digestPrefix: string | undefined;
}

type Gate =
  { ok: true; record: Planned; requirements: Requirement[]; countsFor: string[] } | { ok: false; message: string };

export class ApprovalService {
  constructor(private readonly deps: BotDeps) {}

  /**
   * Faults (Redis, Kubernetes, Slack user groups) throw; the caller turns them into a private message. A click that
   * did not count is an audit event with its reason (docs/audit.md#the-events).
   */
  async approve(click: Click): Promise<ActionOutcome> {
    const outcome = await this.approveOnce(click);
    if (outcome.type === 'refused') await this.auditRefusal(click, outcome.message);
    return outcome;
  }

  private async auditRefusal(click: Click, reason: string): Promise<void> {
    const audit = this.deps.audit;
    if (!audit) return;
    const record = await this.deps.store.get(click.opId).catch(() => undefined);
    const team = click.team ?? record?.team;
    await audit.recordQuietly({
      actor: {
        user: click.user,
        team: team ?? UNKNOWN_TEAM,
        ...((click.enterprise ?? record?.enterprise) ? { enterprise: click.enterprise ?? record?.enterprise } : {}),
      },
      action: 'approval_refused',
      ...(record ? { op: auditOpOf(record) } : {}),
      decision: { reason, operation: click.opId },
    });
  }

  private async approveOnce(click: Click): Promise<ActionOutcome> {
    const gate = await this.gate(click, eligibility);
    if (!gate.ok) return refused(gate.message);
    const { record } = gate;
    if (record.approvals.some((a) => a.user === click.user && a.planDigest === record.plan.digest)) {
      return refused(`you already approved ${record.id}`);
    }
    const drift = await this.recheck(record, click.user);
    if (drift !== undefined) return drift;
    return this.count(record, gate.requirements, gate.countsFor, click.user);
  }

  async reject(click: Click): Promise<ActionOutcome> {
    const gate = await this.gate(click, canReject);
    if (!gate.ok) return refused(gate.message);
    const result = await this.deps.store.apply(click.opId, (current) => {
      if (current.state !== 'AWAITING_APPROVAL') return { refuse: alreadyDecided(current) };
      if (current.plan?.digest !== gate.record.plan.digest) return { refuse: `${current.id}: ${PLAN_CHANGED}` };
      return {
        entries: [
          {
            type: 'state',
            name: 'REJECTED',
            actor: click.user,
            role: 'bot',
            detail: { reason: `rejected by <@${click.user}>` },
          },
        ],
      };
    });
    if (!result.ok) return refused(result.reason);
    forOperation(this.deps.logger, click.opId).info({ user: click.user }, 'operation rejected');
    return { type: 'done', record: result.record, message: `You rejected ${click.opId}` };
  }

  /** What every click on the approval card must pass before anything is read from the cluster. */
  private async gate(
    click: Click,
    who: (input: Parameters<typeof eligibility>[0]) => Promise<Eligibility>,
  ): Promise<Gate> {
    const record = await this.deps.store.get(click.opId);
    if (!record) return { ok: false, message: `there is no operation ${click.opId}` };
    if (record.state !== 'AWAITING_APPROVAL') return { ok: false, message: alreadyDecided(record) };
    const plan = record.plan;
    if (!plan || click.digestPrefix === undefined || !plan.digest.startsWith(click.digestPrefix)) {
      return { ok: false, message: `${record.id}: ${PLAN_CHANGED}` };
    }
    if (record.expiresAt !== undefined && this.deps.now() >= record.expiresAt) {
      return { ok: false, message: `the approval window of ${record.id} has closed; request it again` };
    }
    const state = await this.deps.policy.current();
    if (!state.ok) return { ok: false, message: `${record.id}: ${state.message}` };
    // After an escalation its groups count as the rules' groups (docs/policy.md#approvals).
    const requirements = effectiveRequirements(record);
    const verdict = await who({
      user: click.user,
      requester: record.requester,
      requirements,
      allowSelfApproval: state.policy.approval.allowSelfApproval,
      isMember: (user, group) => this.deps.membership.for(state.policy, state.hash).isMember(user, group),
    });
    if (!verdict.eligible) return { ok: false, message: `${record.id}: ${verdict.why}` };
    return { ok: true, record: { ...record, plan }, requirements, countsFor: verdict.countsFor };
  }

  /**
   * The target is re-read and the drift rule applies (docs/policy.md#approvals); undefined means unchanged, go on
   * counting.
   */
  private async recheck(record: Planned, user: string): Promise<ActionOutcome | undefined> {
    const live = await readLive(record.target, this.deps.clusters.kube(record.target));
    if (!live.ok) return abortAtApproval(this.deps, record, `${live.refusal}; request again`, user);
    const ours = ourSubmissionsAfter(
      await this.deps.store.recentForTarget(record.target, OURS_LOOKBACK),
      record.plan,
      record.id,
    );
    const drift = checkDrift({
      plan: record.plan,
      current: live.resource,
      ourGenerations: ours.map((o) => o.generation),
      desiredAlreadyHolds: desiredStateHolds(record.plan, live.resource),
    });
    switch (drift.outcome) {
      case 'unchanged':
        return undefined;
      case 'already-desired':
        return abortAtApproval(this.deps, record, 'already in the desired state', user);
      case 'changed':
        return abortAtApproval(this.deps, record, drift.reason, user);
      case 'replan': {
        const after = ours.map((o) => o.opId);
        return replan(this.deps, record, { after, reason: drift.reason, clickedBy: user });
      }
    }
  }

  /** Records the vote (computed from the record as committed, so racing replicas count each person once). */
  private async count(
    record: Planned,
    requirements: Requirement[],
    countsFor: string[],
    user: string,
  ): Promise<ActionOutcome> {
    const digest = record.plan.digest;
    const at = this.deps.now();
    const policy = record.schedule === undefined ? undefined : await this.deps.policy.current();
    let remaining: Remaining[] = [];
    const result = await this.deps.store.apply(record.id, (current) => {
      if (current.state !== 'AWAITING_APPROVAL') return { refuse: alreadyDecided(current) };
      if (current.plan?.digest !== digest) return { refuse: `${current.id}: ${PLAN_CHANGED}` };
      const vote: Approval = { user, at, planDigest: digest, countsFor };
      const added = addApproval(current.approvals, vote);
      if (!added.added) return { refuse: `you already approved ${current.id}` };
      const t = tally(requirements, added.approvals, digest);
      remaining = t.remaining;
      const entries: EntryInput[] = [
        { type: 'approval', name: 'approved', actor: user, detail: { countsFor, remaining: t.remaining } },
      ];
      if (t.satisfied) {
        const approvers = added.approvals.filter((a) => a.planDigest === digest).map((a) => a.user);
        // Approved now, run at its time (docs/policy.md#scheduled-operations).
        if (current.schedule !== undefined) {
          const schedule = policy?.ok ? scheduleOnEntry(current.schedule, policy.policy, at) : current.schedule;
          entries.push(scheduledEntry(schedule, user, 'bot', { approvedBy: approvers }));
          return { set: { approvals: added.approvals, schedule }, entries };
        }
        entries.push({ type: 'state', name: 'QUEUED', actor: user, role: 'bot', detail: { approvedBy: approvers } });
      }
      return { set: { approvals: added.approvals }, entries };
    });
    if (!result.ok) return refused(result.reason);
    const log = forOperation(this.deps.logger, record.id);
    log.info({ user, state: result.record.state }, 'approval recorded');
    if (result.record.state === 'SCHEDULED') {
      await enqueueScheduled(this.deps, result.record, log);
      return {
        type: 'done',
        record: result.record,
        message: `You approved ${record.id}; it has every approval it needs and is scheduled`,
      };
    }
    if (result.record.state !== 'QUEUED')
      return { type: 'done', record: result.record, message: `You approved ${record.id}; ${stillNeeded(remaining)}` };
    await enqueueQueued(this.deps, result.record, record.plan.revision, log);
    return {
      type: 'done',
      record: result.record,
      message: `You approved ${record.id}; it has every approval it needs and is queued`,
    };
  }
}

function stillNeeded(remaining: readonly Remaining[]): string {
  if (remaining.length === 0) return 'no more approvals are needed';
  const parts = remaining.map((r) => `${r.needed} more from ${joinWords(r.from)} (rule ${r.rule})`);
  return `still needed: ${parts.join('; ')}`;
}

function refused(message: string): ActionOutcome {
  return { type: 'refused', message };
}
