// Subtask counts and vertex status through the simulated API server's service proxy, as Flink reports them:
// `tasks` per ExecutionState, `status` aggregated (ExecutionJobVertex.getAggregateJobVertexState), and subtasks
// that never get a slot failing the job at `slot.request.timeout` with NoResourceAvailableException
// (flink-runtime PhysicalSlotRequestBulkCheckerImpl, JobManagerOptions.SLOT_REQUEST_TIMEOUT).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimCluster, type SimCluster } from '../../src/kube/cluster.js';
import { eventsFor, statusOf, waitForStatus, waitStable } from '../support/sim.js';
import { deployment, type DeploymentOptions } from '../support/sim-resources.js';

const NS = 'streaming-prod';
let cluster: SimCluster;

interface Vertex {
  name: string;
  parallelism: number;
  status: string;
  tasks: Record<string, number>;
}

beforeAll(async () => {
  cluster = await startSimCluster({ port: 0, seed: 'none', speed: 'fast' });
});
afterAll(async () => {
  await cluster?.close();
});

async function running(name: string, options: DeploymentOptions): Promise<string> {
  cluster.store.create('flinkdeployments', deployment(name, NS, options));
  return String(statusOf(await waitStable(cluster.store, NS, name)).jobStatus?.jobId);
}

async function rest<T>(name: string, path: string): Promise<T> {
  const res = await fetch(`${cluster.url}/api/v1/namespaces/${NS}/services/${name}-rest:rest/proxy${path}`);
  return (await res.json()) as T;
}

const vertices = async (name: string, jobId: string) =>
  (await rest<{ state: string; vertices: Vertex[] }>(name, `/jobs/${jobId}`)).vertices;

describe('a job that is not RUNNING: vertex states are execution states, never the job state', () => {
  it('a RESTARTING job has its subtasks CANCELED (the counts keep Flink ExecutionState keys only)', async () => {
    const jobId = await running('sub-restarting', { parallelism: 2 });
    cluster.operator.setScenario(NS, 'sub-restarting', 'job-restarting');
    await waitForStatus(
      cluster.store,
      'flinkdeployments',
      NS,
      'sub-restarting',
      (s) => s.jobStatus?.state === 'RESTARTING',
      'the job RESTARTING',
    );
    const body = await rest<{ state: string; vertices: Vertex[] }>('sub-restarting', `/jobs/${jobId}`);
    expect(body.state).toBe('RESTARTING');
    expect(body.vertices.map((v) => [v.status, v.tasks.CANCELED])).toEqual([
      ['CANCELED', 2],
      ['CANCELED', 2],
      ['CANCELED', 2],
    ]);
    for (const v of body.vertices) expect(Object.keys(v.tasks)).not.toContain('RESTARTING');
  });
});

describe('tasks-waiting=<k>: k slots short of what the job needs', () => {
  it('each vertex wider than the slots granted has its extra subtasks SCHEDULED, and still reports RUNNING', async () => {
    const jobId = await running('sub-short', { parallelism: 6, graph: 'Source: events; Enrich; Sink: results [p=1]' });
    cluster.operator.setScenario(NS, 'sub-short', 'tasks-waiting=2');
    const seen = await vertices('sub-short', jobId);
    expect(seen.map((v) => [v.name, v.status, v.tasks.RUNNING, v.tasks.SCHEDULED])).toEqual([
      ['Source: events', 'RUNNING', 4, 2],
      ['Enrich', 'RUNNING', 4, 2],
      ['Sink: results', 'RUNNING', 1, 0],
    ]);
    for (const v of seen) expect(Object.values(v.tasks).reduce((a, b) => a + b, 0)).toBe(v.parallelism);
  });

  it('more slots missing than the job has: every subtask SCHEDULED, the vertex CREATED (never SCHEDULED)', async () => {
    const jobId = await running('sub-none', { parallelism: 2 });
    cluster.operator.setScenario(NS, 'sub-none', 'tasks-waiting=2');
    const seen = await vertices('sub-none', jobId);
    expect(seen.map((v) => [v.status, v.tasks.SCHEDULED])).toEqual([
      ['CREATED', 2],
      ['CREATED', 2],
      ['CREATED', 2],
    ]);
  });

  it('at slot.request.timeout the job FAILS: NoResourceAvailableException in the exception history, waiting subtasks FAILED', async () => {
    const jobId = await running('sub-timeout', { parallelism: 4, conf: { 'slot.request.timeout': '20s' } });
    cluster.operator.setScenario(NS, 'sub-timeout', 'tasks-waiting=1');
    const failed = await waitForStatus(
      cluster.store,
      'flinkdeployments',
      NS,
      'sub-timeout',
      (s) => s.jobStatus?.state === 'FAILED',
      'the job FAILED at its slot request timeout',
    );
    expect(String(statusOf(failed).error)).toContain('NoResourceAvailableException');
    const history = await rest<{ exceptionHistory: { entries: { exceptionName: string; stacktrace: string }[] } }>(
      'sub-timeout',
      `/jobs/${jobId}/exceptions`,
    );
    expect(history.exceptionHistory.entries[0]?.exceptionName).toBe(
      'org.apache.flink.runtime.jobmanager.scheduler.NoResourceAvailableException',
    );
    expect(history.exceptionHistory.entries[0]?.stacktrace).toContain(
      'Slot request bulk is not fulfillable! Could not allocate the required slot within slot request timeout',
    );
    const seen = await vertices('sub-timeout', jobId);
    expect(seen.map((v) => [v.status, v.tasks.FAILED, v.tasks.CANCELED])).toEqual([
      ['FAILED', 1, 3],
      ['FAILED', 1, 3],
      ['FAILED', 1, 3],
    ]);
    expect(eventsFor(cluster.store, failed).map((e) => e.reason)).toContain('Error');
  });

  it('slots that arrive (the knob cleared) put every waiting subtask RUNNING', async () => {
    const jobId = await running('sub-arrive', { parallelism: 3, conf: { 'slot.request.timeout': '5s' } });
    cluster.operator.setScenario(NS, 'sub-arrive', 'tasks-waiting');
    expect((await vertices('sub-arrive', jobId)).map((v) => v.tasks.SCHEDULED)).toEqual([1, 1, 1]);
    cluster.operator.setScenario(NS, 'sub-arrive', []);
    expect((await vertices('sub-arrive', jobId)).map((v) => [v.status, v.tasks.RUNNING])).toEqual([
      ['RUNNING', 3],
      ['RUNNING', 3],
      ['RUNNING', 3],
    ]);
  });
});
