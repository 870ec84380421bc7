// The sandbox page's cluster-panel knobs drive the simulated operator's failure modes.
import { afterEach, describe, expect, it } from 'vitest';
import { startSimCluster, type SimCluster } from '../../src/sandbox/kube/cluster.js';
import { KnobBoard, KNOBS } from '../../src/sandbox/page-cluster.js';
import { deployment, editSpec, eventsFor, statusOf, waitFor, waitForStatus, waitStable } from '../support/sim.js';

const NS = 'streaming-dev';
let cluster: SimCluster | undefined;

afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

async function running(): Promise<{ cluster: SimCluster; board: KnobBoard }> {
  cluster = await startSimCluster({ seed: 'none', speed: 'fast' });
  cluster.store.create('flinkdeployments', deployment('orders', NS));
  await waitStable(cluster.store, NS, 'orders');
  return { cluster, board: new KnobBoard(cluster) };
}

function reasonCount(c: SimCluster, reason: string): number {
  const orders = c.store.get('flinkdeployments', NS, 'orders');
  return orders ? eventsFor(c.store, orders).filter((e) => e.reason === reason).reduce((n, e) => n + e.count, 0) : 0;
}

describe('cluster panel knobs', () => {
  it('offers the new failure modes', () => {
    expect(Object.keys(KNOBS)).toEqual(expect.arrayContaining(['task-failovers', 'stop-fails-once', 'upgrade-failed', 'image-pull-recovers']));
    // Knobs only Flink REST reveals (deep verification, SPEC §5a).
    expect(Object.keys(KNOBS)).toEqual(expect.arrayContaining(['tasks-waiting', 'checkpoints-failing', 'restored-elsewhere', 'rest-unreachable']));
  });

  it('task failovers: JobException warnings on the running job', async () => {
    const { cluster: c, board } = await running();
    expect(board.set(NS, 'orders', 'task-failovers', true)).toEqual(['task-failovers']);
    await waitFor(c.store, () => reasonCount(c, 'JobException') >= 3);
  });

  it('stop fails once: one SavepointError, then the suspend completes', async () => {
    const { cluster: c, board } = await running();
    board.set(NS, 'orders', 'stop-fails-once', true);
    editSpec(c.store, 'flinkdeployments', NS, 'orders', (s) => (s.job.state = 'suspended'));
    await waitForStatus(c.store, 'flinkdeployments', NS, 'orders', (s) => s.lifecycleState === 'SUSPENDED', 'SUSPENDED');
    expect(reasonCount(c, 'SavepointError')).toBe(1);
  });

  it('upgrade failed: UpgradeFailed until the knob is turned off', async () => {
    const { cluster: c, board } = await running();
    board.set(NS, 'orders', 'upgrade-failed', true);
    editSpec(c.store, 'flinkdeployments', NS, 'orders', (s) => (s.restartNonce = 1));
    await waitFor(c.store, () => reasonCount(c, 'UpgradeFailed') >= 1);
    expect(board.set(NS, 'orders', 'upgrade-failed')).toEqual([]);
    await waitStable(c.store, NS, 'orders');
  });

  it('image pull recovers: ERROR, then STABLE; it and the permanent pull failure exclude each other', async () => {
    const { cluster: c, board } = await running();
    board.set(NS, 'orders', 'image-pull-failure', true);
    expect(board.set(NS, 'orders', 'image-pull-recovers', true)).toEqual(['image-pull-recovers']);
    editSpec(c.store, 'flinkdeployments', NS, 'orders', (s) => (s.image = 'flink:1.20.1'));
    await waitForStatus(c.store, 'flinkdeployments', NS, 'orders', (s) => s.jobManagerDeploymentStatus === 'ERROR', 'ERROR');
    expect(statusOf(await waitStable(c.store, NS, 'orders')).error).toBeUndefined();
  });
});
