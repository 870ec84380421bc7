// The FlinkClient adapter over the real @kubernetes/client-node, against the simulated API server over HTTP.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClientNodeFlinkClient } from '../../src/kube/client-node.js';
import { KubeError } from '../../src/kube/errors.js';
import { WatchHub, type WatchEventType } from '../../src/kube/watch-hub.js';
import type { KubeObject } from '../../src/kube/flink-client.js';
import type { KubeObject as StoredObject } from '@flink-chatops/sim/kube/store';
import type { Target } from '../../src/domain/model/target.js';
import { flinkDeployment, kubeConfigFor, startSimApi, type SimApi } from '@flink-chatops/sim/testing/kube';

const NS = 'streaming-dev';
const target: Target = { kind: 'FlinkDeployment', namespace: NS, name: 'orders' };

let sim: SimApi;
let client: ClientNodeFlinkClient;
const calls: { method: string; resource: string; status: number }[] = [];

beforeEach(async () => {
  sim = await startSimApi();
  calls.length = 0;
  client = new ClientNodeFlinkClient(kubeConfigFor(sim.server.url), { timeoutMs: 2000, onCall: (c) => calls.push(c) });
  sim.store.create('flinkdeployments', flinkDeployment('orders', NS));
});
afterEach(async () => {
  await sim.close();
});

async function failure(call: () => Promise<unknown>): Promise<KubeError> {
  const error = await call().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(KubeError);
  return error as KubeError;
}

describe('ClientNodeFlinkClient', () => {
  it('gets an object, and undefined for one that does not exist', async () => {
    const found = await client.get('FlinkDeployment', NS, 'orders');
    expect(found?.metadata.name).toBe('orders');
    expect(found?.metadata.uid).toBeTruthy();
    expect(await client.get('FlinkDeployment', NS, 'missing')).toBeUndefined();
    expect(calls.map((c) => c.status)).toEqual([200, 404]);
  });

  it('lists summaries as the server-side Table of the printer columns, the same as the full objects say', async () => {
    sim.store.create('flinkdeployments', flinkDeployment('payments', NS));
    sim.store.update(
      'flinkdeployments',
      NS,
      'orders',
      (o: StoredObject) => ({ ...o, status: { lifecycleState: 'STABLE', jobStatus: { state: 'RUNNING' } } }),
      { subresource: 'status' },
    );
    const tables: string[] = [];
    const off = sim.server.onRequest((info) => tables.push(String(info.verb)));
    const summaries = await client.listSummaries('FlinkDeployment', NS);
    off();
    expect(summaries).toEqual([
      { name: 'orders', lifecycleState: 'STABLE', jobState: 'RUNNING' },
      { name: 'payments' },
    ]);
    expect(tables).toEqual(['list']);
    expect(await client.listSummaries('FlinkSessionJob', NS)).toEqual([]);
  });

  it('sends a JSON merge patch: nested fields merge, annotations are added, generation moves', async () => {
    const before = sim.store.get('flinkdeployments', NS, 'orders') as KubeObject;
    const patched = await client.mergePatch(
      target,
      { metadata: { annotations: { 'flink-chatops/operation-id': 'op-abc123' } }, spec: { job: { parallelism: 6 } } },
      before.metadata.resourceVersion as string,
    );
    const job = patched.spec?.job as Record<string, unknown>;
    expect(job.parallelism).toBe(6);
    expect(job.upgradeMode).toBe('savepoint');
    expect(job.jarURI).toBeTruthy();
    expect(patched.metadata.annotations?.['flink-chatops/operation-id']).toBe('op-abc123');
    expect(patched.metadata.generation).toBe((before.metadata.generation ?? 0) + 1);
  });

  it('refuses a stale resourceVersion with a conflict and applies nothing', async () => {
    const stale = sim.store.get('flinkdeployments', NS, 'orders')?.metadata.resourceVersion as string;
    sim.store.update('flinkdeployments', NS, 'orders', (o) => ({ ...o, status: { lifecycleState: 'STABLE' } }), {
      subresource: 'status',
    });
    const error = await failure(() => client.mergePatch(target, { spec: { job: { parallelism: 9 } } }, stale));
    expect(error.code).toBe('conflict');
    expect(error.outcomeUnknown).toBe(false);
    expect((sim.store.get('flinkdeployments', NS, 'orders')?.spec?.job as { parallelism: number }).parallelism).toBe(2);
  });

  it('reports 422 as invalid with the server message', async () => {
    const rv = sim.store.get('flinkdeployments', NS, 'orders')?.metadata.resourceVersion as string;
    const error = await failure(() => client.mergePatch(target, { spec: { job: { state: 'paused' } } }, rv));
    expect(error.code).toBe('invalid');
    expect(error.message).toContain('spec.job.state');
  });

  it('a lost response is a network failure whose outcome is unknown — and the write was applied', async () => {
    sim.server.faults.inject({ kind: 'lose-response', verb: 'patch', name: 'orders' });
    const rv = sim.store.get('flinkdeployments', NS, 'orders')?.metadata.resourceVersion as string;
    const error = await failure(() => client.mergePatch(target, { spec: { job: { parallelism: 5 } } }, rv));
    expect(error.code).toBe('network');
    expect(error.outcomeUnknown).toBe(true);
    expect((sim.store.get('flinkdeployments', NS, 'orders')?.spec?.job as { parallelism: number }).parallelism).toBe(5);
  });

  it('a 500 is a server error (outcome unknown); a slow answer past the deadline is a timeout; a cancel is aborted', async () => {
    sim.server.faults.inject({ kind: 'error-500', verb: 'get' });
    expect((await failure(() => client.get('FlinkDeployment', NS, 'orders'))).code).toBe('server-error');

    sim.server.faults.inject({ kind: 'delay', verb: 'get', ms: 1500 });
    const timedOut = await failure(() => client.get('FlinkDeployment', NS, 'orders', { timeoutMs: 200 }));
    expect(timedOut.code).toBe('timeout');
    expect(timedOut.outcomeUnknown).toBe(true);

    sim.server.faults.inject({ kind: 'delay', verb: 'get', ms: 1500 });
    const controller = new AbortController();
    const pending = failure(() => client.get('FlinkDeployment', NS, 'orders', { signal: controller.signal }));
    controller.abort();
    expect((await pending).code).toBe('aborted');
  });

  it('a forbidden namespace is forbidden, with the RBAC message', async () => {
    sim.server.faults.forbidNamespace('streaming-prod');
    const error = await failure(() => client.list('FlinkDeployment', 'streaming-prod'));
    expect(error.code).toBe('forbidden');
    expect(error.message).toMatch(/cannot list resource "flinkdeployments"/);
  });

  it('creates a snapshot; a second create is already-exists', async () => {
    const snapshot = {
      apiVersion: 'flink.apache.org/v1beta1',
      kind: 'FlinkStateSnapshot',
      metadata: { name: 'orders-op-abc123', namespace: NS, annotations: { 'flink-chatops/operation-id': 'op-abc123' } },
      spec: {
        jobReference: { kind: 'FlinkDeployment', name: 'orders' },
        savepoint: { disposeOnDelete: false },
        backoffLimit: 2,
      },
    };
    const created = await client.createSnapshot(NS, snapshot);
    expect(created.metadata.uid).toBeTruthy();
    expect((await failure(() => client.createSnapshot(NS, snapshot))).code).toBe('already-exists');
    expect(
      (await client.get('FlinkStateSnapshot', NS, 'orders-op-abc123'))?.metadata.annotations?.[
        'flink-chatops/operation-id'
      ],
    ).toBe('op-abc123');
  });

  it('lists events by involved object uid, and the namespaces', async () => {
    const orders = sim.store.get('flinkdeployments', NS, 'orders') as KubeObject;
    const involved = { apiVersion: 'flink.apache.org/v1beta1', kind: 'FlinkDeployment', name: 'orders', namespace: NS };
    sim.store.create('events', event('a', { ...involved, uid: orders.metadata.uid }));
    sim.store.create('events', event('b', { ...involved, uid: 'someone-else' }));
    const events = await client.listEvents(NS, orders.metadata.uid as string);
    expect(events.map((e) => e.metadata.name)).toEqual(['orders.a']);
    expect(await client.listNamespaces()).toContain(NS);
  });
});

function event(suffix: string, involvedObject: Record<string, unknown>): StoredObject {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: `orders.${suffix}`, namespace: NS },
    involvedObject,
    reason: 'SpecChanged',
    type: 'Normal',
    message: 'UPGRADE change(s) detected',
    count: 1,
  } as StoredObject;
}

describe('WatchHub', () => {
  /** Records what a subscriber sees; `until` resolves as soon as a delivery makes the predicate true. */
  function collector() {
    const seen: { type: WatchEventType; name: string; rv: string }[] = [];
    const waiters: { predicate: () => boolean; resolve: () => void }[] = [];
    const listener = (type: WatchEventType, o: KubeObject) => {
      seen.push({ type, name: o.metadata.name, rv: o.metadata.resourceVersion ?? '' });
      for (const w of [...waiters]) {
        if (!w.predicate()) continue;
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    };
    const until = (predicate: () => boolean) =>
      predicate() ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ predicate, resolve }));
    return { seen, listener, until };
  }

  it('shares one watch per namespace and kind, delivers the list then changes, and resumes after a broken stream', async () => {
    const hub = new WatchHub({
      kubeConfig: kubeConfigFor(sim.server.url),
      list: (k, ns) => client.listCollection(k, ns),
      retryMs: 20,
    });
    const a = collector();
    const b = collector();
    await hub.subscribe('FlinkDeployment', NS, a.listener);
    await hub.subscribe('FlinkDeployment', NS, b.listener);
    expect(a.seen).toEqual([expect.objectContaining({ type: 'RELISTED', name: 'orders' })]);
    expect(hub.stats()).toHaveLength(1);

    sim.store.create('flinkdeployments', flinkDeployment('payments', NS));
    await b.until(() => b.seen.some((s) => s.name === 'payments'));
    expect(a.seen.at(-1)).toMatchObject({ type: 'ADDED', name: 'payments' });

    sim.server.faults.closeWatches();
    sim.store.update('flinkdeployments', NS, 'payments', (o) => ({ ...o, spec: { ...o.spec, image: 'flink:1.20.1' } }));
    await a.until(() => a.seen.some((s) => s.type === 'MODIFIED'));
    expect(a.seen.filter((s) => s.type === 'MODIFIED')).toHaveLength(1);
    expect(hub.stats()[0]?.opened).toBeGreaterThanOrEqual(2);
    expect(hub.stats()[0]?.relists).toBe(1);
    hub.close();
  });

  it('relists on 410 Gone and still delivers every later change', async () => {
    const hub = new WatchHub({
      kubeConfig: kubeConfigFor(sim.server.url),
      list: (k, ns) => client.listCollection(k, ns),
      retryMs: 20,
    });
    const a = collector();
    await hub.subscribe('FlinkDeployment', NS, a.listener);
    sim.server.faults.expireNextWatch();
    sim.server.faults.closeWatches();
    await a.until(() => a.seen.filter((s) => s.type === 'RELISTED').length === 2);
    expect(hub.stats()[0]?.relists).toBe(2);
    sim.store.create('flinkdeployments', flinkDeployment('clicks', NS));
    await a.until(() => a.seen.some((s) => s.name === 'clicks'));
    expect(a.seen.filter((s) => s.type === 'RELISTED').map((s) => s.name)).toEqual(['orders', 'orders']);
    hub.close();
  });

  it('with sharedReads, concurrent gets of one object make one request; an aborted caller leaves the others theirs', async () => {
    const shared = new ClientNodeFlinkClient(kubeConfigFor(sim.server.url), {
      timeoutMs: 2000,
      sharedReads: true,
      onCall: (c) => calls.push(c),
    });
    const gone = new AbortController();
    const reads = Array.from({ length: 20 }, () => shared.get('FlinkDeployment', NS, 'orders'));
    const mine = shared.get('FlinkDeployment', NS, 'orders', { signal: gone.signal });
    gone.abort(new Error('the request went away'));
    await expect(mine).rejects.toThrow('the request went away');
    const objects = await Promise.all(reads);
    expect(objects.every((o) => o?.metadata.name === 'orders')).toBe(true);
    expect(calls.filter((c) => c.method === 'get')).toHaveLength(1);
    // Nothing is kept: a read after the answer is a request of its own.
    await shared.get('FlinkDeployment', NS, 'orders');
    expect(calls.filter((c) => c.method === 'get')).toHaveLength(2);
  });
});
