// The simulated cluster's pods (pods.ts, pod-logs.ts): a JobManager and ceil(parallelism / slots) TaskManagers per
// running FlinkDeployment, named and labelled as native Kubernetes deployments name them, gone on suspend and new after
// a redeploy; their logs in Flink's log4j layout tell what happened to the job, and kube's answers to `container`,
// `tailLines`, `limitBytes` and `previous` come back as kube gives them.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSimCluster, type SimCluster } from '../../src/kube/cluster.js';
import { PLANTED_SECRETS } from '../../src/kube/pod-logs.js';
import { SCENARIO_ANNOTATION } from '../../src/kube/scenarios.js';
import { editSpec, waitFor, waitStable } from '../support/sim.js';
import { deployment } from '../support/sim-resources.js';

const NS = 'streaming-dev';
let cluster: SimCluster;

beforeEach(async () => {
  cluster = await startSimCluster({ seed: 'none', speed: 'fast' });
});
afterEach(async () => {
  await cluster.close();
});

interface Pod {
  metadata: { name: string; labels: Record<string, string> };
  spec: { containers: { name: string }[] };
  status: { phase: string };
}

async function get(path: string): Promise<{ status: number; type: string; text: string }> {
  const response = await fetch(`${cluster.url}${path}`);
  return { status: response.status, type: response.headers.get('content-type') ?? '', text: await response.text() };
}

async function pods(selector: string): Promise<Pod[]> {
  const answer = await get(`/api/v1/namespaces/${NS}/pods?labelSelector=${encodeURIComponent(selector)}`);
  expect(answer.status).toBe(200);
  return (JSON.parse(answer.text) as { items: Pod[] }).items;
}

async function log(pod: string, query = ''): Promise<string> {
  const answer = await get(`/api/v1/namespaces/${NS}/pods/${pod}/log${query}`);
  expect(answer.status, answer.text).toBe(200);
  expect(answer.type).toMatch(/^text\/plain/);
  return answer.text;
}

async function running(name: string, options: Parameters<typeof deployment>[2] = {}) {
  cluster.store.create('flinkdeployments', deployment(name, NS, options));
  await waitStable(cluster.store, NS, name);
}

const jobManagerOf = async (name: string) => (await pods(`app=${name},component=jobmanager`))[0] as Pod;

describe('pods of a running FlinkDeployment', () => {
  it('one JobManager and ceil(parallelism / task slots) TaskManagers, labelled as the operator labels them', async () => {
    await running('orders', { parallelism: 5 });
    const all = await pods('app=orders,type=flink-native-kubernetes');
    const jm = all.filter((p) => p.metadata.labels.component === 'jobmanager');
    const tms = all.filter((p) => p.metadata.labels.component === 'taskmanager').map((p) => p.metadata.name);
    expect(jm.map((p) => p.metadata.name)).toEqual([expect.stringMatching(/^orders-[a-z0-9]{10}-[a-z0-9]{5}$/)]);
    expect(tms.sort()).toEqual(['orders-taskmanager-1-1', 'orders-taskmanager-1-2', 'orders-taskmanager-1-3']);
    for (const pod of all) {
      expect(pod.spec.containers.map((c) => c.name)).toEqual(['flink-main-container']);
      expect(pod.status.phase).toBe('Running');
    }
    expect(await pods('app=payments')).toEqual([]);
    const one = await get(`/api/v1/namespaces/${NS}/pods/orders-taskmanager-1-2`);
    expect(JSON.parse(one.text)).toMatchObject({ kind: 'Pod', metadata: { name: 'orders-taskmanager-1-2' } });
  });

  it('a suspend removes them; the resume brings a new JobManager pod', async () => {
    await running('orders');
    const before = (await jobManagerOf('orders')).metadata.name;
    editSpec(cluster.store, 'flinkdeployments', NS, 'orders', (spec) => void (spec.job.state = 'suspended'));
    await waitFor(
      cluster.store,
      () => cluster.pods.list(NS, 'app=orders').length === 0,
      5000,
      'pods gone after suspend',
    );
    editSpec(cluster.store, 'flinkdeployments', NS, 'orders', (spec) => void (spec.job.state = 'running'));
    await waitStable(cluster.store, NS, 'orders');
    await waitFor(
      cluster.store,
      () => cluster.pods.list(NS, 'app=orders,component=taskmanager').length > 0,
      5000,
      'TMs',
    );
    const after = (await jobManagerOf('orders')).metadata.name;
    expect(after).not.toBe(before);
    expect((await get(`/api/v1/namespaces/${NS}/pods/${before}/log`)).status).toBe(404);
  });
});

describe('pod logs', () => {
  it('the JobManager log: log4j layout, the job starting and running, the planted secrets, tailLines honoured', async () => {
    await running('orders', { conf: { 'execution.checkpointing.interval': '5s' } });
    const jm = (await jobManagerOf('orders')).metadata.name;
    const full = await eventuallyLog(jm, (text) => text.includes('Completed checkpoint'));
    const lines = full.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} INFO {2}org\.apache\.flink\.runtime\.entrypoint\.ClusterEntrypoint +\[\] - /,
    );
    expect(full).toContain('Starting KubernetesApplicationClusterEntrypoint');
    expect(full).toMatch(/Job orders \([0-9a-f]{32}\) switched from state CREATED to RUNNING\./);
    expect(full).toContain(PLANTED_SECRETS.accessKey);
    expect(full).toContain(`password=${PLANTED_SECRETS.password}`);
    const tail = await log(jm, '?tailLines=3&container=flink-main-container');
    expect(tail.trimEnd().split('\n')).toHaveLength(3);
    expect(await log(jm)).toContain(tail);
  });

  it('a failover recorded as a JobException is in the JobManager log and in the log of the TaskManager it hit', async () => {
    await running('orders', { annotations: { [SCENARIO_ANNOTATION]: 'job-exceptions=1' } });
    const jm = (await jobManagerOf('orders')).metadata.name;
    const text = await eventuallyLog(jm, (t) => t.includes('switched from RUNNING to FAILED'));
    expect(text).toContain('java.lang.RuntimeException: Simulated task failure');
    expect(text).toContain('switched from state RUNNING to RESTARTING');
    const event = cluster.store.list('events', NS).find((e) => e.reason === 'JobException');
    const tm = event?.metadata.annotations?.['tm-id'] as string;
    if (cluster.pods.list(NS, `app=orders`).some((p) => p.metadata.name === tm))
      expect(await log(tm)).toContain('switched from RUNNING to FAILED with failure cause');
  });

  it("a FAILED job's exception", async () => {
    await running('orders', { annotations: { [SCENARIO_ANNOTATION]: 'job-failure' } });
    await waitFor(cluster.store, () => {
      const status = cluster.store.get('flinkdeployments', NS, 'orders')?.status as { jobStatus?: { state?: string } };
      return status.jobStatus?.state === 'FAILED';
    });
    const text = await log((await jobManagerOf('orders')).metadata.name);
    expect(text).toContain('Recovery is suppressed by NoRestartBackoffTimeStrategy');
    expect(text).toMatch(/switched from state FAILING to FAILED\./);
  });

  it('limitBytes: the tail cut at that many bytes, wherever that falls; less than 1 is 422', async () => {
    await running('orders');
    const jm = (await jobManagerOf('orders')).metadata.name;
    const whole = await log(jm, '?tailLines=5');
    const cut = await log(jm, '?tailLines=5&limitBytes=70');
    expect(cut).toBe(whole.slice(0, 70));
    expect(await log(jm, '?limitBytes=100000000')).toBe(await log(jm));
    const path = `/api/v1/namespaces/${NS}/pods/${jm}/log`;
    const zero = await get(`${path}?limitBytes=0`);
    expect([zero.status, JSON.parse(zero.text).message]).toEqual([
      422,
      `PodLogOptions "${jm}" is invalid: limitBytes: Invalid value: 0: must be greater than 0`,
    ]);
    expect((await get(`${path}?limitBytes=many`)).status).toBe(400);
  });

  it('kube answers: unknown container and previous 400, bad tailLines 400/422, a missing pod 404', async () => {
    await running('orders');
    const jm = (await jobManagerOf('orders')).metadata.name;
    const path = `/api/v1/namespaces/${NS}/pods/${jm}/log`;
    const bogus = await get(`${path}?container=sidecar`);
    expect([bogus.status, JSON.parse(bogus.text).message]).toEqual([
      400,
      `container sidecar is not valid for pod ${jm}`,
    ]);
    const previous = await get(`${path}?previous=true`);
    expect([previous.status, JSON.parse(previous.text).message]).toEqual([
      400,
      `previous terminated container "flink-main-container" in pod "${jm}" not found`,
    ]);
    expect((await get(`${path}?tailLines=ten`)).status).toBe(400);
    expect((await get(`${path}?tailLines=-1`)).status).toBe(422);
    expect((await get(`/api/v1/namespaces/${NS}/pods/orders-nothere-x/log`)).status).toBe(404);
    const badSelector = await get(`/api/v1/namespaces/${NS}/pods?labelSelector=${encodeURIComponent('app in (')}`);
    expect(badSelector.status).toBe(400);
  });

  it('an RBAC denial of pods/log is a 403 naming the subresource; requests are reported with their query', async () => {
    await running('orders');
    const jm = (await jobManagerOf('orders')).metadata.name;
    cluster.server.faults.inject({ kind: 'error-403', resource: 'pods', subresource: 'log' });
    const denied = await get(`/api/v1/namespaces/${NS}/pods/${jm}/log`);
    expect(denied.status).toBe(403);
    expect(JSON.parse(denied.text).message).toContain('cannot get resource "pods/log" in API group ""');
    const seen: string[] = [];
    const stop = cluster.server.onRequest((info) => seen.push(`${info.verb} ${info.resource}/${info.subresource}`));
    await log(jm, '?tailLines=1');
    stop();
    expect(seen).toEqual(['get pods/log']);
  });
});

describe('discovery and OpenAPI', () => {
  it('list pods and pods/log among the core resources', async () => {
    const legacy = JSON.parse((await get('/api/v1')).text) as { resources: { name: string; verbs: string[] }[] };
    expect(legacy.resources.filter((r) => r.name.startsWith('pods'))).toEqual([
      expect.objectContaining({ name: 'pods', verbs: ['get', 'list'] }),
      expect.objectContaining({ name: 'pods/log', verbs: ['get'] }),
    ]);
    const openapi = JSON.parse((await get('/openapi/v3/api/v1')).text) as { paths: Record<string, unknown> };
    expect(Object.keys(openapi.paths)).toContain('/api/v1/namespaces/{namespace}/pods/{name}/log');
  });
});

/** The pod's whole log once `check` holds (the job moves on by itself: checkpoints, failovers). */
async function eventuallyLog(pod: string, check: (text: string) => boolean): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const text = await log(pod);
    if (check(text)) return text;
    if (Date.now() > deadline) throw new Error(`the log of ${pod} never satisfied the check:\n${text}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
