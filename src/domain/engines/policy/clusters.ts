// The policy and several clusters (docs/policy.md#several-clusters): channel default clusters, where a namespace is
// managed, and cluster names in the policy that this installation does not have.
import { findNamespace } from './evaluate.js';
import { clusterPatternProblem, isGlob, matchesGlob } from '../../kit/policy/glob.js';
import type { Policy } from './schema.js';
import { formatPath } from './schema-issues.js';

/** The default cluster of a Slack channel, for targets that name no cluster. */
export function channelDefaultCluster(policy: Pick<Policy, 'channels'>, channel: string): string | undefined {
  return Object.hasOwn(policy.channels, channel) ? policy.channels[channel]?.defaultCluster : undefined;
}

/** The clusters among `clusterNames` (in that order) in which the policy manages `namespace`. */
export function managedClusters(
  policy: Pick<Policy, 'namespaces'>,
  namespace: string,
  clusterNames: readonly string[],
): string[] {
  return clusterNames.filter((cluster) => findNamespace(policy, namespace, cluster) !== undefined);
}

type Raw = Record<string, unknown>;
const isRecord = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/**
 * One path-named line per cluster the policy names that is not among `known` (the installation's clusters),
 * and per glob that matches none of them: `namespaces[].clusters`, `rules[].when.clusters` and
 * `channels[…].defaultCluster`. Reads its input defensively, so it also runs on a file that failed the
 * schema (malformed names are the schema's to report and are skipped here).
 */
export function clusterProblems(
  policy: Pick<Policy, 'namespaces' | 'rules' | 'channels'>,
  known: readonly string[],
): string[] {
  return rawClusterProblems(policy, known);
}

/** `clusterProblems` on a value not yet validated (a parsed YAML document). */
export function rawClusterProblems(raw: unknown, known: readonly string[]): string[] {
  if (!isRecord(raw)) return [];
  const has = known.length > 0 ? `this installation has ${known.join(', ')}` : 'this installation has no clusters';
  const problems: string[] = [];
  const check = (value: unknown, path: PropertyKey[]) => {
    if (typeof value !== 'string' || clusterPatternProblem(value) !== undefined) return;
    if (isGlob(value)) {
      if (!known.some((c) => matchesGlob(value, c)))
        problems.push(`${formatPath(path)}: "${value}" matches no cluster (${has})`);
    } else if (!known.includes(value)) {
      problems.push(`${formatPath(path)}: unknown cluster "${value}" (${has})`);
    }
  };
  list(raw.namespaces).forEach((ns, i) => {
    if (isRecord(ns)) list(ns.clusters).forEach((c, j) => check(c, ['namespaces', i, 'clusters', j]));
  });
  list(raw.rules).forEach((rule, i) => {
    const when = isRecord(rule) && isRecord(rule.when) ? rule.when : {};
    list(when.clusters).forEach((c, j) => check(c, ['rules', i, 'when', 'clusters', j]));
  });
  if (isRecord(raw.channels)) {
    for (const [id, channel] of Object.entries(raw.channels)) {
      // A glob here is a schema error (a default cluster is one exact name).
      if (isRecord(channel) && typeof channel.defaultCluster === 'string' && !isGlob(channel.defaultCluster)) {
        check(channel.defaultCluster, ['channels', id, 'defaultCluster']);
      }
    }
  }
  return problems;
}
