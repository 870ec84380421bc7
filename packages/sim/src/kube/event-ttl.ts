// Events expire as kube-apiserver's do: it stores each Event with a lease of `--event-ttl` (1 h by default), renewed
// on each write of the same Event; once it lapses the Event is gone from list and get, and watchers see it DELETED.
import { durationSeconds } from './scenarios.js';
import type { KubeObject, SimStore } from './store.js';

/** kube-apiserver's `--event-ttl` default (kubernetes/kubernetes cmd/kube-apiserver/app/options/options.go). */
export const EVENT_TTL_MS = 60 * 60 * 1000;

/** `--event-ttl`: a positive duration ("90s", "5m"; a bare number is seconds) in ms, or undefined. */
export function parseEventTtlMs(text: string): number | undefined {
  const seconds = durationSeconds(text);
  return seconds === undefined || seconds <= 0 ? undefined : Math.round(seconds * 1000);
}

/** What `--event-ttl` says when its value is not one. */
export const EVENT_TTL_USAGE = '--event-ttl must be a duration such as 90s or 5m';

interface Lease {
  timer?: NodeJS.Timeout;
  /** performance.now() of the Event's last write. */
  writtenAt: number;
  resourceVersion: string | undefined;
}

export class EventExpiry {
  private readonly leases = new Map<string, Lease>();
  private readonly unsubscribe: () => void;
  private ttl: number;

  constructor(
    private readonly store: SimStore,
    ttlMs = EVENT_TTL_MS,
  ) {
    this.ttl = ttlMs;
    this.unsubscribe = store.subscribe((change) => {
      if (change.resource !== 'events') return;
      if (change.type === 'DELETED') this.forget(keyOf(change.object));
      else this.lease(change.object, performance.now());
    });
  }

  get ttlMs(): number {
    return this.ttl;
  }

  /** A new lifetime for every Event, counted from its last write (an Event already older than it expires now). */
  setTtl(ttlMs: number): void {
    this.ttl = ttlMs;
    for (const [key, lease] of this.leases) {
      clearTimeout(lease.timer);
      lease.timer = this.expireLater(key, lease);
    }
  }

  close(): void {
    this.unsubscribe();
    for (const lease of this.leases.values()) clearTimeout(lease.timer);
    this.leases.clear();
  }

  private lease(event: KubeObject, writtenAt: number): void {
    const key = keyOf(event);
    this.forget(key);
    const lease: Lease = { writtenAt, resourceVersion: event.metadata.resourceVersion };
    lease.timer = this.expireLater(key, lease);
    this.leases.set(key, lease);
  }

  private expireLater(key: string, lease: Lease): NodeJS.Timeout {
    const left = Math.max(0, lease.writtenAt + this.ttl - performance.now());
    const timer = setTimeout(() => this.expire(key, lease), left);
    timer.unref();
    return timer;
  }

  private expire(key: string, lease: Lease): void {
    if (this.leases.get(key) !== lease) return;
    this.leases.delete(key);
    const [namespace, name] = key.split('/') as [string, string];
    const current = this.store.get('events', namespace, name);
    if (current?.metadata.resourceVersion === lease.resourceVersion) this.store.delete('events', namespace, name);
  }

  private forget(key: string): void {
    const lease = this.leases.get(key);
    if (lease === undefined) return;
    clearTimeout(lease.timer);
    this.leases.delete(key);
  }
}

function keyOf(event: KubeObject): string {
  return `${event.metadata.namespace}/${event.metadata.name}`;
}
