// FlinkBlueGreenDeployment parents and their `<name>-blue` child FlinkDeployment, as the operator's Blue/Green
// controller creates them. The parent is served and stored; its own state machine (switching to green, rewriting
// a changed child from its template) is not modelled: the child is reconciled like any FlinkDeployment.
import { FLINK_API_VERSION } from './resources.js';
import type { KubeObject, SimStore } from './store.js';

/**
 * The child's ownerReference (BlueGreenKubernetesService.getDependentObjectMeta). The operator builds it with
 * fabric8's positional constructor (apiVersion, blockOwnerDeletion, controller, kind, name, uid) passing
 * `true, false`: blockOwnerDeletion is set, controller is not.
 */
export function blueGreenOwnerReference(parent: KubeObject): Record<string, unknown> {
  return {
    apiVersion: parent.apiVersion ?? FLINK_API_VERSION,
    blockOwnerDeletion: true,
    controller: false,
    kind: 'FlinkBlueGreenDeployment',
    name: parent.metadata.name,
    uid: parent.metadata.uid,
  };
}

/** Creates a parent whose template is `deploymentSpec`, then its blue child carrying that spec and the ownerReference. */
export function createBlueGreenPair(
  store: SimStore,
  namespace: string,
  name: string,
  deploymentSpec: Record<string, unknown>,
): { parent: KubeObject; child: KubeObject } {
  const parent = store.create('flinkbluegreendeployments', {
    apiVersion: FLINK_API_VERSION,
    kind: 'FlinkBlueGreenDeployment',
    metadata: { name, namespace },
    spec: { template: { spec: structuredClone(deploymentSpec) } },
  });
  const child = store.create('flinkdeployments', {
    apiVersion: FLINK_API_VERSION,
    kind: 'FlinkDeployment',
    metadata: { name: `${name}-blue`, namespace, ownerReferences: [blueGreenOwnerReference(parent)] },
    spec: structuredClone(deploymentSpec),
  });
  return { parent, child };
}

/** The sandbox demo's Blue/Green pair: streaming-dev/checkout-bg and its running child checkout-bg-blue. */
export function seedDemoBlueGreen(store: SimStore): void {
  const base = 's3://flink-state/streaming-dev/checkout-bg';
  createBlueGreenPair(store, 'streaming-dev', 'checkout-bg', {
    image: 'flink:1.20',
    flinkVersion: 'v1_20',
    serviceAccount: 'flink',
    flinkConfiguration: {
      'taskmanager.numberOfTaskSlots': '2',
      'state.savepoints.dir': `${base}/savepoints`,
      'state.checkpoints.dir': `${base}/checkpoints`,
      'execution.checkpointing.interval': '30s',
      'high-availability.type': 'kubernetes',
      'high-availability.storageDir': `${base}/ha`,
    },
    jobManager: { resource: { memory: '2048m', cpu: 1 } },
    taskManager: { resource: { memory: '2048m', cpu: 1 } },
    job: {
      jarURI: 'local:///opt/flink/examples/streaming/StateMachineExample.jar',
      parallelism: 2,
      upgradeMode: 'savepoint',
      state: 'running',
    },
  });
}
