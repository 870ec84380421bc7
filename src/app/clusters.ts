// Which cluster a typed target is in (docs/policy.md#several-clusters): its own `cluster/…`, else the channel's
// `defaultCluster`, else the one cluster that manages its namespace; ambiguous and unknown clusters are refused with
// the names.
import type { OperationIntent } from '../domain/kinds/index.js';
import type { ParseResult } from '../domain/engines/language/requests.js';
import { formatTarget, type Checked, type Target } from '../domain/model/target.js';
import { channelDefaultCluster, managedClusters } from '../domain/engines/policy/clusters.js';
import { unmanagedMessage } from '../domain/engines/policy/evaluate.js';
import type { Policy } from '../domain/engines/policy/schema.js';
import { joinWords } from '../domain/kit/policy/schedule.js';

export interface PlaceContext {
  /** The installation's clusters (KUBE_CONTEXTS, or the one CLUSTER_NAME). */
  clusters: readonly string[];
  /** The policy in force; undefined when there is none (every namespace counts as managed everywhere). */
  policy: Policy | undefined;
  channel: string;
}

/**
 * The target with its cluster decided. One cluster: targets carry none (`one/ns/name` is accepted and dropped),
 * so single-cluster cards, answers and keys are unchanged. Several: every target carries its cluster.
 */
export function placeTarget(target: Target, ctx: PlaceContext): Checked<Target> {
  const { clusters } = ctx;
  const { cluster, ...rest } = target;
  if (clusters.length === 1) {
    if (cluster === undefined || cluster === clusters[0]) return { ok: true, value: rest };
    return {
      ok: false,
      message: `unknown cluster "${cluster}": this installation has one cluster, ${clusters[0]}; write ${formatTarget(rest)}`,
    };
  }
  if (cluster !== undefined) {
    if (clusters.includes(cluster)) return { ok: true, value: target };
    return {
      ok: false,
      message: `unknown cluster "${cluster}" (the clusters are ${joinWords([...clusters])}); write ${clusters.map((c) => formatTarget({ ...rest, cluster: c })).join(' or ')}`,
    };
  }
  const byDefault = ctx.policy ? channelDefaultCluster(ctx.policy, ctx.channel) : undefined;
  if (byDefault !== undefined && clusters.includes(byDefault))
    return { ok: true, value: { ...rest, cluster: byDefault } };
  const managed = ctx.policy ? managedClusters(ctx.policy, target.namespace, clusters) : [...clusters];
  if (managed.length === 1) return { ok: true, value: { ...rest, cluster: managed[0] as string } };
  if (managed.length === 0) return { ok: false, message: unmanagedMessage(ctx.policy as Policy, target.namespace) };
  const choices = managed.map((c) => `\`${formatTarget({ ...rest, cluster: c })}\``);
  return {
    ok: false,
    message: `${formatTarget(rest)} is ambiguous: namespace ${target.namespace} is managed in clusters ${joinWords(managed)}; write ${choices.join(' or ')}`,
  };
}

/** Every target in a parse result placed in its cluster; the first that cannot be placed turns it into a reply. */
export function placeParsed(parsed: ParseResult, ctx: PlaceContext): ParseResult {
  const place = <T extends { target: Target }>(value: T): { ok: true; value: T } | { ok: false; message: string } => {
    const placed = placeTarget(value.target, ctx);
    return placed.ok ? { ok: true, value: { ...value, target: placed.value } } : placed;
  };
  const reply = (message: string): ParseResult => ({ type: 'reply', message });
  switch (parsed.type) {
    case 'intent': {
      if (!('target' in parsed.intent)) return parsed;
      const placed = place(parsed.intent as OperationIntent & { target: Target });
      return placed.ok ? { type: 'intent', intent: placed.value } : reply(placed.message);
    }
    case 'query': {
      const query = parsed.query;
      if (query.kind === 'explain') {
        if (!('target' in query.intent)) return parsed;
        const placed = place(query.intent as OperationIntent & { target: Target });
        return placed.ok ? { type: 'query', query: { ...query, intent: placed.value } } : reply(placed.message);
      }
      if (!('target' in query) || query.target === undefined) return parsed;
      const placed = place(query as typeof query & { target: Target });
      return placed.ok ? { type: 'query', query: placed.value } : reply(placed.message);
    }
    case 'command': {
      if (!('target' in parsed.command)) return parsed;
      const placed = place(parsed.command);
      return placed.ok ? { type: 'command', command: placed.value } : reply(placed.message);
    }
    case 'reply':
      return parsed;
  }
}
