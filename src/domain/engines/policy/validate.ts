// Whole-policy validation: the strict schema plus the cross-checks a schema cannot express (docs/policy.md#policy).
import { rawClusterProblems } from './clusters.js';
import { clusterFiltersOverlap, clustersMatch, globsOverlap, isGlob, matchesGlob } from '../../kit/policy/glob.js';
import { PolicySchema, type Policy } from './schema.js';
import { formatPath, issueLines } from './schema-issues.js';
import { INTENT_KINDS, usesUpgradeMode } from '../../kinds/index.js';
import { namespaceProblem } from '../../model/target.js';
import { logsGroupProblems } from './logs.js';

export type ValidationResult =
  { ok: true; policy: Policy; warnings: string[] } | { ok: false; errors: string[]; warnings: string[] };

/** Kinds whose rules can match on `upgradeModes` (they stop or redeploy the job); derived from the kinds' traits. */
export const KINDS_WITH_UPGRADE_MODE: readonly string[] = INTENT_KINDS.filter(usesUpgradeMode);

const CHANNEL_ID = /^[CGD][A-Z0-9]{2,}$/;

type Raw = Record<string, unknown>;
const isRecord = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const strings = (v: unknown): string[] => list(v).filter((s): s is string => typeof s === 'string');

interface Found {
  errors: string[];
  warnings: string[];
}

export interface ValidationOptions {
  /**
   * The installation's cluster names: when given, a cluster the policy names that is not among them, or a
   * cluster glob matching none of them, is an error (docs/policy.md#several-clusters). Without it cluster names are not
   * checked.
   */
  clusters?: readonly string[];
}

/**
 * Validates a parsed YAML value. Structure errors and cross-check errors are reported together, so one
 * run of `check-policy` lists every problem; the cross-checks read the raw value defensively.
 */
export function validatePolicy(raw: unknown, options: ValidationOptions = {}): ValidationResult {
  const parsed = PolicySchema.safeParse(raw, { reportInput: true });
  const found: Found = { errors: parsed.success ? [] : issueLines(parsed.error.issues), warnings: [] };
  if (isRecord(raw)) crossCheck(raw, found);
  if (options.clusters) found.errors.push(...rawClusterProblems(raw, options.clusters));
  const errors = [...new Set(found.errors)];
  if (!parsed.success || errors.length > 0) return { ok: false, errors, warnings: found.warnings };
  return { ok: true, policy: parsed.data as Policy, warnings: found.warnings };
}

function crossCheck(raw: Raw, found: Found): void {
  const groups = isRecord(raw.groups) ? raw.groups : {};
  const namespaces = list(raw.namespaces).map((n) => (isRecord(n) ? n : {}));
  const patterns = namespaces.map((n) => n.name).filter((n): n is string => typeof n === 'string');
  checkGroups(groups, found);
  checkNamespaces(namespaces, groups, found);
  found.errors.push(...logsGroupProblems(raw));
  if (isRecord(raw.approval)) unknownGroups(raw.approval.escalateTo, groups, ['approval', 'escalateTo'], found);
  // Without a namespaces list every coverage check below would only repeat that one problem.
  if (!Array.isArray(raw.namespaces)) {
    unknownGroupsInRules(raw, groups, found);
    return;
  }
  checkChannels(raw.channels, namespaces, found);
  const allowSelf = isRecord(raw.approval) && raw.approval.allowSelfApproval === true;
  list(raw.rules).forEach((rule, i) => {
    if (isRecord(rule)) checkRule(rule, i, { groups, namespaces, patterns, allowSelf }, found);
  });
  checkDuplicateRuleNames(list(raw.rules), found);
  if (isRecord(raw.config)) checkConfig(raw.config, found);
  const environments = new Set(namespaces.map((n) => n.environment).filter((e) => typeof e === 'string'));
  if (isRecord(raw.breakGlass)) checkBreakGlass(raw.breakGlass, groups, environments, found);
  if (isRecord(raw.approval)) {
    list(raw.approval.requireReason).forEach((env, i) => {
      if (typeof env === 'string' && !environments.has(env)) {
        const known = environments.size ? [...environments].join(', ') : 'none';
        found.errors.push(
          `approval.requireReason[${i}]: no namespace has environment "${env}" (environments in use: ${known})`,
        );
      }
    });
  }
}

/**
 * `breakGlass.groups` (docs/policy.md#break-glass) must be policy groups; its environments must be ones some namespace
 * has.
 */
function checkBreakGlass(breakGlass: Raw, groups: Raw, environments: Set<unknown>, found: Found): void {
  unknownGroups(breakGlass.groups, groups, ['breakGlass', 'groups'], found);
  list(breakGlass.environments).forEach((env, i) => {
    if (typeof env === 'string' && !environments.has(env)) {
      const known = environments.size ? [...environments].join(', ') : 'none';
      found.errors.push(
        `breakGlass.environments[${i}]: no namespace has environment "${env}" (environments in use: ${known})`,
      );
    }
  });
}

function unknownGroupsInRules(raw: Raw, groups: Raw, found: Found): void {
  list(raw.rules).forEach((rule, i) => {
    if (isRecord(rule) && isRecord(rule.require))
      unknownGroups(rule.require.from, groups, ['rules', i, 'require', 'from'], found);
  });
}

function checkGroups(groups: Raw, found: Found): void {
  for (const [name, group] of Object.entries(groups)) {
    if (!isRecord(group)) continue;
    if (list(group.users).length === 0 && list(group.usergroups).length === 0) {
      found.errors.push(`${formatPath(['groups', name])}: has no users and no usergroups; nobody would be in it`);
    }
  }
}

function unknownGroups(names: unknown, groups: Raw, path: PropertyKey[], found: Found): void {
  list(names).forEach((name, j) => {
    if (typeof name === 'string' && !Object.hasOwn(groups, name)) {
      found.errors.push(`${formatPath([...path, j])}: unknown group "${name}"`);
    }
  });
}

/** A `clusters` value as a filter: undefined (every cluster) unless it is a list. */
const clusterFilter = (v: unknown): string[] | undefined => (Array.isArray(v) ? strings(v) : undefined);

/**
 * Unknown requester groups, and one name listed twice for clusters that overlap (the same name may have
 * one entry per cluster, e.g. `clusters: [prod-eu]` and `clusters: [prod-us]`).
 */
function checkNamespaces(namespaces: Raw[], groups: Raw, found: Found): void {
  namespaces.forEach((ns, i) => {
    unknownGroups(ns.requesters, groups, ['namespaces', i, 'requesters'], found);
    if (typeof ns.name !== 'string') return;
    const first = namespaces.findIndex(
      (other, k) =>
        k < i &&
        other.name === ns.name &&
        clusterFiltersOverlap(clusterFilter(other.clusters), clusterFilter(ns.clusters)),
    );
    if (first < 0) return;
    const scoped = ns.clusters !== undefined || namespaces[first]?.clusters !== undefined;
    found.errors.push(
      `namespaces[${i}].name: "${ns.name}" is listed twice (also namespaces[${first}])${scoped ? ' for overlapping clusters' : ''}`,
    );
  });
}

function checkChannels(channels: unknown, namespaces: Raw[], found: Found): void {
  if (!isRecord(channels)) return;
  for (const [id, channel] of Object.entries(channels)) {
    if (!CHANNEL_ID.test(id)) {
      found.errors.push(`${formatPath(['channels', id])}: "${id}" is not a Slack channel id (e.g. C0DATAPLATFORM)`);
    }
    const ns = isRecord(channel) ? channel.defaultNamespace : undefined;
    if (typeof ns !== 'string') continue;
    const cluster =
      isRecord(channel) && typeof channel.defaultCluster === 'string' ? channel.defaultCluster : undefined;
    const path = formatPath(['channels', id, 'defaultNamespace']);
    const problem = isGlob(ns)
      ? `"${ns}" is a glob; a default namespace must be one exact namespace`
      : namespaceProblem(ns);
    const matching = namespaces.filter((n) => typeof n.name === 'string' && matchesGlob(n.name, ns));
    if (problem) found.errors.push(`${path}: ${problem}`);
    else if (matching.length === 0) {
      found.errors.push(`${path}: namespace "${ns}" is not managed by the bot (no namespaces entry matches it)`);
    } else if (!matching.some((n) => clustersMatch(clusterFilter(n.clusters), cluster))) {
      found.errors.push(
        `${path}: namespace "${ns}" is not managed in cluster "${String(cluster)}", the channel's defaultCluster (no namespaces entry for it admits that cluster)`,
      );
    }
  }
}

interface RuleContext {
  groups: Raw;
  namespaces: Raw[];
  patterns: string[];
  allowSelf: boolean;
}

function checkRule(rule: Raw, i: number, ctx: RuleContext, found: Found): void {
  const when = isRecord(rule.when) ? rule.when : {};
  strings(when.namespaces).forEach((pattern, j) => {
    if (ctx.patterns.length > 0 && !ctx.patterns.some((p) => globsOverlap(p, pattern))) {
      found.errors.push(
        `rules[${i}].when.namespaces[${j}]: "${pattern}" matches no namespace the bot manages; the rule would never apply`,
      );
    }
  });
  const operations = strings(when.operations);
  const known = operations.every((op) => (INTENT_KINDS as readonly string[]).includes(op));
  const withMode = operations.filter((op) => KINDS_WITH_UPGRADE_MODE.includes(op));
  if (Array.isArray(when.upgradeModes) && known && operations.length > 0 && withMode.length === 0) {
    found.errors.push(
      `rules[${i}].when.upgradeModes: ${operations.join(', ')} has no upgrade mode; the rule would never apply`,
    );
  }
  if (isRecord(rule.require)) checkRequire(rule.require, when, i, ctx, found);
  const gitopsOnly = rule.require === undefined && rule.deny === undefined;
  if (gitopsOnly && isRecord(rule.gitops) && Object.keys(rule.gitops).length === 0) {
    found.warnings.push(`rules[${i}].gitops: sets no key (onManaged, revertWatch, exempt); the rule does nothing`);
  }
}

function checkRequire(require: Raw, when: Raw, i: number, ctx: RuleContext, found: Found): void {
  unknownGroups(require.from, ctx.groups, ['rules', i, 'require', 'from'], found);
  const from = strings(require.from).filter((g) => Object.hasOwn(ctx.groups, g));
  const approvals = require.approvals;
  if (typeof approvals !== 'number' || from.length === 0) return;
  const defs = from.map((g) => ctx.groups[g]).filter(isRecord);
  if (defs.some((g) => list(g.usergroups).length > 0)) return; // user groups can grow: count unknown
  const members = new Set(defs.flatMap((g) => strings(g.users)));
  const n = members.size;
  const who = `${from.join(', ')} ${from.length > 1 ? 'have' : 'has'} ${n} member${n === 1 ? '' : 's'}`;
  const needed = `${approvals} approval${approvals === 1 ? '' : 's'} needed`;
  if (approvals > n) {
    found.errors.push(`rules[${i}].require.approvals: ${needed} but ${who}; the rule can never be satisfied`);
  } else if (approvals === n && !ctx.allowSelf && memberMayRequest(members, when, ctx)) {
    found.warnings.push(
      `rules[${i}].require.approvals: ${needed} and ${who}; when one of them requests, the rule cannot be satisfied (allowSelfApproval is false)`,
    );
  }
}

/** Whether one of `members` may request in a namespace the rule can apply to (user groups: assume yes). */
function memberMayRequest(members: Set<string>, when: Raw, ctx: RuleContext): boolean {
  const ruleNamespaces = strings(when.namespaces);
  const entries = ctx.namespaces.filter(
    (ns) =>
      typeof ns.name === 'string' &&
      (ruleNamespaces.length === 0 || ruleNamespaces.some((p) => globsOverlap(p, ns.name as string))),
  );
  return entries.some((ns) => {
    if (!Array.isArray(ns.requesters)) return true;
    return strings(ns.requesters).some((g) => {
      const group = ctx.groups[g];
      return isRecord(group) && (list(group.usergroups).length > 0 || strings(group.users).some((u) => members.has(u)));
    });
  });
}

/** An allow glob every key of which a deny glob denies (deny wins) allows nothing: say so. */
function checkConfig(config: Raw, found: Found): void {
  const deny = strings(config.deny);
  strings(config.allow).forEach((allow, i) => {
    const by = deny.find((d) => matchesGlob(d, allow));
    if (by !== undefined)
      found.warnings.push(
        `config.allow[${i}]: "${allow}" is covered by config.deny "${by}" (deny wins); it allows nothing`,
      );
  });
}

function checkDuplicateRuleNames(rules: unknown[], found: Found): void {
  const seen = new Map<string, number>();
  rules.forEach((rule, i) => {
    const name = isRecord(rule) ? rule.name : undefined;
    if (typeof name !== 'string') return;
    const first = seen.get(name);
    if (first !== undefined)
      found.errors.push(`rules[${i}].name: duplicate rule name "${name}" (also rules[${first}])`);
    else seen.set(name, i);
  });
}
