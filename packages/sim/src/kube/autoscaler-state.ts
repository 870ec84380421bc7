// Where the simulated autoscaler keeps its state: the `autoscaler-<name>` ConfigMap beside the FlinkDeployment.
import type { ResourceRef } from './flink-status.js';
import type { KubeObject, SimStore } from './store.js';

/** The data key the operator's Kubernetes state store writes the vertex overrides under (`id:p,id:p`). */
export const OVERRIDES_KEY = 'parallelismOverrides';

export function configMapName(resourceName: string): string {
  return `autoscaler-${resourceName}`;
}

/** The ConfigMap's data, or an empty object when it does not exist. */
export function readAutoscalerState(store: SimStore, ref: ResourceRef): Record<string, string> {
  const map = store.get('configmaps', ref.namespace, configMapName(ref.name));
  return { ...((map?.data as Record<string, string> | undefined) ?? {}) };
}

/** Writes the ConfigMap's data (created on first use, labelled and owned by the resource). Unchanged data writes nothing. */
export function writeAutoscalerState(store: SimStore, owner: KubeObject, data: Record<string, string>): void {
  const { namespace, name } = owner.metadata;
  const existing = store.get('configmaps', namespace, configMapName(name));
  if (existing) {
    if (JSON.stringify(existing.data ?? {}) === JSON.stringify(data)) return;
    store.update('configmaps', namespace, configMapName(name), (current) => ({ ...current, data: { ...data } }));
    return;
  }
  store.create('configmaps', {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: configMapName(name),
      namespace,
      labels: { component: 'autoscaler', app: name },
      ownerReferences: [{ apiVersion: owner.apiVersion, kind: owner.kind, name, uid: owner.metadata.uid }],
    },
    data: { ...data },
  });
}

/** clearAll + flush: the ConfigMap stays, its data goes (nothing is written when it is already empty or absent). */
export function clearAutoscalerState(store: SimStore, owner: KubeObject): void {
  const existing = store.get('configmaps', owner.metadata.namespace, configMapName(owner.metadata.name));
  if (existing && Object.keys((existing.data as object | undefined) ?? {}).length > 0)
    writeAutoscalerState(store, owner, {});
}

/** Kubernetes' garbage collector removes the owned ConfigMap once its FlinkDeployment is deleted. */
export function deleteAutoscalerState(store: SimStore, namespace: string, name: string): void {
  if (store.get('configmaps', namespace, configMapName(name)))
    store.delete('configmaps', namespace, configMapName(name));
}
