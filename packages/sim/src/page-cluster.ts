// The page's cluster panel: one row per simulated FlinkDeployment/FlinkSessionJob of each simulated cluster, and the
// failure knobs behind its buttons (one board per cluster: a knob acts on one cluster's operator or API server).
import type { SimCluster } from './kube/cluster.js';
import type { ActiveController, GitOpsKind } from './kube/gitops/gitops.js';
import type { ScenarioSpec } from './kube/scenarios.js';

/** How long the "image pull recovers" knob keeps the pull failing (operator time, scaled by --speed). */
const IMAGE_PULL_RECOVERY = '30s';
/** Task failovers the "task failovers" knob produces after each start of the job. */
const TASK_FAILOVERS = 3;
import type { KubeObject } from './kube/store.js';

/** The knobs the page offers: operator scenarios, plus one lost API response on the next patch of the target. */
export const KNOBS = {
  'image-pull-failure': 'image pulls fail for good (one ErrImagePull; the JobManager stays in ERROR)',
  'image-pull-recovers': `image pulls fail, then succeed after ${IMAGE_PULL_RECOVERY} of operator time (ERROR → READY)`,
  'savepoint-failure': 'savepoints fail (stop-with-savepoint and snapshots, on every attempt)',
  'stop-fails-once': 'stop-with-savepoint times out once; the next reconcile succeeds',
  'task-failovers': `task failovers: ${TASK_FAILOVERS} JobException warnings after each start of the job`,
  'upgrade-failed': 'redeploys fail with UpgradeFailed ("Manual restore required.") until turned off',
  'slow-reconcile': 'slow reconcile (20 s of operator time per upgrade)',
  'tasks-waiting': 'tasks wait for slots (Flink REST shows a vertex SCHEDULED; the operator still says RUNNING)',
  'checkpoints-failing': 'checkpoints fail (Flink REST counts them; the operator does not say)',
  'restored-elsewhere': 'the job restores from another path than the operator recorded (only Flink REST shows it)',
  'rest-unreachable': "the JobManager's REST service does not answer (503 through the proxy)",
  'bounded-source': 'a bounded bootstrap source in front of the job (Flink REST shows it FINISHED while the job runs)',
  'checkpointing-in-code':
    "checkpointing on in the job's code, every 10 s (Flink REST shows checkpoints; the configuration has no interval)",
  'autoscaler-on':
    "the operator's defaults switch the autoscaler on: after its first decision it holds every vertex's parallelism",
  'job-restarting':
    'the job keeps failing over (RESTARTING) until it is redeployed; a savepoint-mode restart then falls back to last-state',
  'savepoint-abandoned':
    'the job looks not running for a moment during a savepoint: the operator abandons it, Flink completes it',
  'lose-response': "lose the API server's answer to the next patch",
} as const;
export type Knob = keyof typeof KNOBS;
export const SLOW_RECONCILE_SECONDS = 20;

/** Page knobs that are simulated-operator scenarios, and the scenario each one sets. */
const SCENARIO_KNOBS = {
  'image-pull-failure': 'image-pull-failure',
  'image-pull-recovers': `image-pull-failure=${IMAGE_PULL_RECOVERY}`,
  'savepoint-failure': 'savepoint-failure',
  'stop-fails-once': 'savepoint-failure=once',
  'task-failovers': `job-exceptions=${TASK_FAILOVERS}`,
  'upgrade-failed': 'upgrade-failed',
  'slow-reconcile': 'slow-reconcile',
  'tasks-waiting': 'tasks-waiting',
  'checkpoints-failing': 'checkpoints-failing',
  'restored-elsewhere': 'restored-elsewhere',
  'rest-unreachable': 'rest-unreachable',
  'bounded-source': 'bounded-source',
  'checkpointing-in-code': 'checkpointing-in-code',
  'autoscaler-on': 'autoscaler-default-on',
  'job-restarting': 'job-restarting',
  'savepoint-abandoned': 'savepoint-abandoned',
} as const satisfies Partial<Record<Knob, ScenarioSpec>>;
type ScenarioKnob = keyof typeof SCENARIO_KNOBS;

/** Knobs that set the same scenario with different values: turning one on turns the other off. */
const EXCLUSIVE: readonly (readonly Knob[])[] = [
  ['image-pull-failure', 'image-pull-recovers'],
  ['savepoint-failure', 'stop-fails-once'],
];

export function isKnob(value: unknown): value is Knob {
  return typeof value === 'string' && Object.hasOwn(KNOBS, value);
}

function isScenarioKnob(knob: Knob): knob is ScenarioKnob {
  return Object.hasOwn(SCENARIO_KNOBS, knob);
}

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

/** Which knobs are set, per `namespace/name`; scenario knobs are applied to the simulated operator as a set. */
export class KnobBoard {
  private readonly scenarios = new Map<string, Set<ScenarioKnob>>();

  constructor(private readonly cluster: Pick<SimCluster, 'operator' | 'server'>) {}

  /** Turns a knob on or off (`on` omitted: toggles it); returns the knobs now set on the target. */
  set(namespace: string, name: string, knob: Knob, on?: boolean): Knob[] {
    const active = this.active(namespace, name).includes(knob);
    const want = on ?? !active;
    if (isScenarioKnob(knob)) this.setScenario(namespace, name, knob, want);
    else this.setLostResponse(namespace, name, want);
    return this.active(namespace, name);
  }

  active(namespace: string, name: string): Knob[] {
    const knobs: Knob[] = [...(this.scenarios.get(`${namespace}/${name}`) ?? [])];
    if (this.lostResponseFault(namespace, name) !== undefined) knobs.push('lose-response');
    return knobs;
  }

  private setScenario(namespace: string, name: string, knob: ScenarioKnob, on: boolean): void {
    const key = `${namespace}/${name}`;
    const set = this.scenarios.get(key) ?? new Set<ScenarioKnob>();
    if (on) {
      for (const group of EXCLUSIVE)
        if (group.includes(knob))
          for (const other of group) if (other !== knob && isScenarioKnob(other)) set.delete(other);
      set.add(knob);
    } else {
      set.delete(knob);
    }
    this.scenarios.set(key, set);
    if (set.size === 0) this.cluster.operator.clearScenario(namespace, name);
    else
      this.cluster.operator.setScenario(
        namespace,
        name,
        [...set].map((k) => SCENARIO_KNOBS[k]),
        { slowReconcileSeconds: SLOW_RECONCILE_SECONDS },
      );
  }

  private setLostResponse(namespace: string, name: string, on: boolean): void {
    const { faults } = this.cluster.server;
    const existing = this.lostResponseFault(namespace, name);
    if (on && existing === undefined)
      faults.inject({ kind: 'lose-response', verb: 'patch', namespace, name, times: 1 });
    if (!on && existing !== undefined) {
      // The injector removes faults only all at once: put back every other one.
      const others = faults.list().filter((f) => f.id !== existing);
      faults.clear();
      for (const { id: _id, remaining, ...spec } of others) faults.inject({ ...spec, times: remaining });
    }
  }

  private lostResponseFault(namespace: string, name: string): number | undefined {
    return this.cluster.server.faults
      .list()
      .find((f) => f.kind === 'lose-response' && f.verb === 'patch' && f.namespace === namespace && f.name === name)
      ?.id;
  }
}

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
  cluster: Pick<SimCluster, 'store' | 'operator' | 'server' | 'gitops'>;
  knobs: KnobBoard;
}

/** The panel of several named clusters, each with a knob board of its own, in the order given. */
export function panelClusters(clusters: readonly { name: string; cluster: PanelCluster['cluster'] }[]): PanelCluster[] {
  return clusters.map(({ name, cluster }) => ({ name, cluster, knobs: new KnobBoard(cluster) }));
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
