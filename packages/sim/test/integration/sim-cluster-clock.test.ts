// A simulated cluster whose clock is set apart from the test's (`clockOffsetMs`, `--clock-offset`): everything it
// writes and the API server's Date header follow the cluster's clock, seen through client-node.
import { afterEach, describe, expect, it } from 'vitest';
import { parseClockOffsetMs, startSimCluster, type SimCluster } from '../../src/kube/cluster.js';
import type { KubeObject } from '../../src/kube/store.js';
import { crPath, kubeClients } from '../support/kube.js';
import { statusOf, waitForStatus, waitStable } from '../support/sim.js';
import { deployment, snapshot } from '../support/sim-resources.js';

const NS = 'streaming-prod';
/** Slack for the time the workload itself takes between reading the test's clock and the cluster writing. */
const SLACK_MS = 5_000;
let cluster: SimCluster | undefined;

afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

function near(value: unknown, expected: number): void {
  const ms =
    typeof value === 'number' ? value : /^\d+$/.test(String(value)) ? Number(value) : Date.parse(String(value));
  expect(Math.abs(ms - expected), `${String(value)} vs ${new Date(expected).toISOString()}`).toBeLessThan(SLACK_MS);
}

describe('cluster clock offset', () => {
  it.each([30_000, -30_000])(
    '%i ms: timestamps, status times, events, snapshots and the Date header are on the cluster clock',
    async (offset) => {
      cluster = await startSimCluster({ seed: 'none', speed: 'fast', clockOffsetMs: offset });
      const kube = kubeClients(cluster.url);
      const created = (await kube.custom.createNamespacedCustomObject({
        ...crPath(NS),
        body: deployment('orders', NS),
      })) as KubeObject;
      near(created.metadata.creationTimestamp, Date.now() + offset);
      await waitStable(cluster.store, NS, 'orders');
      await kube.custom.createNamespacedCustomObject({
        ...crPath(NS, 'flinkstatesnapshots'),
        body: snapshot('sp', NS, 'orders', { backoffLimit: 2 }),
      });
      await waitForStatus(cluster.store, 'flinkstatesnapshots', NS, 'sp', (s) => s.state === 'COMPLETED', 'COMPLETED');
      const clusterNow = Date.now() + offset;

      const orders = (await kube.custom.getNamespacedCustomObjectStatus({
        ...crPath(NS),
        name: 'orders',
      })) as KubeObject;
      const status = statusOf(orders);
      near(status.jobStatus?.startTime, clusterNow);
      near(status.jobStatus?.updateTime, clusterNow);
      near(status.reconciliationStatus?.reconciliationTimestamp, clusterNow);
      near((status.conditions?.[0] as { lastTransitionTime?: string } | undefined)?.lastTransitionTime, clusterNow);
      const sp = (await kube.custom.getNamespacedCustomObjectStatus({
        ...crPath(NS, 'flinkstatesnapshots'),
        name: 'sp',
      })) as KubeObject;
      near(sp.status?.triggerTimestamp, clusterNow);
      near(sp.status?.resultTimestamp, clusterNow);
      const events = await kube.core.listNamespacedEvent({ namespace: NS });
      expect(events.items.length).toBeGreaterThan(2);
      for (const event of events.items) {
        near(event.firstTimestamp, clusterNow);
        near(event.lastTimestamp, clusterNow);
      }

      const response = await fetch(`${cluster.url}/apis/flink.apache.org/v1beta1/namespaces/${NS}/flinkdeployments`);
      near(response.headers.get('date'), Date.now() + offset);
    },
  );
});

describe('parseClockOffsetMs (--clock-offset)', () => {
  it.each([
    ['30s', 30_000],
    ['-30s', -30_000],
    ['+2m', 120_000],
    ['1500ms', 1_500],
    ['45', 45_000],
    ['0', 0],
  ])('%s is %i ms', (text, ms) => {
    expect(parseClockOffsetMs(text)).toBe(ms);
  });

  it.each(['soon', '', '--30s', '30 parsecs'])('%j is refused', (text) => {
    expect(parseClockOffsetMs(text)).toBeUndefined();
  });
});
