// The eligible approvers of an operation as people to message (docs/policy.md#reaching-approvers): the members of
// the groups asked (user groups resolved), requester excluded, each once, capped; read by the notifier for its DMs.
import type { OperationRecord } from '../domain/engines/operation.js';
import { askedGroups, MAX_APPROVER_DMS } from '../domain/engines/policy/approvers.js';
import type { ApprovalSettings } from '../domain/engines/policy/schema.js';
import type { MembershipSource } from './context.js';
import type { PolicyProvider } from './policy-source.js';

export interface ApproverList {
  /** Who is messaged, in order: the rules' groups first, then escalation's (at most MAX_APPROVER_DMS). */
  messaged: string[];
  /** Eligible, but beyond the cap: the card names them. */
  notMessaged: string[];
  /** Of `messaged`, those eligible only through the escalation. */
  escalationOnly: Set<string>;
}

/** What the notifier asks about approvers; undefined settings = no valid policy (then no DMs). */
export interface ApproverDirectory {
  settings(): Promise<ApprovalSettings | undefined>;
  approvers(record: OperationRecord): Promise<ApproverList>;
}

/** Members of several groups, in group order, each once. */
async function membersOf(groups: readonly string[], usersOf: (group: string) => Promise<string[]>): Promise<string[]> {
  const all: string[] = [];
  for (const group of groups) all.push(...(await usersOf(group)));
  return [...new Set(all)];
}

/** Faults (a user group that cannot be resolved) throw: the notifier then tries again later. */
export function approverDirectory(
  policy: PolicyProvider,
  membership: MembershipSource,
  max = MAX_APPROVER_DMS,
): ApproverDirectory {
  return {
    async settings() {
      const state = await policy.current();
      return state.ok ? state.policy.approval : undefined;
    },
    async approvers(record) {
      const state = await policy.current();
      if (!state.ok) return { messaged: [], notMessaged: [], escalationOnly: new Set() };
      const groups = membership.for(state.policy, state.hash);
      const usersOf = (group: string) => groups.usersOf(group);
      const { base, escalation } = askedGroups(record);
      const first = (await membersOf(base, usersOf)).filter((u) => u !== record.requester);
      const later = (await membersOf(escalation, usersOf)).filter((u) => u !== record.requester && !first.includes(u));
      const eligible = [...first, ...later];
      const messaged = eligible.slice(0, max);
      return {
        messaged,
        notMessaged: eligible.slice(max),
        escalationOnly: new Set(later.filter((u) => messaged.includes(u))),
      };
    },
  };
}
