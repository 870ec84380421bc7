// The simulated operator's autoscaler: the first decision, overrides re-applied on every reconcile, reset, disable, in-place rescale.
import { describe, expect, it } from 'vitest';
import { jobGraphOf, parallelismOverrides } from '../../src/kube/job-graph.js';
import {
  editSpec,
  eventsFor,
  reconciledSpec,
  recordStatuses,
  statusOf,
  useSimRig,
  waitFor,
  waitForStatus,
  waitStable,
  type Status,
} from '../support/sim.js';
import { deployment } from '../support/sim-resources.js';
import type { KubeObject } from '../../src/kube/store.js';
import { startSimOperator } from '../../src/kube/operator.js';
import { startSimApi } from '../support/kube.js';

const NS = 'streaming-prod';
const sim = useSimRig(NS);
const { get, deployed, eventCount } = sim;
const OVERRIDES = 'pipeline.jobvertex-parallelism-overrides';
/** 5 s stabilization + 5 s metrics window: the first decision comes 10 operator seconds after RUNNING. */
const AUTOSCALED = {
  'job.autoscaler.enabled': 'true',
  'job.autoscaler.stabilization.interval': '5s',
  'job.autoscaler.metrics.window': '5s',
};

function reconciledOverrides(status: Status): string | undefined {
  return reconciledSpec(status)?.flinkConfiguration?.[OVERRIDES] as string | undefined;
}

function configMap(name = 'orders'): KubeObject | undefined {
  return sim.rig.store.get('configmaps', NS, `autoscaler-${name}`);
}

/** Waits until the autoscaler's overrides are deployed and the job runs them. */
function autoscaled(timeoutMs = 5000): Promise<KubeObject> {
  return waitForStatus(
    sim.rig.store,
    'flinkdeployments',
    NS,
    'orders',
    (s, o) =>
      reconciledOverrides(s) !== undefined &&
      s.reconciliationStatus?.state === 'DEPLOYED' &&
      s.jobStatus?.state === 'RUNNING' &&
      s.observedGeneration === o.metadata.generation,
    'autoscaler overrides deployed and running',
    timeoutMs,
  );
}

describe('the first decision', () => {
  it('writes an override for every vertex into the deployed spec (not the CR), the ConfigMap and a ScalingReport, without a new generation', async () => {
    const first = await deployed('orders', { conf: AUTOSCALED });
    const submits = eventCount('Submit');
    const after = await autoscaled();
    const status = statusOf(after);
    const vertices = jobGraphOf(after);
    const expected = new Map(vertices.map((v) => [v.id, 3]));
    expect(parallelismOverrides(reconciledSpec(status) as Record<string, unknown>)).toEqual(expected);
    expect((after.spec?.flinkConfiguration as Record<string, unknown>)[OVERRIDES]).toBeUndefined();
    expect(after.metadata.generation).toBe(1);
    expect(status.observedGeneration).toBe(1);
    const data = configMap()?.data as Record<string, string>;
    expect(parallelismOverrides({ flinkConfiguration: { [OVERRIDES]: data.parallelismOverrides } })).toEqual(expected);
    expect(configMap()?.metadata.labels).toEqual({ component: 'autoscaler', app: 'orders' });
    const report = eventsFor(sim.rig.store, after).find((e) => e.reason === 'ScalingReport');
    expect(report?.type).toBe('Normal');
    expect(report?.component).toBe('Operator');
    expect(report?.message).toMatch(
      /^Scaling execution enabled, begin scaling vertices:\{ Vertex ID [0-9a-f]{32} \| Parallelism 2 -> 3 \|/,
    );
    // Not in place (default scheduler): a full redeploy.
    expect(eventCount('Submit')).toBe(submits + 1);
    expect(status.jobStatus?.jobId).not.toBe(statusOf(first).jobStatus?.jobId);
  });

  it('with the adaptive scheduler the decision is realised in place: Scaling, same job id, a pending rescale', async () => {
    const first = await deployed('orders', { conf: { ...AUTOSCALED, 'jobmanager.scheduler': 'adaptive' } });
    const submits = eventCount('Submit');
    const after = await autoscaled();
    expect(eventCount('Scaling')).toBe(1);
    expect(eventCount('Submit')).toBe(submits);
    const jobId = String(statusOf(after).jobStatus?.jobId);
    expect(jobId).toBe(statusOf(first).jobStatus?.jobId);
    expect(after.metadata.generation).toBe(1);
  });

  it('the autoscaler-default-on knob enables it without any key in the CR; removing the knob redeploys without the overrides', async () => {
    sim.rig.operator.setScenario(NS, 'orders', 'autoscaler-default-on');
    await deployed('orders', {
      conf: { 'job.autoscaler.stabilization.interval': '5s', 'job.autoscaler.metrics.window': '5s' },
    });
    const before = statusOf(await autoscaled());
    sim.rig.operator.clearScenario(NS, 'orders');
    const after = await waitForStatus(
      sim.rig.store,
      'flinkdeployments',
      NS,
      'orders',
      (s) =>
        reconciledOverrides(s) === undefined &&
        s.jobStatus?.state === 'RUNNING' &&
        s.reconciliationStatus?.state === 'DEPLOYED',
      'redeployed without overrides',
    );
    expect(statusOf(after).jobStatus?.jobId).not.toBe(before.jobStatus?.jobId);
    expect(after.metadata.generation).toBe(1);
    expect(configMap()?.data).toEqual({});
  });
});

describe('stored overrides on later reconciles', () => {
  it('a parallelism change on an autoscaled job is a full redeploy that keeps the overrides', async () => {
    await deployed('orders', { conf: AUTOSCALED });
    const before = statusOf(await autoscaled());
    const submits = eventCount('Submit');
    const generation = editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => (s.job.parallelism = 6));
    const after = statusOf(await waitStable(sim.rig.store, NS, 'orders'));
    expect(after.observedGeneration).toBe(generation);
    expect(eventCount('Submit')).toBe(submits + 1);
    expect(after.jobStatus?.jobId).not.toBe(before.jobStatus?.jobId);
    expect(reconciledSpec(after)?.job.parallelism).toBe(6);
    expect(reconciledOverrides(after)).toBe(reconciledOverrides(before));
    expect(
      eventsFor(sim.rig.store, get()).find((e) => e.reason === 'SpecChanged' && e.message.includes('job.parallelism'))
        ?.message,
    ).toMatch(/^UPGRADE change\(s\) detected/);
  });

  it('with scaling.enabled=false the stored overrides still apply on every redeploy', async () => {
    await deployed('orders', { conf: AUTOSCALED });
    const before = statusOf(await autoscaled());
    editSpec(
      sim.rig.store,
      'flinkdeployments',
      NS,
      'orders',
      (s) => (s.flinkConfiguration['job.autoscaler.scaling.enabled'] = 'false'),
    );
    const generation = editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => (s.restartNonce = 5));
    const after = statusOf(
      await waitForStatus(
        sim.rig.store,
        'flinkdeployments',
        NS,
        'orders',
        (s) =>
          s.observedGeneration === generation &&
          reconciledSpec(s)?.restartNonce === 5 &&
          s.jobStatus?.state === 'RUNNING',
        'restarted',
      ),
    );
    expect(reconciledOverrides(after)).toBe(reconciledOverrides(before));
  });

  it('a new autoscalerResetNonce clears the state: the following deploy runs without the overrides', async () => {
    await deployed('orders', { conf: AUTOSCALED });
    const before = statusOf(await autoscaled());
    const generation = editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => {
      s.job.autoscalerResetNonce = 1;
      // Keeps the next decision far away while the test looks.
      s.flinkConfiguration['job.autoscaler.stabilization.interval'] = '10 min';
    });
    const after = await waitForStatus(
      sim.rig.store,
      'flinkdeployments',
      NS,
      'orders',
      (s) =>
        reconciledOverrides(s) === undefined && s.jobStatus?.state === 'RUNNING' && s.observedGeneration === generation,
      'redeployed without overrides',
    );
    expect(statusOf(after).jobStatus?.jobId).not.toBe(before.jobStatus?.jobId);
    expect(reconciledSpec(statusOf(after))?.job.autoscalerResetNonce).toBe(1);
    expect(configMap()?.data).toEqual({});
  });

  it('disabling the autoscaler stops and redeploys the job without the overrides, with no generation of its own', async () => {
    await deployed('orders', { conf: AUTOSCALED });
    const before = statusOf(await autoscaled());
    const rec = recordStatuses(sim.rig.store, 'flinkdeployments', NS, 'orders');
    const generation = editSpec(
      sim.rig.store,
      'flinkdeployments',
      NS,
      'orders',
      (s) => (s.flinkConfiguration['job.autoscaler.enabled'] = 'false'),
    );
    const after = await waitForStatus(
      sim.rig.store,
      'flinkdeployments',
      NS,
      'orders',
      (s) =>
        reconciledOverrides(s) === undefined &&
        s.jobStatus?.state === 'RUNNING' &&
        s.reconciliationStatus?.state === 'DEPLOYED',
      'redeployed without overrides',
    );
    rec.stop();
    expect(rec.seen.some((r) => r.status.reconciliationStatus?.state === 'UPGRADING')).toBe(true);
    expect(rec.seen.every((r) => r.generation === generation)).toBe(true);
    expect(after.metadata.generation).toBe(generation);
    expect(statusOf(after).observedGeneration).toBe(generation);
    expect(statusOf(after).jobStatus?.jobId).not.toBe(before.jobStatus?.jobId);
    expect(
      eventsFor(sim.rig.store, after).find((e) => e.reason === 'SpecChanged' && e.message.includes(OVERRIDES))?.message,
    ).toMatch(/^SCALE change\(s\) detected/);
    expect(configMap()?.data).toEqual({});
  });
});

describe('user-set overrides with the adaptive scheduler', () => {
  function adaptive(flinkVersion: string): KubeObject {
    const object = deployment('orders', NS, { conf: { 'jobmanager.scheduler': 'adaptive' } });
    return { ...object, spec: { ...object.spec, flinkVersion } };
  }

  it('an override change is an in-place SCALE; the vertices rescale only after the stabilization timeout (Flink 2.x)', async () => {
    sim.rig.store.create('flinkdeployments', adaptive('v2_0'));
    const first = await waitStable(sim.rig.store, NS, 'orders');
    const [source, middle, sink] = jobGraphOf(first);
    const generation = editSpec(
      sim.rig.store,
      'flinkdeployments',
      NS,
      'orders',
      (s) => (s.flinkConfiguration[OVERRIDES] = `${String(source?.id)}:4`),
    );
    const after = await waitForStatus(
      sim.rig.store,
      'flinkdeployments',
      NS,
      'orders',
      (s) => s.observedGeneration === generation,
      'observed',
    );
    const status = statusOf(after);
    const jobId = String(status.jobStatus?.jobId);
    expect(jobId).toBe(statusOf(first).jobStatus?.jobId);
    expect(status.reconciliationStatus?.state).toBe('DEPLOYED');
    expect(eventCount('Scaling')).toBe(1);
    expect(eventCount('Suspended')).toBe(0);
    const now = sim.rig.store.now().getTime();
    const pending = sim.rig.operator.jobManagers.pendingRescale(jobId, now);
    expect(pending?.previous).toEqual(
      new Map([
        [source?.id, 2],
        [middle?.id, 2],
        [sink?.id, 2],
      ]),
    );
    // 60 operator seconds = 600 ms at fast speed, counted from the scale.
    expect(pending?.landsAt).toBeGreaterThan(now + 300);
  });

  it('removing an override the running job had falls back to a regular upgrade', async () => {
    sim.rig.store.create('flinkdeployments', adaptive('v1_20'));
    const first = await waitStable(sim.rig.store, NS, 'orders');
    const [source] = jobGraphOf(first);
    editSpec(
      sim.rig.store,
      'flinkdeployments',
      NS,
      'orders',
      (s) => (s.flinkConfiguration[OVERRIDES] = `${String(source?.id)}:4`),
    );
    await waitForStatus(
      sim.rig.store,
      'flinkdeployments',
      NS,
      'orders',
      (s) => reconciledOverrides(s) !== undefined,
      'scaled',
    );
    const generation = editSpec(
      sim.rig.store,
      'flinkdeployments',
      NS,
      'orders',
      (s) => delete s.flinkConfiguration[OVERRIDES],
    );
    const after = await waitStable(sim.rig.store, NS, 'orders');
    expect(statusOf(after).observedGeneration).toBe(generation);
    expect(eventCount('Suspended')).toBe(1);
    expect(statusOf(after).jobStatus?.jobId).not.toBe(statusOf(first).jobStatus?.jobId);
    expect(reconciledOverrides(statusOf(after))).toBeUndefined();
  });
});

describe('the ConfigMap through the API server', () => {
  it('reads and lists autoscaler-<name> with @kubernetes/client-node, and goes with its FlinkDeployment', async () => {
    const api = await startSimApi();
    const operator = startSimOperator({ store: api.store, speed: 'fast' });
    try {
      api.store.create('flinkdeployments', deployment('orders', NS, { conf: AUTOSCALED }));
      await waitForStatus(
        api.store,
        'flinkdeployments',
        NS,
        'orders',
        (s) => reconciledOverrides(s) !== undefined,
        'autoscaled',
      );
      const map = await api.core.readNamespacedConfigMap({ name: 'autoscaler-orders', namespace: NS });
      expect(map.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'FlinkDeployment', name: 'orders' });
      expect(map.data?.parallelismOverrides).toMatch(/^[0-9a-f]{32}:3(,[0-9a-f]{32}:3){2}$/);
      const listed = await api.core.listNamespacedConfigMap({ namespace: NS, labelSelector: 'component=autoscaler' });
      expect(listed.items.map((m) => m.metadata?.name)).toEqual(['autoscaler-orders']);
      api.store.delete('flinkdeployments', NS, 'orders');
      await waitFor(
        api.store,
        () => api.store.get('configmaps', NS, 'autoscaler-orders') === undefined,
        2000,
        'the ConfigMap collected',
      );
    } finally {
      await operator.close();
      await api.close();
    }
  });
});
