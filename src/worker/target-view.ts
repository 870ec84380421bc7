// One operation's view of its target through the process's shared watches: the object, its events, its snapshot.
import type { Observation, RestReading } from '../domain/kit/evidence/types.js';
import type { Target } from '../domain/model/target.js';
import type { KubeObject } from '../kube/flink-client.js';
import type { WatchEventType, WatchHub, WatchedKind } from '../kube/watch-hub.js';

export interface ViewSpec {
  target: Target;
  /** savepoint: the FlinkStateSnapshot the operation creates. */
  snapshotName?: string;
  /** FlinkSessionJob: its session cluster (a FlinkDeployment). */
  sessionClusterName?: string;
}

export type WaitOutcome = 'changed' | 'deadline' | 'aborted';

/**
 * The newer of two copies of one object. resourceVersions are opaque to clients, but every API server in use
 * (etcd revisions) hands out increasing integers; anything else counts as newer, since watches deliver in order.
 */
function isNewer(incoming: KubeObject, held: KubeObject | undefined): boolean {
  const a = incoming.metadata?.resourceVersion;
  const b = held?.metadata?.resourceVersion;
  if (!held || !a || !b || !/^\d+$/.test(a) || !/^\d+$/.test(b)) return true;
  return BigInt(a) >= BigInt(b);
}

/** `promise`, unless the signal aborts or the time runs out first (a namespace whose list keeps failing). */
function withinLimits<T>(
  promise: Promise<T>,
  limits: { signal: AbortSignal; timeoutMs: number },
  what: string,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const finish = (settle: () => void): void => {
      clearTimeout(timer);
      limits.signal.removeEventListener('abort', onAbort);
      settle();
    };
    const onAbort = (): void =>
      finish(() => reject(limits.signal.reason instanceof Error ? limits.signal.reason : new Error('aborted')));
    const timer = setTimeout(
      () => finish(() => reject(new Error(`${what} did not start within ${limits.timeoutMs} ms`))),
      limits.timeoutMs,
    );
    if (limits.signal.aborted) return onAbort();
    limits.signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => finish(() => resolve(value)),
      (error: unknown) => finish(() => reject(error instanceof Error ? error : new Error(String(error)))),
    );
  });
}

export class TargetView {
  private resource: KubeObject | undefined;
  private snapshot: KubeObject | undefined;
  private sessionCluster: KubeObject | undefined;
  private rest: RestReading | undefined;
  private readonly events = new Map<string, KubeObject>();
  private version = 0;
  private readonly waiters = new Set<() => void>();
  private unsubscribers: (() => void)[] = [];
  private closed = false;

  private constructor(readonly spec: ViewSpec) {}

  /**
   * Subscribes to the target's kind, the namespace's Flink events and, as needed, snapshots and session
   * clusters. Subscribing comes first so nothing that happens after a later read or list can be missed.
   */
  static async open(
    watches: Pick<WatchHub, 'subscribe'>,
    spec: ViewSpec,
    limits: { signal: AbortSignal; timeoutMs: number },
  ): Promise<TargetView> {
    const view = new TargetView(spec);
    const { namespace } = spec.target;
    const kinds: [WatchedKind, (type: WatchEventType, object: KubeObject) => void][] = [
      [spec.target.kind, (type, object) => view.onTarget(type, object)],
      ['Event', (type, object) => view.onEvent(type, object)],
    ];
    if (spec.snapshotName !== undefined)
      kinds.push(['FlinkStateSnapshot', (type, object) => view.onSnapshot(type, object)]);
    if (spec.sessionClusterName !== undefined)
      kinds.push(['FlinkDeployment', (type, object) => view.onSessionCluster(type, object)]);
    const pending = kinds.map(([kind, listener]) => watches.subscribe(kind, namespace, listener));
    try {
      view.unsubscribers = await withinLimits(Promise.all(pending), limits, `the watches of namespace ${namespace}`);
    } catch (error) {
      // A shared watch still listing keeps the listener: take it off whenever that list arrives.
      for (const p of pending)
        void p.then(
          (unsubscribe) => unsubscribe(),
          () => undefined,
        );
      throw error;
    }
    return view;
  }

  /** Counts changes; pass it back to `waitForChange` to wait for the next one. */
  get changes(): number {
    return this.version;
  }

  seedResource(object: KubeObject | undefined): void {
    if (object && isNewer(object, this.resource)) this.set(() => (this.resource = object));
  }

  seedSnapshot(object: KubeObject | undefined): void {
    if (object && isNewer(object, this.snapshot)) this.set(() => (this.snapshot = object));
  }

  seedSessionCluster(object: KubeObject | undefined): void {
    if (object && isNewer(object, this.sessionCluster)) this.set(() => (this.sessionCluster = object));
  }

  /** What Flink REST said last (read by the worker when the judge asks for it). */
  setRest(reading: RestReading): void {
    this.set(() => (this.rest = reading));
  }

  get restReading(): RestReading | undefined {
    return this.rest;
  }

  seedEvents(events: readonly KubeObject[]): void {
    for (const event of events) this.onEvent('RELISTED', event);
  }

  current(): KubeObject | undefined {
    return this.resource;
  }

  observation(now: number): Observation {
    return {
      resource: this.resource,
      events: [...this.events.values()],
      ...(this.snapshot ? { snapshot: this.snapshot } : {}),
      ...(this.sessionCluster ? { sessionCluster: this.sessionCluster } : {}),
      ...(this.rest ? { rest: this.rest } : {}),
      now,
    };
  }

  /** Resolves once the view changed after `since`, at `deadline` (ms since the epoch), or when `signal` aborts. */
  waitForChange(
    since: number,
    deadline: number,
    signal: AbortSignal,
    now: () => number = Date.now,
  ): Promise<WaitOutcome> {
    if (signal.aborted) return Promise.resolve('aborted');
    if (this.version !== since) return Promise.resolve('changed');
    return new Promise((resolve) => {
      const finish = (outcome: WaitOutcome): void => {
        clearTimeout(timer);
        this.waiters.delete(onChange);
        signal.removeEventListener('abort', onAbort);
        resolve(outcome);
      };
      const onChange = (): void => finish('changed');
      const onAbort = (): void => finish('aborted');
      const timer = setTimeout(() => finish('deadline'), Math.max(0, deadline - now()));
      this.waiters.add(onChange);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const unsubscribe of this.unsubscribers) unsubscribe();
    this.unsubscribers = [];
  }

  private set(apply: () => unknown): void {
    apply();
    this.version += 1;
    for (const waiter of [...this.waiters]) waiter();
  }

  private onTarget(type: WatchEventType, object: KubeObject): void {
    if (object.metadata?.name !== this.spec.target.name) return;
    if (type === 'DELETED') this.set(() => (this.resource = undefined));
    else this.seedResource(object);
  }

  private onSnapshot(type: WatchEventType, object: KubeObject): void {
    if (object.metadata?.name !== this.spec.snapshotName) return;
    if (type === 'DELETED') this.set(() => (this.snapshot = undefined));
    else this.seedSnapshot(object);
  }

  private onSessionCluster(type: WatchEventType, object: KubeObject): void {
    if (object.metadata?.name !== this.spec.sessionClusterName) return;
    if (type === 'DELETED') this.set(() => (this.sessionCluster = undefined));
    else this.seedSessionCluster(object);
  }

  private onEvent(type: WatchEventType, object: KubeObject): void {
    const involved = (object as { involvedObject?: { kind?: string; name?: string } }).involvedObject;
    const ours =
      (involved?.kind === this.spec.target.kind && involved.name === this.spec.target.name) ||
      (this.spec.snapshotName !== undefined &&
        involved?.kind === 'FlinkStateSnapshot' &&
        involved.name === this.spec.snapshotName);
    const name = object.metadata?.name;
    if (!ours || !name) return;
    if (type === 'DELETED') {
      if (this.events.delete(name)) this.set(() => undefined);
      return;
    }
    if (isNewer(object, this.events.get(name))) this.set(() => this.events.set(name, object));
  }
}
