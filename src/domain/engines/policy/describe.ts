// The policy in plain words, as `check-policy` prints it: namespaces, who approves what, freezes, settings.
import { describeVerify } from '../../kit/policy/verify.js';
import { clusterFiltersOverlap, globsOverlap } from '../../kit/policy/glob.js';
import { describeSchedule, joinWords } from '../../kit/policy/schedule.js';
import { DEFAULT_GITOPS, gitopsWords } from './gitops.js';
import { describeLogs } from './logs.js';
import type { ChannelDefaults, DenyRule, NamespaceEntry, Policy, RequireRule, Rule } from './schema.js';

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** `leads (U0LEAD1, user group S0LEADS)`. */
function describeGroup(policy: Policy, name: string): string {
  const group = policy.groups[name];
  if (!group) return name;
  const members = [...group.users, ...group.usergroups.map((id) => `user group ${id}`)];
  return `${name} (${members.join(', ')})`;
}

function describeGroups(policy: Policy, names: readonly string[], conjunction: 'and' | 'or'): string {
  const words = names.map((n) => describeGroup(policy, n));
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} ${conjunction} ${words[words.length - 1]}`;
}

/** " in cluster prod-eu", " in clusters prod-eu and us-*"; nothing without a filter (every cluster). */
function inClusters(clusters: readonly string[] | undefined): string {
  if (clusters === undefined) return '';
  return ` in cluster${clusters.length === 1 && !clusters[0]?.includes('*') ? '' : 's'} ${joinWords(clusters)}`;
}

function describeNamespace(policy: Policy, ns: NamespaceEntry): string {
  const parts: string[] = [];
  parts.push(ns.requesters ? `requests from ${describeGroups(policy, ns.requesters, 'and')}` : 'anyone may request');
  if (ns.environment !== undefined && policy.approval.requireReason.includes(ns.environment)) {
    parts.push('a reason (--reason) is required');
  }
  if (ns.incidentChannel) parts.push(`digests of every operation go to channel ${ns.incidentChannel}`);
  const env = ns.environment === undefined ? '' : ` (environment: ${ns.environment})`;
  const glob = ns.name.includes('*') ? ' (every namespace matching this glob)' : '';
  return `  - ${ns.name}${glob}${inClusters(ns.clusters)}${env}: ${parts.join('; ')}.`;
}

/** "suspend, restart and scale in streaming-prod with upgrade mode stateless on Fridays …" plus the verb agreement. */
function describeScope(rule: Rule): { subject: string; plural: boolean } {
  const { namespaces, operations, upgradeModes, schedule, clusters } = rule.when;
  const what = operations ? joinWords(operations) : 'any operation';
  const where = `${namespaces ? ` in ${joinWords(namespaces)}` : ' in any managed namespace'}${inClusters(clusters)}`;
  const mode = upgradeModes ? ` with upgrade mode ${upgradeModes.join(' or ')}` : '';
  const when = schedule ? ` on ${describeSchedule(schedule)}` : '';
  return { subject: `${what}${where}${mode}${when}`, plural: (operations?.length ?? 1) > 1 };
}

function describeRule(policy: Policy, rule: RequireRule | DenyRule): string {
  const scope = describeScope(rule);
  if (rule.deny !== undefined) {
    return `  - ${rule.name}: ${scope.subject} ${scope.plural ? 'are' : 'is'} denied: "${rule.deny}".`;
  }
  const { approvals, from } = rule.require;
  return `  - ${rule.name}: ${scope.subject} ${scope.plural ? 'need' : 'needs'} ${plural(approvals, 'approval')} from ${describeGroups(policy, from, 'or')}.`;
}

/** Namespace entries that no `require` rule can ever apply to. */
function withoutApprovalRules(policy: Policy): string[] {
  const requiring = policy.rules.filter((r) => r.require !== undefined);
  return policy.namespaces
    .filter(
      (ns) =>
        !requiring.some(
          (r) =>
            (!r.when.namespaces || r.when.namespaces.some((p) => globsOverlap(p, ns.name))) &&
            clusterFiltersOverlap(r.when.clusters, ns.clusters),
        ),
    )
    .map((ns) => ns.name);
}

function describeApprovalSettings(policy: Policy): string[] {
  const { ttl, allowSelfApproval, requireReason } = policy.approval;
  const lines = [`  - an operation waiting for approval expires after ${ttl};`];
  lines.push(
    allowSelfApproval
      ? '  - self-approval is allowed: a requester who is in an approving group may approve their own operation;'
      : '  - self-approval is off: a requester never approves their own operation;',
  );
  if (requireReason.length === 0) lines.push('  - a reason (--reason) is never required;');
  else {
    const namespaces = policy.namespaces.filter(
      (n) => n.environment !== undefined && requireReason.includes(n.environment),
    );
    const list = namespaces.length ? ` (${joinWords(namespaces.map((n) => n.name))})` : '';
    lines.push(`  - a reason (--reason) is required in ${joinWords(requireReason)} namespaces${list};`);
  }
  lines.push(...describeReach(policy.approval));
  return lines;
}

const NOTIFY_WORDS = {
  dm: 'each eligible approver gets a DM with the plan and the buttons (at most 20 per operation)',
  channel: 'approvers are reached through the channel card only (no DMs)',
  none: 'nobody is messaged: approvers find the card themselves',
} as const;

/** How approvers are reached, reminded and escalated to (docs/policy.md#reaching-approvers). */
function describeReach(a: Policy['approval']): string[] {
  const lines = [`  - ${NOTIFY_WORDS[a.notify]};`];
  lines.push(
    a.remindAfter === undefined
      ? '  - no reminders;'
      : `  - approvers who have not acted are reminded once after ${a.remindAfter};`,
  );
  lines.push(
    a.escalateAfter === undefined
      ? '  - no escalation.'
      : `  - after ${a.escalateAfter} it is escalated to ${joinWords(a.escalateTo)}, who may then approve as if they were in the rule's groups.`,
  );
  return lines;
}

/** Who may use --break-glass, where, and how soon it is reviewed (docs/policy.md#break-glass). */
function describeBreakGlass(policy: Policy): string[] {
  const b = policy.breakGlass;
  if (!b) return ['  - not allowed: the policy has no breakGlass section, so --break-glass is refused.'];
  return [
    `  - members of ${joinWords(b.groups)} may use --break-glass --reason "…" in ${joinWords(b.environments)} namespaces: it skips approvals and time-window deny rules, never a lock freeze or a failed built-in check;`,
    `  - approvers of the skipped rules review it afterwards (Reviewed button); unreviewed ${b.reviewWithin} after it ended, it is reminded daily.`,
  ];
}

function describeConfig(policy: Policy): string[] {
  const { allow = [], deny = [] } = policy.config ?? {};
  if (allow.length === 0) return ['  - none: every `config` command is denied (add config.allow globs to allow keys).'];
  const lines = [`  - allowed: ${allow.map((g) => `"${g}"`).join(', ')};`];
  lines.push(
    deny.length === 0
      ? '  - nothing is denied explicitly.'
      : `  - denied even when allowed: ${deny.map((g) => `"${g}"`).join(', ')}.`,
  );
  return lines;
}

function describeLimits(policy: Policy): string[] {
  const l = policy.limits ?? {};
  const parts = [
    l.taskManagerMemory && `TaskManager memory at most ${l.taskManagerMemory.text}`,
    l.taskManagerCpu !== undefined && `TaskManager CPU at most ${l.taskManagerCpu}`,
    l.jobManagerMemory && `JobManager memory at most ${l.jobManagerMemory.text}`,
    l.jobManagerCpu !== undefined && `JobManager CPU at most ${l.jobManagerCpu}`,
    l.parallelism !== undefined && `parallelism at most ${l.parallelism}`,
  ].filter((p): p is string => typeof p === 'string');
  return parts.length === 0 ? ['  - none.'] : parts.map((p) => `  - ${p};`);
}

/**
 * What a change to a target Git manages does, per scope (docs/policy.md#gitops-managed-targets): the default in full,
 * then each namespace entry and rule with the keys it sets.
 */
function describeGitops(policy: Policy): string[] {
  const lines = [`  - by default: ${gitopsWords({ ...DEFAULT_GITOPS, ...policy.gitops }).join('; ')}.`];
  for (const ns of policy.namespaces) {
    const words = gitopsWords(ns.gitops ?? {});
    if (words.length > 0) lines.push(`  - namespace ${ns.name}${inClusters(ns.clusters)}: ${words.join('; ')}.`);
  }
  for (const rule of policy.rules) {
    const words = gitopsWords(rule.gitops ?? {});
    if (words.length > 0) lines.push(`  - rule ${rule.name} (${describeScope(rule).subject}): ${words.join('; ')}.`);
  }
  lines.push(
    '  - restore is denied where Git owns initialSavepointPath or savepointRedeployNonce, unless the target is paused.',
  );
  return lines;
}

function describeChannel(id: string, channel: ChannelDefaults): string {
  const parts = [
    channel.defaultNamespace !== undefined && `a bare name means namespace ${channel.defaultNamespace}`,
    channel.defaultCluster !== undefined && `a target without a cluster means cluster ${channel.defaultCluster}`,
  ].filter((p): p is string => typeof p === 'string');
  return `  - in channel ${id}, ${parts.join('; ')}.`;
}

function describeWindows(policy: Policy): string[] {
  const windows = Object.entries(policy.windows ?? {});
  if (windows.length === 0) return ['  - no windows: --window is refused.'];
  return windows.map(
    ([name, w]) => `  - ${name}: ${describeSchedule({ ...w, timezone: w.timezone ?? policy.timezone ?? 'UTC' })}.`,
  );
}

export function describePolicy(policy: Policy): string {
  const out: string[] = [];
  out.push('Namespaces (the bot touches only these; commands on any other namespace are refused):');
  out.push(...policy.namespaces.map((ns) => describeNamespace(policy, ns)));

  const requiring = policy.rules.filter((r): r is RequireRule => r.require !== undefined);
  const denying = policy.rules.filter((r): r is DenyRule => r.deny !== undefined);
  out.push(
    '',
    'Approvals (every matching rule applies; one approval counts for each rule whose groups contain the approver):',
  );
  if (requiring.length === 0) out.push('  - no rule requires approval.');
  out.push(...requiring.map((r) => describeRule(policy, r)));
  const free = withoutApprovalRules(policy);
  const freeWords = free.length ? `; no rule requires approval in ${joinWords(free)}` : '';
  out.push(`  Operations that match no rule run without approval${freeWords}.`);

  out.push('', 'Freezes and denials (denied with the reason on the card, recorded as DENIED):');
  if (denying.length === 0) out.push('  - none.');
  out.push(...denying.map((r) => describeRule(policy, r)));

  out.push('', 'Built-in checks on the live resource (a failed one denies): not frozen by `lock`, operator not busy,');
  out.push(
    '  savepoint directory and high availability for the upgrade mode, parallelism and resource limits, configuration keys,',
  );
  out.push('  job RUNNING for a savepoint,');
  out.push(
    '  session cluster READY; warnings (autoscaler, stateless drops state, restore discards state) are shown, not blocking.',
  );

  out.push('', 'Configuration keys `config` may change (deny wins over allow):', ...describeConfig(policy));
  out.push('', 'Limits for `resources` and `scale` (above them the operation is denied):', ...describeLimits(policy));

  out.push('', 'Deep verification and the health gate, per environment:', ...describeVerify(policy));

  out.push(
    '',
    "GitOps-managed targets (Argo CD, Flux, Helm; a matching rule's setting wins over the namespace's, then the default):",
    ...describeGitops(policy),
  );

  out.push('', 'Pod logs (`/flink logs`, answered privately):', ...describeLogs(policy));

  out.push('', 'Approval settings:', ...describeApprovalSettings(policy));

  out.push('', 'Break-glass:', ...describeBreakGlass(policy));

  out.push(
    '',
    `Scheduled operations (--at HH:MM is in ${policy.timezone ?? 'UTC'}; --window names one of these):`,
    ...describeWindows(policy),
  );

  const channels = Object.entries(policy.channels);
  const withCluster = channels.some(([, c]) => c.defaultCluster !== undefined) ? ' and targets without a cluster' : '';
  out.push('', `Channel defaults (for bare target names${withCluster}):`);
  if (channels.length === 0) out.push('  - none: every command must name namespace/target.');
  out.push(...channels.map(([id, c]) => describeChannel(id, c)));
  return `${out.join('\n')}\n`;
}
