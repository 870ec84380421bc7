// Max parallelism as Flink settles it, through the simulated API server's service proxy: derived from the
// parallelism when `pipeline.max-parallelism` is unset (KeyGroupRangeAssignment.computeDefaultMaxParallelism), kept
// from the restored state, and a restore above it failing the job (StateAssignmentOperation
// .checkParallelismPreconditions); the job-level value is the ExecutionConfig's, -1 when unset (JobDetailsHandler).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimCluster, type SimCluster } from '../../src/kube/cluster.js';
import { defaultMaxParallelism } from '../../src/kube/max-parallelism.js';
import type { KubeObject } from '../../src/kube/store.js';
import { editSpec, eventsFor, statusOf, waitForStatus, waitStable } from '../support/sim.js';
import { deployment, type DeploymentOptions } from '../support/sim-resources.js';

const NS = 'streaming-prod';
let cluster: SimCluster;

interface Details {
  state: string;
  maxParallelism: number;
  vertices: { parallelism: number; maxParallelism: number; status: string }[];
}

beforeAll(async () => {
  cluster = await startSimCluster({ port: 0, seed: 'none', speed: 'fast' });
});
afterAll(async () => {
  await cluster?.close();
});

async function details(object: KubeObject): Promise<Details> {
  const jobId = String(statusOf(object).jobStatus?.jobId);
  const name = object.metadata.name;
  const res = await fetch(`${cluster.url}/api/v1/namespaces/${NS}/services/${name}-rest:rest/proxy/jobs/${jobId}`);
  return (await res.json()) as Details;
}

async function running(name: string, options: DeploymentOptions): Promise<KubeObject> {
  cluster.store.create('flinkdeployments', deployment(name, NS, options));
  return waitStable(cluster.store, NS, name);
}

/** Scales the job and waits until the operator observed the new generation with the job RUNNING or FAILED. */
async function scaleTo(name: string, parallelism: number, mode?: string): Promise<KubeObject> {
  const generation = editSpec(cluster.store, 'flinkdeployments', NS, name, (spec) => {
    spec.job.parallelism = parallelism;
    if (mode !== undefined) spec.job.upgradeMode = mode;
  });
  return waitForStatus(
    cluster.store,
    'flinkdeployments',
    NS,
    name,
    (s) => s.observedGeneration === generation && ['RUNNING', 'FAILED'].includes(String(s.jobStatus?.state)),
    `${name} at parallelism ${parallelism} RUNNING or FAILED`,
  );
}

describe('KeyGroupRangeAssignment.computeDefaultMaxParallelism', () => {
  it('1.5 × p rounded up to a power of two, at least 128, at most 32768', () => {
    expect([1, 2, 85, 86, 100, 200, 30_000].map(defaultMaxParallelism)).toEqual([128, 128, 128, 256, 256, 512, 32_768]);
  });

  it('a fresh job reports the derived value per vertex, and -1 at job level when the configuration sets none', async () => {
    const body = await details(await running('maxp-fresh', { parallelism: 100 }));
    expect(body.maxParallelism).toBe(-1);
    expect(body.vertices.map((v) => v.maxParallelism)).toEqual([256, 256, 256]);
    const set = await details(
      await running('maxp-set', { parallelism: 2, conf: { 'pipeline.max-parallelism': '64' } }),
    );
    expect([set.maxParallelism, ...set.vertices.map((v) => v.maxParallelism)]).toEqual([64, 64, 64, 64]);
  });
});

describe('StateAssignmentOperation: the restored state keeps its max parallelism', () => {
  it('a savepoint restore at a higher parallelism keeps the max parallelism the state was written with', async () => {
    await running('maxp-kept', { parallelism: 100 });
    const scaled = await scaleTo('maxp-kept', 200);
    expect(statusOf(scaled).jobStatus?.state).toBe('RUNNING');
    // Derived for 200 would be 512: the state's 256 wins.
    expect((await details(scaled)).vertices.map((v) => [v.parallelism, v.maxParallelism])).toEqual([
      [200, 256],
      [200, 256],
      [200, 256],
    ]);
  });

  it('a restore above the state max parallelism FAILS the job with Flink message, in status.error and the exception history', async () => {
    await running('maxp-above', { parallelism: 2 });
    const failed = await scaleTo('maxp-above', 200);
    expect(statusOf(failed).jobStatus?.state).toBe('FAILED');
    const error = JSON.parse(String(statusOf(failed).error)) as {
      message: string;
      throwableList: { message: string }[];
    };
    expect(error.message).toBe('Could not start the JobMaster.');
    const text =
      'can not be restored. The maximum parallelism (128) of the restored state is lower than the configured parallelism (200). Please reduce the parallelism of the task to be lower or equal to the maximum parallelism.';
    expect(error.throwableList[0]?.message).toContain(text);
    const jobId = String(statusOf(failed).jobStatus?.jobId);
    const res = await fetch(
      `${cluster.url}/api/v1/namespaces/${NS}/services/maxp-above-rest:rest/proxy/jobs/${jobId}/exceptions`,
    );
    const history = (await res.json()) as {
      exceptionHistory: { entries: { exceptionName: string; stacktrace: string }[] };
    };
    expect(history.exceptionHistory.entries[0]?.exceptionName).toBe('java.lang.IllegalStateException');
    expect(history.exceptionHistory.entries[0]?.stacktrace).toContain(text);
    expect(eventsFor(cluster.store, failed).map((e) => e.message)).toContain(
      'Job status changed from CREATED to FAILED',
    );
    // No checkpoint of the failed job: the savepoint stays the path to restore from.
    expect(String(statusOf(failed).jobStatus?.upgradeSavepointPath)).toMatch(/\/savepoints\//);
  });

  it('a last-state scale restores from the HA checkpoint, which keeps the max parallelism too', async () => {
    await running('maxp-ha', { parallelism: 2, upgradeMode: 'last-state' });
    const failed = await scaleTo('maxp-ha', 200);
    expect(statusOf(failed).jobStatus).toMatchObject({
      state: 'FAILED',
      upgradeSavepointPath: 'KUBERNETES_OPERATOR_LAST_STATE',
    });
    expect(String(statusOf(failed).error)).toContain('The maximum parallelism (128) of the restored state');
  });

  it('a stateless scale starts without state: the max parallelism is derived again and the job runs', async () => {
    await running('maxp-stateless', { parallelism: 2 });
    const scaled = await scaleTo('maxp-stateless', 200, 'stateless');
    expect(statusOf(scaled).jobStatus?.state).toBe('RUNNING');
    expect((await details(scaled)).vertices.map((v) => v.maxParallelism)).toEqual([512, 512, 512]);
  });
});
