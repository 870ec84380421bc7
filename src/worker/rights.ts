// The requester's right and the approvals judged again under the policy in force, right before the write
// (docs/lifecycle.md#record-integrity).
import { eligibility, tally } from '../domain/kit/policy/approval.js';
import type { Approval, PolicyDecision, Requirement } from '../domain/model/decision.js';
import type { OperationRecord } from '../domain/engines/operation.js';
import { findNamespace } from '../domain/engines/policy/evaluate.js';
import { isRequester, type MembershipLookup } from '../domain/engines/policy/groups.js';
import type { Policy } from '../domain/engines/policy/schema.js';
import type { Plan } from '../domain/model/plan.js';
import { joinWords } from '../domain/kit/policy/schedule.js';

/**
 * Membership as the worker can judge it: the users a policy group lists. A group that also names Slack user groups
 * (which only the bot resolves) holds whoever the sealed record says it held: `vouched`.
 */
function listedMembership(policy: Policy, vouched: (group: string) => boolean): MembershipLookup {
  return {
    isMember: async (user, group) => {
      const def = Object.hasOwn(policy.groups, group) ? policy.groups[group] : undefined;
      if (!def) return false;
      if (def.users.includes(user)) return true;
      return def.usergroups.length > 0 && vouched(group);
    },
  };
}

/** Why the record may not be applied now, in words, or undefined. */
export async function rightsProblem(
  policy: Policy,
  record: OperationRecord,
  plan: Plan,
  decision: PolicyDecision,
): Promise<string | undefined> {
  const { namespace, cluster } = plan.target;
  const entry = findNamespace(policy, namespace, cluster);
  if (!entry) return `namespace ${namespace} is no longer managed by the policy`;
  if (
    !(await isRequester(
      entry.requesters,
      record.requester,
      listedMembership(policy, () => true),
    ))
  )
    return `<@${record.requester}> may no longer request operations in ${namespace} (only ${joinWords(entry.requesters ?? [])})`;
  if (decision.outcome !== 'needs-approval') return undefined;
  return approvalsProblem(policy, record, plan.digest, decision.requirements);
}

async function approvalsProblem(
  policy: Policy,
  record: OperationRecord,
  digest: string,
  requirements: Requirement[],
): Promise<string | undefined> {
  const judged: Approval[] = [];
  for (const vote of record.approvals.filter((a) => a.planDigest === digest)) {
    const groupsOf = (rules: readonly string[]) =>
      requirements.filter((r) => rules.includes(r.rule)).flatMap((r) => r.from);
    const vouched = new Set(groupsOf(vote.countsFor));
    const verdict = await eligibility({
      user: vote.user,
      requester: record.requester,
      requirements,
      allowSelfApproval: policy.approval.allowSelfApproval,
      isMember: listedMembership(policy, (group) => vouched.has(group)).isMember,
    });
    if (verdict.eligible) judged.push({ ...vote, countsFor: verdict.countsFor });
  }
  const counted = tally(requirements, judged, digest);
  if (counted.satisfied) return undefined;
  const missing = counted.remaining.map((r) => `${r.rule} needs ${r.needed} more from ${joinWords(r.from)}`);
  return `its approvals no longer satisfy the policy in force: ${missing.join('; ')}`;
}
