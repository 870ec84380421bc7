// Policy group membership as policy reads it: who requests, which groups approve; membership itself is a port.
import { clustersMatch, matchesGlob } from '../../kit/policy/glob.js';
import type { Policy } from './schema.js';

/** What policy evaluation and approvals need from membership. */
export interface MembershipLookup {
  isMember(user: string, group: string): Promise<boolean>;
}

/** Whether `user` may request operations in a namespace entry (no `requesters` = anyone). */
export async function isRequester(
  requesters: readonly string[] | undefined,
  user: string,
  membership: MembershipLookup,
): Promise<boolean> {
  if (requesters === undefined) return true;
  for (const group of requesters) {
    if (await membership.isMember(user, group)) return true;
  }
  return false;
}

/**
 * Groups that approve something in `namespace`: the `require.from` groups of every rule that can apply
 * there (optionally only rules that can apply to `intentKind`, and only rules whose `clusters` admit
 * `cluster`; an undefined cluster admits every rule). Used for `unlock` (docs/policy.md#freezes).
 */
export function approverGroups(
  policy: Pick<Policy, 'rules'>,
  namespace: string,
  intentKind?: string,
  cluster?: string,
): string[] {
  const groups = new Set<string>();
  for (const rule of policy.rules) {
    if (!rule.require) continue;
    const { namespaces, operations, clusters } = rule.when;
    if (namespaces && !namespaces.some((p) => matchesGlob(p, namespace))) continue;
    if (!clustersMatch(clusters, cluster)) continue;
    if (intentKind && operations && !(operations as readonly string[]).includes(intentKind)) continue;
    for (const g of rule.require.from) groups.add(g);
  }
  return [...groups];
}
