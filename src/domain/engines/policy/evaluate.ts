// Policy evaluation: the refusal preconditions of a request, and the decision (allow / needs-approval / deny) for a plan.
import type { BreakGlassUse, CheckResult, PolicyDecision, Requirement } from '../../model/decision.js';
import type { IntentKind } from '../../kinds/index.js';
import type { UpgradeMode } from '../../model/upgrade-mode.js';
import { clustersMatch, isGlob, matchesAny, matchesGlob } from '../../kit/policy/glob.js';
import { approverGroups, isRequester, type MembershipLookup } from './groups.js';
import { inSchedule, joinWords } from '../../kit/policy/schedule.js';
import type { NamespaceEntry, Policy, Rule } from './schema.js';

/**
 * The entry that governs `namespace` in `cluster`: among the entries whose `clusters` admit the cluster (all
 * of them when `cluster` is undefined), an exact entry wins over globs; among globs, the first in file
 * order. Undefined when the bot does not manage the namespace there.
 */
export function findNamespace(
  policy: Pick<Policy, 'namespaces'>,
  namespace: string,
  cluster?: string,
): NamespaceEntry | undefined {
  const entries = policy.namespaces.filter((n) => clustersMatch(n.clusters, cluster));
  return (
    entries.find((n) => !isGlob(n.name) && n.name === namespace) ??
    entries.find((n) => isGlob(n.name) && matchesGlob(n.name, namespace))
  );
}

/** The default namespace of a Slack channel, for bare target names. */
export function channelDefaultNamespace(policy: Pick<Policy, 'channels'>, channel: string): string | undefined {
  return Object.hasOwn(policy.channels, channel) ? policy.channels[channel]?.defaultNamespace : undefined;
}

/** "the bot does not manage namespace X (the policy lists …)", naming the cluster when given. */
export function unmanagedMessage(policy: Pick<Policy, 'namespaces'>, namespace: string, cluster?: string): string {
  if (cluster === undefined) {
    return `the bot does not manage namespace ${namespace} (the policy lists ${joinWords(policy.namespaces.map((n) => n.name))})`;
  }
  const names = [...new Set(policy.namespaces.filter((n) => clustersMatch(n.clusters, cluster)).map((n) => n.name))];
  const listed =
    names.length > 0
      ? `the policy lists ${joinWords(names)} there`
      : `no namespaces entry applies in cluster ${cluster}`;
  return `the bot does not manage namespace ${namespace} in cluster ${cluster} (${listed})`;
}

/** `namespace`, or `namespace in cluster X` when the cluster is known. */
const where = (namespace: string, cluster: string | undefined) =>
  cluster === undefined ? namespace : `${namespace} in cluster ${cluster}`;

export interface RequestInput {
  namespace: string;
  requester: string;
  hasReason: boolean;
  intentKind: IntentKind;
  /** The target's cluster; undefined in a single-cluster installation. */
  cluster?: string;
  /** `--break-glass` was given (docs/policy.md#break-glass). */
  breakGlass?: boolean;
}

export type RequestCheck = { ok: true; namespaceEntry: NamespaceEntry } | { ok: false; message: string };

/**
 * The preconditions that refuse a command before it becomes an operation (docs/lifecycle.md#refused-or-denied): managed
 * namespace, allowed requester, and `--reason` where the environment demands one. Rejects only on resolver faults.
 */
export async function checkRequest(
  policy: Policy,
  input: RequestInput,
  membership: MembershipLookup,
): Promise<RequestCheck> {
  const entry = findNamespace(policy, input.namespace, input.cluster);
  if (!entry) return { ok: false, message: unmanagedMessage(policy, input.namespace, input.cluster) };
  const place = where(input.namespace, input.cluster);
  if (!(await isRequester(entry.requesters, input.requester, membership))) {
    const groups = joinWords(entry.requesters ?? []);
    return {
      ok: false,
      message: `you may not request ${input.intentKind} in ${place}: only members of ${groups} may request operations there`,
    };
  }
  if (
    !input.hasReason &&
    entry.environment !== undefined &&
    policy.approval.requireReason.includes(entry.environment)
  ) {
    return {
      ok: false,
      message: `${place} is a ${entry.environment} namespace: say why with --reason "…" (the policy requires a reason there)`,
    };
  }
  if (input.breakGlass) {
    const refusal = await breakGlassRefusal(policy, entry, input, membership);
    if (refusal !== undefined) return { ok: false, message: refusal };
  }
  return { ok: true, namespaceEntry: entry };
}

/**
 * `--break-glass` (docs/policy.md#break-glass) needs a reason, a member of `breakGlass.groups` and an environment
 * listed there.
 */
async function breakGlassRefusal(
  policy: Policy,
  entry: NamespaceEntry,
  input: RequestInput,
  membership: MembershipLookup,
): Promise<string | undefined> {
  if (!input.hasReason)
    return '--break-glass needs a reason: say why with --reason "…" (approvers review it afterwards); nothing was recorded';
  const denied = (why: string) =>
    `<@${input.requester}> is not allowed to use --break-glass here: ${why}; nothing was recorded`;
  const settings = policy.breakGlass;
  if (!settings) return denied('the policy has no breakGlass section');
  const place = where(input.namespace, input.cluster);
  if (entry.environment === undefined || !settings.environments.includes(entry.environment)) {
    const env = entry.environment === undefined ? 'has no environment' : `is ${entry.environment}`;
    return denied(`it is allowed only in ${joinWords(settings.environments)} namespaces, and ${place} ${env}`);
  }
  for (const group of settings.groups) if (await membership.isMember(input.requester, group)) return undefined;
  return denied(`only members of ${joinWords(settings.groups)} may use it`);
}

/** `lock`: anyone who may request operations in the namespace (docs/policy.md#freezes). */
export async function canLock(
  policy: Policy,
  namespace: string,
  user: string,
  membership: MembershipLookup,
  cluster?: string,
): Promise<boolean> {
  const entry = findNamespace(policy, namespace, cluster);
  return entry !== undefined && isRequester(entry.requesters, user, membership);
}

/** `unlock`: whoever froze the target, or anyone in a group that approves operations in the namespace. */
export async function canUnlock(
  policy: Policy,
  namespace: string,
  user: string,
  frozenBy: string,
  membership: MembershipLookup,
  cluster?: string,
): Promise<boolean> {
  if (user === frozenBy) return true;
  for (const group of approverGroups(policy, namespace, undefined, cluster)) {
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
  /** The target's cluster; undefined in a single-cluster installation (every `clusters` filter matches). */
  cluster?: string;
  /**
   * `--break-glass` by someone allowed to (checked at request time, checkRequest): skips every matching `require`
   * and every time-window (`when.schedule`) deny rule where the environment allows it (docs/policy.md#break-glass).
   */
  breakGlass?: boolean;
}

/** Whether every condition of the rule's `when` holds. */
export function ruleMatches(rule: Rule, input: Omit<EvaluationInput, 'checks'>): boolean {
  const { namespaces, operations, upgradeModes, schedule, clusters } = rule.when;
  if (namespaces && !matchesAny(namespaces, input.namespace)) return false;
  if (!clustersMatch(clusters, input.cluster)) return false;
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
  const entry = findNamespace(policy, input.namespace, input.cluster);
  const environment = entry?.environment;
  const env = environment === undefined ? {} : { environment };
  const reasons: string[] = [];
  if (!entry) reasons.push(unmanagedMessage(policy, input.namespace, input.cluster));
  const requirements: Requirement[] = [];
  const glass =
    input.breakGlass === true &&
    environment !== undefined &&
    policy.breakGlass?.environments.includes(environment) === true;
  const skipped: BreakGlassUse = { skippedRequirements: [], skippedDenies: [] };
  for (const rule of policy.rules) {
    if (!entry || !ruleMatches(rule, input)) continue;
    const reason = rule.deny === undefined ? undefined : `${rule.deny} (rule ${rule.name})`;
    if (reason !== undefined) (glass && rule.when.schedule ? skipped.skippedDenies : reasons).push(reason);
    else if (rule.require)
      (glass ? skipped.skippedRequirements : requirements).push({
        rule: rule.name,
        approvals: rule.require.approvals,
        from: [...rule.require.from],
      });
  }
  for (const check of input.checks) if (check.outcome === 'fail') reasons.push(check.message);
  const extra = glass ? { ...env, breakGlass: skipped } : env;
  if (reasons.length > 0) return { outcome: 'deny', reasons, checks: input.checks, requirements, ...extra };
  if (requirements.length > 0) return { outcome: 'needs-approval', checks: input.checks, requirements, ...extra };
  return { outcome: 'allow', checks: input.checks, requirements: [], ...extra };
}
