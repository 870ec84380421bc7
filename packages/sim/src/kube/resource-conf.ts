// Facts about a Flink resource the operator derives from its spec: kind, layered configuration, cluster info.
import { COMPONENTS, type Component } from './events.js';
import type { ResourceRef } from './flink-status.js';
import { effectiveResources } from './resource-requirements.js';
import { specConf, taskManagerReplicas, type FlinkConf, type Spec, type SpecKind } from './spec-json.js';
import type { KubeObject, SimStore } from './store.js';

export type JobKind = SpecKind;

export function kindOf(object: KubeObject): JobKind {
  return object.kind === 'FlinkSessionJob' ? 'FlinkSessionJob' : 'FlinkDeployment';
}

export function refOf(object: KubeObject): ResourceRef {
  return {
    resource: kindOf(object) === 'FlinkSessionJob' ? 'flinksessionjobs' : 'flinkdeployments',
    namespace: object.metadata.namespace,
    name: object.metadata.name,
  };
}

/** The session cluster a FlinkSessionJob runs on (`spec.deploymentName`), if it exists. */
export function sessionClusterOf(store: SimStore, object: KubeObject): KubeObject | undefined {
  const name = object.spec?.deploymentName;
  return typeof name === 'string' ? store.get('flinkdeployments', object.metadata.namespace, name) : undefined;
}

/** The configuration the job runs with: a session job's own keys layered over its session cluster's. */
export function jobConf(store: SimStore, object: KubeObject): FlinkConf {
  if (kindOf(object) === 'FlinkDeployment') return specConf(object.spec);
  return { ...specConf(sessionClusterOf(store, object)?.spec), ...specConf(object.spec) };
}

/** The Submit event's component: the JobManager deployment for clusters, the job for session jobs. */
export function submitComponent(kind: JobKind): Component {
  return kind === 'FlinkSessionJob' ? COMPONENTS.job : COMPONENTS.jobManagerDeployment;
}

const FLINK_VERSIONS: Record<string, string> = {
  v1_13: '1.13.6',
  v1_14: '1.14.6',
  v1_15: '1.15.4',
  v1_16: '1.16.3',
  v1_17: '1.17.2',
  v1_18: '1.18.1',
  v1_19: '1.19.2',
  v1_20: '1.20.1',
  v2_0: '2.0.0',
  v2_1: '2.1.0',
  v2_2: '2.2.0',
};

const MIB = 1024 ** 2;

/**
 * status.clusterInfo as the observer fills it in once the REST API answers (FlinkUtils.calculateClusterCpuUsage and
 * calculateClusterMemoryUsage): per process × its limit factor × replicas, so with `resources` requests and limits
 * the totals are limit-based. Memory counts whole MiB, as Flink's cluster specification does.
 */
export function clusterInfo(spec: Spec): Record<string, string> {
  const conf = specConf(spec);
  const jm = effectiveResources(spec, 'jobManager', conf);
  const tm = effectiveResources(spec, 'taskManager', conf);
  const tms = spec.job ? taskManagerReplicas(spec) : 0;
  const jmReplicas = (spec.jobManager as { replicas?: number } | undefined)?.replicas ?? 1;
  const cpu = jm.cpu * jm.cpuLimitFactor * jmReplicas + tm.cpu * tm.cpuLimitFactor * tms;
  const mib = (bytes: number) => Math.floor(bytes / MIB) * MIB;
  const memory =
    Math.round(mib(jm.memoryBytes) * jm.memoryLimitFactor * jmReplicas) +
    Math.round(mib(tm.memoryBytes) * tm.memoryLimitFactor * tms);
  return {
    'flink-version': FLINK_VERSIONS[String(spec.flinkVersion)] ?? '1.20.1',
    'flink-revision': 'f1d0c5a @ 2025-02-10T11:27:28+01:00',
    'total-cpu': String(cpu),
    'total-memory': String(memory),
    'state-size': '0',
  };
}
