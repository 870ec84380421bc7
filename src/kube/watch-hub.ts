// One shared Kubernetes watch per namespace and resource kind in a process, resuming and relisting on 410 Gone.
import { Watch, type KubeConfig } from '@kubernetes/client-node';
import type { Logger } from '../log.js';
import {
  FLINK_API_VERSION,
  FLINK_GROUP,
  FLINK_VERSION,
  PLURALS,
  type FlinkResourceKind,
  type KubeObject,
} from './flink-client.js';

export type WatchedKind = FlinkResourceKind | 'Event';
export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'RELISTED';
export type WatchListener = (type: WatchEventType, object: KubeObject) => void;

/** Lists a collection: items and the resourceVersion to watch from. */
export type Lister = (
  kind: WatchedKind,
  namespace: string,
) => Promise<{ items: KubeObject[]; resourceVersion: string }>;

export interface WatchHubOptions {
  kubeConfig: KubeConfig;
  list: Lister;
  logger?: Logger;
  /** Backoff before re-opening a watch that ended with an error (ms); doubles up to 5 s. */
  retryMs?: number;
}

export function watchPath(kind: WatchedKind, namespace: string): string {
  if (kind === 'Event') return `/api/v1/namespaces/${namespace}/events`;
  return `/apis/${FLINK_GROUP}/${FLINK_VERSION}/namespaces/${namespace}/${PLURALS[kind]}`;
}

/** Flink events only: the operator's events on our CRs (docs/lifecycle.md#watching). */
export const EVENT_FIELD_SELECTOR = `involvedObject.apiVersion=${FLINK_API_VERSION}`;

class SharedWatch {
  private readonly listeners = new Set<WatchListener>();
  private resourceVersion: string | undefined;
  private controller: AbortController | undefined;
  private stopped = false;
  private failures = 0;
  private expired = false;
  /** Resolves once the first list has been delivered. */
  readonly ready: Promise<void>;
  private markReady!: () => void;
  relists = 0;
  opened = 0;

  constructor(
    private readonly kind: WatchedKind,
    private readonly namespace: string,
    private readonly hub: WatchHubOptions,
  ) {
    this.ready = new Promise((resolve) => (this.markReady = resolve));
  }

  add(listener: WatchListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  start(): void {
    void this.relist();
  }

  stop(): void {
    this.stopped = true;
    this.controller?.abort();
  }

  private emit(type: WatchEventType, object: KubeObject): void {
    for (const listener of this.listeners) {
      try {
        listener(type, object);
      } catch (error) {
        this.hub.logger?.error({ err: error, kind: this.kind }, 'watch listener failed');
      }
    }
  }

  private async relist(): Promise<void> {
    if (this.stopped) return;
    try {
      const { items, resourceVersion } = await this.hub.list(this.kind, this.namespace);
      this.relists += 1;
      this.resourceVersion = resourceVersion;
      for (const item of items) this.emit('RELISTED', item);
      this.markReady();
      this.failures = 0;
      await this.open();
    } catch (error) {
      this.hub.logger?.warn({ err: error, kind: this.kind, namespace: this.namespace }, 'list failed; retrying');
      this.retryLater(() => this.relist());
    }
  }

  private async open(): Promise<void> {
    if (this.stopped) return;
    this.expired = false;
    const query: Record<string, string | boolean> = { allowWatchBookmarks: true };
    if (this.resourceVersion) query.resourceVersion = this.resourceVersion;
    if (this.kind === 'Event') query.fieldSelector = EVENT_FIELD_SELECTOR;
    this.opened += 1;
    this.controller = await new Watch(this.hub.kubeConfig).watch(
      watchPath(this.kind, this.namespace),
      query,
      (phase, object: KubeObject & { code?: number }) => this.onEvent(phase, object),
      (error: unknown) => this.onDone(error),
    );
  }

  private onEvent(phase: string, object: KubeObject & { code?: number }): void {
    if (phase === 'ERROR') {
      if (object.code === 410) this.expired = true;
      return;
    }
    const rv = object.metadata?.resourceVersion;
    if (rv) this.resourceVersion = rv;
    if (phase === 'ADDED' || phase === 'MODIFIED' || phase === 'DELETED') this.emit(phase, object);
  }

  private onDone(error: unknown): void {
    if (this.stopped) return;
    const status = (error as { statusCode?: number } | null)?.statusCode;
    if (this.expired || status === 410) {
      this.resourceVersion = undefined;
      void this.relist();
      return;
    }
    if (error) {
      this.hub.logger?.warn({ err: error, kind: this.kind, namespace: this.namespace }, 'watch ended; resuming');
      this.retryLater(() => this.open());
      return;
    }
    void this.open();
  }

  private retryLater(action: () => Promise<void>): void {
    this.failures += 1;
    const delay = Math.min(5000, (this.hub.retryMs ?? 100) * 2 ** Math.min(this.failures - 1, 6));
    setTimeout(() => void action(), delay).unref();
  }
}

/** Shares watches across every operation of a worker: no poll loop per operation (docs/lifecycle.md#watching). */
export class WatchHub {
  private readonly watches = new Map<string, SharedWatch>();

  constructor(private readonly options: WatchHubOptions) {}

  /**
   * Subscribes to a namespace's objects of one kind. The first subscriber starts the shared watch; it keeps
   * running for the process's lifetime. Resolves once the initial list has been delivered to the listener.
   */
  async subscribe(kind: WatchedKind, namespace: string, listener: WatchListener): Promise<() => void> {
    const key = `${kind}/${namespace}`;
    let watch = this.watches.get(key);
    const unsubscribe = (watch ??= this.create(key, kind, namespace)).add(listener);
    await watch.ready;
    return unsubscribe;
  }

  stats(): { key: string; opened: number; relists: number }[] {
    return [...this.watches].map(([key, w]) => ({ key, opened: w.opened, relists: w.relists }));
  }

  close(): void {
    for (const watch of this.watches.values()) watch.stop();
    this.watches.clear();
  }

  private create(key: string, kind: WatchedKind, namespace: string): SharedWatch {
    const watch = new SharedWatch(kind, namespace, this.options);
    this.watches.set(key, watch);
    watch.start();
    return watch;
  }
}
