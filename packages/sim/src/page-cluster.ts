// The page's cluster panel: one row per simulated FlinkDeployment/FlinkSessionJob of each simulated cluster, and the
// knob board of each cluster (page-knobs.ts: a knob acts on one cluster's operator or API server).
import type { SimCluster } from './kube/cluster.js';
import type { ActiveController, GitOpsKind } from './kube/gitops/gitops.js';
import type { KubeObject } from './kube/store.js';
import { KnobBoard, type Knob } from './page-knobs.js';

export {
  isKnob,
  KnobBoard,
  KNOB_NAMES,
  KNOBS,
  RECOVERING_KNOBS,
  SLOW_RECONCILE_SECONDS,
  type Knob,
} from './page-knobs.js';

export interface ClusterRow {
  /** The cluster's name (its kubeconfig context) when the page shows several clusters. */
  cluster?: string;
  kind: 'FlinkDeployment' | 'FlinkSessionJob';
  namespace: string;
  name: string;
  generation?: number;
  observedGeneration?: number;
  lifecycleState?: string;
  jobState?: string;
  desiredState?: string;
  reconciliationState?: string;
  jobManager?: string;
  image?: string;
  /** Session jobs: the session cluster they run on. */
  sessionCluster?: string;
  parallelism?: number;
  upgradeMode?: string;
  lastSavepoint?: { location: string; at?: number };
  error?: string;
  knobs: Knob[];
  /** The simulated GitOps controller managing the resource, if any (docs/sandbox.md#gitops-switches). */
  gitops?: { controller: ActiveController; label: string; application: string };
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** The newest COMPLETED snapshot of the target, else the operator's last savepoint (docs/lifecycle.md#savepoints). */
function lastSavepoint(target: KubeObject, snapshots: KubeObject[]): ClusterRow['lastSavepoint'] {
  const mine = snapshots
    .filter((s) => s.metadata.namespace === target.metadata.namespace)
    .filter(
      (s) =>
        str(obj(s.spec?.jobReference).name) === target.metadata.name &&
        str(obj(s.spec?.jobReference).kind) === target.kind,
    )
    .filter((s) => s.status?.state === 'COMPLETED' && str(s.status.path) !== undefined)
    .map((s) => ({ location: String(s.status?.path), at: Date.parse(String(s.status?.resultTimestamp ?? '')) }))
    .sort((a, b) => (b.at || 0) - (a.at || 0));
  if (mine[0]) return Number.isFinite(mine[0].at) ? mine[0] : { location: mine[0].location };
  const last = obj(obj(obj(target.status?.jobStatus).savepointInfo).lastSavepoint);
  const location = str(last.location);
  if (location === undefined) return undefined;
  const at = num(last.timeStamp);
  return at === undefined ? { location } : { location, at };
}

type Gitops = Partial<Pick<SimCluster, 'gitops'>>;

function gitopsOf(cluster: Gitops, object: KubeObject): ClusterRow['gitops'] {
  const { namespace, name } = object.metadata;
  const view = cluster.gitops?.get({ kind: object.kind as GitOpsKind, namespace, name });
  return view && { controller: view.controller, label: view.label, application: view.application };
}

function row(object: KubeObject, snapshots: KubeObject[], knobs: Knob[], gitops: ClusterRow['gitops']): ClusterRow {
  const spec = obj(object.spec);
  const status = obj(object.status);
  const job = obj(spec.job);
  const sessionJob = object.kind === 'FlinkSessionJob';
  const savepoint = lastSavepoint(object, snapshots);
  const fields: Partial<ClusterRow> = {
    generation: num(object.metadata.generation),
    observedGeneration: num(status.observedGeneration),
    lifecycleState: str(status.lifecycleState),
    jobState: str(obj(status.jobStatus).state),
    desiredState: str(job.state),
    reconciliationState: str(obj(status.reconciliationStatus).state),
    jobManager: sessionJob ? undefined : str(status.jobManagerDeploymentStatus),
    image: sessionJob ? undefined : str(spec.image),
    sessionCluster: sessionJob ? str(spec.deploymentName) : undefined,
    parallelism: num(job.parallelism),
    upgradeMode: str(job.upgradeMode),
    lastSavepoint: savepoint,
    error: str(status.error),
  };
  const defined = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
  return {
    kind: sessionJob ? 'FlinkSessionJob' : 'FlinkDeployment',
    namespace: object.metadata.namespace,
    name: object.metadata.name,
    ...defined,
    knobs,
    ...(gitops ? { gitops } : {}),
  };
}

/** Every deployment and session job, by namespace then name; each row names `clusterName` when given. */
export function clusterRows(
  cluster: Pick<SimCluster, 'store'> & Gitops,
  knobs: KnobBoard,
  clusterName?: string,
): ClusterRow[] {
  const { store } = cluster;
  const snapshots = store.list('flinkstatesnapshots');
  const objects = [...store.list('flinkdeployments'), ...store.list('flinksessionjobs')];
  return objects
    .map((o) => row(o, snapshots, knobs.active(o.metadata.namespace, o.metadata.name), gitopsOf(cluster, o)))
    .sort(
      (a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name) || a.kind.localeCompare(b.kind),
    )
    .map((r) => (clusterName === undefined ? r : { cluster: clusterName, ...r }));
}

/** One simulated cluster on the page: its name (undefined on a single-cluster page), the simulators, its knobs. */
export interface PanelCluster {
  name?: string;
  /** With `versions`: the operator and CRD releases the page names beside the cluster (docs/sandbox.md#operator-releases). */
  cluster: Pick<SimCluster, 'store' | 'operator' | 'server' | 'gitops'> & Partial<Pick<SimCluster, 'versions'>>;
  knobs: KnobBoard;
}

/** The panel of several named clusters, each with a knob board of its own, in the order given. */
export function panelClusters(
  clusters: readonly { name: string; cluster: PanelCluster['cluster'] }[],
  laterFloor = 0,
): PanelCluster[] {
  return clusters.map(({ name, cluster }) => ({ name, cluster, knobs: new KnobBoard(cluster, laterFloor) }));
}

/** The operator and CRD release of each named cluster that says which it runs. */
export function panelReleases(panel: readonly PanelCluster[]): Record<string, { operator: string; crd: string }> {
  return Object.fromEntries(
    panel.flatMap(({ name, cluster }) =>
      name === undefined || cluster.versions === undefined ? [] : [[name, { ...cluster.versions }]],
    ),
  );
}

/** Every cluster's rows, cluster by cluster in the panel's order. */
export function panelRows(panel: readonly PanelCluster[]): ClusterRow[] {
  return panel.flatMap((c) => clusterRows(c.cluster, c.knobs, c.name));
}

/**
 * The cluster a page request acts on: the named one; with a single cluster also none named. Several clusters and
 * no name, or an unknown name, is a mistake of the caller, answered with the names to choose from.
 */
export function pickCluster(
  panel: readonly PanelCluster[],
  name: string | undefined,
): PanelCluster | { error: string } {
  const names = panel.flatMap((c) => (c.name === undefined ? [] : [c.name]));
  if (name === undefined) {
    if (panel.length === 1) return panel[0] as PanelCluster;
    return { error: `"cluster" must name one of the simulated clusters: ${names.join(', ')}` };
  }
  const found = panel.find((c) => c.name === name);
  return (
    found ?? {
      error: `no simulated cluster "${name}"; the sandbox has ${names.length > 0 ? names.join(', ') : 'one unnamed cluster'}`,
    }
  );
}
