// Real job shapes in the simulated JobManagers' REST API, read by the real client-node through the service proxy:
// vertices with their own parallelism and stable ids, bounded vertices FINISHED, overrides and rescales under way,
// Flink's normalised restore pointer, HA restores, checkpointing set in the job's code, the latest savepoint.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ClientNodeFlinkRest } from '../../src/kube/flink-rest.js';
import { loadKubeConfig } from '../../src/kube/client-node.js';
import { startSimCluster, type SimCluster } from '@flink-chatops/sim/kube/cluster';
import { JOB_GRAPH_ANNOTATION, jobGraphOf } from '@flink-chatops/sim/kube/job-graph';
import type { KubeObject } from '@flink-chatops/sim/kube/store';
import { editSpec, setAnnotations, statusOf, waitForStatus, waitStable } from '@flink-chatops/sim/testing/sim';
import { deployment, type DeploymentOptions } from '@flink-chatops/sim/testing/sim-resources';
import { eventually, holds } from '../support/poll.js';

const NS = 'streaming-prod';
const SHAPED = 'Source: events; KeyedProcess -> Filter; Sink: results [p=1]';
let cluster: SimCluster;
let rest: ClientNodeFlinkRest;

interface Vertex {
  id: string;
  name: string;
  parallelism: number;
  maxParallelism: number;
  status: string;
  tasks: Record<string, number>;
}
interface Details {
  state: string;
  vertices: Vertex[];
}
interface Restored {
  id: number;
  external_path: string;
  is_savepoint: boolean;
}
interface Checkpoints {
  counts: { total: number; completed: number; restored: number; in_progress?: number; failed?: number };
  latest: {
    completed: { id: number; external_path: string } | null;
    savepoint: Record<string, unknown> | null;
    restored: Restored | null;
  };
}

beforeAll(async () => {
  cluster = await startSimCluster({ port: 0, seed: 'none', speed: 'fast' });
  rest = new ClientNodeFlinkRest(loadKubeConfig(cluster.kubeconfigPath), { timeoutMs: 3_000 });
});
afterAll(async () => {
  await cluster?.close();
});
afterEach(() => {
  for (const o of cluster.store.list('flinkdeployments', NS))
    cluster.store.delete('flinkdeployments', NS, o.metadata.name);
});

async function running(name: string, options: DeploymentOptions = {}): Promise<KubeObject> {
  cluster.store.create('flinkdeployments', deployment(name, NS, { parallelism: 2, ...options }));
  return waitStable(cluster.store, NS, name);
}

const jobIdOf = (o: KubeObject): string => String(statusOf(o).jobStatus?.jobId);

async function read<T>(name: string, path: string): Promise<T> {
  const answer = await rest.get(NS, name, path);
  if (!answer.ok) throw new Error(`REST ${path} of ${name}: ${JSON.stringify(answer)}`);
  return answer.value as T;
}
const details = (name: string, job: KubeObject): Promise<Details> => read<Details>(name, `/jobs/${jobIdOf(job)}`);
const checkpointsOf = (name: string, job: KubeObject): Promise<Checkpoints> =>
  read<Checkpoints>(name, `/jobs/${jobIdOf(job)}/checkpoints`);
const shape = (d: Details): [string, number][] => d.vertices.map((v) => [v.name, v.parallelism]);

describe('vertices from the job graph', () => {
  it('a parallelism-1 sink stays at 1 when the job scales 2 → 4; the vertex ids stay across the redeploy', async () => {
    const before = await running('shapes-scale', { graph: SHAPED });
    const first = await details('shapes-scale', before);
    expect(shape(first)).toEqual([
      ['Source: events', 2],
      ['KeyedProcess -> Filter', 2],
      ['Sink: results', 1],
    ]);
    expect(first.vertices.every((v) => /^[0-9a-f]{32}$/.test(v.id) && v.maxParallelism === 128)).toBe(true);
    const generation = editSpec(
      cluster.store,
      'flinkdeployments',
      NS,
      'shapes-scale',
      (spec) => (spec.job.parallelism = 4),
    );
    const after = await waitForStatus(
      cluster.store,
      'flinkdeployments',
      NS,
      'shapes-scale',
      (s, o) =>
        s.observedGeneration === generation &&
        s.lifecycleState === 'STABLE' &&
        s.jobStatus?.state === 'RUNNING' &&
        o.metadata.generation === generation,
      'scaled to 4',
    );
    const second = await details('shapes-scale', after);
    expect(shape(second)).toEqual([
      ['Source: events', 4],
      ['KeyedProcess -> Filter', 4],
      ['Sink: results', 1],
    ]);
    expect(second.vertices.map((v) => v.id)).toEqual(first.vertices.map((v) => v.id));
    expect(second.vertices[2]?.tasks).toMatchObject({ RUNNING: 1, FINISHED: 0, SCHEDULED: 0 });
  });

  it('a changed job graph (another jar) reports other vertex ids', async () => {
    const job = await running('shapes-graph', { graph: SHAPED });
    const before = (await details('shapes-graph', job)).vertices.map((v) => v.id);
    const generation = editSpec(
      cluster.store,
      'flinkdeployments',
      NS,
      'shapes-graph',
      (spec) => (spec.job.jarURI = 'local:///opt/flink/usrlib/orders-2.0.jar'),
    );
    const after = await waitForStatus(
      cluster.store,
      'flinkdeployments',
      NS,
      'shapes-graph',
      (s) => s.observedGeneration === generation && s.lifecycleState === 'STABLE' && s.jobStatus?.state === 'RUNNING',
      'upgraded to the new jar',
    );
    const ids = (await details('shapes-graph', after)).vertices.map((v) => v.id);
    expect(ids).toHaveLength(3);
    for (const id of ids) expect(before).not.toContain(id);
  });

  it('a bounded vertex reports FINISHED while the job stays RUNNING; tasks-waiting holds a subtask of each unfinished one', async () => {
    const job = await running('shapes-bounded', {
      graph: 'Source: events; Sink: results; Source: bootstrap [bounded=1s]',
    });
    const statuses = async () => (await details('shapes-bounded', job)).vertices.map((v) => v.status);
    await eventually(
      'the bounded vertex FINISHED',
      holds(async () => expect(await statuses()).toEqual(['RUNNING', 'RUNNING', 'FINISHED'])),
      { timeoutMs: 5_000 },
    );
    const finished = await details('shapes-bounded', job);
    expect(finished.state).toBe('RUNNING');
    expect(finished.vertices[2]?.tasks).toMatchObject({ FINISHED: 2, RUNNING: 0 });
    cluster.operator.setScenario(NS, 'shapes-bounded', 'tasks-waiting');
    expect((await details('shapes-bounded', job)).vertices.map((v) => [v.status, v.tasks.SCHEDULED])).toEqual([
      ['RUNNING', 1],
      ['RUNNING', 1],
      ['FINISHED', 0],
    ]);
  });

  it('the bounded-source knob adds a finished bootstrap source in front and keeps the other vertex ids', async () => {
    const job = await running('shapes-knob', { graph: SHAPED });
    const before = await details('shapes-knob', job);
    cluster.operator.setScenario(NS, 'shapes-knob', 'bounded-source');
    const after = await details('shapes-knob', job);
    expect(after.state).toBe('RUNNING');
    expect(after.vertices.map((v) => [v.name, v.status])).toEqual([
      ['Source: bootstrap', 'FINISHED'],
      ['Source: events', 'RUNNING'],
      ['KeyedProcess -> Filter', 'RUNNING'],
      ['Sink: results', 'RUNNING'],
    ]);
    expect(after.vertices.slice(1).map((v) => v.id)).toEqual(before.vertices.map((v) => v.id));
  });

  it('overrides in the reconciled spec decide a vertex parallelism, over the default and over the job code', async () => {
    const object = deployment('shapes-overrides', NS, { parallelism: 2, graph: SHAPED });
    const [source, , sink] = jobGraphOf(object);
    const overrides = `${source?.id}:3,${sink?.id}:2`;
    const job = await running('shapes-overrides', {
      graph: SHAPED,
      conf: { 'pipeline.jobvertex-parallelism-overrides': overrides, 'pipeline.max-parallelism': '64' },
    });
    const d = await details('shapes-overrides', job);
    expect(shape(d)).toEqual([
      ['Source: events', 3],
      ['KeyedProcess -> Filter', 2],
      ['Sink: results', 2],
    ]);
    expect(d.vertices.every((v) => v.maxParallelism === 64)).toBe(true);
  });

  it('a rescale still under way in the JobManager shows the previous parallelism until it lands', async () => {
    const job = await running('shapes-rescale', { graph: SHAPED, parallelism: 4 });
    const [source] = (await details('shapes-rescale', job)).vertices;
    const now = cluster.store.now().getTime();
    cluster.jobManagers.rescale(jobIdOf(job), { previous: new Map([[String(source?.id), 2]]), landsAt: now + 60_000 });
    expect(shape(await details('shapes-rescale', job))).toEqual([
      ['Source: events', 2],
      ['KeyedProcess -> Filter', 4],
      ['Sink: results', 1],
    ]);
    cluster.jobManagers.rescale(jobIdOf(job), { previous: new Map([[String(source?.id), 2]]), landsAt: now - 1 });
    expect(shape(await details('shapes-rescale', job))).toEqual([
      ['Source: events', 4],
      ['KeyedProcess -> Filter', 4],
      ['Sink: results', 1],
    ]);
  });

  it('an unreadable job-graph annotation is refused at admission, saying why', () => {
    const bad = deployment('shapes-bad', NS, { graph: 'Source: events [p=0]; Sink: out' });
    expect(() => cluster.store.create('flinkdeployments', bad)).toThrow(
      /job-graph.*cannot be read: Source: events \[p=0\]|cannot be read: Source: events: unknown vertex attribute "p=0"/,
    );
    cluster.store.create('flinkdeployments', deployment('shapes-bad', NS));
    expect(() =>
      setAnnotations(cluster.store, 'flinkdeployments', NS, 'shapes-bad', { [JOB_GRAPH_ANNOTATION]: ';' }),
    ).toThrow(/the job graph has no vertices/);
  });
});

describe('checkpoints: restored pointer, HA restores, checkpointing in code, the latest savepoint', () => {
  it.each([
    [
      'shapes-meta',
      's3://flink-state/streaming-prod/x/savepoints/savepoint-aa11/_metadata',
      's3://flink-state/streaming-prod/x/savepoints/savepoint-aa11',
    ],
    [
      'shapes-slash',
      's3://flink-state/streaming-prod/x/savepoints/savepoint-bb22/',
      's3://flink-state/streaming-prod/x/savepoints/savepoint-bb22',
    ],
    ['shapes-file', 'file:///flink/savepoints/savepoint-cc33', 'file:/flink/savepoints/savepoint-cc33'],
    ['shapes-hdfs', 'hdfs:///flink/savepoints/savepoint-dd44', 'hdfs://namenode:8020/flink/savepoints/savepoint-dd44'],
  ])('%s: restored from %s, Flink reports %s', async (name, typed, reported) => {
    const object = deployment(name, NS);
    (object.spec?.job as Record<string, unknown>).initialSavepointPath = typed;
    cluster.store.create('flinkdeployments', object);
    const job = await waitStable(cluster.store, NS, name);
    expect(statusOf(job).jobStatus?.upgradeSavepointPath).toBe(typed);
    const c = await checkpointsOf(name, job);
    expect(c.latest.restored).toMatchObject({ external_path: reported, is_savepoint: true });
    expect(c.counts.restored).toBe(1);
  });

  it('a job restored from its HA metadata reports that checkpoint (is_savepoint false) and numbers on from it', async () => {
    await running('shapes-ha', { upgradeMode: 'last-state', conf: { 'execution.checkpointing.interval': '1s' } });
    editSpec(cluster.store, 'flinkdeployments', NS, 'shapes-ha', (spec) => (spec.restartNonce = 3));
    const restarted = await waitForStatus(
      cluster.store,
      'flinkdeployments',
      NS,
      'shapes-ha',
      (s, o) =>
        s.observedGeneration === o.metadata.generation &&
        s.lifecycleState === 'STABLE' &&
        s.jobStatus?.state === 'RUNNING' &&
        s.jobStatus.upgradeSavepointPath === 'KUBERNETES_OPERATOR_LAST_STATE',
      'restarted from HA',
    );
    const jobId = jobIdOf(restarted);
    const path = `s3://flink-state/${NS}/shapes-ha/checkpoints/${jobId}/chk-12`;
    cluster.jobManagers.restoredFromHa(jobId, { path, at: cluster.store.now().getTime() });
    await eventually(
      'a checkpoint past chk-12',
      holds(async () =>
        expect((await checkpointsOf('shapes-ha', restarted)).latest.completed?.id ?? 0).toBeGreaterThan(12),
      ),
      { timeoutMs: 5_000 },
    );
    const c = await checkpointsOf('shapes-ha', restarted);
    expect(c.latest.restored).toMatchObject({ id: 12, external_path: path, is_savepoint: false });
    expect(c.counts.restored).toBe(1);
    expect(c.latest.completed?.external_path).toMatch(new RegExp(`/${jobId}/chk-${c.latest.completed?.id}$`));
  });

  it('checkpointing on in the job code advances checkpoints though the configuration sets no interval', async () => {
    const job = await running('shapes-code-ckpt');
    expect(statusOf(job).reconciliationStatus?.lastReconciledSpec).not.toContain('execution.checkpointing.interval');
    expect((await checkpointsOf('shapes-code-ckpt', job)).counts.total).toBe(0);
    cluster.operator.setScenario(NS, 'shapes-code-ckpt', 'checkpointing-in-code=1s');
    await eventually(
      '2 checkpoints',
      holds(async () => expect((await checkpointsOf('shapes-code-ckpt', job)).counts.total).toBeGreaterThanOrEqual(2)),
      { timeoutMs: 5_000 },
    );
    const c = await checkpointsOf('shapes-code-ckpt', job);
    // None failed: every one counted is completed or, as Flink counts it in `total` too, still in progress.
    expect(c.counts.completed + (c.counts.in_progress ?? 0)).toBe(c.counts.total);
    expect(c.counts.failed).toBe(0);
    expect(c.latest.completed?.external_path).toMatch(new RegExp(`/${jobIdOf(job)}/chk-\\d+$`));
    const bare = await running('shapes-code-default');
    cluster.operator.setScenario(NS, 'shapes-code-default', 'checkpointing-in-code');
    await eventually(
      'a completed checkpoint',
      holds(async () =>
        expect((await checkpointsOf('shapes-code-default', bare)).counts.completed).toBeGreaterThanOrEqual(1),
      ),
      { timeoutMs: 5_000 },
    );
  });

  it('latest.savepoint: the savepoint the JobManager completed, null before', async () => {
    const job = await running('shapes-savepoint');
    expect((await checkpointsOf('shapes-savepoint', job)).latest.savepoint).toBeNull();
    const at = cluster.store.now().getTime();
    cluster.jobManagers.completeSavepoint(jobIdOf(job), {
      id: 7,
      path: `s3://flink-state/${NS}/shapes-savepoint/savepoints/savepoint-7/`,
      at,
      triggeredAt: at - 3_000,
    });
    expect((await checkpointsOf('shapes-savepoint', job)).latest.savepoint).toMatchObject({
      id: 7,
      status: 'COMPLETED',
      is_savepoint: true,
      external_path: `s3://flink-state/${NS}/shapes-savepoint/savepoints/savepoint-7`,
      trigger_timestamp: at - 3_000,
      latest_ack_timestamp: at,
    });
  });
});

describe('the demo seed runs real shapes', () => {
  let demo: SimCluster;
  let demoRest: ClientNodeFlinkRest;
  beforeAll(async () => {
    demo = await startSimCluster({ port: 0, seed: 'demo', speed: 'fast' });
    demoRest = new ClientNodeFlinkRest(loadKubeConfig(demo.kubeconfigPath), { timeoutMs: 3_000 });
  });
  afterAll(async () => {
    await demo?.close();
  });

  it('streaming-prod/payments has a parallelism-1 sink next to vertices at the job parallelism', async () => {
    const payments = await waitStable(demo.store, NS, 'payments', 'flinkdeployments', 10_000);
    const answer = await demoRest.get(NS, 'payments', `/jobs/${jobIdOf(payments)}`);
    const d = (answer.ok ? answer.value : { vertices: [] }) as Details;
    expect(d.vertices.at(-1)).toMatchObject({ name: 'Sink: results', parallelism: 1, status: 'RUNNING' });
    expect(d.vertices.slice(0, -1).every((v) => v.parallelism === 6)).toBe(true);
  });
});
