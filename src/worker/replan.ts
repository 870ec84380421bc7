// Preconditions under the lease (the drift rule, docs/lifecycle.md#drift): frozen, vanished, changed by others, already
// done, or re-planned.
import { assess } from '../app/assess.js';
import { denialsAt } from '../app/scheduling.js';
import type { PolicyDecision } from '../domain/model/decision.js';
import { CHANGED_REASON, checkDrift, desiredStateHolds, type DriftOutcome } from '../domain/kit/planning/drift.js';
import { OURS_LOOKBACK, ourSubmissionsAfter, type OurSubmission } from '../domain/kit/planning/ours.js';
import type { EntryInput, OperationRecord } from '../domain/engines/operation.js';
import type { Plan } from '../domain/model/plan.js';
import { expiresAt } from '../domain/kit/policy/approval.js';
import { jobStatusStateOf, uidOf } from '../domain/model/resource.js';
import type { KubeObject } from '../kube/flink-client.js';
import { commit, entry, type Handback, type Run } from './context.js';
import { abortForIntegrity, rebuildPlan } from './integrity.js';
import { rightsProblem } from './rights.js';

export const ALREADY_DESIRED = 'already in the desired state';
export const VANISHED = 'the target no longer exists';

/**
 * Generations this bot's operations produced on the planned object after the plan ("made by this bot",
 * docs/lifecycle.md#drift).
 */
async function oursAfter(run: Run, plan: Plan): Promise<OurSubmission[]> {
  return ourSubmissionsAfter(await run.deps.store.recentForTarget(plan.target, OURS_LOOKBACK), plan, run.opId);
}

/** The drift rule against `current`; the earlier submissions are read only when the generation moved. */
export async function driftOf(
  run: Run,
  plan: Plan,
  current: unknown,
): Promise<{ drift: DriftOutcome; ours: OurSubmission[] }> {
  const quick = checkDrift({ plan, current, ourGenerations: [], desiredAlreadyHolds: false });
  if (quick.outcome === 'unchanged' || uidOf(current) !== plan.uid) return { drift: quick, ours: [] };
  const ours = await oursAfter(run, plan);
  const drift = checkDrift({
    plan,
    current,
    ourGenerations: ours.map((o) => o.generation),
    desiredAlreadyHolds: desiredStateHolds(plan, current),
  });
  return { drift, ours };
}

export type Precheck =
  | { type: 'proceed'; plan: Plan; current: KubeObject; replanned?: { decision: PolicyDecision; entry: EntryInput } }
  | { type: 'ended' }
  | Handback;

/** From QUEUED, with the target just read under the lease: may this plan (or a re-plan) be submitted now? */
export async function precheck(
  run: Run,
  record: OperationRecord,
  plan: Plan,
  current: KubeObject | undefined,
): Promise<Precheck> {
  if (!current) return abort(run, VANISHED);
  const freeze = await run.deps.freezes.get(plan.target);
  if (freeze) return abort(run, `target frozen by <@${freeze.by}>: ${freeze.reason}`);
  const denied = record.schedule === undefined ? undefined : await scheduledDenial(run, record);
  if (denied !== undefined) return abort(run, denied);
  if (plan.change.type === 'create-snapshot') {
    if (uidOf(current) !== plan.uid) return abort(run, CHANGED_REASON);
    const job = jobStatusStateOf(current);
    if (job !== 'RUNNING')
      return abort(run, `the job is not RUNNING (it is ${job ?? 'unknown'}): a savepoint now would be abandoned`);
    return asApproved(run, record, plan, current);
  }
  const { drift, ours } = await driftOf(run, plan, current);
  switch (drift.outcome) {
    case 'unchanged':
      return asApproved(run, record, plan, current);
    case 'already-desired':
      return abort(run, ALREADY_DESIRED);
    case 'changed':
      return abort(run, drift.reason);
    case 'replan':
      return replan(run, record, plan, ours, current);
  }
}

/** Re-plans against the current resource with revision + 1 and re-evaluates policy (docs/lifecycle.md#drift). */
async function replan(
  run: Run,
  record: OperationRecord,
  plan: Plan,
  ours: OurSubmission[],
  current: KubeObject,
): Promise<Precheck> {
  const { deps } = run;
  const policy = await deps.policy.current();
  if (!policy.ok) return abort(run, `re-plan impossible: ${policy.message}`);
  const assessment = await assess(
    policy.policy,
    {
      intent: record.intent,
      opId: record.id,
      requester: record.requester,
      revision: plan.revision + 1,
      signal: run.signal,
      current,
    },
    {
      clients: () => ({ kube: deps.kube, crds: deps.crds }),
      // No health gate under the lease: it is read for the requester at planning; a re-plan here follows this
      // bot's own earlier change, and its REST reads would only add to every queued operation's cost.
      getFreeze: (target) => deps.freezes.get(target),
      getOperation: (id) => deps.store.get(id),
      now: () => new Date(deps.now()),
      nonce: deps.nonce,
    },
  );
  if (!assessment.ok) return abort(run, assessment.refusal);
  const wrong = await rightsProblem(policy.policy, record, assessment.plan, assessment.decision);
  if (wrong !== undefined && assessment.decision.outcome !== 'needs-approval') return abort(run, wrong);
  const after = ours.map((o) => o.opId);
  const { plan: next, decision } = assessment;
  const replanned = entry(run, 'replanned', 'replanned', {
    message: `re-planned after ${after.join(', ')}`,
    after,
    revision: next.revision,
    diff: next.diff,
    decision: decision.outcome,
  });
  if (decision.outcome === 'deny')
    return abort(run, `after re-planning, policy denies it: ${decision.reasons.join('; ')}`);
  if (decision.outcome === 'needs-approval') {
    const expires = expiresAt(deps.now(), policy.policy.approval.ttlMs);
    await commit(run, {
      from: ['QUEUED'],
      to: 'AWAITING_APPROVAL',
      before: [replanned],
      detail: { reason: `re-planned after ${after.join(', ')}; the new plan needs approval` },
      set: { plan: next, decision, expiresAt: expires },
    });
    return { type: 'ended' };
  }
  run.log.info({ revision: next.revision, after }, 're-planned; continuing without approval');
  return { type: 'proceed', plan: next, current, replanned: { decision, entry: replanned } };
}

/**
 * The approved plan rebuilt from the intent against `current` (docs/lifecycle.md#record-integrity): submitted only when
 * its digest is the approved one, and the requester and approvals still hold under the policy in force.
 */
async function asApproved(run: Run, record: OperationRecord, plan: Plan, current: KubeObject): Promise<Precheck> {
  const policy = await run.deps.policy.current();
  if (!policy.ok) return abort(run, `the plan cannot be checked: ${policy.message}`);
  const rebuilt = await rebuildPlan(run, record, plan, current, policy.policy);
  if (!rebuilt.ok) {
    if (rebuilt.check) await abortForIntegrity(run, ['QUEUED'], rebuilt.check, rebuilt.reason);
    return rebuilt.check ? { type: 'ended' } : abort(run, rebuilt.reason);
  }
  const wrong = await rightsProblem(policy.policy, record, rebuilt.plan, rebuilt.decision);
  if (wrong !== undefined) return abort(run, wrong);
  return { type: 'proceed', plan: rebuilt.plan, current };
}

/**
 * A scheduled operation under the lease (docs/policy.md#scheduled-operations): a deny rule in force now, or an invalid
 * policy, aborts it.
 */
async function scheduledDenial(run: Run, record: OperationRecord): Promise<string | undefined> {
  const policy = await run.deps.policy.current();
  if (!policy.ok) return `the policy is not valid: ${policy.message}`;
  const reasons = denialsAt(policy.policy, record, run.deps.now());
  return reasons.length === 0 ? undefined : `at its time, ${reasons.join('; ')}`;
}

/** QUEUED → ABORTED with why (nothing was submitted). */
async function abort(run: Run, reason: string): Promise<Precheck> {
  run.log.info({ reason }, 'aborted before submitting');
  await commit(run, { from: ['QUEUED'], to: 'ABORTED', detail: { reason } });
  return { type: 'ended' };
}
