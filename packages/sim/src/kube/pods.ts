// The Pods of the simulated Flink clusters, as the operator's native-Kubernetes deployments create them: one JobManager
// pod `<name>-<10-char hash>-<5-char>` while the JobManager Deployment exists, and TaskManagers
// `<name>-taskmanager-1-<n>` once it is READY; a suspend removes them, a redeploy replaces them. Read-only through the
// API server (list, get, and the `log` subresource: pod-logs.ts). Kept beside the store, not in it: pods are derived
// from the FlinkDeployments, and must not move the store's resourceVersions.
import { randomUUID } from 'node:crypto';
import { parseLabelSelector, matchesLabels } from './selectors.js';
import { errors } from './status.js';
import { ApiError, clone, rfc3339, type KubeObject, type SimStore, type StoreChange } from './store.js';
import { parseReconciledSpec, specConf, taskManagerReplicas, type Spec } from './spec-json.js';
import { effectiveResources } from './resource-requirements.js';

/** The container the operator's pod templates run Flink in. */
export const FLINK_MAIN_CONTAINER = 'flink-main-container';
export const POD_ROLES = ['jobmanager', 'taskmanager'] as const;
export type PodRole = (typeof POD_ROLES)[number];

/** One simulated pod: its JSON as the API server lists it, and what its log is made from. */
export interface SimPod {
  object: KubeObject;
  role: PodRole;
  /** TaskManagers: n of `<name>-taskmanager-1-<n>`. */
  index?: number;
  /** The FlinkDeployment the pod belongs to. */
  owner: { namespace: string; name: string; uid: string };
  /** ms (the cluster's clock) when the container started. */
  startedAt: number;
  /** Set while the container cannot start (the JobManager's image does not pull). */
  waiting?: { reason: string; message: string };
}

/** How discovery lists the pods: read-only, with the `log` subresource. */
export const PODS = {
  plural: 'pods',
  singular: 'pod',
  kind: 'Pod',
  shortNames: ['po'],
  verbs: ['get', 'list'],
  subresources: [{ name: 'log', verbs: ['get'] }],
} as const;

/** JobManager deployment states in which the JobManager pod exists. */
const JM_PRESENT = new Set(['DEPLOYING', 'DEPLOYED_NOT_READY', 'READY', 'ERROR']);
/** The characters Kubernetes' name generator and ReplicaSet hashes use (no vowels, no look-alikes). */
const ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';

type Raw = Record<string, unknown>;
const rec = (v: unknown): Raw => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Raw) : {});

interface Cluster {
  jm: SimPod;
  tms: SimPod[];
  /** The JobManager deployment status the pods were last synced with. */
  lastState: string;
}

export class SimPods {
  private readonly clusters = new Map<string, Cluster>();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly store: SimStore,
    private readonly random: () => number = Math.random,
  ) {
    for (const object of store.list('flinkdeployments')) this.sync(object, false);
    this.unsubscribe = store.subscribe((change) => this.onChange(change));
  }

  /** The pods of a namespace matching a label selector, oldest first; a bad selector is 400 as kube answers it. */
  list(namespace: string | undefined, labelSelector = ''): KubeObject[] {
    const parsed = parseLabelSelector(labelSelector);
    if (!parsed.ok) throw errors.badRequest(parsed.message);
    return this.all()
      .filter((p) => namespace === undefined || p.owner.namespace === namespace)
      .filter((p) => matchesLabels(parsed.value, p.object.metadata.labels))
      .map((p) => clone(p.object));
  }

  /** One pod, or 404 as kube answers for a missing one. */
  pod(namespace: string, name: string): SimPod {
    const found = this.all().find((p) => p.owner.namespace === namespace && p.object.metadata.name === name);
    if (!found) throw new ApiError(404, 'NotFound', `pods "${name}" not found`, { name, kind: 'pods' });
    return found;
  }

  close(): void {
    this.unsubscribe();
  }

  private all(): SimPod[] {
    return [...this.clusters.values()].flatMap((c) => [c.jm, ...c.tms]);
  }

  private onChange(change: StoreChange): void {
    if (change.resource !== 'flinkdeployments') return;
    if (change.type === 'DELETED') this.clusters.delete(keyOf(change.object));
    else this.sync(change.object, true);
  }

  /** Brings the deployment's pods in line with its status; `live`: the change happens now (else found at start). */
  private sync(object: KubeObject, live: boolean): void {
    const key = keyOf(object);
    const status = rec(object.status);
    const state = String(status.jobManagerDeploymentStatus ?? 'MISSING');
    const current = this.clusters.get(key);
    // A suspended deployment's cluster is shut down, whatever JobManager state the stop left recorded.
    if (!JM_PRESENT.has(state) || status.lifecycleState === 'SUSPENDED') {
      this.clusters.delete(key);
      return;
    }
    // A JobManager Deployment created again (DEPLOYING after anything else) is a redeploy: new pods throughout.
    const redeployed = current !== undefined && live && state === 'DEPLOYING' && current.lastState !== 'DEPLOYING';
    const cluster = current && !redeployed ? current : { jm: this.jobManager(object), tms: [], lastState: state };
    cluster.lastState = state;
    cluster.jm.waiting =
      state === 'ERROR' && status.error !== undefined && String(status.error).includes('Failed to pull image')
        ? { reason: 'ImagePullBackOff', message: 'trying and failing to pull image' }
        : undefined;
    if (cluster.jm.waiting === undefined) delete cluster.jm.waiting;
    setPhase(cluster.jm);
    const wanted = state === 'READY' ? replicasOf(object) : 0;
    cluster.tms = cluster.tms.filter((tm) => (tm.index ?? 0) <= wanted);
    for (let n = cluster.tms.length + 1; n <= wanted; n++) cluster.tms.push(this.taskManager(object, n));
    this.clusters.set(key, cluster);
  }

  private jobManager(object: KubeObject): SimPod {
    const hash = this.chars(10);
    const name = `${object.metadata.name}-${hash}-${this.chars(5)}`;
    return this.makePod(object, name, 'jobmanager', undefined, { 'pod-template-hash': hash });
  }

  private taskManager(object: KubeObject, n: number): SimPod {
    return this.makePod(object, `${object.metadata.name}-taskmanager-1-${n}`, 'taskmanager', n, {});
  }

  private makePod(
    object: KubeObject,
    name: string,
    role: PodRole,
    index: number | undefined,
    extraLabels: Record<string, string>,
  ): SimPod {
    const now = this.store.now();
    const { namespace, uid = '' } = object.metadata;
    const image = String(rec(object.spec).image ?? 'flink:1.20');
    const labels = { app: object.metadata.name, component: role, type: 'flink-native-kubernetes', ...extraLabels };
    const podJson: KubeObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        namespace,
        uid: randomUUID(),
        resourceVersion: this.store.resourceVersion,
        creationTimestamp: rfc3339(now),
        labels,
      },
      spec: {
        containers: [{ name: FLINK_MAIN_CONTAINER, image, resources: containerResources(object, role) }],
        serviceAccountName: String(rec(object.spec).serviceAccount ?? 'flink'),
        restartPolicy: role === 'jobmanager' ? 'Always' : 'Never',
      },
      status: {},
    };
    const pod: SimPod = {
      object: podJson,
      role,
      owner: { namespace, name: object.metadata.name, uid },
      startedAt: +now,
    };
    if (index !== undefined) pod.index = index;
    setPhase(pod);
    return pod;
  }

  private chars(n: number): string {
    let out = '';
    for (let i = 0; i < n; i++) out += ALPHANUMS[Math.floor(this.random() * ALPHANUMS.length)] ?? 'b';
    return out;
  }
}

/** Running with a ready container, or Pending with it waiting (as `kubectl get pods` shows ImagePullBackOff). */
function setPhase(pod: SimPod): void {
  const image = String(rec((pod.object.spec?.containers as unknown[] | undefined)?.[0]).image ?? '');
  const started = new Date(pod.startedAt).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const state = pod.waiting
    ? { waiting: { reason: pod.waiting.reason, message: pod.waiting.message } }
    : { running: { startedAt: started } };
  pod.object.status = {
    phase: pod.waiting ? 'Pending' : 'Running',
    startTime: started,
    containerStatuses: [
      { name: FLINK_MAIN_CONTAINER, image, ready: !pod.waiting, restartCount: 0, started: !pod.waiting, state },
    ],
  };
}

/** TaskManagers of the deployed spec: `status.taskManager.replicas`, else ceil(parallelism / task slots). */
function replicasOf(object: KubeObject): number {
  const replicas = rec(rec(object.status).taskManager).replicas;
  if (typeof replicas === 'number' && replicas >= 0) return replicas;
  return taskManagerReplicas((object.spec ?? {}) as Spec);
}

function keyOf(object: KubeObject): string {
  return `${object.metadata.namespace}/${object.metadata.name}`;
}

const MIB = 1024 ** 2;

/**
 * What Flink's decorators give the main container (KubernetesUtils.getResourceRequirements), from the spec the
 * operator deployed: memory `<process size>Mi` requested and × the limit factor as the limit, cpu likewise. The
 * deployed spec is the operator release's model (a 1.15 one has no `resources`).
 */
function containerResources(object: KubeObject, role: PodRole): Raw {
  const status = rec(object.status);
  const deployed = parseReconciledSpec(rec(status.reconciliationStatus).lastReconciledSpec) ?? object.spec ?? {};
  const r = effectiveResources(deployed, role === 'jobmanager' ? 'jobManager' : 'taskManager', specConf(deployed));
  const mib = Math.floor(r.memoryBytes / MIB);
  return {
    requests: { cpu: String(r.cpu), memory: `${mib}Mi` },
    limits: { cpu: String(r.cpu * r.cpuLimitFactor), memory: `${Math.round(mib * r.memoryLimitFactor)}Mi` },
  };
}
