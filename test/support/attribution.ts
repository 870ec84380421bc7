// Attribution (docs/policy.md#gitops-managed-targets): every write the bot and the worker made to a simulated cluster
// named its field manager, so managedFields list only flink-chatops and the simulated GitOps controllers.
import { expect } from 'vitest';
import { CONTROLLER_MANAGERS } from '@flink-chatops/sim';
import type { SimCluster } from '@flink-chatops/sim/kube/cluster';

const KNOWN = new Set(['flink-chatops', ...Object.values(CONTROLLER_MANAGERS).map((c) => c.manager)]);

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
