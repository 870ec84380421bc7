// The simulated operator as release 1.16 behaves, beside 1.15 (docs/sandbox.md#operator-releases): `resources`
// precedence and arithmetic (flink-kubernetes-operator FlinkConfigBuilder.applyResourceConfig and
// setResourceRequirements, FlinkUtils.calculateClusterMemoryUsage), its spec model (SpecUtils.writeSpecWithMeta),
// the validation it adds (DefaultValidator.validateResourceRequirements, AutoscalerValidator) and unlimited snapshot
// retries (FlinkStateSnapshotController, FLINK-39967).
import { afterEach, describe, expect, it } from 'vitest';
import { startSimCluster } from '../../src/kube/cluster.js';
import type { KubeObject } from '../../src/kube/store.js';
import type { OperatorVersion } from '../../src/kube/versions.js';
import {
  editSpec,
  eventsFor,
  reconciledSpec,
  recordStatuses,
  simRig,
  statusOf,
  waitFor,
  waitForStatus,
  waitStable,
  type SimRig,
} from '../support/sim.js';
import { deployment, snapshot, type Loose } from '../support/sim-resources.js';

const NS = 'streaming-prod';
const GIB = 1024 ** 3;
let rig: SimRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** A FlinkDeployment whose TaskManager uses `resources` (the deprecated `resource` left in place, as upgrades do). */
function withResources(name: string, resources: Loose) {
  const object = deployment(name, NS, { ha: false });
  (object.spec as Loose).taskManager.resources = resources;
  return object;
}

async function start(version: OperatorVersion, object = deployment('orders', NS, { ha: false })) {
  rig = simRig({ operatorVersion: version });
  rig.store.create('flinkdeployments', object);
  return waitStable(rig.store, NS, object.metadata.name);
}

const totalMemory = (object: KubeObject) =>
  (statusOf(object).clusterInfo as Record<string, string> | undefined)?.['total-memory'];

const messages = (reason: string, name = 'orders') =>
  eventsFor((rig as SimRig).store, (rig as SimRig).store.get('flinkdeployments', NS, name)!)
    .filter((e) => e.reason === reason)
    .map((e) => e.message);

describe('operator 1.16: resources', () => {
  it('with resources in effect the TaskManager gets the request, resource is ignored, totals use the limit factor', async () => {
    const running = await start(
      '1.16',
      withResources('orders', { requests: { memory: '2Gi' }, limits: { memory: '4Gi' } }),
    );
    // JM 2048m × 1 + TM 2 GiB × factor 2 × 1 TaskManager (parallelism 2, 2 slots); resource.memory 2048m is ignored.
    expect(statusOf(running).clusterInfo).toMatchObject({ 'total-memory': String(2 * GIB + 4 * GIB) });
    const reconciled = reconciledSpec(statusOf(running));
    expect(reconciled?.taskManager.resources).toEqual({ requests: { memory: '2Gi' }, limits: { memory: '4Gi' } });
  });

  it('a change of resources.requests.memory is an UPGRADE naming the field, and the effective memory moves', async () => {
    await start('1.16', withResources('orders', { requests: { memory: '2Gi' } }));
    const generation = editSpec(rig!.store, 'flinkdeployments', NS, 'orders', (s) => {
      s.taskManager.resources.requests.memory = '4Gi';
    });
    const done = await waitStable(rig!.store, NS, 'orders');
    expect(statusOf(done).observedGeneration).toBe(generation);
    expect(messages('SpecChanged')).toEqual([
      'UPGRADE change(s) detected (Diff: FlinkDeploymentSpec[taskManager.resources.requests.memory : 2Gi -> 4Gi]), starting reconciliation.',
    ]);
    expect(totalMemory(done)).toBe(String(2 * GIB + 4 * GIB));
  });

  it('a change of the deprecated resource while resources is in effect redeploys and changes nothing the job gets', async () => {
    const before = await start('1.16', withResources('orders', { requests: { memory: '2Gi' } }));
    editSpec(rig!.store, 'flinkdeployments', NS, 'orders', (s) => (s.taskManager.resource.memory = '8g'));
    const done = await waitFor(
      rig!.store,
      () => {
        const object = rig!.store.get('flinkdeployments', NS, 'orders');
        return object && statusOf(object).jobStatus?.jobId !== statusOf(before).jobStatus?.jobId && object;
      },
      5000,
      'the redeployed job',
    );
    await waitStable(rig!.store, NS, 'orders');
    expect(messages('SpecChanged')[0]).toMatch(/taskManager\.resource\.memory : 2048m -> 8g/);
    expect(reconciledSpec(statusOf(done))?.taskManager.resource.memory).toBe('8g');
    expect(totalMemory(done)).toBe(totalMemory(before));
  });

  it('lastReconciledSpec carries "resources": null under jobManager and taskManager when unset (the 1.16 fingerprint)', async () => {
    const running = await start('1.16');
    const text = String(statusOf(running).reconciliationStatus?.lastReconciledSpec);
    const spec = JSON.parse(text).spec as Loose;
    expect(spec.jobManager).toHaveProperty('resources', null);
    expect(spec.taskManager).toHaveProperty('resources', null);
  });
});

describe('operator 1.15: resources is unknown to it', () => {
  it('a resources change is an empty diff: observedGeneration advances, no SpecChanged, lastReconciledSpec without it', async () => {
    const before = await start('1.15');
    const generation = editSpec(rig!.store, 'flinkdeployments', NS, 'orders', (s) => {
      s.taskManager.resources = { requests: { memory: '4Gi' } };
    });
    const after = await waitForStatus(
      rig!.store,
      'flinkdeployments',
      NS,
      'orders',
      (s) => s.observedGeneration === generation,
      'the new generation observed',
    );
    expect(messages('SpecChanged')).toEqual([]);
    expect(statusOf(after).jobStatus?.jobId).toBe(statusOf(before).jobStatus?.jobId);
    const reconciled = reconciledSpec(statusOf(after));
    expect(reconciled?.taskManager).not.toHaveProperty('resources');
    expect(totalMemory(after)).toBe(totalMemory(before));
  });
});

describe('validation (DefaultValidator, AutoscalerValidator)', () => {
  async function rejected(version: OperatorVersion, mutate: (spec: Loose) => void): Promise<string | undefined> {
    await start(version);
    editSpec(rig!.store, 'flinkdeployments', NS, 'orders', mutate);
    await waitFor(rig!.store, () => messages('ValidationError').length > 0, 5000, 'a ValidationError');
    return messages('ValidationError')[0];
  }

  it('1.16: a request above its limit', async () => {
    const message = await rejected('1.16', (s) => {
      s.taskManager.resources = { requests: { memory: '4Gi' }, limits: { memory: '2Gi' } };
    });
    expect(message).toBe('TaskManager resource requirements memory request (4Gi) must not exceed its limit (2Gi)');
  });

  it('1.16: a non-positive cpu', async () => {
    const message = await rejected('1.16', (s) => (s.jobManager.resources = { requests: { cpu: '0' } }));
    expect(message).toBe('JobManager resource requirements requests cpu must be positive: 0');
  });

  it.each([
    ['1.15', 'TaskManager resource memory must be defined using `spec.taskManager.resource.memory`'],
    [
      '1.16',
      'TaskManager resource memory must be defined using `spec.taskManager.resource.memory` or `spec.taskManager.resources.requests.memory`',
    ],
  ] as const)('%s: the memory-missing message', async (version, text) => {
    expect(await rejected(version, (s) => delete s.taskManager.resource.memory)).toBe(text);
  });

  it('1.16: an autoscaler metric window shorter than the reconcile interval (DefaultValidator.validateMetricsWindow)', async () => {
    const message = await rejected('1.16', (s) => {
      s.flinkConfiguration['job.autoscaler.enabled'] = 'true';
      s.flinkConfiguration['job.autoscaler.metrics.window'] = '30s';
    });
    expect(message).toBe(
      'The autoscaler metric window (job.autoscaler.metrics.window=PT30S) must not be smaller than the operator reconcile interval (kubernetes.operator.reconcile.interval=PT1M), otherwise fewer than two metric samples are retained and autoscaling is never applied.',
    );
  });

  it('1.16: an autoscaler memory threshold outside [0, 1]', async () => {
    const message = await rejected('1.16', (s) => {
      s.flinkConfiguration['job.autoscaler.enabled'] = 'true';
      s.flinkConfiguration['job.autoscaler.memory.gc-pressure.threshold'] = '1.5';
    });
    expect(message).toBe(
      'The AutoScalerOption job.autoscaler.memory.gc-pressure.threshold is invalid, it should be a value within the range [0.0, 1.0]',
    );
  });
});

describe('FlinkStateSnapshot backoffLimit on 1.16 (FlinkStateSnapshotController: FAILED only when backoffLimit >= 0)', () => {
  it.each([{ backoffLimit: undefined }, { backoffLimit: -1 }])(
    'backoffLimit $backoffLimit retries without end: TRIGGER_PENDING between attempts, a SavepointError each, never FAILED',
    async ({ backoffLimit }) => {
      await start('1.16');
      rig!.operator.setScenario(NS, 'orders', 'savepoint-failure');
      const rec = recordStatuses(rig!.store, 'flinkstatesnapshots', NS, 'sp');
      rig!.store.create(
        'flinkstatesnapshots',
        snapshot('sp', NS, 'orders', backoffLimit === undefined ? {} : { backoffLimit }),
      );
      const third = await waitForStatus(
        rig!.store,
        'flinkstatesnapshots',
        NS,
        'sp',
        (s) => (s.failures ?? 0) >= 3 && s.state === 'TRIGGER_PENDING',
        'three failed attempts',
      );
      rec.stop();
      expect(rec.seen.map((r) => r.status.state)).not.toContain('FAILED');
      const errors = eventsFor(rig!.store, third).filter((e) => e.reason === 'SavepointError');
      expect(errors).toHaveLength(1);
      expect(errors[0]?.count).toBeGreaterThanOrEqual(3);
    },
  );

  it('an explicit backoffLimit 0 still fails after one attempt', async () => {
    await start('1.16');
    rig!.operator.setScenario(NS, 'orders', 'savepoint-failure');
    rig!.store.create('flinkstatesnapshots', snapshot('sp', NS, 'orders', { backoffLimit: 0 }));
    const done = await waitForStatus(
      rig!.store,
      'flinkstatesnapshots',
      NS,
      'sp',
      (s) => s.state === 'FAILED',
      'FAILED',
    );
    expect(statusOf(done).failures).toBe(1);
  });
});

describe('pods (Flink KubernetesUtils.getResourceRequirements, from the spec the operator deployed)', () => {
  it.each([
    [
      '1.16',
      { requests: { memory: '2Gi', cpu: '1' }, limits: { memory: '3Gi', cpu: '2' } },
      ['2048Mi', '3072Mi', '1', '2'],
    ],
    [
      '1.15',
      { requests: { memory: '2Gi', cpu: '1' }, limits: { memory: '3Gi', cpu: '2' } },
      ['4096Mi', '4096Mi', '2', '2'],
    ],
  ] as const)(
    'operator %s: the TaskManager container gets %j as requests and limits',
    async (version, resources, want) => {
      const cluster = await startSimCluster({ seed: 'none', speed: 'fast', operatorVersion: version });
      try {
        const object = withResources('orders', resources);
        (object.spec as Loose).taskManager.resource = { memory: '4096m', cpu: 2 };
        cluster.store.create('flinkdeployments', object);
        await waitStable(cluster.store, NS, 'orders');
        const [tm] = cluster.pods.list(NS, 'component=taskmanager') as unknown as { spec: { containers: Loose[] } }[];
        const { requests, limits } = tm?.spec.containers[0]?.resources as Loose;
        expect([requests.memory, limits.memory, requests.cpu, limits.cpu]).toEqual(want);
      } finally {
        await cluster.close();
      }
    },
  );
});
