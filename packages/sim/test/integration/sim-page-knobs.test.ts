// The sandbox page's cluster-panel knobs drive the simulated operator's failure modes.
import { afterEach, describe, expect, it } from 'vitest';
import { startSimCluster, type SimCluster } from '../../src/kube/cluster.js';
import {
  KnobBoard,
  KNOB_NAMES,
  KNOBS,
  panelClusters,
  panelReleases,
  panelRows,
  pickCluster,
  type PanelCluster,
} from '../../src/page-cluster.js';
import { editSpec, eventsFor, statusOf, waitFor, waitForStatus, waitStable } from '../support/sim.js';
import { deployment } from '../support/sim-resources.js';

const NS = 'streaming-dev';
let cluster: SimCluster | undefined;
let others: SimCluster[] = [];

afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
  await Promise.all(others.map((c) => c.close()));
  others = [];
});

async function running(): Promise<{ cluster: SimCluster; board: KnobBoard }> {
  cluster = await startSimCluster({ seed: 'none', speed: 'fast' });
  cluster.store.create('flinkdeployments', deployment('orders', NS));
  await waitStable(cluster.store, NS, 'orders');
  return { cluster, board: new KnobBoard(cluster) };
}

function reasonCount(c: SimCluster, reason: string): number {
  const orders = c.store.get('flinkdeployments', NS, 'orders');
  return orders
    ? eventsFor(c.store, orders)
        .filter((e) => e.reason === reason)
        .reduce((n, e) => n + e.count, 0)
    : 0;
}

describe('cluster panel knobs', () => {
  it('offers the new failure modes', () => {
    expect(Object.keys(KNOBS)).toEqual(
      expect.arrayContaining(['task-failovers', 'stop-fails-once', 'upgrade-failed', 'image-pull-recovers']),
    );
    // Knobs only Flink REST reveals (docs/deep-verification.md#in-the-sandbox).
    expect(Object.keys(KNOBS)).toEqual(
      expect.arrayContaining(['tasks-waiting', 'checkpoints-failing', 'restored-elsewhere', 'rest-unreachable']),
    );
  });

  it('gives every knob a short name of its own, which the page shows on its button', () => {
    const names = Object.keys(KNOBS).map((id) => [id, (KNOB_NAMES as Record<string, string | undefined>)[id]]);
    for (const [id, name] of names) {
      expect(name, id).toMatch(/^[A-Z]/);
      expect(name, id).not.toBe(id);
    }
    expect(new Set(names.map(([, name]) => name)).size).toBe(names.length);
    // The README's walkthrough names these.
    expect(KNOB_NAMES).toMatchObject({
      'job-restarting': 'Job restarting',
      'autoscaler-on': 'Autoscaler on',
      'image-pull-recovers': 'Image pull recovers',
      'lose-response': 'Lose next API response',
    });
  });

  it('job restarting: the job is RESTARTING until a restart redeploys it, which falls back to last-state', async () => {
    const { cluster: c, board } = await running();
    expect(board.set(NS, 'orders', 'job-restarting', true)).toEqual(['job-restarting']);
    await waitForStatus(
      c.store,
      'flinkdeployments',
      NS,
      'orders',
      (s) => s.jobStatus?.state === 'RESTARTING',
      'RESTARTING',
    );
    const jobId = statusOf(c.store.get('flinkdeployments', NS, 'orders')).jobStatus?.jobId;
    editSpec(c.store, 'flinkdeployments', NS, 'orders', (s) => (s.restartNonce = 1));
    const back = await waitForStatus(
      c.store,
      'flinkdeployments',
      NS,
      'orders',
      (s, o) =>
        s.observedGeneration === o.metadata.generation &&
        s.jobStatus?.state === 'RUNNING' &&
        s.lifecycleState === 'STABLE',
      'RUNNING again',
    );
    expect(statusOf(back).jobStatus).toMatchObject({ jobId, upgradeSavepointPath: 'KUBERNETES_OPERATOR_LAST_STATE' });
  });

  it('autoscaler on: the autoscaler decides and its overrides reach the deployed spec, not the resource', async () => {
    const { cluster: c, board } = await running();
    board.set(NS, 'orders', 'autoscaler-on', true);
    const decided = await waitForStatus(
      c.store,
      'flinkdeployments',
      NS,
      'orders',
      (s) =>
        String(s.reconciliationStatus?.lastReconciledSpec ?? '').includes('pipeline.jobvertex-parallelism-overrides'),
      'autoscaler overrides',
      15_000,
    );
    expect(JSON.stringify(decided.spec)).not.toContain('pipeline.jobvertex-parallelism-overrides');
    expect(c.store.get('configmaps', NS, 'autoscaler-orders')).toBeDefined();
  });

  it('offers the real-job knobs (what REST shows for them: sim-job-shapes.test.ts)', () => {
    expect(Object.keys(KNOBS)).toEqual(
      expect.arrayContaining([
        'bounded-source',
        'checkpointing-in-code',
        'autoscaler-on',
        'job-restarting',
        'savepoint-abandoned',
      ]),
    );
  });

  it('task failovers: JobException warnings on the running job', async () => {
    const { cluster: c, board } = await running();
    expect(board.set(NS, 'orders', 'task-failovers', true)).toEqual(['task-failovers']);
    await waitFor(c.store, () => reasonCount(c, 'JobException') >= 3);
  });

  it('random failovers: only on the target whose knob is set (docs/sandbox.md#jobs-that-go-wrong-later-on-their-own)', async () => {
    // A low draw makes every reconcile interval's chance hit (fast speed: 600 ms per interval).
    const c = (cluster = await startSimCluster({ seed: 'none', speed: 'fast', random: () => 0.01 }));
    c.store.create('flinkdeployments', deployment('orders', NS));
    c.store.create('flinkdeployments', deployment('payments', NS));
    await waitStable(c.store, NS, 'orders');
    await waitStable(c.store, NS, 'payments');
    const board = new KnobBoard(c);
    expect(board.set(NS, 'orders', 'random-failovers', true)).toEqual(['random-failovers']);
    await waitFor(c.store, () => reasonCount(c, 'JobException') >= 2);
    const payments = c.store.get('flinkdeployments', NS, 'payments');
    if (!payments) throw new Error('payments is gone');
    expect(eventsFor(c.store, payments).filter((e) => e.reason === 'JobException')).toEqual([]);
  });

  it('stop fails once: one SavepointError, then the suspend completes', async () => {
    const { cluster: c, board } = await running();
    board.set(NS, 'orders', 'stop-fails-once', true);
    editSpec(c.store, 'flinkdeployments', NS, 'orders', (s) => (s.job.state = 'suspended'));
    await waitForStatus(
      c.store,
      'flinkdeployments',
      NS,
      'orders',
      (s) => s.lifecycleState === 'SUSPENDED',
      'SUSPENDED',
    );
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
    await waitForStatus(
      c.store,
      'flinkdeployments',
      NS,
      'orders',
      (s) => s.jobManagerDeploymentStatus === 'ERROR',
      'ERROR',
    );
    expect(statusOf(await waitStable(c.store, NS, 'orders')).error).toBeUndefined();
  });
});

describe('cluster panel with several clusters', () => {
  async function twoClusters(): Promise<{ eu: SimCluster; us: SimCluster; panel: PanelCluster[] }> {
    const [eu, us] = await Promise.all([
      startSimCluster({ seed: 'none', speed: 'fast' }),
      startSimCluster({ seed: 'none', speed: 'fast', operatorVersion: '1.16', crdVersion: '1.15' }),
    ]);
    others = [eu, us];
    for (const c of others) c.store.create('flinkdeployments', deployment('orders', NS));
    await Promise.all(others.map((c) => waitStable(c.store, NS, 'orders')));
    return {
      eu,
      us,
      panel: panelClusters([
        { name: 'eu', cluster: eu },
        { name: 'us', cluster: us },
      ]),
    };
  }

  it('rows name their cluster; the same namespace/name is one row per cluster', async () => {
    const { panel } = await twoClusters();
    expect(panelRows(panel).map((r) => `${r.cluster}/${r.namespace}/${r.name}`)).toEqual([
      'eu/streaming-dev/orders',
      'us/streaming-dev/orders',
    ]);
  });

  it("names each cluster's operator and CRD release (upgraded separately, they may differ)", async () => {
    const { panel } = await twoClusters();
    expect(panelReleases(panel)).toEqual({
      eu: { operator: '1.15', crd: '1.15' },
      us: { operator: '1.16', crd: '1.15' },
    });
  });

  it('a knob acts on the named cluster only; several clusters need a name', async () => {
    const { eu, us, panel } = await twoClusters();
    expect(pickCluster(panel, undefined)).toEqual({
      error: '"cluster" must name one of the simulated clusters: eu, us',
    });
    expect(pickCluster(panel, 'ap')).toEqual({ error: 'no simulated cluster "ap"; the sandbox has eu, us' });
    const picked = pickCluster(panel, 'us');
    if ('error' in picked) throw new Error(picked.error);
    expect(picked.knobs.set(NS, 'orders', 'upgrade-failed', true)).toEqual(['upgrade-failed']);
    expect(panelRows(panel).map((r) => [r.cluster, r.knobs])).toEqual([
      ['eu', []],
      ['us', ['upgrade-failed']],
    ]);

    for (const c of [eu, us]) editSpec(c.store, 'flinkdeployments', NS, 'orders', (s) => (s.restartNonce = 1));
    const upgradeFailed = (c: SimCluster) => {
      const orders = c.store.get('flinkdeployments', NS, 'orders');
      return orders ? eventsFor(c.store, orders).some((e) => e.reason === 'UpgradeFailed') : false;
    };
    await waitFor(us.store, () => upgradeFailed(us));
    await waitStable(eu.store, NS, 'orders');
    expect(upgradeFailed(eu)).toBe(false);
  });

  it('a single unnamed cluster needs no name', async () => {
    const { cluster: c, board } = await running();
    const picked = pickCluster([{ cluster: c, knobs: board }], undefined);
    expect('error' in picked).toBe(false);
  });
});
