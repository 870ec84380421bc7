// Checkpoint numbering after a savepoint restore, through the simulated API server's service proxy: Flink restores a
// savepoint under its own checkpoint id (`latest.restored.id`) and the next checkpoints continue from it
// (CheckpointCoordinator.restoreSavepoint, restoreLatestCheckpointedStateInternal).
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { startSimCluster, type SimCluster } from '../../src/kube/cluster.js';
import type { KubeObject } from '../../src/kube/store.js';
import { editSpec, statusOf, waitForStatus, waitStable } from '../support/sim.js';
import { deployment } from '../support/sim-resources.js';

const NS = 'streaming-prod';
let cluster: SimCluster;

interface Checkpoints {
  counts: { completed: number };
  latest: {
    completed: { id: number } | null;
    savepoint: { id: number } | null;
    restored: { id: number; external_path: string; is_savepoint: boolean } | null;
  };
}

beforeAll(async () => {
  cluster = await startSimCluster({ port: 0, seed: 'none', speed: 'fast' });
});
afterAll(async () => {
  await cluster?.close();
});

async function checkpointsOf(object: KubeObject): Promise<Checkpoints> {
  const jobId = String(statusOf(object).jobStatus?.jobId);
  const url = `${cluster.url}/api/v1/namespaces/${NS}/services/${object.metadata.name}-rest:rest/proxy/jobs/${jobId}/checkpoints`;
  return (await (await fetch(url)).json()) as Checkpoints;
}

it('a savepoint restore reports the savepoint checkpoint id, and the next checkpoints continue from it', async () => {
  cluster.store.create(
    'flinkdeployments',
    deployment('restored-id', NS, { conf: { 'execution.checkpointing.interval': '1s' } }),
  );
  const first = await waitStable(cluster.store, NS, 'restored-id');
  const firstJob = String(statusOf(first).jobStatus?.jobId);
  // A few checkpoints of the first run, so the savepoint's id is not 1.
  await vi.waitFor(async () => expect((await checkpointsOf(first)).latest.completed?.id).toBeGreaterThanOrEqual(3), {
    timeout: 5_000,
  });
  editSpec(cluster.store, 'flinkdeployments', NS, 'restored-id', (spec) => (spec.restartNonce = 1));
  const restarted = await waitForStatus(
    cluster.store,
    'flinkdeployments',
    NS,
    'restored-id',
    (s, o) =>
      s.observedGeneration === o.metadata.generation &&
      s.lifecycleState === 'STABLE' &&
      s.jobStatus?.state === 'RUNNING',
    'restarted from its savepoint',
  );
  const path = String(statusOf(restarted).jobStatus?.upgradeSavepointPath);
  const savepointId = cluster.jobManagers.latestSavepoint(firstJob)?.id;
  expect(savepointId).toBeGreaterThan(1);
  expect(cluster.jobManagers.latestSavepoint(firstJob)?.path).toBe(path);
  expect((await checkpointsOf(restarted)).latest.restored).toMatchObject({ id: savepointId, is_savepoint: true });
  await vi.waitFor(async () => expect((await checkpointsOf(restarted)).latest.completed).not.toBeNull(), {
    timeout: 5_000,
  });
  // The n-th checkpoint of the restored run is savepoint id + n.
  const after = await checkpointsOf(restarted);
  expect(after.latest.completed?.id).toBe((savepointId as number) + after.counts.completed);
});
