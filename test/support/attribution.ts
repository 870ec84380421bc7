// Attribution (docs/policy.md#gitops-managed-targets): every write the bot and the worker made to a simulated cluster
// named its field manager, so managedFields list only flink-chatops, the simulated GitOps controllers and a test's
// deliberate hand edit.
import { expect } from 'vitest';
import { CONTROLLER_MANAGERS } from '@flink-chatops/sim';
import type { SimCluster } from '@flink-chatops/sim/kube/cluster';

/** The manager a test's stand-in for a person editing by hand writes as (`kubectl edit`). */
export const HAND_EDIT_MANAGER = 'kubectl-edit';

const KNOWN = new Set([
  'flink-chatops',
  HAND_EDIT_MANAGER,
  ...Object.values(CONTROLLER_MANAGERS).map((c) => c.manager),
]);

/** Every managedFields manager on the cluster's Flink objects; an unknown one is a write without `fieldManager`. */
export function expectAttributedWrites(cluster: Pick<SimCluster, 'store'>): void {
  const managers = new Set<string>();
  for (const plural of ['flinkdeployments', 'flinksessionjobs', 'flinkstatesnapshots'] as const) {
    for (const object of cluster.store.list(plural)) {
      for (const entry of object.metadata.managedFields ?? []) managers.add(entry.manager);
    }
  }
  expect([...managers].filter((m) => !KNOWN.has(m))).toEqual([]);
}
