// The simulated API server through the real @kubernetes/client-node: selectors, snapshot validation, namespaces, bad input.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  apiFailure,
  crPath,
  eventFor as event,
  fetchSim,
  flinkDeployment,
  startSimApi,
  type SimApi,
} from '../support/kube.js';
import type { KubeObject } from '../../src/kube/store.js';

let sim: SimApi;
const NS = 'streaming-prod';
const fd = crPath(NS);

beforeEach(async () => {
  sim = await startSimApi();
});
afterEach(async () => {
  await sim.close();
});

const create = (object: KubeObject, path = fd) =>
  sim.custom.createNamespacedCustomObject({ ...path, body: object }) as Promise<KubeObject>;
const get = (name: string, path = fd) => sim.custom.getNamespacedCustomObject({ ...path, name }) as Promise<KubeObject>;

const fetchJson = (path: string, init: RequestInit = {}) => fetchSim(sim.server.url, path, init);

describe('label and field selectors', () => {
  beforeEach(async () => {
    const labelled: [string, Record<string, string>][] = [
      ['a', { tier: 'gold', team: 'pay' }],
      ['b', { tier: 'silver', team: 'pay' }],
      ['c', { tier: 'bronze' }],
    ];
    for (const [name, labels] of labelled)
      await create(flinkDeployment(name, NS, { metadata: { name, namespace: NS, labels } }));
  });

  it.each([
    ['tier=gold', ['a']],
    ['tier==silver', ['b']],
    ['tier!=gold', ['b', 'c']],
    ['tier in (gold, bronze)', ['a', 'c']],
    ['tier notin (gold)', ['b', 'c']],
    ['team', ['a', 'b']],
    ['!team', ['c']],
    ['team=pay,tier!=gold', ['b']],
    ['', ['a', 'b', 'c']],
  ])('labelSelector %j selects %j', async (labelSelector, expected) => {
    const list = (await sim.custom.listNamespacedCustomObject({ ...fd, labelSelector })) as { items: KubeObject[] };
    expect(list.items.map((o) => o.metadata.name)).toEqual(expected);
  });

  it('metadata.name field selector works on custom resources; other fields are refused with 400', async () => {
    const list = (await sim.custom.listNamespacedCustomObject({ ...fd, fieldSelector: 'metadata.name=b' })) as {
      items: KubeObject[];
    };
    expect(list.items.map((o) => o.metadata.name)).toEqual(['b']);
    const bad = await apiFailure(() =>
      sim.custom.listNamespacedCustomObject({ ...fd, fieldSelector: 'spec.image=flink:1.20' }),
    );
    expect(bad).toMatchObject({ code: 400, status: { reason: 'BadRequest' } });
    expect(bad.status.message).toContain('"spec.image" is not a known field selector');
  });

  it('a malformed label selector is a 400 with a message', async () => {
    const bad = await apiFailure(() => sim.custom.listNamespacedCustomObject({ ...fd, labelSelector: 'tier in gold' }));
    expect(bad.code).toBe(400);
    expect(bad.status.message).toMatch(/unable to parse requirement/);
  });

  it('events are filtered by involvedObject, type, reason and metadata fields', async () => {
    const a = await get('a');
    const b = await get('b');
    await sim.core.createNamespacedEvent({ namespace: NS, body: event('e1', a, 'SpecChanged') });
    await sim.core.createNamespacedEvent({ namespace: NS, body: event('e2', a, 'SavepointError', 'Warning') });
    await sim.core.createNamespacedEvent({ namespace: NS, body: event('e3', b, 'Submit') });
    const cases: [string, string[]][] = [
      [`involvedObject.uid=${a.metadata.uid}`, ['e1', 'e2']],
      ['involvedObject.name=b', ['e3']],
      ['involvedObject.kind=FlinkDeployment,type=Warning', ['e2']],
      ['reason=Submit', ['e3']],
      ['type!=Warning', ['e1', 'e3']],
      ['metadata.name=e1', ['e1']],
      [`metadata.namespace=${NS},involvedObject.apiVersion=flink.apache.org/v1beta1`, ['e1', 'e2', 'e3']],
    ];
    for (const [fieldSelector, expected] of cases) {
      const list = await sim.core.listNamespacedEvent({ namespace: NS, fieldSelector });
      expect(
        list.items.map((e) => e.metadata?.name),
        fieldSelector,
      ).toEqual(expected);
    }
    const all = await sim.core.listEventForAllNamespaces({ fieldSelector: 'reason=SpecChanged' });
    expect(all.items.map((e) => e.metadata?.name)).toEqual(['e1']);
    const bad = await apiFailure(() => sim.core.listNamespacedEvent({ namespace: NS, fieldSelector: 'message=x' }));
    expect(bad).toMatchObject({ code: 400, status: { message: 'field label not supported: message' } });
  });
});

describe('FlinkStateSnapshot validation', () => {
  const snap = crPath(NS, 'flinkstatesnapshots');
  const snapshot = (spec: Record<string, unknown>): KubeObject => ({
    apiVersion: 'flink.apache.org/v1beta1',
    kind: 'FlinkStateSnapshot',
    metadata: { name: 'orders-op-abc123', namespace: NS },
    spec,
  });
  const good = {
    jobReference: { kind: 'FlinkDeployment', name: 'orders' },
    backoffLimit: 2,
    savepoint: { disposeOnDelete: false },
  };

  it('accepts a savepoint snapshot as the bot creates it', async () => {
    const created = await create(snapshot(good), snap);
    expect(created.metadata.generation).toBe(1);
  });

  it.each([
    ['spec.jobReference.kind', { ...good, jobReference: { kind: 'Deployment', name: 'orders' } }],
    ['spec.jobReference.name', { ...good, jobReference: { kind: 'FlinkDeployment', name: 3 } }],
    ['spec.backoffLimit', { ...good, backoffLimit: 'two' }],
    ['spec.savepoint.disposeOnDelete', { ...good, savepoint: { disposeOnDelete: 'no' } }],
    ['spec.savepoint.alreadyExists', { ...good, savepoint: { alreadyExists: 1 } }],
    ['spec', { ...good, checkpoint: {} }],
    ['spec', { jobReference: good.jobReference }],
  ])('422 with a cause for %s', async (field, spec) => {
    const failure = await apiFailure(() => create(snapshot(spec), snap));
    expect(failure.code).toBe(422);
    expect(failure.status.details?.causes?.map((c) => c.field)).toEqual([field]);
  });
});

describe('namespaces', () => {
  it('lists namespaces of stored objects and declared ones; gets one; 404 for an unknown one', async () => {
    sim.store.ensureNamespace('streaming-dev');
    await create(flinkDeployment('orders', NS));
    const list = await sim.core.listNamespace();
    expect(list.items.map((n) => n.metadata?.name)).toEqual(['streaming-dev', NS]);
    const one = await sim.core.readNamespace({ name: NS });
    expect(one.status?.phase).toBe('Active');
    expect(await apiFailure(() => sim.core.readNamespace({ name: 'nope' }))).toMatchObject({ code: 404 });
  });
});

describe('robustness', () => {
  const path = `/apis/flink.apache.org/v1beta1/namespaces/${NS}/flinkdeployments`;

  it('bad JSON is a 400 Status', async () => {
    const res = await fetchJson(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"metadata":',
    });
    expect(res).toMatchObject({ status: 400, body: { kind: 'Status', reason: 'BadRequest' } });
  });

  it('a body over 3 MiB is a 413 Status', async () => {
    const big = JSON.stringify({ ...flinkDeployment('big', NS), pad: 'x'.repeat(3 * 1024 * 1024) });
    const res = await fetchJson(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: big });
    expect(res).toMatchObject({ status: 413, body: { reason: 'RequestEntityTooLarge' } });
    expect((await fetchJson('/version')).status).toBe(200);
  });

  it('a kind that does not match the URL is a 400', async () => {
    const res = await fetchJson(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ ...flinkDeployment('x', NS), kind: 'FlinkSessionJob' }),
    });
    expect(res).toMatchObject({ status: 400, body: { reason: 'BadRequest' } });
  });
});
