// A typed fake of our Kubernetes port (FlinkClient) and of the watch hub, for the unit tier: objects by kind and name,
// merge patches with the resourceVersion precondition, every write told to the watchers, and an `operator` hook that
// plays the operator's reconciliation. Only the process boundary is faked; everything of ours runs for real.
import type {
  FlinkClient,
  FlinkResourceKind,
  KubeEvent,
  KubeObject,
  ResourceSummary,
} from '../../src/kube/flink-client.js';
import { KubeError } from '../../src/kube/errors.js';
import type { WatchEventType, WatchHub, WatchListener, WatchedKind } from '../../src/kube/watch-hub.js';
import { applyMergePatch } from '../../src/domain/model/merge-patch.js';
import type { Target } from '../../src/domain/model/target.js';

export interface FakeCall {
  method: 'get' | 'list' | 'mergePatch' | 'createSnapshot' | 'listEvents';
  target: string;
  patch?: Record<string, unknown>;
  resourceVersion?: string;
}

const keyOf = (kind: string, namespace: string, name: string) => `${kind}/${namespace}/${name}`;

export class FakeCluster implements FlinkClient {
  readonly calls: FakeCall[] = [];
  /** What the operator makes of an accepted patch (written and watched right after the call returns); none: nothing. */
  operator: ((patched: KubeObject) => KubeObject | undefined) | undefined;
  /** Thrown by the next merge patch instead of applying it (a fault at the API server). */
  failNextPatch: KubeError | undefined;
  private readonly objects = new Map<string, KubeObject>();
  private readonly events: KubeEvent[] = [];
  private readonly listeners = new Map<string, Set<WatchListener>>();
  private resourceVersion = 60_000;

  /** The watch hub the worker's views subscribe through. */
  readonly watches: Pick<WatchHub, 'subscribe'> = {
    subscribe: async (kind: WatchedKind, namespace: string, listener: WatchListener) => {
      const key = `${kind}/${namespace}`;
      const set = this.listeners.get(key) ?? new Set<WatchListener>();
      set.add(listener);
      this.listeners.set(key, set);
      return () => set.delete(listener);
    },
  };

  /** Writes an object as it is (a person's `kubectl apply`, or the operator's status) and tells the watchers. */
  put(object: KubeObject): KubeObject {
    const kind = object.kind ?? '';
    const namespace = object.metadata.namespace ?? '';
    const existed = this.objects.has(keyOf(kind, namespace, object.metadata.name));
    const stored = structuredClone(object);
    this.objects.set(keyOf(kind, namespace, object.metadata.name), stored);
    this.notify(kind, namespace, existed ? 'MODIFIED' : 'ADDED', stored);
    return structuredClone(stored);
  }

  object(kind: FlinkResourceKind, namespace: string, name: string): KubeObject | undefined {
    const found = this.objects.get(keyOf(kind, namespace, name));
    return found === undefined ? undefined : structuredClone(found);
  }

  patches(): FakeCall[] {
    return this.calls.filter((c) => c.method === 'mergePatch' || c.method === 'createSnapshot');
  }

  async get(kind: FlinkResourceKind, namespace: string, name: string): Promise<KubeObject | undefined> {
    this.calls.push({ method: 'get', target: keyOf(kind, namespace, name) });
    return this.object(kind, namespace, name);
  }

  async list(kind: FlinkResourceKind, namespace: string): Promise<KubeObject[]> {
    this.calls.push({ method: 'list', target: `${kind}/${namespace}` });
    return [...this.objects.values()]
      .filter((o) => o.kind === kind && o.metadata.namespace === namespace)
      .map((o) => structuredClone(o));
  }

  async mergePatch(target: Target, patch: Record<string, unknown>, resourceVersion: string): Promise<KubeObject> {
    this.calls.push({
      method: 'mergePatch',
      target: keyOf(target.kind, target.namespace, target.name),
      patch,
      resourceVersion,
    });
    const failure = this.failNextPatch;
    this.failNextPatch = undefined;
    if (failure) throw failure;
    const current = this.objects.get(keyOf(target.kind, target.namespace, target.name));
    if (!current) throw new KubeError('not-found', `${target.kind} ${target.name} not found`, 404);
    if (resourceVersion !== '' && resourceVersion !== current.metadata.resourceVersion)
      throw new KubeError('conflict', 'the object has been modified', 409);
    const next = applyMergePatch(current, patch) as KubeObject;
    const specChanged = JSON.stringify(next.spec) !== JSON.stringify(current.spec);
    next.metadata.generation = (current.metadata.generation ?? 0) + (specChanged ? 1 : 0);
    next.metadata.resourceVersion = String(++this.resourceVersion);
    const written = this.put(next);
    const reconciled = this.operator?.(structuredClone(written));
    if (reconciled)
      setImmediate(() =>
        this.put({
          ...reconciled,
          metadata: { ...reconciled.metadata, resourceVersion: String(++this.resourceVersion) },
        }),
      );
    return written;
  }

  async createSnapshot(namespace: string, snapshot: Record<string, unknown>): Promise<KubeObject> {
    const object = {
      ...(snapshot as KubeObject),
      metadata: { ...(snapshot as KubeObject).metadata, namespace, uid: `uid-${++this.resourceVersion}` },
    };
    this.calls.push({ method: 'createSnapshot', target: keyOf('FlinkStateSnapshot', namespace, object.metadata.name) });
    return this.put(object);
  }

  async listSummaries(): Promise<ResourceSummary[]> {
    return [];
  }

  async listEvents(namespace: string, involvedUid: string): Promise<KubeEvent[]> {
    this.calls.push({ method: 'listEvents', target: `${namespace}/${involvedUid}` });
    return this.events.filter((e) => e.involvedObject?.uid === involvedUid).map((e) => structuredClone(e));
  }

  async listNamespaces(): Promise<string[]> {
    return [...new Set([...this.objects.values()].map((o) => o.metadata.namespace ?? ''))].sort();
  }

  private notify(kind: string, namespace: string, type: WatchEventType, object: KubeObject): void {
    for (const listener of this.listeners.get(`${kind}/${namespace}`) ?? []) listener(type, structuredClone(object));
  }
}
