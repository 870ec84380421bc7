// The simulated API server through the real @kubernetes/client-node: discovery, CRUD, resourceVersion and generation, patches, status.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  apiFailure,
  crPath,
  eventFor as event,
  fetchSim,
  flinkDeployment,
  JSON_PATCH,
  MERGE_PATCH,
  startSimApi,
  STRATEGIC_MERGE_PATCH,
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
const mergePatch = (name: string, body: unknown) =>
  sim.custom.patchNamespacedCustomObject({ ...fd, name, body }, MERGE_PATCH) as Promise<KubeObject>;

const fetchJson = (path: string, init: RequestInit = {}) => fetchSim(sim.server.url, path, init);

describe('discovery', () => {
  it('reports a v1.31 server and the flink.apache.org/v1beta1 resources with their status subresources', async () => {
    const version = await fetchJson('/version');
    expect(version.body).toMatchObject({ major: '1', minor: '31' });
    expect(String(version.body.gitVersion)).toMatch(/^v1\.31\./);
    const groups = await fetchJson('/apis');
    expect(groups.body).toMatchObject({
      kind: 'APIGroupList',
      groups: [{ name: 'flink.apache.org', preferredVersion: { version: 'v1beta1' } }],
    });
    const list = await fetchJson('/apis/flink.apache.org/v1beta1');
    const resources = list.body.resources as {
      name: string;
      shortNames?: string[];
      kind: string;
      namespaced: boolean;
    }[];
    const byName = new Map(resources.map((r) => [r.name, r]));
    for (const [plural, short] of [
      ['flinkdeployments', 'flinkdep'],
      ['flinksessionjobs', 'sessionjob'],
      ['flinkstatesnapshots', 'flinksnp'],
    ]) {
      expect(byName.get(plural as string)).toMatchObject({ namespaced: true, shortNames: [short] });
      expect(byName.has(`${plural}/status`)).toBe(true);
    }
    const core = await fetchJson('/api/v1');
    expect((core.body.resources as { name: string }[]).map((r) => r.name)).toEqual(
      expect.arrayContaining(['events', 'namespaces']),
    );
  });

  it('answers unknown paths with a 404 Status', async () => {
    const res = await fetchJson('/apis/apps/v1/namespaces/x/deployments');
    expect(res).toMatchObject({
      status: 404,
      body: { kind: 'Status', status: 'Failure', reason: 'NotFound', code: 404 },
    });
  });
});

describe('create, get, list, delete', () => {
  it('creates with server-set uid, creationTimestamp, generation 1 and refuses a duplicate with 409 AlreadyExists', async () => {
    const created = await create(flinkDeployment('orders', NS));
    expect(created.metadata).toMatchObject({ name: 'orders', namespace: NS, generation: 1 });
    expect(created.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.metadata.creationTimestamp).toMatch(/Z$/);
    expect((await get('orders')).spec).toEqual(created.spec);
    const dup = await apiFailure(() => create(flinkDeployment('orders', NS)));
    expect(dup).toMatchObject({ code: 409, status: { reason: 'AlreadyExists' } });
  });

  it('drops status on create (status subresource) and supports generateName', async () => {
    const input = flinkDeployment('', NS, { status: { lifecycleState: 'STABLE' } });
    input.metadata = { name: '', namespace: NS, generateName: 'orders-' };
    const created = await create(input);
    expect(created.metadata.name).toMatch(/^orders-[a-z0-9]{5}$/);
    expect(created.status).toBeUndefined();
  });

  it('lists per namespace and across namespaces, sorted by namespace and name', async () => {
    await create(flinkDeployment('b', NS));
    await create(flinkDeployment('a', NS));
    await create(flinkDeployment('c', 'streaming-dev'), crPath('streaming-dev'));
    const inNs = (await sim.custom.listNamespacedCustomObject(fd)) as {
      items: KubeObject[];
      metadata: { resourceVersion: string };
    };
    expect(inNs.items.map((o) => o.metadata.name)).toEqual(['a', 'b']);
    expect(inNs.metadata.resourceVersion).toBe(sim.store.resourceVersion);
    const all = (await sim.custom.listCustomObjectForAllNamespaces({
      group: fd.group,
      version: fd.version,
      plural: fd.plural,
    })) as {
      items: KubeObject[];
    };
    expect(all.items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`)).toEqual([
      'streaming-dev/c',
      `${NS}/a`,
      `${NS}/b`,
    ]);
  });

  it('deletes a custom resource answering with the object; the next get is 404', async () => {
    await create(flinkDeployment('orders', NS));
    const gone = (await sim.custom.deleteNamespacedCustomObject({ ...fd, name: 'orders' })) as KubeObject;
    expect(gone.metadata.name).toBe('orders');
    expect(await apiFailure(() => get('orders'))).toMatchObject({ code: 404, status: { reason: 'NotFound' } });
  });

  it.each([
    ['invalid name', { name: 'Orders_1' }, 'metadata.name'],
    ['no name', { name: '' }, 'metadata.name'],
  ])('refuses a create with %s (422)', async (_label, meta, field) => {
    const object = flinkDeployment('x', NS);
    object.metadata = { ...object.metadata, ...meta };
    const failure = await apiFailure(() => create(object));
    expect(failure.code).toBe(422);
    expect(failure.status.details?.causes?.map((c) => c.field)).toContain(field);
  });
});

describe('resourceVersion and generation', () => {
  it('one global, monotonic resourceVersion across resources; generation moves only when spec changes', async () => {
    const first = await create(flinkDeployment('orders', NS));
    const ev = await sim.core.createNamespacedEvent({ namespace: NS, body: event('e1', first, 'Submit') });
    const labelled = await mergePatch('orders', { metadata: { labels: { extra: 'yes' } } });
    const specChanged = await mergePatch('orders', { spec: { job: { parallelism: 4 } } });
    const statusOnly = (await sim.custom.patchNamespacedCustomObjectStatus(
      { ...fd, name: 'orders', body: { status: { lifecycleState: 'STABLE' } } },
      MERGE_PATCH,
    )) as KubeObject;
    const rvs = [first, ev, labelled, specChanged, statusOnly].map((o) => Number(o.metadata?.resourceVersion));
    expect(rvs).toEqual([...rvs].sort((x, y) => x - y));
    expect(new Set(rvs).size).toBe(rvs.length);
    expect([first, labelled, specChanged, statusOnly].map((o) => o.metadata.generation)).toEqual([1, 1, 2, 2]);
  });

  it('a patch that changes nothing keeps the resourceVersion', async () => {
    const created = await create(flinkDeployment('orders', NS));
    const same = await mergePatch('orders', { spec: { job: { parallelism: 2 } } });
    expect(same.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
  });
});

describe('patch', () => {
  beforeEach(async () => {
    await create(flinkDeployment('orders', NS));
  });

  it('merge patch (RFC 7386): nested merge, null removes', async () => {
    const patched = await mergePatch('orders', {
      spec: { job: { parallelism: 3, upgradeMode: null }, restartNonce: 7 },
    });
    expect(patched.spec?.job).toMatchObject({ parallelism: 3, state: 'running' });
    expect(patched.spec?.job).not.toHaveProperty('upgradeMode');
    expect(patched.spec?.restartNonce).toBe(7);
  });

  it('JSON patch (RFC 6902) with a passing test op applies; a failing test op applies nothing', async () => {
    const before = await get('orders');
    const ok = (await sim.custom.patchNamespacedCustomObject(
      {
        ...fd,
        name: 'orders',
        body: [
          { op: 'test', path: '/metadata/resourceVersion', value: before.metadata.resourceVersion },
          { op: 'replace', path: '/spec/job/parallelism', value: 6 },
          { op: 'add', path: '/metadata/annotations', value: { 'flink-chatops/operation-id': 'op-abc123' } },
        ],
      },
      JSON_PATCH,
    )) as KubeObject;
    expect(ok.spec?.job).toMatchObject({ parallelism: 6 });
    expect(ok.metadata.annotations).toEqual({ 'flink-chatops/operation-id': 'op-abc123' });
    const failed = await apiFailure(() =>
      sim.custom.patchNamespacedCustomObject(
        {
          ...fd,
          name: 'orders',
          body: [
            { op: 'test', path: '/spec/job/parallelism', value: 1 },
            { op: 'replace', path: '/spec/image', value: 'x' },
          ],
        },
        JSON_PATCH,
      ),
    );
    expect(failed.code).toBe(422);
    expect((await get('orders')).spec?.image).toBe('flink:1.20');
  });

  it('strategic merge patch is refused with 415 naming the supported types', async () => {
    const failed = await apiFailure(() =>
      sim.custom.patchNamespacedCustomObject({ ...fd, name: 'orders', body: { spec: {} } }, STRATEGIC_MERGE_PATCH),
    );
    expect(failed).toMatchObject({ code: 415, status: { reason: 'UnsupportedMediaType' } });
    expect(failed.status.message).toContain('application/merge-patch+json');
    expect(failed.status.message).toContain('application/json-patch+json');
  });

  it('a stale metadata.resourceVersion in the patch body is a 409 Conflict and nothing is applied', async () => {
    const before = await get('orders');
    await mergePatch('orders', { metadata: { labels: { bump: '1' } } });
    const conflict = await apiFailure(() =>
      mergePatch('orders', {
        metadata: { resourceVersion: before.metadata.resourceVersion },
        spec: { job: { parallelism: 9 } },
      }),
    );
    expect(conflict).toMatchObject({ code: 409, status: { reason: 'Conflict' } });
    expect(conflict.status.message).toContain('the object has been modified');
    const after = await get('orders');
    expect(after.spec?.job).toMatchObject({ parallelism: 2 });
    expect(after.metadata.generation).toBe(1);
    const current = await mergePatch('orders', {
      metadata: { resourceVersion: after.metadata.resourceVersion },
      spec: { job: { parallelism: 9 } },
    });
    expect(current.metadata.generation).toBe(2);
  });

  it.each([
    ['spec.job.state', { job: { state: 'paused' } }],
    ['spec.job.upgradeMode', { job: { upgradeMode: 'fast' } }],
    ['spec.job.parallelism', { job: { parallelism: 2.5 } }],
    ['spec.job.parallelism', { job: { parallelism: '4' } }],
    ['spec.restartNonce', { restartNonce: 'abc' }],
    ['spec.job.savepointRedeployNonce', { job: { savepointRedeployNonce: 1.5 } }],
    ['spec.image', { image: 42 }],
    ['spec.taskManager.replicas', { taskManager: { replicas: 1.5 } }],
    ['spec.job.allowNonRestoredState', { job: { allowNonRestoredState: 'yes' } }],
    ['spec.job.initialSavepointPath', { job: { initialSavepointPath: 5 } }],
  ])('422 Invalid with a cause for %s', async (field, spec) => {
    const failure = await apiFailure(() => mergePatch('orders', { spec }));
    expect(failure).toMatchObject({ code: 422, status: { reason: 'Invalid' } });
    expect(failure.status.details?.causes).toEqual([expect.objectContaining({ field, reason: 'FieldValueInvalid' })]);
    expect((await get('orders')).metadata.generation).toBe(1);
  });
});

describe('status subresource', () => {
  beforeEach(async () => {
    await create(flinkDeployment('orders', NS));
  });

  it('writes through /status change only status; the main path ignores status', async () => {
    const viaStatus = (await sim.custom.patchNamespacedCustomObjectStatus(
      { ...fd, name: 'orders', body: { spec: { image: 'evil:1' }, status: { lifecycleState: 'DEPLOYED' } } },
      MERGE_PATCH,
    )) as KubeObject;
    expect(viaStatus.status).toEqual({ lifecycleState: 'DEPLOYED' });
    expect(viaStatus.spec?.image).toBe('flink:1.20');
    const viaMain = await mergePatch('orders', { status: { lifecycleState: 'FAILED' } });
    expect(viaMain.status).toEqual({ lifecycleState: 'DEPLOYED' });
    const read = (await sim.custom.getNamespacedCustomObjectStatus({ ...fd, name: 'orders' })) as KubeObject;
    expect(read.status).toEqual({ lifecycleState: 'DEPLOYED' });
    expect(read.spec).toBeDefined();
  });

  it('PUT replaces spec (generation moves), keeps status, and honours the resourceVersion precondition', async () => {
    await sim.custom.patchNamespacedCustomObjectStatus(
      { ...fd, name: 'orders', body: { status: { lifecycleState: 'STABLE' } } },
      MERGE_PATCH,
    );
    const current = await get('orders');
    const body = { ...current, spec: { ...current.spec, image: 'flink:1.20.1' }, status: { lifecycleState: 'FAILED' } };
    const replaced = (await sim.custom.replaceNamespacedCustomObject({ ...fd, name: 'orders', body })) as KubeObject;
    expect(replaced.spec?.image).toBe('flink:1.20.1');
    expect(replaced.status).toEqual({ lifecycleState: 'STABLE' });
    expect(replaced.metadata.generation).toBe(2);
    const stale = await apiFailure(() => sim.custom.replaceNamespacedCustomObject({ ...fd, name: 'orders', body }));
    expect(stale).toMatchObject({ code: 409, status: { reason: 'Conflict' } });
    const statusPut = (await sim.custom.replaceNamespacedCustomObjectStatus({
      ...fd,
      name: 'orders',
      body: { ...replaced, spec: { image: 'ignored' }, status: { lifecycleState: 'UPGRADING' } },
    })) as KubeObject;
    expect(statusPut.status).toEqual({ lifecycleState: 'UPGRADING' });
    expect(statusPut.spec?.image).toBe('flink:1.20.1');
  });
});
