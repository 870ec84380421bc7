// Watch streams: newline-delimited JSON events fanned out from the store, with resume, 410 Gone, bookmarks and timeouts.
import type { ServerResponse } from 'node:http';
import { byKey, matchesFields, matchesLabels, type FieldRequirement, type LabelRequirement } from './selectors.js';
import { failure } from './status.js';
import {
  ApiError,
  type KubeObject,
  type SimResource,
  type SimStore,
  type StoreChange,
  SIM_RESOURCES,
} from './store.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'ERROR' | 'BOOKMARK';

export interface WatchSpec {
  resource: SimResource;
  namespace?: string;
  labels: readonly LabelRequirement[];
  fields: readonly FieldRequirement[];
  /** The raw `resourceVersion` query parameter. */
  resourceVersion?: string;
  sendInitialEvents: boolean;
  allowBookmarks: boolean;
  timeoutSeconds?: number;
  /** The next resume must fail with 410 Gone (fault injection). */
  expire: boolean;
  /** Renders the event's object for this watcher (plain JSON or a Table row); `format` keys a per-change cache. */
  format: string;
  render: (object: KubeObject) => unknown;
  /** Kind and apiVersion of bookmark objects. */
  kind: string;
  apiVersion: string;
}

interface OpenWatch {
  spec: WatchSpec;
  res: ServerResponse;
  timers: NodeJS.Timeout[];
}

/** A watcher that stops reading is cut off rather than buffered forever (real servers drop slow watchers too). */
const MAX_BUFFERED_BYTES = 32 * 1024 * 1024;

function objectKey(resource: SimResource, object: KubeObject): string {
  return `${resource}/${object.metadata.namespace}/${object.metadata.name}`;
}

export class WatchHub {
  private readonly watches = new Set<OpenWatch>();
  /** Last seen version of every object, so a change that moves an object out of a selector becomes DELETED. */
  private readonly last = new Map<string, KubeObject>();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly store: SimStore,
    private readonly bookmarkIntervalMs: number,
  ) {
    for (const resource of SIM_RESOURCES) {
      for (const object of store.list(resource)) this.last.set(objectKey(resource, object), object);
    }
    this.unsubscribe = store.subscribe((change) => this.dispatch(change));
  }

  get size(): number {
    return this.watches.size;
  }

  /** Starts streaming; the response must not have been written to yet. */
  open(res: ServerResponse, spec: WatchSpec): void {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
    res.flushHeaders();
    const watch: OpenWatch = { spec, res, timers: [] };
    if (!this.replay(watch)) return;
    this.watches.add(watch);
    if (spec.allowBookmarks && this.bookmarkIntervalMs > 0) {
      watch.timers.push(setInterval(() => this.bookmark(watch), this.bookmarkIntervalMs));
    }
    if (spec.timeoutSeconds !== undefined) {
      watch.timers.push(setTimeout(() => this.finish(watch, 'end'), spec.timeoutSeconds * 1000));
    }
    res.on('close', () => this.forget(watch));
  }

  /** Ends every stream: abruptly (socket destroyed, no final chunk) or gracefully (final chunk). */
  closeAll(how: 'abrupt' | 'graceful'): number {
    const count = this.watches.size;
    for (const watch of [...this.watches]) this.finish(watch, how === 'abrupt' ? 'destroy' : 'end');
    return count;
  }

  /** Ends every stream cleanly and stops listening to the store. */
  shutdown(): void {
    for (const watch of [...this.watches]) this.finish(watch, 'end');
    this.unsubscribe();
  }

  /** Initial ADDED events or the changes missed since a resourceVersion; false when the stream already ended. */
  private replay(watch: OpenWatch): boolean {
    const { spec } = watch;
    const rv = spec.resourceVersion;
    if (rv === undefined || rv === '' || rv === '0' || spec.sendInitialEvents) {
      const objects = this.store.list(spec.resource, spec.namespace).filter((o) => this.selects(spec, o));
      objects.sort(byKey);
      for (const object of objects) this.write(watch, 'ADDED', spec.render(object));
      if (spec.sendInitialEvents && spec.allowBookmarks) this.bookmark(watch, true);
      return true;
    }
    try {
      if (spec.expire) {
        throw new ApiError(410, 'Expired', `too old resource version: ${rv} (${this.store.resourceVersion})`);
      }
      for (const change of this.store.changesSince(Number(rv))) this.deliver(watch, change);
      return true;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      // What kube-apiserver does for an expired resourceVersion: 200, one ERROR event carrying the Status, end.
      this.write(watch, 'ERROR', failure(error));
      watch.res.end();
      return false;
    }
  }

  private dispatch(change: StoreChange): void {
    const key = objectKey(change.resource, change.object);
    const previous = this.last.get(key);
    if (change.type === 'DELETED') this.last.delete(key);
    else this.last.set(key, change.object);
    const rendered = new Map<string, unknown>();
    for (const watch of this.watches) {
      if (watch.spec.resource !== change.resource) continue;
      const type = this.eventType(watch.spec, change, previous);
      if (!type) continue;
      const cacheKey = `${type}|${watch.spec.format}`;
      let line = rendered.get(cacheKey) as string | undefined;
      if (line === undefined) {
        line = `${JSON.stringify({ type, object: watch.spec.render(change.object) })}\n`;
        rendered.set(cacheKey, line);
      }
      this.send(watch, line);
    }
  }

  private deliver(watch: OpenWatch, change: StoreChange): void {
    if (change.resource !== watch.spec.resource) return;
    const type = this.eventType(watch.spec, change, undefined);
    if (type) this.write(watch, type, watch.spec.render(change.object));
  }

  /** Selector transitions: moving into the selection is ADDED, moving out is DELETED, as the watch cache reports them. */
  private eventType(
    spec: WatchSpec,
    change: StoreChange,
    previous: KubeObject | undefined,
  ): WatchEventType | undefined {
    const now = this.selects(spec, change.object);
    if (change.type !== 'MODIFIED' || previous === undefined) return now ? change.type : undefined;
    const before = this.selects(spec, previous);
    if (now && before) return 'MODIFIED';
    if (now) return 'ADDED';
    if (before) return 'DELETED';
    return undefined;
  }

  private selects(spec: WatchSpec, object: KubeObject): boolean {
    if (spec.namespace !== undefined && object.metadata.namespace !== spec.namespace) return false;
    return matchesLabels(spec.labels, object.metadata.labels) && matchesFields(spec.fields, object);
  }

  private bookmark(watch: OpenWatch, initialEventsEnd = false): void {
    const metadata: Record<string, unknown> = { resourceVersion: this.store.resourceVersion };
    if (initialEventsEnd) metadata.annotations = { 'k8s.io/initial-events-end': 'true' };
    this.write(watch, 'BOOKMARK', { kind: watch.spec.kind, apiVersion: watch.spec.apiVersion, metadata });
  }

  private write(watch: OpenWatch, type: WatchEventType, object: unknown): void {
    this.send(watch, `${JSON.stringify({ type, object })}\n`);
  }

  private send(watch: OpenWatch, line: string): void {
    const { res } = watch;
    if (res.destroyed || res.writableEnded) return;
    if (res.writableLength > MAX_BUFFERED_BYTES) {
      this.finish(watch, 'destroy');
      return;
    }
    res.write(line);
  }

  private finish(watch: OpenWatch, how: 'end' | 'destroy'): void {
    this.forget(watch);
    if (how === 'destroy') watch.res.destroy();
    else if (!watch.res.writableEnded) watch.res.end();
  }

  private forget(watch: OpenWatch): void {
    for (const timer of watch.timers) clearTimeout(timer);
    watch.timers = [];
    this.watches.delete(watch);
  }
}
