// Which `alerts:` entry watches a job, with its defaults filled (docs/policy.md#job-alerts), which namespaces a
// cluster's worker has to watch for them, and check-policy's words for the list.
import { DEFAULT_ALERT_CHECKPOINT_FAILURES, DEFAULT_ALERT_RESTARTS, type AlertEntry } from '../../kit/policy/alerts.js';
import { durationMs } from '../../kit/policy/duration-schema.js';
import { clustersMatch, globsOverlap, isGlob, matchesAny, matchesGlob } from '../../kit/policy/glob.js';
import type { Target } from '../../model/target.js';
import type { Policy } from './schema.js';

/** An entry as it applies to one job: thresholds resolved. */
export interface AlertRule {
  name: string;
  channel: string;
  mention?: string;
  restarts: { count: number; window: string; windowMs: number };
  checkpoints: { failures: number };
}

type AlertsPolicy = Pick<Policy, 'alerts'>;

/** Whether `entry` watches `target` in `cluster`: its clusters admit it, and its namespaces or targets name it. */
export function alertEntryMatches(entry: AlertEntry, cluster: string | undefined, target: Target): boolean {
  if (entry.namespaces === undefined && entry.targets === undefined && entry.clusters === undefined) return false;
  if (!clustersMatch(entry.clusters, cluster)) return false;
  if (entry.namespaces === undefined && entry.targets === undefined) return true;
  if (entry.namespaces !== undefined && matchesAny(entry.namespaces, target.namespace)) return true;
  return (entry.targets ?? []).some((pattern) => {
    const [namespace = '', name = ''] = pattern.split('/');
    return matchesGlob(namespace, target.namespace) && matchesGlob(name, target.name);
  });
}

/** The first entry watching `target` in `cluster`, defaults filled; undefined: the job raises no alerts. */
export function alertRuleFor(policy: AlertsPolicy, cluster: string | undefined, target: Target): AlertRule | undefined {
  const entry = (policy.alerts ?? []).find((e) => alertEntryMatches(e, cluster, target));
  return entry === undefined ? undefined : resolved(entry);
}

function resolved(entry: AlertEntry): AlertRule {
  const window = entry.restarts?.window ?? DEFAULT_ALERT_RESTARTS.window;
  return {
    name: entry.name,
    channel: entry.channel,
    ...(entry.mention === undefined ? {} : { mention: entry.mention }),
    restarts: { count: entry.restarts?.count ?? DEFAULT_ALERT_RESTARTS.count, window, windowMs: durationMs(window) },
    checkpoints: { failures: entry.checkpoints?.failures ?? DEFAULT_ALERT_CHECKPOINT_FAILURES },
  };
}

/**
 * The namespaces a cluster's worker watches for alerts: the exact namespaces the policy manages there (and exact ones
 * an entry names inside a managed glob) that some entry for the cluster may match. A managed glob itself cannot be
 * listed, so a job in it is watched only when an entry names its namespace exactly.
 */
export function alertNamespaces(policy: Pick<Policy, 'alerts' | 'namespaces'>, cluster: string | undefined): string[] {
  const entries = (policy.alerts ?? []).filter((e) => clustersMatch(e.clusters, cluster));
  if (entries.length === 0) return [];
  const managed = policy.namespaces.filter((n) => clustersMatch(n.clusters, cluster)).map((n) => n.name);
  const isManaged = (ns: string) => managed.some((pattern) => matchesGlob(pattern, ns));
  const named = entries.flatMap((e) => [
    ...(e.namespaces ?? []),
    ...(e.targets ?? []).map((t) => t.split('/')[0] ?? ''),
  ]);
  const candidates = new Set([...managed, ...named].filter((ns) => !isGlob(ns) && isManaged(ns)));
  const mayMatch = (ns: string) =>
    entries.some(
      (e) =>
        (e.namespaces === undefined && e.targets === undefined) ||
        matchesAny(e.namespaces ?? [], ns) ||
        (e.targets ?? []).some((t) => matchesGlob(t.split('/')[0] ?? '', ns)),
    );
  return [...candidates].filter(mayMatch).sort();
}

/** check-policy's lines: one per entry, what it watches, where it posts and its thresholds. */
export function describeAlerts(policy: Pick<Policy, 'alerts' | 'namespaces'>): string[] {
  const entries = policy.alerts ?? [];
  if (entries.length === 0) return ['Job alerts: none (no `alerts:` entries; no job is watched on its own).'];
  const lines = ['Job alerts (the first entry that matches a job decides):'];
  for (const entry of entries) {
    const rule = resolved(entry);
    const what = [
      entry.namespaces === undefined ? undefined : `namespaces ${entry.namespaces.join(', ')}`,
      entry.targets === undefined ? undefined : `targets ${entry.targets.join(', ')}`,
    ].filter((w): w is string => w !== undefined);
    const where = entry.clusters === undefined ? '' : ` in clusters ${entry.clusters.join(', ')}`;
    const mention = rule.mention === undefined ? '' : `, mentioning ${rule.mention}`;
    lines.push(
      `  - ${entry.name}: ${what.length === 0 ? 'every managed namespace' : what.join(' and ')}${where} → ${rule.channel}${mention}; ` +
        `restarting at ${rule.restarts.count} restarts in ${rule.restarts.window}, checkpoints failing at ${rule.checkpoints.failures} in a row`,
    );
    const unmanaged = (entry.namespaces ?? []).filter((ns) => !policy.namespaces.some((n) => globsOverlap(n.name, ns)));
    if (unmanaged.length > 0)
      lines.push(`    (${unmanaged.join(', ')}: no managed namespace matches; nothing there is watched)`);
  }
  return lines;
}
