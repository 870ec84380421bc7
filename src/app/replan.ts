// What an approval click does when the target drifted: abort, or re-plan after this bot's own earlier operations.
import { enqueueQueued } from './enqueue.js';
import type { EntryInput, OperationRecord } from '../domain/engines/operation.js';
import type { Plan } from '../domain/model/plan.js';
import { expiresAt } from '../domain/kit/policy/approval.js';
import { forOperation } from '../log.js';
import { assess } from './assess.js';
import { assessDeps, type BotDeps } from './context.js';
import type { ActionOutcome } from './ports/index.js';

export const PLAN_CHANGED = 'the plan changed; review the updated card';

export type Planned = OperationRecord & { plan: Plan };

export function alreadyDecided(record: OperationRecord): string {
  return `${record.id} is already decided (${record.state}); nothing was changed`;
}

/** AWAITING_APPROVAL → ABORTED, unless the record moved on or was re-planned meanwhile. */
export async function abortAtApproval(
  deps: BotDeps,
  record: Planned,
  reason: string,
  user: string,
): Promise<ActionOutcome> {
  const result = await deps.store.apply(record.id, (current) => {
    if (current.state !== 'AWAITING_APPROVAL') return { refuse: alreadyDecided(current) };
    if (current.plan?.digest !== record.plan.digest) return { refuse: `${current.id}: ${PLAN_CHANGED}` };
    return {
      entries: [
        {
          type: 'state',
          name: 'ABORTED',
          actor: 'system',
          role: 'bot',
          detail: { reason, detectedOn: `approval by <@${user}>` },
        },
      ],
    };
  });
  if (!result.ok) return { type: 'refused', message: result.reason };
  forOperation(deps.logger, record.id).info({ reason }, 'operation aborted at approval');
  return { type: 'done', record: result.record, message: `${record.id} was not approved and is aborted: ${reason}` };
}

export interface ReplanCause {
  /** The operations of this bot whose submissions moved the target since the plan. */
  after: string[];
  reason: string;
  clickedBy: string;
}

/**
 * The drift rule (docs/lifecycle.md#drift): every change since the plan came from this bot's operations that ran ahead,
 * so the plan is recomputed (revision + 1) and policy re-evaluated. The click is not counted: approvals are void (the
 * store clears them on entering AWAITING_APPROVAL) and approvers review the new diff; with no approval needed any more
 * it is queued.
 */
export async function replan(deps: BotDeps, record: Planned, cause: ReplanCause): Promise<ActionOutcome> {
  const state = await deps.policy.current();
  if (!state.ok) return { type: 'refused', message: `${record.id}: ${state.message}` };
  const revision = record.plan.revision + 1;
  const assessed = await assess(
    state.policy,
    { intent: record.intent, opId: record.id, requester: record.requester, revision },
    assessDeps(deps),
  );
  if (!assessed.ok) return abortAtApproval(deps, record, `re-planning failed: ${assessed.refusal}`, cause.clickedBy);
  const { plan, decision } = assessed;
  if (decision.outcome === 'deny') {
    return abortAtApproval(
      deps,
      record,
      `re-planned after ${cause.after.join(', ')}, policy now denies it: ${decision.reasons.join('; ')}`,
      cause.clickedBy,
    );
  }
  const queued = decision.outcome === 'allow';
  const at = deps.now();
  const replanned: EntryInput = {
    type: 'replanned',
    name: 'replanned',
    actor: 'system',
    detail: {
      after: cause.after,
      reason: cause.reason,
      revision: plan.revision,
      digest: plan.digest,
      diff: plan.diff,
      previousDigest: record.plan.digest,
    },
  };
  const result = await deps.store.apply(record.id, (current) => {
    if (current.state !== 'AWAITING_APPROVAL') return { refuse: alreadyDecided(current) };
    if (current.plan?.digest !== record.plan.digest) return { refuse: `${current.id}: ${PLAN_CHANGED}` };
    const next = queued ? 'QUEUED' : 'AWAITING_APPROVAL';
    const detail = queued
      ? { reason: 'no approval needed after the re-plan' }
      : { requirements: decision.requirements };
    return {
      set: { plan, decision, ...(queued ? {} : { expiresAt: expiresAt(at, state.policy.approval.ttlMs) }) },
      entries: [replanned, { type: 'state', name: next, actor: 'system', role: 'bot', detail }],
    };
  });
  if (!result.ok) return { type: 'refused', message: result.reason };
  const log = forOperation(deps.logger, record.id);
  log.info({ revision, after: cause.after, state: result.record.state }, 're-planned at approval');
  const because = `${record.id} was re-planned after ${cause.after.join(', ')} changed the target`;
  if (!queued)
    return {
      type: 'done',
      record: result.record,
      message: `${because}; your click was not counted: review the new diff on the card`,
    };
  await enqueueQueued(deps, result.record, plan.revision, log);
  return { type: 'done', record: result.record, message: `${because}; it needs no approval any more and is queued` };
}
