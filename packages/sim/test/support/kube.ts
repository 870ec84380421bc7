// Test helpers for the simulated Kubernetes API: client-node clients for a server URL, patch recipes, builders, watch collectors.
import {
  ApiException,
  CoreV1Api,
  type CoreV1Event,
  CustomObjectsApi,
  KubeConfig,
  PatchStrategy,
  Watch,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { kubeconfigYaml } from '../../src/kube/kubeconfig.js';
import { startSimApiServer, type SimApiServer } from '../../src/kube/server.js';
import { SimStore, type KubeObject, type StoreOptions } from '../../src/kube/store.js';
import { validateSpec } from '../../src/kube/validation.js';

export const GROUP = 'flink.apache.org';
export const VERSION = 'v1beta1';

/**
 * client-node 1.x sends `application/json-patch+json` from patch*CustomObject by default (the first of the media
 * types its generated code lists); a JSON merge patch needs this Content-Type override as the call's options.
 */
export const MERGE_PATCH = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
export const JSON_PATCH = setHeaderOptions('Content-Type', PatchStrategy.JsonPatch);
export const STRATEGIC_MERGE_PATCH = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);

/** A KubeConfig for the simulator: plain http is accepted only because the cluster sets insecure-skip-tls-verify. */
export function kubeConfigFor(serverUrl: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(kubeconfigYaml(serverUrl));
  return kc;
}

export interface KubeClients {
  kc: KubeConfig;
  custom: CustomObjectsApi;
  core: CoreV1Api;
  watch: Watch;
}

export function kubeClients(serverUrl: string): KubeClients {
  const kc = kubeConfigFor(serverUrl);
  return { kc, custom: kc.makeApiClient(CustomObjectsApi), core: kc.makeApiClient(CoreV1Api), watch: new Watch(kc) };
}

export interface SimApi extends KubeClients {
  store: SimStore;
  server: SimApiServer;
  close(): Promise<void>;
}

/** A store with the spec validator, a server on a free loopback port, and clients for it. */
export async function startSimApi(storeOptions: StoreOptions = {}, bookmarkIntervalMs?: number): Promise<SimApi> {
  const store = new SimStore({ validate: validateSpec, ...storeOptions });
  const server = await startSimApiServer(bookmarkIntervalMs === undefined ? { store } : { store, bookmarkIntervalMs });
  return { store, server, ...kubeClients(server.url), close: () => server.close() };
}

/** The path arguments of CustomObjectsApi calls for one plural in one namespace. */
export function crPath(
  namespace: string,
  plural = 'flinkdeployments',
): { group: string; version: string; namespace: string; plural: string } {
  return { group: GROUP, version: VERSION, namespace, plural };
}

/** A FlinkDeployment with the kind of spec the demo and the bot use. */
export function flinkDeployment(name: string, namespace: string, patch: Partial<KubeObject> = {}): KubeObject {
  return {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'FlinkDeployment',
    metadata: { name, namespace, labels: { app: name } },
    spec: {
      image: 'flink:1.20',
      flinkVersion: 'v1_20',
      serviceAccount: 'flink',
      flinkConfiguration: {
        'taskmanager.numberOfTaskSlots': '2',
        'state.savepoints.dir': `s3://flink-state/${namespace}/${name}/savepoints`,
        'state.checkpoints.dir': `s3://flink-state/${namespace}/${name}/checkpoints`,
        'high-availability.type': 'kubernetes',
      },
      jobManager: { resource: { memory: '2048m', cpu: 1 } },
      taskManager: { resource: { memory: '2048m', cpu: 1 } },
      job: {
        jarURI: 'local:///opt/flink/examples/streaming/StateMachineExample.jar',
        parallelism: 2,
        upgradeMode: 'savepoint',
        state: 'running',
      },
    },
    ...patch,
  };
}

export interface ApiFailure {
  code: number;
  status: {
    kind?: string;
    reason?: string;
    message?: string;
    details?: { causes?: { field: string; message: string; reason: string }[] };
  };
}

/** Runs a call that must fail with an API error and returns its HTTP code and parsed `Status` body. */
export async function apiFailure(call: () => Promise<unknown>): Promise<ApiFailure> {
  try {
    await call();
  } catch (error) {
    if (!(error instanceof ApiException)) throw error;
    const body =
      typeof error.body === 'string'
        ? (JSON.parse(error.body) as ApiFailure['status'])
        : (error.body as ApiFailure['status']);
    return { code: error.code, status: body };
  }
  throw new Error('the call succeeded; an API error was expected');
}

export interface WatchEvent {
  type: string;
  object: KubeObject & { code?: number; reason?: string };
}

export interface CollectedWatch {
  events: WatchEvent[];
  /** Resolves once `count` events have arrived (or rejects after `timeoutMs`). */
  next(count?: number, timeoutMs?: number): Promise<WatchEvent[]>;
  /** Resolves with the done callback's error (null for a clean end). */
  done: Promise<unknown>;
  abort(): void;
}

/** Starts a client-node Watch and collects what it delivers, so tests await events instead of sleeping. */
export async function collectWatch(
  watch: Watch,
  path: string,
  query: Record<string, string | number | boolean> = {},
): Promise<CollectedWatch> {
  const events: WatchEvent[] = [];
  let waiters: (() => void)[] = [];
  let resolveDone: (err: unknown) => void = () => undefined;
  const done = new Promise<unknown>((resolve) => (resolveDone = resolve));
  const controller = await watch.watch(
    path,
    query,
    (type, object) => {
      events.push({ type, object: object as WatchEvent['object'] });
      for (const w of waiters) w();
    },
    (err) => {
      resolveDone(err);
      for (const w of waiters) w();
    },
  );
  let consumed = 0;
  return {
    events,
    done,
    abort: () => controller.abort(),
    next(count = 1, timeoutMs = 5000) {
      const want = consumed + count;
      return new Promise((resolve, reject) => {
        const check = (): boolean => {
          if (events.length < want) return false;
          clearTimeout(timer);
          waiters = waiters.filter((w) => w !== onEvent);
          const batch = events.slice(consumed, want);
          consumed = want;
          resolve(batch);
          return true;
        };
        const onEvent = (): void => void check();
        const timer = setTimeout(() => {
          waiters = waiters.filter((w) => w !== onEvent);
          reject(
            new Error(`timed out waiting for ${count} watch event(s) on ${path}; got ${events.length - consumed}`),
          );
        }, timeoutMs);
        if (!check()) waiters.push(onEvent);
      });
    },
  };
}

/** A plain HTTP call to the simulator, for what client-node cannot send (bad JSON, huge bodies, discovery). */
export async function fetchSim(
  baseUrl: string,
  path: string,
  init: RequestInit = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${baseUrl}${path}`, init);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** A core/v1 Event about `involved`, shaped as the operator records them. */
export function eventFor(name: string, involved: KubeObject, reason: string, type = 'Normal'): CoreV1Event {
  return {
    metadata: { name, namespace: involved.metadata.namespace },
    involvedObject: {
      apiVersion: involved.apiVersion,
      kind: involved.kind,
      name: involved.metadata.name,
      namespace: involved.metadata.namespace,
      uid: involved.metadata.uid,
    },
    reason,
    type,
    message: `${reason} happened`,
    source: { component: 'Operator' },
    count: 1,
  };
}
