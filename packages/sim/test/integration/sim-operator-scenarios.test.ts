// Failure knobs of the simulated operator (annotation or programmatic) and the rollback they can lead to: image pull,
// savepoint and validation failures (slow and stuck reconciles: sim-operator-slow-reconciles.test.ts).
import { describe, expect, it } from 'vitest';
import { SCENARIO_ANNOTATION } from '../../src/kube/scenarios.js';
import { sentinel } from '../support/sim-sentinel.js';
import {
  editSpec,
  eventsFor,
  reconciledSpec,
  recordStatuses,
  setAnnotations,
  useSimRig,
  statusOf,
  waitFor,
  waitForStatus,
  waitStable,
} from '../support/sim.js';

const NS = 'streaming-dev';
const sim = useSimRig(NS);

const { get, deployed } = sim;
const { whileSomethingElseDeploys } = sentinel(sim, NS);

function event(reason: string, name = 'orders') {
  return waitFor(
    sim.rig.store,
    () => eventsFor(sim.rig.store, get(name)).find((e) => e.reason === reason),
    5000,
    `a ${reason} event`,
  );
}

/** The order of event and status changes of orders: `event <reason>` and `status <JM status>` entries. */
function recordChanges(): { seen: string[]; stop(): void } {
  const seen: string[] = [];
  const stop = sim.rig.store.subscribe((change) => {
    if (change.resource === 'events' && (change.object.involvedObject as { name?: string }).name === 'orders')
      seen.push(`event ${String(change.object.reason)}`);
    if (change.resource === 'flinkdeployments' && change.object.metadata.name === 'orders') {
      seen.push(
        `status ${String((change.object.status as { jobManagerDeploymentStatus?: string } | undefined)?.jobManagerDeploymentStatus)}`,
      );
    }
  });
  return { seen, stop };
}

describe('image pull failure', () => {
  const ways = [
    {
      how: 'the scenario knob',
      image: 'flink:1.20.1',
      arm: () => sim.rig.operator.setScenario(NS, 'orders', 'image-pull-failure'),
    },
    { how: 'an image tagged :broken', image: 'flink:broken', arm: () => undefined },
    { how: 'an image named does-not-exist', image: 'registry.example.com/does-not-exist:1.0', arm: () => undefined },
  ];

  it.each(ways)(
    'via $how: one ErrImagePull (event before status), JM ERROR, job RECONCILING, lifecycle DEPLOYED',
    async ({ image, arm }) => {
      await deployed();
      arm();
      const order = recordChanges();
      const generation = editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => (s.image = image));
      const failed = await waitForStatus(
        sim.rig.store,
        'flinkdeployments',
        NS,
        'orders',
        (s) => s.jobManagerDeploymentStatus === 'ERROR',
        'JM ERROR',
      );
      order.stop();
      const status = statusOf(failed);
      expect(status.observedGeneration).toBe(generation);
      expect(status.jobStatus?.state).toBe('RECONCILING');
      // CommonStatus rule 7 needs "Manual restore required." (or the HA texts): a failed pull is not FAILED.
      expect(status.lifecycleState).toBe('DEPLOYED');
      expect(status.conditions?.[0]).toMatchObject({ status: 'False', reason: 'Reconciling' });
      const error = JSON.parse(status.error as string) as { type: string; message: string };
      expect(error.type).toBe('org.apache.flink.kubernetes.operator.exception.DeploymentFailedException');
      expect(error.message).toContain(`[flink-main-container] Failed to pull image "${image}"`);
      expect(order.seen.indexOf('event ErrImagePull')).toBeLessThan(order.seen.indexOf('status ERROR'));
      const pull = eventsFor(sim.rig.store, get()).find((e) => e.reason === 'ErrImagePull');
      expect(pull).toMatchObject({
        type: 'Warning',
        component: 'JobManagerDeployment',
        count: 1,
        message: error.message,
      });
      // The operator stays quiet while ERROR persists: no repeats, no other reason.
      await whileSomethingElseDeploys();
      expect(
        eventsFor(sim.rig.store, get())
          .filter((e) => e.type === 'Warning')
          .map((e) => [e.reason, e.count]),
      ).toEqual([['ErrImagePull', 1]]);
      expect(statusOf(get()).jobManagerDeploymentStatus).toBe('ERROR');
    },
  );

  it('a fixed spec recovers from ERROR and clears status.error', async () => {
    await deployed();
    editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => (s.image = 'flink:broken'));
    await event('ErrImagePull');
    editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => (s.image = 'flink:1.20.1'));
    const fixed = statusOf(await waitStable(sim.rig.store, NS, 'orders'));
    expect(fixed.error).toBeUndefined();
    expect(reconciledSpec(fixed)?.image).toBe('flink:1.20.1');
  });
});

describe('savepoint failure', () => {
  it('stop-with-savepoint fails: SavepointError + status.error, the upgrade does not proceed, the operator retries', async () => {
    const first = await deployed();
    setAnnotations(sim.rig.store, 'flinkdeployments', NS, 'orders', { [SCENARIO_ANNOTATION]: 'savepoint-failure' });
    const generation = editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => (s.image = 'flink:1.20.1'));
    const error = await event('SavepointError');
    expect(error).toMatchObject({ type: 'Warning', component: 'JobManagerDeployment' });
    let status = statusOf(get());
    expect(status.observedGeneration).toBe(generation - 1);
    expect(JSON.parse(status.error as string)).toMatchObject({
      type: 'org.apache.flink.kubernetes.operator.exception.UpgradeFailureException',
      message: 'Savepoint Error',
    });
    expect(error.message).toMatch(/^Savepoint Error -> .*CheckpointException: Failure to finalize checkpoint\./);
    expect(status.jobStatus).toMatchObject({ state: 'RUNNING', jobId: statusOf(first).jobStatus?.jobId });
    expect(reconciledSpec(status)?.image).toBe('flink:1.20');
    expect(status.lifecycleState).toBe('STABLE');
    await waitFor(sim.rig.store, () =>
      eventsFor(sim.rig.store, get()).find((e) => e.reason === 'SavepointError' && e.count >= 2),
    );

    setAnnotations(sim.rig.store, 'flinkdeployments', NS, 'orders', { [SCENARIO_ANNOTATION]: undefined });
    status = statusOf(await waitStable(sim.rig.store, NS, 'orders'));
    expect(reconciledSpec(status)?.image).toBe('flink:1.20.1');
    expect(status.error).toBeUndefined();
  });

  it('a stateless suspend needs no savepoint and is not affected', async () => {
    await deployed('orders', { upgradeMode: 'stateless' });
    sim.rig.operator.setScenario(NS, 'orders', 'savepoint-failure');
    editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => (s.job.state = 'suspended'));
    await waitForStatus(
      sim.rig.store,
      'flinkdeployments',
      NS,
      'orders',
      (s) => s.lifecycleState === 'SUSPENDED',
      'SUSPENDED',
    );
  });
});

describe('validation error knob', () => {
  it('rejects the new generation: ValidationError, status.error, observedGeneration not advanced, previous spec keeps running', async () => {
    const first = await deployed();
    setAnnotations(sim.rig.store, 'flinkdeployments', NS, 'orders', { [SCENARIO_ANNOTATION]: 'validation-error' });
    const generation = editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => (s.image = 'flink:1.20.1'));
    expect(await event('ValidationError')).toMatchObject({ type: 'Warning', component: 'Operator' });
    const status = statusOf(get());
    expect(status.observedGeneration).toBe(generation - 1);
    expect(JSON.parse(status.error as string).type).toBe(
      'org.apache.flink.kubernetes.operator.exception.ValidationException',
    );
    expect(status.jobStatus?.jobId).toBe(statusOf(first).jobStatus?.jobId);
    expect(reconciledSpec(status)?.image).toBe('flink:1.20');
    setAnnotations(sim.rig.store, 'flinkdeployments', NS, 'orders', { [SCENARIO_ANNOTATION]: undefined });
    const fixed = statusOf(await waitStable(sim.rig.store, NS, 'orders'));
    expect(reconciledSpec(fixed)?.image).toBe('flink:1.20.1');
    expect(fixed.error).toBeUndefined();
  });
});

describe('rollback', () => {
  const rollbackConf = {
    'kubernetes.operator.deployment.rollback.enabled': 'true',
    'kubernetes.operator.deployment.readiness.timeout': '30s',
  };

  it('a deploy that does not become stable in time is rolled back to lastStableSpec; the user spec stays', async () => {
    const first = await deployed('orders', { conf: rollbackConf });
    const stableSpec = statusOf(first).reconciliationStatus?.lastStableSpec;
    const rec = recordStatuses(sim.rig.store, 'flinkdeployments', NS, 'orders');
    const generation = editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => (s.image = 'flink:broken'));
    const rolledBack = await waitForStatus(
      sim.rig.store,
      'flinkdeployments',
      NS,
      'orders',
      (s) => s.lifecycleState === 'ROLLED_BACK' && s.jobStatus?.state === 'RUNNING',
      'ROLLED_BACK and RUNNING',
    );
    rec.stop();
    expect(rec.seen.some((r) => r.status.lifecycleState === 'ROLLING_BACK')).toBe(true);
    // ROLLED_BACK comes with the deploy of the stable spec, before its job runs; errors are cleared then.
    const redeployed = rec.seen.find((r) => r.status.reconciliationStatus?.state === 'ROLLED_BACK')?.status;
    expect(redeployed).toMatchObject({
      jobManagerDeploymentStatus: 'DEPLOYING',
      jobStatus: { state: 'RECONCILING' },
      lifecycleState: 'ROLLED_BACK',
    });
    expect(redeployed?.error).toBeUndefined();
    const status = statusOf(rolledBack);
    expect(rolledBack.spec?.image).toBe('flink:broken');
    expect(status.observedGeneration).toBe(generation);
    expect(status.reconciliationStatus?.state).toBe('ROLLED_BACK');
    expect(status.reconciliationStatus?.lastStableSpec).toBe(stableSpec);
    expect(reconciledSpec(status)?.image).toBe('flink:broken');
    expect(status.jobManagerDeploymentStatus).toBe('READY');
    expect(status.error).toBeUndefined();
    expect(await event('Rollback')).toMatchObject({ type: 'Normal', message: 'Rolling back failed deployment.' });

    // The way out: a spec equal to lastStableSpec is marked DEPLOYED without a redeploy.
    const submits = eventsFor(sim.rig.store, get()).find((e) => e.reason === 'Submit')?.count;
    const back = editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => (s.image = 'flink:1.20'));
    const recovered = statusOf(await waitStable(sim.rig.store, NS, 'orders'));
    expect(recovered.observedGeneration).toBe(back);
    expect(eventsFor(sim.rig.store, get()).find((e) => e.reason === 'Submit')?.count).toBe(submits);
  });

  it('is not attempted when rollback is not enabled', async () => {
    await deployed('orders', { conf: { 'kubernetes.operator.deployment.readiness.timeout': '5s' } });
    editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => (s.image = 'flink:broken'));
    await event('ErrImagePull');
    // The 5 s readiness timeout is 50 ms at fast speed; another deployment going all the way outlasts it.
    await whileSomethingElseDeploys();
    expect(statusOf(get())).toMatchObject({ lifecycleState: 'DEPLOYED', jobManagerDeploymentStatus: 'ERROR' });
    expect(eventsFor(sim.rig.store, get()).map((e) => e.reason)).not.toContain('Rollback');
  });
});
