// Builders of the simulated operator's custom resources as tests create them: FlinkDeployment, session cluster and
// job, FlinkStateSnapshot (the rig that runs them, waits and recorders are in ./sim.ts).
import { JOB_GRAPH_ANNOTATION } from '../../src/kube/job-graph.js';
import type { KubeObject } from '../../src/kube/store.js';

export const API = 'flink.apache.org/v1beta1';
/** Specs as tests read and edit them: nested fields are indexed freely (the CRD schema is checked elsewhere). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Loose = Record<string, any>;

export interface DeploymentOptions {
  upgradeMode?: 'savepoint' | 'last-state' | 'stateless';
  state?: 'running' | 'suspended';
  parallelism?: number;
  conf?: Record<string, unknown>;
  annotations?: Record<string, string>;
  ha?: boolean;
  replicas?: number;
  /** The simulated job's shape: sets the job-graph annotation (packages/sim/src/kube/job-graph.ts). */
  graph?: string;
  /** `spec.taskManager.resources` (requests/limits, read by operator 1.16), beside the deprecated `resource`. */
  taskManagerResources?: Record<string, unknown>;
}

function metadataOf(name: string, namespace: string, options: DeploymentOptions): KubeObject['metadata'] {
  const annotations = {
    ...options.annotations,
    ...(options.graph !== undefined ? { [JOB_GRAPH_ANNOTATION]: options.graph } : {}),
  };
  return { name, namespace, ...(Object.keys(annotations).length > 0 ? { annotations } : {}) };
}

/** A FlinkDeployment like the demo's: savepoint and checkpoint dirs on s3, HA unless `ha: false`. */
export function deployment(name: string, namespace: string, options: DeploymentOptions = {}): KubeObject {
  const conf: Record<string, unknown> = {
    'taskmanager.numberOfTaskSlots': '2',
    'state.savepoints.dir': `s3://flink-state/${namespace}/${name}/savepoints`,
    'state.checkpoints.dir': `s3://flink-state/${namespace}/${name}/checkpoints`,
    ...(options.ha === false
      ? {}
      : {
          'high-availability.type': 'kubernetes',
          'high-availability.storageDir': `s3://flink-state/${namespace}/${name}/ha`,
        }),
    ...options.conf,
  };
  return {
    apiVersion: API,
    kind: 'FlinkDeployment',
    metadata: metadataOf(name, namespace, options),
    spec: {
      image: 'flink:1.20',
      flinkVersion: 'v1_20',
      serviceAccount: 'flink',
      flinkConfiguration: conf,
      jobManager: { resource: { memory: '2048m', cpu: 1 } },
      taskManager: {
        resource: { memory: '2048m', cpu: 1 },
        ...(options.taskManagerResources ? { resources: options.taskManagerResources } : {}),
        ...(options.replicas !== undefined ? { replicas: options.replicas } : {}),
      },
      job: {
        jarURI: 'local:///opt/flink/examples/streaming/StateMachineExample.jar',
        parallelism: options.parallelism ?? 2,
        upgradeMode: options.upgradeMode ?? 'savepoint',
        state: options.state ?? 'running',
      },
    },
  };
}

export function sessionCluster(
  name: string,
  namespace: string,
  options: Pick<DeploymentOptions, 'ha'> = {},
): KubeObject {
  const base = deployment(name, namespace, options);
  const spec = structuredClone(base.spec ?? {});
  delete spec.job;
  return { ...base, spec };
}

export function sessionJob(
  name: string,
  namespace: string,
  deploymentName: string,
  options: DeploymentOptions = {},
): KubeObject {
  return {
    apiVersion: API,
    kind: 'FlinkSessionJob',
    metadata: metadataOf(name, namespace, options),
    spec: {
      deploymentName,
      ...(options.conf ? { flinkConfiguration: options.conf } : {}),
      job: {
        jarURI: 'https://repo.example.com/jobs/etl-1.4.2.jar',
        parallelism: options.parallelism ?? 2,
        upgradeMode: options.upgradeMode ?? 'savepoint',
        state: options.state ?? 'running',
      },
    },
  };
}

export function snapshot(
  name: string,
  namespace: string,
  target: string,
  options: { kind?: string; backoffLimit?: number; path?: string; checkpoint?: boolean } = {},
): KubeObject {
  return {
    apiVersion: API,
    kind: 'FlinkStateSnapshot',
    metadata: { name, namespace },
    spec: {
      jobReference: { kind: options.kind ?? 'FlinkDeployment', name: target },
      ...(options.backoffLimit !== undefined ? { backoffLimit: options.backoffLimit } : {}),
      ...(options.checkpoint
        ? { checkpoint: {} }
        : { savepoint: { disposeOnDelete: false, ...(options.path ? { path: options.path } : {}) } }),
    },
  };
}
