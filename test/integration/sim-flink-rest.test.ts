// The simulated JobManagers' REST API behind the API server's service proxy, read by the real client-node through
// ClientNodeFlinkRest: consistent with the operator's state, with the knobs only REST can reveal.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ClientNodeFlinkRest, REST_ANSWER_LIMIT } from '../../src/kube/flink-rest.js';
import { JOB_GRAPH_ANNOTATION } from '@flink-chatops/sim/kube/job-graph';
import { loadKubeConfig } from '../../src/kube/client-node.js';
import { startSimCluster, type SimCluster } from '@flink-chatops/sim/kube/cluster';
import type { KubeObject } from '@flink-chatops/sim/kube/store';
import { EVENT_TTL_MS } from '@flink-chatops/sim/kube/event-ttl';
import { editSpec, statusOf, waitFor, waitForStatus, waitStable } from '@flink-chatops/sim/testing/sim';
import { deployment, sessionCluster, sessionJob } from '@flink-chatops/sim/testing/sim-resources';
import { eventually, holds } from '../support/poll.js';

const NS = 'streaming-prod';
let cluster: SimCluster;
let rest: ClientNodeFlinkRest;

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
  for (const o of cluster.store.list('flinksessionjobs', NS))
    cluster.store.delete('flinksessionjobs', NS, o.metadata.name);
});

async function running(name: string, conf: Record<string, unknown> = {}): Promise<KubeObject> {
  cluster.store.create('flinkdeployments', deployment(name, NS, { parallelism: 3, conf }));
  return waitStable(cluster.store, NS, name);
}

const jobIdOf = (o: KubeObject): string => String(statusOf(o).jobStatus?.jobId);

describe('Flink REST through services/<cluster-id>-rest:rest/proxy', () => {
  it('/jobs/<id>: the running job with every vertex RUNNING at the job parallelism, and the JobManager clock', async () => {
    const job = await running('rest-orders');
    const answer = await rest.get(NS, 'rest-orders', `/jobs/${jobIdOf(job)}`);
    expect(answer.ok).toBe(true);
    const value = (answer.ok ? answer.value : {}) as {
      jid: string;
      state: string;
      now: number;
      vertices: { parallelism: number; status: string }[];
    };
    expect(value).toMatchObject({ jid: jobIdOf(job), state: 'RUNNING' });
    expect(value.vertices).toHaveLength(3);
    expect(value.vertices.every((v) => v.status === 'RUNNING' && v.parallelism === 3)).toBe(true);
    expect(Math.abs(value.now - Date.now())).toBeLessThan(5_000);
  });

  it('/jobs/<id>/checkpoints: checkpoints complete at the configured interval; none without checkpointing', async () => {
    const job = await running('rest-ckpt', { 'execution.checkpointing.interval': '2s' });
    const read = async () => {
      const a = await rest.get(NS, 'rest-ckpt', `/jobs/${jobIdOf(job)}/checkpoints`);
      return (a.ok ? a.value : {}) as {
        counts: { completed: number };
        latest: { completed: { external_path: string } | null };
      };
    };
    await eventually(
      '2 completed checkpoints',
      holds(async () => expect((await read()).counts.completed).toBeGreaterThanOrEqual(2)),
      { timeoutMs: 5_000 },
    );
    expect((await read()).latest.completed?.external_path).toMatch(new RegExp(`/${jobIdOf(job)}/chk-\\d+$`));
    const plain = await running('rest-nockpt');
    const none = await rest.get(NS, 'rest-nockpt', `/jobs/${jobIdOf(plain)}/checkpoints`);
    expect(none.ok && (none.value as { counts: { completed: number } }).counts.completed).toBe(0);
  });

  it('knobs only REST reveals: tasks waiting for slots, checkpoints failing, a job restored from another path', async () => {
    const job = await running('rest-knobs', { 'execution.checkpointing.interval': '2s', 'slot.request.timeout': '1h' });
    cluster.operator.setScenario(NS, 'rest-knobs', ['tasks-waiting', 'checkpoints-failing', 'restored-elsewhere']);
    const details = await rest.get(NS, 'rest-knobs', `/jobs/${jobIdOf(job)}`);
    // One slot short: one subtask of each vertex waits (SCHEDULED), the vertex still RUNNING as Flink aggregates it.
    const vertices = details.ok
      ? (details.value as { vertices: { status: string; tasks: Record<string, number> }[] }).vertices
      : [];
    expect(vertices.map((v) => [v.status, v.tasks.RUNNING, v.tasks.SCHEDULED])).toEqual([
      ['RUNNING', 2, 1],
      ['RUNNING', 2, 1],
      ['RUNNING', 2, 1],
    ]);
    const failing = holds(async () => {
      const a = await rest.get(NS, 'rest-knobs', `/jobs/${jobIdOf(job)}/checkpoints`);
      expect(a.ok ? (a.value as { counts: { failed: number; completed: number } }).counts : undefined).toMatchObject({
        completed: 0,
        failed: expect.any(Number),
      });
    });
    await eventually('checkpoint counts with none completed', failing, { timeoutMs: 5_000 });
  });

  it('latest.restored: the savepoint the operator recorded after a savepoint-mode restart, or another path with the knob', async () => {
    await running('rest-restore');
    editSpec(cluster.store, 'flinkdeployments', NS, 'rest-restore', (spec) => (spec.restartNonce = 7));
    const restarted = await waitForStatus(
      cluster.store,
      'flinkdeployments',
      NS,
      'rest-restore',
      (s) => s.lifecycleState === 'STABLE' && typeof s.jobStatus?.upgradeSavepointPath === 'string',
      'restarted from a savepoint',
    );
    const path = String(statusOf(restarted).jobStatus?.upgradeSavepointPath);
    const restoredPath = async () => {
      const a = await rest.get(NS, 'rest-restore', `/jobs/${jobIdOf(restarted)}/checkpoints`);
      return a.ok
        ? (a.value as { latest: { restored: { external_path: string; is_savepoint: boolean } | null } }).latest.restored
        : undefined;
    };
    expect(await restoredPath()).toMatchObject({ external_path: path, is_savepoint: true });
    cluster.operator.setScenario(NS, 'rest-restore', 'restored-elsewhere');
    expect((await restoredPath())?.external_path).not.toBe(path);
  });

  it("/jobs/<id>/exceptions: the job's task failovers, newest first", async () => {
    const job = await running('rest-failovers');
    cluster.operator.setScenario(NS, 'rest-failovers', 'job-exceptions=2');
    const count = async () => {
      const a = await rest.get(NS, 'rest-failovers', `/jobs/${jobIdOf(job)}/exceptions`);
      return a.ok ? (a.value as { exceptionHistory: { entries: unknown[] } }).exceptionHistory.entries.length : 0;
    };
    await eventually(
      '2 exceptions in the history',
      holds(async () => expect(await count()).toBe(2)),
      { timeoutMs: 5_000 },
    );
    const a = await rest.get(NS, 'rest-failovers', `/jobs/${jobIdOf(job)}/exceptions`);
    const entries = a.ok
      ? (a.value as { exceptionHistory: { entries: { timestamp: number; taskName: string }[] } }).exceptionHistory
          .entries
      : [];
    expect(entries[0]?.timestamp).toBeGreaterThanOrEqual(entries[1]?.timestamp ?? 0);
    expect(entries[0]?.taskName).toBeTruthy();
  });

  it('/jobs/<id>/exceptions outlives the JobException events (a JobMaster keeps its history in memory, Flink JobExceptionsHandler; Events expire, kube-apiserver --event-ttl) and maxExceptions bounds it', async () => {
    const job = await running('rest-history');
    cluster.operator.setScenario(NS, 'rest-history', 'job-exceptions=3');
    const history = async (query = '') => {
      const a = await rest.get(NS, 'rest-history', `/jobs/${jobIdOf(job)}/exceptions${query}`);
      return (a.ok ? a.value : {}) as {
        exceptionHistory?: { entries: { stacktrace: string; taskName: string }[]; truncated: boolean };
      };
    };
    const uid = job.metadata.uid;
    const mine = () =>
      cluster.store
        .list('events', NS)
        .filter((e) => e.reason === 'JobException' && (e.involvedObject as { uid?: string }).uid === uid);
    await waitFor(cluster.store, () => mine().length === 3, 10_000, '3 JobException events', mine);
    try {
      cluster.eventExpiry.setTtl(0);
      await waitFor(cluster.store, () => mine().length === 0, 5_000, 'the events to expire', mine);
      const all = (await history()).exceptionHistory;
      expect(all?.entries).toHaveLength(3);
      expect(all?.truncated).toBe(false);
      // The whole stack trace: the events carried its first 5 lines only.
      expect(all?.entries[0]?.stacktrace.split('\n').length).toBeGreaterThan(6);
      const one = (await history('?maxExceptions=1')).exceptionHistory;
      expect(one?.entries).toHaveLength(1);
      expect(one?.truncated).toBe(true);
      const metrics = await rest.get(NS, 'rest-history', `/jobs/${jobIdOf(job)}/metrics`);
      expect(metrics.ok && metrics.value).toEqual([{ id: 'numRestarts', value: '3' }]);
    } finally {
      cluster.eventExpiry.setTtl(EVENT_TTL_MS);
    }
  });

  it('/jobs/<id>/exceptions keeps the newest web.exception-history-size entries (Flink WebOptions), numRestarts counts all', async () => {
    const job = await running('rest-history-size', { 'web.exception-history-size': '2' });
    cluster.operator.setScenario(NS, 'rest-history-size', 'job-exceptions=3');
    const path = `/jobs/${jobIdOf(job)}`;
    const restarts = async () => {
      const a = await rest.get(NS, 'rest-history-size', `${path}/metrics`);
      return a.ok ? (a.value as { value: string }[])[0]?.value : undefined;
    };
    await eventually(
      '3 restarts',
      holds(async () => expect(await restarts()).toBe('3')),
      { timeoutMs: 10_000 },
    );
    const a = await rest.get(NS, 'rest-history-size', `${path}/exceptions`);
    const history = (a.ok ? a.value : {}) as { exceptionHistory?: { entries: { stacktrace: string }[] } };
    expect(history.exceptionHistory?.entries.map((e) => e.stacktrace.split(' in ')[0])).toEqual([
      'java.lang.RuntimeException: Simulated task failure #3',
      'java.lang.RuntimeException: Simulated task failure #2',
    ]);
  });

  it("a session job is read through its session cluster's service", async () => {
    cluster.store.create('flinkdeployments', sessionCluster('rest-session', NS));
    await waitForStatus(
      cluster.store,
      'flinkdeployments',
      NS,
      'rest-session',
      (s) => s.jobManagerDeploymentStatus === 'READY',
      'READY',
    );
    cluster.store.create('flinksessionjobs', sessionJob('rest-sj', NS, 'rest-session'));
    const job = await waitStable(cluster.store, NS, 'rest-sj', 'flinksessionjobs');
    const answer = await rest.get(NS, 'rest-session', `/jobs/${jobIdOf(job)}`);
    expect(answer.ok && (answer.value as { state: string }).state).toBe('RUNNING');
  });

  it('says why when REST cannot answer: 403 (no services/proxy), 503 (unreachable), 404 (no such job or service)', async () => {
    const job = await running('rest-denied');
    cluster.server.faults.forbidNamespace(NS);
    const denied = await rest.get(NS, 'rest-denied', `/jobs/${jobIdOf(job)}`);
    expect(denied).toMatchObject({
      ok: false,
      reason: 'forbidden',
      message: expect.stringContaining('cannot get resource "services/proxy"'),
    });
    cluster.server.faults.clear();
    cluster.operator.setScenario(NS, 'rest-denied', 'rest-unreachable');
    expect(await rest.get(NS, 'rest-denied', `/jobs/${jobIdOf(job)}`)).toMatchObject({
      ok: false,
      reason: 'unavailable',
    });
    expect(await rest.get(NS, 'no-such-cluster', '/jobs/0123456789abcdef0123456789abcdef')).toMatchObject({
      ok: false,
      reason: 'not-found',
    });
  });

  it('an answer over 4 MB is not read past the cap: too-large, "cut at 4 MB"; a smaller one is read whole', async () => {
    // A vertex named by a long SQL plan: Flink reports the name in /jobs/<id>, so the answer is over 5 MB.
    const plan = `Calc(select=[${'x, '.repeat(1_800_000)}y])`;
    cluster.store.create(
      'flinkdeployments',
      deployment('rest-huge', NS, { annotations: { [JOB_GRAPH_ANNOTATION]: `Source: events; ${plan}` } }),
    );
    const job = await waitStable(cluster.store, NS, 'rest-huge');
    const answer = await rest.get(NS, 'rest-huge', `/jobs/${jobIdOf(job)}`);
    expect(answer).toEqual({ ok: false, reason: 'too-large', message: 'the Flink REST answer was cut at 4 MB' });
    expect(REST_ANSWER_LIMIT).toBe(4 * 1024 * 1024);
    const small = await rest.get(NS, 'rest-huge', `/jobs/${jobIdOf(job)}/checkpoints`);
    expect(small.ok).toBe(true);
  });
});
