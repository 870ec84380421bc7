// Test helpers for the simulated operator: a store + operator, waitFor on store changes, recorders (the resource
// builders are in ./sim-resources.ts).
import { afterEach, beforeEach } from 'vitest';
import { offsetClock } from '../../src/kube/cluster.js';
import { startSimOperator, type SimOperator } from '../../src/kube/operator.js';
import type { Speed } from '../../src/kube/speed.js';
import type { OperatorVersion } from '../../src/kube/versions.js';
import {
  SimStore,
  type KubeObject,
  type SimResource,
  type StoreChange,
  type StoreOptions,
} from '../../src/kube/store.js';
import { deployment, type DeploymentOptions, type Loose } from './sim-resources.js';

type CrResource = Extract<SimResource, 'flinkdeployments' | 'flinksessionjobs' | 'flinkstatesnapshots'>;

export interface SimRig {
  store: SimStore;
  operator: SimOperator;
  close(): Promise<void>;
}

/**
 * A store (no admission validation unless given) with the operator running at `speed` (fast by default);
 * `clockOffsetMs` sets the cluster's clock apart from the test's, as `startSimCluster` does; `operatorVersion` the
 * release the operator behaves as (default 1.15).
 */
export function simRig(
  options: { speed?: Speed; store?: StoreOptions; clockOffsetMs?: number; operatorVersion?: OperatorVersion } = {},
): SimRig {
  const store = new SimStore({ now: offsetClock(options.clockOffsetMs ?? 0), ...options.store });
  const operator = startSimOperator({
    store,
    speed: options.speed ?? 'fast',
    ...(options.operatorVersion ? { version: options.operatorVersion } : {}),
  });
  return { store, operator, close: () => operator.close() };
}

/**
 * Resolves with the predicate's first truthy value, checked now and after every store change; rejects after
 * `timeoutMs` naming `what` and the last value of `describe` (so a failing test says what it saw).
 */
export function waitFor<T>(
  store: SimStore,
  predicate: () => T | undefined | null | false,
  timeoutMs = 5000,
  what = 'condition',
  describe?: () => unknown,
): Promise<T> {
  return new Promise((resolve, reject) => {
    let unsubscribe: () => void = () => undefined;
    const check = (): boolean => {
      const value = predicate();
      if (!value) return false;
      clearTimeout(timer);
      unsubscribe();
      resolve(value);
      return true;
    };
    const timer = setTimeout(() => {
      unsubscribe();
      const seen = describe ? ` — last seen: ${JSON.stringify(describe())}` : '';
      reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}${seen}`));
    }, timeoutMs);
    if (!check()) unsubscribe = store.subscribe(() => void check());
  });
}

export type Status = Record<string, unknown> & {
  observedGeneration?: number;
  lifecycleState?: string;
  jobManagerDeploymentStatus?: string;
  error?: string;
  jobStatus?: Record<string, unknown> & { state?: string; jobId?: string; upgradeSavepointPath?: string };
  reconciliationStatus?: Record<string, unknown> & {
    state?: string;
    lastReconciledSpec?: string;
    lastStableSpec?: string;
    reconciliationTimestamp?: number;
  };
  conditions?: { type: string; status: string; reason: string; message: string }[];
  taskManager?: { labelSelector: string; replicas: number };
  state?: string;
  path?: string;
  failures?: number;
};

export function statusOf(object: KubeObject | undefined): Status {
  return (object?.status ?? {}) as Status;
}

export function reconciledSpec(
  status: Status,
  which: 'lastReconciledSpec' | 'lastStableSpec' = 'lastReconciledSpec',
): Loose | undefined {
  const text = status.reconciliationStatus?.[which];
  return typeof text === 'string' ? (JSON.parse(text) as { spec: Loose }).spec : undefined;
}

/** Waits until a resource's status satisfies `predicate`; returns the object. */
export function waitForStatus(
  store: SimStore,
  resource: CrResource,
  namespace: string,
  name: string,
  predicate: (status: Status, object: KubeObject) => boolean,
  what: string,
  timeoutMs = 5000,
): Promise<KubeObject> {
  return waitFor(
    store,
    () => {
      const object = store.get(resource, namespace, name);
      return object && predicate(statusOf(object), object) ? object : undefined;
    },
    timeoutMs,
    `${resource} ${namespace}/${name}: ${what}`,
    () => statusSummary(store.get(resource, namespace, name)),
  );
}

/**
 * A FlinkDeployment fully deployed and running the current generation (the base predicate of
 * docs/lifecycle.md#evidence).
 */
export function isStable(status: Status, object: KubeObject): boolean {
  return (
    status.observedGeneration === object.metadata.generation &&
    status.reconciliationStatus?.state === 'DEPLOYED' &&
    status.lifecycleState === 'STABLE' &&
    status.jobStatus?.state === 'RUNNING' &&
    (object.kind !== 'FlinkDeployment' || status.jobManagerDeploymentStatus === 'READY')
  );
}

export function waitStable(
  store: SimStore,
  namespace: string,
  name: string,
  resource: CrResource = 'flinkdeployments',
  timeoutMs = 5000,
): Promise<KubeObject> {
  return waitForStatus(
    store,
    resource,
    namespace,
    name,
    isStable,
    'STABLE and RUNNING on the current generation',
    timeoutMs,
  );
}

export function statusSummary(object: KubeObject | undefined): unknown {
  if (!object) return 'missing';
  const s = statusOf(object);
  return {
    generation: object.metadata.generation,
    observedGeneration: s.observedGeneration,
    lifecycle: s.lifecycleState,
    reconciliation: s.reconciliationStatus?.state,
    jm: s.jobManagerDeploymentStatus,
    job: s.jobStatus?.state,
    state: s.state,
    error: s.error,
  };
}

/** Replaces the spec through `mutate` (as a user's patch would); returns the new generation. */
export function editSpec(
  store: SimStore,
  resource: CrResource,
  namespace: string,
  name: string,
  mutate: (spec: Loose) => void,
): number {
  const updated = store.update(resource, namespace, name, (current) => {
    const spec = structuredClone(current.spec ?? {}) as Loose;
    mutate(spec);
    return { ...current, spec };
  });
  return updated.metadata.generation ?? 0;
}

export function setAnnotations(
  store: SimStore,
  resource: CrResource,
  namespace: string,
  name: string,
  annotations: Record<string, string | undefined>,
): void {
  store.update(resource, namespace, name, (current) => {
    const next = { ...(current.metadata.annotations ?? {}) };
    for (const [k, v] of Object.entries(annotations)) {
      if (v === undefined) delete next[k];
      else next[k] = v;
    }
    return { ...current, metadata: { ...current.metadata, annotations: next } };
  });
}

export interface EventView {
  name: string;
  reason: string;
  type: string;
  message: string;
  count: number;
  component: string;
  firstTimestamp: string;
  lastTimestamp: string;
  annotations: Record<string, string>;
}

/** Events about one object (by uid), oldest first. */
export function eventsFor(store: SimStore, object: KubeObject): EventView[] {
  return store
    .list('events', object.metadata.namespace)
    .filter((e) => (e.involvedObject as { uid?: string }).uid === object.metadata.uid)
    .map((e) => ({
      name: e.metadata.name,
      reason: String(e.reason),
      type: String(e.type),
      message: String(e.message),
      count: Number(e.count),
      component: String((e.source as { component?: string }).component),
      firstTimestamp: String(e.firstTimestamp),
      lastTimestamp: String(e.lastTimestamp),
      annotations: e.metadata.annotations ?? {},
    }));
}

/** Records every status a resource takes (one entry per change), until stopped. */
export function recordStatuses(
  store: SimStore,
  resource: CrResource,
  namespace: string,
  name: string,
): { seen: { generation: number; status: Status }[]; stop(): void } {
  const seen: { generation: number; status: Status }[] = [];
  const stop = store.subscribe((change: StoreChange) => {
    if (
      change.resource !== resource ||
      change.object.metadata.namespace !== namespace ||
      change.object.metadata.name !== name
    )
      return;
    seen.push({ generation: change.object.metadata.generation ?? 0, status: statusOf(change.object) });
  });
  return { seen, stop };
}

/** What the operator test files share: a fresh rig per test, and readers over one namespace's deployments. */
export interface SimRigHooks {
  /** The current test's rig. */
  readonly rig: SimRig;
  get(name?: string): KubeObject;
  /** Creates a deployment and resolves once it is STABLE. */
  deployed(name?: string, options?: DeploymentOptions): ReturnType<typeof waitStable>;
  /** Reasons of the deployment's events, oldest first. */
  reasons(name?: string): string[];
  /** How often events with this reason were recorded (deduplicated events count by `count`). */
  eventCount(reason: string, name?: string): number;
}

/** Registers beforeEach/afterEach hooks that give every test its own simulated operator on a fresh store. */
export function useSimRig(namespace: string): SimRigHooks {
  let current: SimRig | undefined;
  beforeEach(() => {
    current = simRig();
  });
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  const hooks: SimRigHooks = {
    get rig() {
      if (!current) throw new Error('no simulated operator outside a test');
      return current;
    },
    get(name = 'orders') {
      const object = hooks.rig.store.get('flinkdeployments', namespace, name);
      if (!object) throw new Error(`${name} missing`);
      return object;
    },
    async deployed(name = 'orders', options = {}) {
      hooks.rig.store.create('flinkdeployments', deployment(name, namespace, options));
      return waitStable(hooks.rig.store, namespace, name);
    },
    reasons: (name = 'orders') => eventsFor(hooks.rig.store, hooks.get(name)).map((e) => e.reason),
    eventCount: (reason, name = 'orders') =>
      eventsFor(hooks.rig.store, hooks.get(name))
        .filter((e) => e.reason === reason)
        .reduce((sum, e) => sum + e.count, 0),
  };
  return hooks;
}
