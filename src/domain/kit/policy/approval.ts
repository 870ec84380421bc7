// Approvals (docs/policy.md#approvals): who may approve or reject, one vote per person, quorum per rule, votes bound to
// a digest.
import type { Approval, Requirement } from '../../model/decision.js';

export type IsMember = (user: string, group: string) => Promise<boolean>;

export interface EligibilityInput {
  user: string;
  requester: string;
  requirements: readonly Requirement[];
  allowSelfApproval: boolean;
  isMember: IsMember;
}

export type Eligibility = { eligible: true; countsFor: string[] } | { eligible: false; why: string };

/** "a", "a or b", "a, b or c". */
function either(names: readonly string[]): string {
  if (names.length <= 1) return names.join('');
  return `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
}

/**
 * Whether `user` may approve, and for which rules their vote counts (every rule one of whose groups holds
 * them). Membership is asked once per group.
 */
export async function eligibility(input: EligibilityInput): Promise<Eligibility> {
  const { user, requester, requirements } = input;
  if (requirements.length === 0) return { eligible: false, why: 'this operation needs no approval' };
  if (user === requester && !input.allowSelfApproval) {
    return { eligible: false, why: 'you requested this operation; someone else must approve it' };
  }
  const groups = [...new Set(requirements.flatMap((r) => r.from))];
  const memberships = await Promise.all(groups.map(async (g) => [g, await input.isMember(user, g)] as const));
  const memberOf = new Set(memberships.filter(([, member]) => member).map(([g]) => g));
  const countsFor = requirements.filter((r) => r.from.some((g) => memberOf.has(g))).map((r) => r.rule);
  if (countsFor.length === 0)
    return { eligible: false, why: `you are not in ${either(groups)}, whose approval this operation needs` };
  return { eligible: true, countsFor: [...new Set(countsFor)] };
}

/**
 * Whether `user` may reject: anyone eligible to approve, except the requester, who cancels instead
 * (whatever `allowSelfApproval` says).
 */
export async function canReject(input: EligibilityInput): Promise<Eligibility> {
  if (input.user === input.requester) {
    return { eligible: false, why: 'you requested this operation; use Cancel to withdraw it' };
  }
  return eligibility(input);
}

/**
 * One vote per person: a second click for the same plan digest changes nothing; a vote for a new digest
 * replaces that person's vote for an older one.
 */
export function addApproval(approvals: readonly Approval[], vote: Approval): { added: boolean; approvals: Approval[] } {
  const previous = approvals.find((a) => a.user === vote.user);
  if (previous?.planDigest === vote.planDigest) return { added: false, approvals: [...approvals] };
  return { added: true, approvals: [...approvals.filter((a) => a.user !== vote.user), vote] };
}

export interface Remaining {
  rule: string;
  needed: number;
  from: string[];
}

export interface Tally {
  satisfied: boolean;
  remaining: Remaining[];
}

/**
 * Every requirement is counted on its own: a vote counts once for each rule it was eligible for
 * (`countsFor`), a person counts at most once per rule, and votes given for another plan digest never count.
 */
export function tally(requirements: readonly Requirement[], approvals: readonly Approval[], planDigest: string): Tally {
  const current = approvals.filter((a) => a.planDigest === planDigest);
  const remaining: Remaining[] = [];
  for (const requirement of requirements) {
    const voters = new Set(current.filter((a) => a.countsFor.includes(requirement.rule)).map((a) => a.user));
    const needed = Math.max(0, requirement.approvals - voters.size);
    if (needed > 0) remaining.push({ rule: requirement.rule, needed, from: [...requirement.from] });
  }
  return { satisfied: remaining.length === 0, remaining };
}

/** When an approval window opened at `now` closes. */
export function expiresAt(now: number, ttlMs: number): number {
  if (!Number.isFinite(now) || !Number.isSafeInteger(ttlMs) || ttlMs <= 0) {
    throw new RangeError(`expiresAt: now ${now} and ttl ${ttlMs} ms must be finite, the ttl a positive integer`);
  }
  return now + ttlMs;
}
