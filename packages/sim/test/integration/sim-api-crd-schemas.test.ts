// The API server against the installed CRDs: structural pruning (apiextensions-apiserver
// pkg/apiserver/schema/pruning/algorithm.go, pkg/apiserver/customresource_handler.go), fieldValidation Warn / Strict /
// Ignore (k8s.io/apiserver pkg/endpoints/handlers/patch.go, create.go), dryRun=All, the CRDs' own admission (no
// minimum on parallelism or replicas; the flinkVersion enum of the release), and the CRDs served as objects.
import { afterEach, describe, expect, it } from 'vitest';
import { startSimCluster, type SimCluster } from '../../src/kube/cluster.js';
import type { KubeObject } from '../../src/kube/store.js';
import type { OperatorVersion } from '../../src/kube/versions.js';
import { waitFor, waitStable } from '../support/sim.js';
import { deployment } from '../support/sim-resources.js';

const NS = 'streaming-dev';
const PATH = `/apis/flink.apache.org/v1beta1/namespaces/${NS}/flinkdeployments`;
const RESOURCES_PATCH = { spec: { taskManager: { resources: { requests: { memory: '4Gi' } } } } };

let cluster: SimCluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

async function start(crdVersion: OperatorVersion): Promise<SimCluster> {
  cluster = await startSimCluster({ seed: 'none', speed: 'fast', crdVersion });
  return cluster;
}

interface Reply {
  status: number;
  body: Record<string, unknown>;
  warnings: string | null;
}

async function send(method: string, path: string, body?: unknown, type = 'application/merge-patch+json') {
  const response = await fetch(`${cluster?.url}${path}`, {
    method,
    headers: { 'Content-Type': type },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
    warnings: response.headers.get('warning'),
  } satisfies Reply;
}

async function running(sim: SimCluster, name = 'orders'): Promise<KubeObject> {
  sim.store.create('flinkdeployments', deployment(name, NS));
  return waitStable(sim.store, NS, name);
}

describe('unknown fields are pruned (pruning/algorithm.go), as fieldValidation says', () => {
  it('Warn (the default): 200, a 299 Warning naming the field, nothing stored, no generation, no managedFields', async () => {
    const sim = await start('1.15');
    const before = await running(sim);
    const reply = await send('PATCH', `${PATH}/orders`, RESOURCES_PATCH);
    expect(reply.status).toBe(200);
    expect(reply.warnings).toBe('299 - "unknown field \\"spec.taskManager.resources\\""');
    const stored = sim.store.get('flinkdeployments', NS, 'orders');
    expect(stored?.spec?.taskManager).toEqual(before.spec?.taskManager);
    expect(stored?.metadata.generation).toBe(before.metadata.generation);
    expect(JSON.stringify(stored?.metadata.managedFields ?? [])).not.toContain('resources');
  });

  it('Strict on a patch: 422 on the patched object (patch.go), nothing written', async () => {
    const sim = await start('1.15');
    const before = await running(sim);
    const reply = await send('PATCH', `${PATH}/orders?fieldValidation=Strict`, RESOURCES_PATCH);
    expect(reply.status).toBe(422);
    expect(reply.body).toMatchObject({ reason: 'Invalid', details: { causes: [{ field: 'patch' }] } });
    expect(reply.body.message).toMatch(/^ "" is invalid: patch: Invalid value: ".*": strict decoding error: /);
    expect(reply.body.message).toContain('unknown field "spec.taskManager.resources"');
    expect(sim.store.get('flinkdeployments', NS, 'orders')?.spec).toEqual(before.spec);
  });

  it('Strict on a create: 400, the body cannot be handled (create.go); Ignore: pruned without a word', async () => {
    await start('1.15');
    const object = deployment('audit', NS);
    (object.spec as Record<string, unknown>).surprise = true;
    const strict = await send('POST', `${PATH}?fieldValidation=Strict`, object, 'application/json');
    expect(strict).toMatchObject({ status: 400, body: { reason: 'BadRequest' } });
    expect(strict.body.message).toBe(
      'FlinkDeployment in version "v1beta1" cannot be handled as a FlinkDeployment: strict decoding error: unknown field "spec.surprise"',
    );
    const ignored = await send('POST', `${PATH}?fieldValidation=Ignore`, object, 'application/json');
    expect(ignored.status).toBe(201);
    expect(ignored.warnings).toBeNull();
    expect((ignored.body.spec as Record<string, unknown>).surprise).toBeUndefined();
  });

  it('fields under x-kubernetes-preserve-unknown-fields and maps are kept; an empty declared object loses its content', async () => {
    const sim = await start('1.15');
    await running(sim);
    const reply = await send('PATCH', `${PATH}/orders`, {
      spec: {
        flinkConfiguration: { 'any.key': 'x', nested: { key: 1 } },
        logConfiguration: { 'log4j.properties': 'y' },
      },
    });
    expect(reply.warnings).toBeNull();
    expect(reply.body.spec).toMatchObject({
      flinkConfiguration: { 'any.key': 'x', nested: { key: 1 } },
      logConfiguration: { 'log4j.properties': 'y' },
    });
  });

  it('an API server before 1.25 (fieldValidation: false) ignores Strict and prunes without a word', async () => {
    cluster = await startSimCluster({ seed: 'none', speed: 'fast', fieldValidation: false });
    const before = await running(cluster);
    const reply = await send('PATCH', `${PATH}/orders?fieldValidation=Strict`, RESOURCES_PATCH);
    expect(reply.status).toBe(200);
    expect(reply.warnings).toBeNull();
    expect((reply.body.spec as { taskManager: unknown }).taskManager).toEqual(before.spec?.taskManager);
  });

  it('a 1.16 CRD declares taskManager.resources: stored, generation moves', async () => {
    const sim = await start('1.16');
    const before = await running(sim);
    const reply = await send('PATCH', `${PATH}/orders?fieldValidation=Strict`, RESOURCES_PATCH);
    expect(reply.status).toBe(200);
    expect(reply.warnings).toBeNull();
    expect(reply.body.metadata).toMatchObject({ generation: (before.metadata.generation ?? 0) + 1 });
    expect(sim.store.get('flinkdeployments', NS, 'orders')?.spec?.taskManager).toMatchObject({
      resources: { requests: { memory: '4Gi' } },
    });
  });
});

describe('dryRun=All: validated and answered as if written, nothing persisted', () => {
  it('a patch answers the new generation; the stored object, its resourceVersion and the watch history do not move', async () => {
    const sim = await start('1.15');
    const before = await running(sim);
    const rv = Number(sim.store.resourceVersion);
    const reply = await send('PATCH', `${PATH}/orders?dryRun=All`, { spec: { job: { parallelism: 6 } } });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      spec: { job: { parallelism: 6 } },
      metadata: { generation: (before.metadata.generation ?? 0) + 1, resourceVersion: before.metadata.resourceVersion },
    });
    const ours = sim.store.changesSince(rv).filter((c) => c.object.metadata.name === 'orders');
    expect(ours.filter((c) => c.object.metadata.generation !== before.metadata.generation)).toEqual([]);
    expect(sim.store.get('flinkdeployments', NS, 'orders')?.spec?.job).toMatchObject({ parallelism: 2 });
    const invalid = await send('PATCH', `${PATH}/orders?dryRun=All`, { spec: { job: { state: 'paused' } } });
    expect(invalid.status).toBe(422);
  });

  it('dryRun with Strict is the capability probe without RBAC on CRDs: 1.15 refuses, nothing written', async () => {
    const sim = await start('1.15');
    await running(sim);
    const before = sim.store.get('flinkdeployments', NS, 'orders');
    const reply = await send('PATCH', `${PATH}/orders?dryRun=All&fieldValidation=Strict`, RESOURCES_PATCH);
    expect(reply.status).toBe(422);
    expect(sim.store.get('flinkdeployments', NS, 'orders')?.spec).toEqual(before?.spec);
  });
});

describe("the CRDs' own admission", () => {
  it('parallelism 0 is admitted (the CRD has no minimum); the operator then refuses it (DefaultValidator.validateJobSpec)', async () => {
    const sim = await start('1.15');
    await running(sim);
    const reply = await send('PATCH', `${PATH}/orders`, { spec: { job: { parallelism: 0 } } });
    expect(reply.status).toBe(200);
    const status = await waitFor(sim.store, () => {
      const error = sim.store.get('flinkdeployments', NS, 'orders')?.status?.error;
      return typeof error === 'string' && error.includes('Job parallelism must be larger than 0') ? error : undefined;
    });
    expect(status).toContain('Job parallelism must be larger than 0');
    const replicas = await send('PATCH', `${PATH}/orders`, { spec: { taskManager: { replicas: 0 } } });
    expect(replicas.status).toBe(200);
    const events = sim.store.list('events', NS).filter((e) => e.reason === 'ValidationError');
    expect(events.map((e) => e.message)).toContainEqual(
      expect.stringContaining('Job parallelism must be larger than 0'),
    );
  });

  it.each([
    ['1.15', 422],
    ['1.16', 200],
  ] as const)('flinkVersion v2_3 on a %s CRD: %i (the enum of the release)', async (crd, code) => {
    const sim = await start(crd);
    await running(sim);
    const reply = await send('PATCH', `${PATH}/orders`, { spec: { flinkVersion: 'v2_3' } });
    expect(reply.status).toBe(code);
    if (code === 422) expect(reply.body.message).toContain('spec.flinkVersion: Unsupported value: "v2_3"');
  });
});

describe('the installed CRDs as apiextensions.k8s.io/v1 objects', () => {
  const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
  type Crd = {
    spec: {
      versions: {
        schema: { openAPIV3Schema: Record<string, unknown> };
        additionalPrinterColumns: { description?: string }[];
      }[];
    };
  };
  const taskManager = (crd: Crd) =>
    (crd.spec.versions[0]?.schema.openAPIV3Schema as { properties: { spec: { properties: Record<string, unknown> } } })
      .properties.spec.properties.taskManager as { properties: Record<string, unknown> };

  it('1.15: list and get, no resources, column descriptions; 1.16: resources, v2_4, no descriptions', async () => {
    const old115 = await start('1.15');
    const list = await send('GET', CRDS);
    expect((list.body.items as { metadata: { name: string } }[]).map((i) => i.metadata.name).sort()).toEqual([
      'flinkbluegreendeployments.flink.apache.org',
      'flinkdeployments.flink.apache.org',
      'flinksessionjobs.flink.apache.org',
      'flinkstatesnapshots.flink.apache.org',
    ]);
    const old = (await send('GET', `${CRDS}/flinkdeployments.flink.apache.org`)).body as unknown as Crd;
    expect(taskManager(old).properties.resources).toBeUndefined();
    expect(old.spec.versions[0]?.additionalPrinterColumns[0]?.description).toBe('Last observed state of the job.');
    await old115.close();
    await start('1.16');
    const fresh = (await send('GET', `${CRDS}/flinkdeployments.flink.apache.org`)).body as unknown as Crd;
    expect(taskManager(fresh).properties.resources).toBeDefined();
    expect(JSON.stringify(fresh)).toContain('"v2_4"');
    expect(fresh.spec.versions[0]?.additionalPrinterColumns[0]?.description).toBeUndefined();
    expect((await send('GET', `${CRDS}/nosuch.flink.apache.org`)).status).toBe(404);
  });

  it('a watch gets the four as ADDED, then a MODIFIED each when the CRDs are upgraded, and the new pruning applies', async () => {
    const sim = await start('1.15');
    const response = await fetch(`${sim.url}${CRDS}?watch=true`);
    const reader = response.body?.getReader();
    if (!reader) throw new Error('no body');
    const events: { type: string; object: { metadata: { resourceVersion: string } } }[] = [];
    let text = '';
    const until = async (count: number) => {
      while (events.length < count) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`the watch ended after ${events.length} events`);
        text += new TextDecoder().decode(value);
        const lines = text.split('\n');
        text = lines.pop() ?? '';
        for (const line of lines) if (line.trim() !== '') events.push(JSON.parse(line) as (typeof events)[number]);
      }
    };
    await until(4);
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'ADDED', 'ADDED', 'ADDED']);
    sim.crds.install('1.16');
    await until(8);
    expect(events.slice(4).map((e) => [e.type, e.object.metadata.resourceVersion])).toEqual(
      Array.from({ length: 4 }, () => ['MODIFIED', '116']),
    );
    await reader.cancel();
    await running(sim);
    expect((await send('PATCH', `${PATH}/orders?fieldValidation=Strict`, RESOURCES_PATCH)).status).toBe(200);
  });
});
