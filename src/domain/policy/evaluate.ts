// Policy evaluation: the refusal preconditions of a request, and the decision (allow / needs-approval / deny) for a plan.
import type { CheckResult, PolicyDecision, Requirement } from '../model/decision.js';
import type { IntentKind } from '../kinds/index.js';
import type { UpgradeMode } from '../model/upgrade-mode.js';
import { isGlob, matchesAny, matchesGlob } from './glob.js';
import { approverGroups, isRequester, type MembershipLookup } from './groups.js';
import { inSchedule, joinWords } from './schedule.js';
import type { NamespaceEntry, Policy, Rule } from './schema.js';

/**
 * The entry that governs `namespace`: an exact entry wins over globs; among globs, the first in file
 * order. Undefined when the bot does not manage the namespace.
 */
export function findNamespace(policy: Pick<Policy, 'namespaces'>, namespace: string): NamespaceEntry | undefined {
  return (
    policy.namespaces.find((n) => !isGlob(n.name) && n.name === namespace) ??
    policy.namespaces.find((n) => isGlob(n.name) && matchesGlob(n.name, namespace))
  );
}

/** The default namespace of a Slack channel, for bare target names. */
export function channelDefaultNamespace(policy: Pick<Policy, 'channels'>, channel: string): string | undefined {
  return Object.hasOwn(policy.channels, channel) ? policy.channels[channel]?.defaultNamespace : undefined;
}

export function unmanagedMessage(policy: Pick<Policy, 'namespaces'>, namespace: string): string {
  const names = policy.namespaces.map((n) => n.name);
  return `the bot does not manage namespace ${namespace} (the policy lists ${joinWords(names)})`;
}

export interface RequestInput {
  namespace: string;
  requester: string;
  hasReason: boolean;
  intentKind: IntentKind;
}

export type RequestCheck = { ok: true; namespaceEntry: NamespaceEntry } | { ok: false; message: string };

/**
 * The preconditions that refuse a command before it becomes an operation (SPEC §4): managed namespace,
 * allowed requester, and `--reason` where the environment demands one. Rejects only on resolver faults.
 */
export async function checkRequest(policy: Policy, input: RequestInput, membership: MembershipLookup): Promise<RequestCheck> {
  const entry = findNamespace(policy, input.namespace);
  if (!entry) return { ok: false, message: unmanagedMessage(policy, input.namespace) };
  if (!(await isRequester(entry.requesters, input.requester, membership))) {
    const groups = joinWords(entry.requesters ?? []);
    return {
      ok: false,
      message: `you may not request ${input.intentKind} in ${input.namespace}: only members of ${groups} may request operations there`,
    };
  }
  if (!input.hasReason && entry.environment !== undefined && policy.approval.requireReason.includes(entry.environment)) {
    return {
      ok: false,
      message: `${input.namespace} is a ${entry.environment} namespace: say why with --reason "…" (the policy requires a reason there)`,
    };
  }
  return { ok: true, namespaceEntry: entry };
}

/** `lock`: anyone who may request operations in the namespace (SPEC §6). */
export async function canLock(policy: Policy, namespace: string, user: string, membership: MembershipLookup): Promise<boolean> {
  const entry = findNamespace(policy, namespace);
  return entry !== undefined && isRequester(entry.requesters, user, membership);
}

/** `unlock`: whoever froze the target, or anyone in a group that approves operations in the namespace. */
export async function canUnlock(
  policy: Policy,
  namespace: string,
  user: string,
  frozenBy: string,
  membership: MembershipLookup,
): Promise<boolean> {
  if (user === frozenBy) return true;
  for (const group of approverGroups(policy, namespace)) {
    if (await membership.isMember(user, group)) return true;
  }
  return false;
}

export interface EvaluationInput {
  /** `undo` is its own kind for rules. */
  intentKind: IntentKind;
  namespace: string;
  /** The effective upgrade mode (`--mode`, else spec.job.upgradeMode, else stateless) for kinds that redeploy. */
  upgradeMode?: UpgradeMode;
  now: Date;
  /** Results of `runChecks`. */
  checks: CheckResult[];
}

/** Whether every condition of the rule's `when` holds. */
export function ruleMatches(rule: Rule, input: Omit<EvaluationInput, 'checks'>): boolean {
  const { namespaces, operations, upgradeModes, schedule } = rule.when;
  if (namespaces && !matchesAny(namespaces, input.namespace)) return false;
  if (operations && !operations.includes(input.intentKind)) return false;
  if (upgradeModes && (input.upgradeMode === undefined || !upgradeModes.includes(input.upgradeMode))) return false;
  if (schedule && !inSchedule(schedule, input.now)) return false;
  return true;
}

/**
 * The decision for one plan: any matching `deny` or failed check denies with every reason; otherwise each
 * matching `require` is one independent requirement; nothing matching allows. Never throws for outcomes.
 */
export function evaluate(policy: Policy, input: EvaluationInput): PolicyDecision {
  const entry = findNamespace(policy, input.namespace);
  const environment = entry?.environment;
  const env = environment === undefined ? {} : { environment };
  const reasons: string[] = [];
  if (!entry) reasons.push(unmanagedMessage(policy, input.namespace));
  const requirements: Requirement[] = [];
  for (const rule of policy.rules) {
    if (!entry || !ruleMatches(rule, input)) continue;
    if (rule.deny !== undefined) reasons.push(`${rule.deny} (rule ${rule.name})`);
    else requirements.push({ rule: rule.name, approvals: rule.require.approvals, from: [...rule.require.from] });
  }
  for (const check of input.checks) if (check.outcome === 'fail') reasons.push(check.message);
  if (reasons.length > 0) return { outcome: 'deny', reasons, checks: input.checks, requirements, ...env };
  if (requirements.length > 0) return { outcome: 'needs-approval', checks: input.checks, requirements, ...env };
  return { outcome: 'allow', checks: input.checks, requirements: [], ...env };
}
