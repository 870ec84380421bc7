// The operation service: a request becomes a recorded, carded and decided operation (or a refusal); cancel.
import { enqueueQueued } from './enqueue.js';
import { approverOfItsRules, enqueueScheduled, scheduleOnEntry, scheduledEntry } from './scheduling.js';
import { resolveSchedule } from '../domain/kit/schedule/resolve.js';
import type { PolicyDecision } from '../domain/model/decision.js';
import { expiresAt } from '../domain/kit/policy/approval.js';
import type { OperationIntent } from '../domain/kinds/index.js';
import type { CardRef, EntryInput, OperationRecord } from '../domain/engines/operation.js';
import { checkRequest } from '../domain/engines/policy/evaluate.js';
import type { Policy } from '../domain/engines/policy/schema.js';
import { forOperation, type Logger } from '../log.js';
import { assess, resolveTarget } from './assess.js';
import { incidentChannelsProblem } from './incident-channels.js';
import { assessDeps, describeFault, newOpId, type BotDeps } from './context.js';
import type { ActionOutcome, Change, PostOutcome, Refusal, RequestOutcome } from './ports/index.js';

export interface OperationRequest {
  intent: OperationIntent;
  /** Slack user id. */
  requester: string;
  /** The workspace the request came from (the audit events' `actor.team`: docs/audit.md#the-events). */
  team?: string;
  enterprise?: string;
  /** Slack channel the command was typed in: the card goes there. */
  channel: string;
  responseUrl?: string;
}

/** Card-post errors that mean "the bot cannot post here" (ask for an invite: docs/lifecycle.md#the-card). */
const NOT_IN_CHANNEL = ['not_in_channel', 'channel_not_found'];
const CANCELLABLE = ['ACCEPTED', 'AWAITING_APPROVAL', 'SCHEDULED', 'QUEUED'] as const;
const BREAK_GLASS_QUEUED =
  'break-glass: approval requirements and time-window deny rules skipped; approvers review it afterwards';

export class OperationService {
  constructor(
    private readonly deps: BotDeps,
    private readonly botName: string,
  ) {}

  /**
   * Refuse what cannot become an operation (nothing recorded), else record ACCEPTED, post the
   * card, and decide (DENIED / AWAITING_APPROVAL / QUEUED + enqueue). Faults become messages too.
   */
  async request(req: OperationRequest): Promise<RequestOutcome> {
    let recorded: OperationRecord | undefined;
    try {
      const prepared = await this.prepare(req);
      if (prepared.type === 'refused') return prepared;
      // Indexed before the record exists, so no break-glass operation escapes its review (docs/policy.md#break-glass).
      if (prepared.fields.decision.breakGlass && prepared.fields.decision.outcome !== 'deny')
        await this.deps.breakGlass?.add(prepared.fields.id, this.deps.now());
      const created = await this.deps.store.create(prepared.fields, req.requester);
      if (!created.ok) return refused(`operation id ${prepared.fields.id} is taken; please run the command again`);
      recorded = created.record;
      return await this.publish(created.record, prepared.policy);
    } catch (error) {
      if (recorded === undefined) {
        this.deps.logger.error({ err: error, kind: req.intent.kind }, 'operation request failed; nothing recorded');
        return refused(`Nothing was recorded: ${describeFault(error)}`);
      }
      const log = forOperation(this.deps.logger, recorded.id);
      log.error({ err: error }, 'operation request failed after it was recorded');
      return this.cancelAccepted(recorded, describeFault(error), log, { what: 'it could not be completed' }).catch(() =>
        refused(`${recorded?.id}: ${describeFault(error)}`),
      );
    }
  }

  /**
   * The sweep's recovery (docs/lifecycle.md#the-sweep): an ACCEPTED record whose bot died before its card or decision
   * gets both now, or is CANCELLED (policy invalid, card not postable) with the message for its requester.
   */
  async resumeAccepted(record: OperationRecord): Promise<RequestOutcome> {
    const state = await this.deps.policy.current();
    if (!state.ok)
      return this.cancelAccepted(record, state.message, forOperation(this.deps.logger, record.id), {
        what: 'the policy is not valid',
      });
    return this.publish(record, state.policy, { resuming: true });
  }

  /**
   * The requester, before submission (approvers use Reject); a SCHEDULED one also an approver of its rules
   * (docs/commands.md#flink-cancel).
   */
  async cancel(opId: string, user: string): Promise<ActionOutcome> {
    const record = await this.deps.store.get(opId);
    if (!record) return { type: 'refused', message: `there is no operation ${opId}` };
    if (record.requester !== user && !(await this.approverMayCancel(record, user))) {
      if (record.state === 'SCHEDULED')
        return {
          type: 'refused',
          message: `only <@${record.requester}>, who requested ${opId}, or an approver of its rules can cancel it`,
        };
      return {
        type: 'refused',
        message: `only <@${record.requester}>, who requested ${opId}, can cancel it; approvers use Reject`,
      };
    }
    if (!(CANCELLABLE as readonly string[]).includes(record.state)) {
      return { type: 'refused', message: `${opId} is ${record.state} now and can no longer be cancelled` };
    }
    const result = await this.deps.store.transition(opId, {
      from: CANCELLABLE,
      to: 'CANCELLED',
      actor: user,
      role: 'bot',
      detail: { reason: `cancelled by <@${user}>` },
    });
    if (!result.ok) return { type: 'refused', message: `${opId} could not be cancelled: ${result.reason}` };
    forOperation(this.deps.logger, opId).info({ user }, 'operation cancelled by its requester');
    return { type: 'done', record: result.record, message: `${opId} is cancelled` };
  }

  /** A SCHEDULED operation may also be cancelled by an approver of its rules (docs/commands.md#flink-cancel). */
  private async approverMayCancel(record: OperationRecord, user: string): Promise<boolean> {
    if (record.state !== 'SCHEDULED') return false;
    const state = await this.deps.policy.current();
    if (!state.ok) return false;
    const membership = this.deps.membership.for(state.policy, state.hash);
    return approverOfItsRules(record, user, (u, g) => membership.isMember(u, g));
  }

  private async prepare(req: OperationRequest) {
    const { deps } = this;
    const state = await deps.policy.current();
    if (!state.ok) return refused(state.message);
    const resolved = await resolveTarget(req.intent, { getOperation: (id) => deps.store.get(id) });
    if (!resolved.ok) return refused(resolved.refusal);
    const membership = deps.membership.for(state.policy, state.hash);
    const check = await checkRequest(
      state.policy,
      {
        namespace: resolved.target.namespace,
        cluster: resolved.target.cluster,
        requester: req.requester,
        hasReason: req.intent.reason !== undefined,
        intentKind: req.intent.kind,
        breakGlass: req.intent.breakGlass === true,
      },
      membership,
    );
    if (!check.ok) return refused(check.message);
    const incidentProblem = await incidentChannelsProblem(
      req.intent.incidentChannels,
      req.requester,
      state.policy,
      deps.channelMembers,
    );
    if (incidentProblem !== undefined) return refused(incidentProblem);
    // --at / --window resolved now (docs/policy.md#scheduled-operations), with the policy's timezone; a bad time is
    // refused, nothing recorded.
    const scheduled = resolveSchedule(req.intent, state.policy, deps.now());
    if (!scheduled.ok) return refused(`${scheduled.message}; nothing was recorded`);
    const id = newOpId(deps.random);
    const assessed = await assess(
      state.policy,
      { intent: req.intent, opId: id, requester: req.requester },
      assessDeps(deps),
    );
    if (!assessed.ok) return refused(assessed.refusal);
    const incident = check.namespaceEntry.incidentChannel;
    const incidentChannels = [
      ...new Set([...req.intent.incidentChannels, ...(incident === undefined ? [] : [incident])]),
    ];
    const fields = {
      id,
      kind: req.intent.kind,
      intent: req.intent,
      target: assessed.target,
      requester: req.requester,
      ...(req.team === undefined ? {} : { team: req.team }),
      ...(req.enterprise === undefined ? {} : { enterprise: req.enterprise }),
      channel: req.channel,
      ...(req.responseUrl === undefined ? {} : { responseUrl: req.responseUrl }),
      incidentChannels,
      plan: assessed.plan,
      decision: assessed.decision,
      ...(scheduled.schedule === undefined ? {} : { schedule: scheduled.schedule }),
    };
    return { type: 'prepared' as const, fields, policy: state.policy };
  }

  /**
   * Card first (docs/lifecycle.md#the-card), then the decision in the same commit that stores the card reference. The
   * sweep's recovery (`resuming`) takes a card its bot already posted instead of posting one; a card another poster
   * holds the claim of is left to it (docs/lifecycle.md#the-sweep).
   */
  private async publish(
    record: OperationRecord,
    policy: Policy,
    opts: { resuming?: boolean } = {},
  ): Promise<RequestOutcome> {
    const log = forOperation(this.deps.logger, record.id);
    let posted: PostOutcome;
    try {
      posted = await this.deps.cards.postCard(record, opts);
    } catch (error) {
      posted = { ok: false, error: describeFault(error) };
    }
    if (!posted.ok && posted.leave) {
      log.info({ reason: posted.error }, 'card not posted here; the operation stays ACCEPTED for its claim holder');
      return { type: 'recorded', record: (await this.deps.store.get(record.id)) ?? record };
    }
    if (!posted.ok) return this.cancelAccepted(record, posted.error, log);
    const card: CardRef = { channel: record.channel, ts: posted.ts };
    const at = this.deps.now();
    const decided = await this.deps.store.apply(record.id, (current) => decideAfterCard(current, card, policy, at));
    if (!decided.ok) {
      log.error({ reason: decided.reason }, 'could not record the decision after posting the card');
      return this.cancelAccepted(record, decided.reason, log, { what: 'its decision could not be recorded', card });
    }
    log.info({ state: decided.record.state, card }, 'operation recorded');
    if (decided.record.state === 'QUEUED' && decided.record.plan)
      await enqueueQueued(this.deps, decided.record, decided.record.plan.revision, log);
    if (decided.record.state === 'SCHEDULED') await enqueueScheduled(this.deps, decided.record, log);
    return { type: 'recorded', record: decided.record };
  }

  /**
   * Nothing may be left half-done: an ACCEPTED record whose card could not be posted (or whose decision could not
   * be recorded) is CANCELLED by the system, with why, and keeps its card reference when there is one.
   */
  private async cancelAccepted(
    record: OperationRecord,
    error: string,
    log: Logger,
    opts: { what?: string; card?: CardRef } = {},
  ): Promise<RequestOutcome> {
    const notInChannel = NOT_IN_CHANNEL.includes(error);
    const reason = notInChannel
      ? `the bot cannot post in <#${record.channel}> (${error})`
      : `${opts.what ?? 'the card could not be posted'} (${error})`;
    log.warn({ error }, 'cancelling an operation that could not be completed');
    const result = await this.deps.store.transition(record.id, {
      from: ['ACCEPTED'],
      to: 'CANCELLED',
      actor: 'system',
      role: 'bot',
      detail: { reason },
      ...(opts.card ? { set: { card: opts.card } } : {}),
    });
    if (!result.ok) log.error({ reason: result.reason }, 'could not cancel the unfinished operation');
    const message = notInChannel
      ? `${record.id} was cancelled: I am not in this channel, so I could not post its card. Invite me with \`/invite @${this.botName}\` and run the command again.`
      : `${record.id} was cancelled: ${reason}. Nothing was changed; please run the command again.`;
    return { type: 'cancelled', record: result.ok ? result.record : record, message };
  }
}

function refused(message: string): { type: 'refused'; message: string } {
  return { type: 'refused', message };
}

/** The transition the policy decision asks for; if someone cancelled meanwhile, only the card reference is stored. */
export function decideAfterCard(current: OperationRecord, card: CardRef, policy: Policy, at: number): Change | Refusal {
  if (current.state !== 'ACCEPTED') return { set: { card }, entries: [] };
  const decision = current.decision as PolicyDecision | undefined;
  if (!decision) return { refuse: `${current.id} has no policy decision` };
  const entry = (name: 'DENIED' | 'AWAITING_APPROVAL' | 'QUEUED', detail: Record<string, unknown>): EntryInput => ({
    type: 'state',
    name,
    actor: 'system',
    role: 'bot',
    detail,
  });
  switch (decision.outcome) {
    case 'deny':
      return { set: { card }, entries: [entry('DENIED', { reasons: decision.reasons })] };
    case 'needs-approval':
      return {
        set: { card, expiresAt: expiresAt(at, policy.approval.ttlMs) },
        entries: [entry('AWAITING_APPROVAL', { requirements: decision.requirements })],
      };
    case 'allow':
      if (current.schedule)
        return scheduleAfterCard(
          current,
          card,
          policy,
          at,
          decision.breakGlass ? BREAK_GLASS_QUEUED : 'no policy rule requires approval',
        );
      return {
        set: { card },
        entries: [
          entry('QUEUED', { reason: decision.breakGlass ? BREAK_GLASS_QUEUED : 'no policy rule requires approval' }),
        ],
      };
  }
}

/**
 * Allowed and scheduled (docs/policy.md#scheduled-operations): SCHEDULED with when it runs; the wake-up job is enqueued
 * after the commit.
 */
function scheduleAfterCard(
  current: OperationRecord,
  card: CardRef,
  policy: Policy,
  at: number,
  reason: string,
): Change {
  const schedule = scheduleOnEntry(current.schedule as NonNullable<OperationRecord['schedule']>, policy, at);
  return { set: { card, schedule }, entries: [scheduledEntry(schedule, 'system', 'bot', { reason })] };
}
