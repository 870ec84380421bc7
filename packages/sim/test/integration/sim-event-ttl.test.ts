// Events expire as kube-apiserver's do (`--event-ttl`, default 1 h: kubernetes/kubernetes
// cmd/kube-apiserver/app/options/options.go EventTTL; the lease is renewed on each write of the same Event), read
// through the real client-node: gone from list and get, DELETED for watchers.
import { afterEach, describe, expect, it } from 'vitest';
import { EVENT_TTL_MS, EventExpiry } from '../../src/kube/event-ttl.js';
import { COMPONENTS, EVENT_TYPES, recordEvent } from '../../src/kube/events.js';
import type { KubeObject } from '../../src/kube/store.js';
import { apiFailure, collectWatch, flinkDeployment, startSimApi, type SimApi } from '../support/kube.js';

const NS = 'streaming-prod';
const EVENTS = `/api/v1/namespaces/${NS}/events`;
let sim: SimApi | undefined;
let expiry: EventExpiry | undefined;

afterEach(async () => {
  expiry?.close();
  await sim?.close();
  sim = expiry = undefined;
});

async function started(): Promise<{ s: SimApi; job: KubeObject; expiry: EventExpiry }> {
  sim = await startSimApi();
  expiry = new EventExpiry(sim.store);
  const job = sim.store.create('flinkdeployments', flinkDeployment('orders', NS));
  return { s: sim, job, expiry };
}

function warn(s: SimApi, job: KubeObject, message: string): KubeObject {
  const input = { type: EVENT_TYPES.warning, reason: 'JobException', component: COMPONENTS.job } as const;
  return recordEvent(s.store, { ...input, involved: job, message });
}

describe('Event TTL (kube-apiserver --event-ttl, options.go EventTTL)', () => {
  it('defaults to one hour', async () => {
    const { expiry } = await started();
    expect(EVENT_TTL_MS).toBe(3_600_000);
    expect(expiry.ttlMs).toBe(3_600_000);
  });

  it('an Event past its TTL is gone from list and get, and watchers get it DELETED', async () => {
    const { s, job, expiry } = await started();
    const event = warn(s, job, 'java.lang.RuntimeException: boom');
    const w = await collectWatch(s.watch, EVENTS);
    expect((await w.next(1)).map((e) => e.type)).toEqual(['ADDED']);
    expiry.setTtl(50);
    const [gone] = await w.next(1);
    expect(gone?.type).toBe('DELETED');
    expect(gone?.object.metadata.name).toBe(event.metadata.name);
    w.abort();
    expect((await s.core.listNamespacedEvent({ namespace: NS })).items).toEqual([]);
    const failure = await apiFailure(() => s.core.readNamespacedEvent({ name: event.metadata.name, namespace: NS }));
    expect(failure.code).toBe(404);
  });

  it('each write of the same Event renews its lease: a repeat outlives an Event written before it', async () => {
    const { s, job, expiry } = await started();
    const first = warn(s, job, 'java.lang.RuntimeException: first');
    const second = warn(s, job, 'java.lang.RuntimeException: second');
    const w = await collectWatch(s.watch, EVENTS);
    await w.next(2);
    // The operator sees the first exception again: count 2, lastTimestamp now, lease renewed.
    warn(s, job, 'java.lang.RuntimeException: first');
    expect((await w.next(1)).map((e) => e.type)).toEqual(['MODIFIED']);
    expiry.setTtl(200);
    const deleted = await w.next(2, 5_000);
    expect(deleted.map((e) => `${e.type} ${e.object.metadata.name} ${String(e.object.count)}`)).toEqual([
      `DELETED ${second.metadata.name} 1`,
      `DELETED ${first.metadata.name} 2`,
    ]);
    w.abort();
  });
});
