// The simulated operator seen through the real @kubernetes/client-node against the simulated API server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimCluster, type SimCluster } from '../../src/kube/cluster.js';
import { SCENARIO_ANNOTATION } from '../../src/kube/scenarios.js';
import type { KubeObject } from '../../src/kube/store.js';
import { collectWatch, crPath, kubeClients, MERGE_PATCH, type KubeClients } from '../support/kube.js';
import { isStable, statusOf, waitFor, waitForStatus, waitStable, type Status } from '../support/sim.js';
import { deployment, snapshot } from '../support/sim-resources.js';

const NS = 'streaming-prod';
let cluster: SimCluster;
let kube: KubeClients;

beforeAll(async () => {
  cluster = await startSimCluster({ seed: 'none', speed: 'fast' });
  kube = kubeClients(cluster.url);
});
afterAll(async () => {
  await cluster.close();
});

async function read(name: string, plural = 'flinkdeployments'): Promise<KubeObject> {
  return (await kube.custom.getNamespacedCustomObjectStatus({ ...crPath(NS, plural), name })) as KubeObject;
}

async function eventsOf(object: KubeObject) {
  const list = await kube.core.listNamespacedEvent({
    namespace: NS,
    fieldSelector: `involvedObject.uid=${object.metadata.uid as string}`,
  });
  return list.items;
}

describe('through client-node', () => {
  it('a created FlinkDeployment reaches STABLE and a merge-patched image upgrade is reconciled, with deduplicated events', async () => {
    const created = (await kube.custom.createNamespacedCustomObject({
      ...crPath(NS),
      body: deployment('orders', NS),
    })) as KubeObject;
    expect(created.metadata.generation).toBe(1);
    await waitStable(cluster.store, NS, 'orders');
    const first = await read('orders');
    expect(statusOf(first)).toMatchObject({
      lifecycleState: 'STABLE',
      jobManagerDeploymentStatus: 'READY',
      observedGeneration: 1,
    });

    const watch = await collectWatch(kube.watch, `/apis/flink.apache.org/v1beta1/namespaces/${NS}/flinkdeployments`, {
      resourceVersion: first.metadata.resourceVersion as string,
    });
    const patched = (await kube.custom.patchNamespacedCustomObject(
      { ...crPath(NS), name: 'orders', body: { spec: { image: 'flink:1.20.1' } } },
      MERGE_PATCH,
    )) as KubeObject;
    expect(patched.metadata.generation).toBe(2);
    await waitFor2Stable();
    const seen = watch.events.map((e) => statusOf(e.object));
    watch.abort();
    expect(seen.some((s: Status) => s.reconciliationStatus?.state === 'UPGRADING' && s.observedGeneration === 2)).toBe(
      true,
    );

    const after = await read('orders');
    expect(statusOf(after).jobStatus?.jobId).not.toBe(statusOf(first).jobStatus?.jobId);
    const events = await eventsOf(after);
    const submit = events.filter((e) => e.reason === 'Submit');
    expect(submit).toHaveLength(1);
    expect(submit[0]?.count).toBe(2);
    expect(submit[0]?.source?.component).toBe('JobManagerDeployment');
    expect(submit[0]?.involvedObject).toMatchObject({
      apiVersion: 'flink.apache.org/v1beta1',
      kind: 'FlinkDeployment',
      name: 'orders',
    });
    expect(events.map((e) => e.reason)).toEqual(
      expect.arrayContaining(['SpecChanged', 'Suspended', 'Submit', 'JobStatusChanged']),
    );
  });

  it('a FlinkStateSnapshot created through the API completes and can be found by its labels', async () => {
    await kube.custom.createNamespacedCustomObject({
      ...crPath(NS, 'flinkstatesnapshots'),
      body: snapshot('orders-sp-1', NS, 'orders', { backoffLimit: 2 }),
    });
    await waitForStatus(
      cluster.store,
      'flinkstatesnapshots',
      NS,
      'orders-sp-1',
      (s) => s.state === 'COMPLETED',
      'COMPLETED',
    );
    const list = (await kube.custom.listNamespacedCustomObject({
      ...crPath(NS, 'flinkstatesnapshots'),
      labelSelector: 'job-reference.name=orders,snapshot.state=COMPLETED',
    })) as { items: KubeObject[] };
    const names = list.items.map((i) => i.metadata.name);
    expect(names).toContain('orders-sp-1');
    expect(names.some((n) => /^orders-savepoint-upgrade-\d+$/.test(n))).toBe(true);
  });

  it('a failure knob set by annotation through a merge patch takes effect', async () => {
    await kube.custom.patchNamespacedCustomObject(
      {
        ...crPath(NS),
        name: 'orders',
        body: { metadata: { annotations: { [SCENARIO_ANNOTATION]: 'image-pull-failure' } }, spec: { restartNonce: 9 } },
      },
      MERGE_PATCH,
    );
    await waitForStatus(
      cluster.store,
      'flinkdeployments',
      NS,
      'orders',
      (s) => s.jobManagerDeploymentStatus === 'ERROR',
      'JM ERROR',
    );
    const events = await eventsOf(await read('orders'));
    expect(events.find((e) => e.reason === 'ErrImagePull')?.type).toBe('Warning');
    // A failed image pull is not one of CommonStatus rule 7's manual-restore errors.
    expect(statusOf(await read('orders')).lifecycleState).toBe('DEPLOYED');
  });

  it('job-exceptions=2 by annotation: two JobException Warnings with the observer annotations after RUNNING', async () => {
    await kube.custom.patchNamespacedCustomObject(
      {
        ...crPath(NS),
        name: 'orders',
        body: {
          metadata: { annotations: { [SCENARIO_ANNOTATION]: 'job-exceptions=2' } },
          spec: { image: 'flink:1.20.2' },
        },
      },
      MERGE_PATCH,
    );
    await waitForStatus(
      cluster.store,
      'flinkdeployments',
      NS,
      'orders',
      (s, o) => o.metadata.generation === 4 && isStable(s, o),
      'generation 4 STABLE',
    );
    const failovers = await waitForEvents(2, 'JobException');
    for (const event of failovers) {
      expect(event).toMatchObject({ type: 'Warning', count: 1, source: { component: 'Job' } });
      expect(event.message).toMatch(/^java\.lang\.RuntimeException: Simulated task failure #\d+ in .+\n\tat /);
      expect(Object.keys(event.metadata.annotations ?? {}).sort()).toEqual([
        'endpoint',
        'exception-timestamp',
        'task-name',
        'tm-id',
      ]);
      expect(event.metadata.name).toMatch(/^Job\.\d+$/);
    }
    const running = (await eventsOf(await read('orders'))).find(
      (e) => e.reason === 'JobStatusChanged' && e.message?.endsWith('to RUNNING'),
    );
    expect(Date.parse(String(failovers[0]?.lastTimestamp))).toBeGreaterThanOrEqual(
      Date.parse(String(running?.lastTimestamp)),
    );
  });
});

/** Polls the events through client-node until `count` events of `reason` are listed (the cluster emits them on timers). */
async function waitForEvents(count: number, reason: string) {
  const orders = await read('orders');
  return waitFor(cluster.store, () => {
    const seen = cluster.store
      .list('events', NS)
      .filter((e) => e.reason === reason && (e.involvedObject as { uid?: string }).uid === orders.metadata.uid);
    return seen.length >= count;
  }).then(async () => (await eventsOf(orders)).filter((e) => e.reason === reason));
}

function waitFor2Stable(): Promise<KubeObject> {
  return waitForStatus(
    cluster.store,
    'flinkdeployments',
    NS,
    'orders',
    (s, o) => o.metadata.generation === 2 && isStable(s, o),
    'generation 2 STABLE',
  );
}
