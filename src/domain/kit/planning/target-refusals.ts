// Refusals before planning that depend on what the target is, not on the kind's engine: a Blue/Green child, a
// session job its cluster lost, vertices the autoscaler holds. Kind modules call the last two from `refuseBefore`.
import { autoscalerOverrides } from '../../model/autoscaler.js';
import { getPath, isRecord } from '../../model/merge-patch.js';
import { lastSavepoint, statusErrorOf, upgradeSavepointPathOf } from '../../model/resource.js';
import { LAST_STATE_PLACEHOLDER } from '../../model/snapshot-history.js';
import { formatTarget, type Target } from '../../model/target.js';
import type { PreflightInput } from './edits.js';

/** What the operator writes into `status.error` of a job its session cluster no longer knows. */
export const JOB_NOT_FOUND = 'Job Not Found';

/**
 * A FlinkBlueGreenDeployment owns the target: its next reconcile rewrites the child from its template. The operator
 * writes that ownerReference with `controller: false` (and `blockOwnerDeletion: true`), so the kind decides, not the flag.
 */
export function blueGreenParent(target: Target, resource: unknown): string | undefined {
  const owners = getPath(resource, ['metadata', 'ownerReferences']);
  const parent = (Array.isArray(owners) ? owners : []).find(
    (o: unknown) =>
      isRecord(o) &&
      o.kind === 'FlinkBlueGreenDeployment' &&
      String(o.apiVersion ?? '').startsWith('flink.apache.org/') &&
      typeof o.name === 'string',
  ) as { name: string } | undefined;
  if (parent === undefined) return undefined;
  return `${formatTarget(target)} is managed by FlinkBlueGreenDeployment ${target.namespace}/${parent.name}: change the parent, not its blue/green child`;
}

/** A session job its cluster lost ("Job Not Found"): a restart of it never proceeds; `restore` brings it back. */
export function lostSessionJob({ intent, resource }: PreflightInput): string | undefined {
  if (intent.target.kind !== 'FlinkSessionJob' || !(statusErrorOf(resource) ?? '').includes(JOB_NOT_FOUND))
    return undefined;
  const shown = formatTarget(intent.target);
  const recorded = upgradeSavepointPathOf(resource);
  const from =
    recorded !== undefined && recorded !== LAST_STATE_PLACEHOLDER
      ? recorded
      : (lastSavepoint(intent.target, [], resource)?.location ?? '<savepoint>');
  return (
    `${shown} is no longer known to its session cluster (status.error: ${JOB_NOT_FOUND}): the operator never proceeds with a restart of it. ` +
    `Bring it back from its state with \`/flink restore ${shown} --from ${from}\``
  );
}

/** Vertex names from REST where known, else the first 8 characters of the vertex id. */
function vertexLabel(id: string, names: Record<string, string> | undefined): string {
  return names?.[id] ?? `vertex ${id.slice(0, 8)}`;
}

/** A manual parallelism changes no vertex the autoscaler has overridden (the caller skips it for `--reset-autoscaler`). */
export function autoscalerHolds({ intent, resource, vertexNames }: PreflightInput): string | undefined {
  const overrides = Object.entries(autoscalerOverrides(resource));
  if (overrides.length === 0) return undefined;
  const shown = formatTarget(intent.target);
  const listed = overrides.map(([id, p]) => `${vertexLabel(id, vertexNames)}: ${p}`).join(', ');
  return (
    `the autoscaler holds the parallelism of its vertices (${listed}); turn it off with ` +
    `\`/flink config set ${shown} job.autoscaler.enabled=false\`, or reset it with \`--reset-autoscaler\``
  );
}
