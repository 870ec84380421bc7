// Slow and stuck reconciles of the simulated operator (the slow-reconcile and stuck-upgrading knobs), and clearing a
// knob in the middle of its wait.
import { describe, expect, it } from 'vitest';
import { SCENARIO_ANNOTATION, SLOW_SECONDS_ANNOTATION } from '../../src/kube/scenarios.js';
import { deployment, sessionCluster } from '../support/sim-resources.js';
import { sentinel } from '../support/sim-sentinel.js';
import { editSpec, setAnnotations, statusOf, useSimRig, waitForStatus, waitStable } from '../support/sim.js';

const NS = 'streaming-dev';
const sim = useSimRig(NS);

const { get, deployed } = sim;
const { whileSomethingElseDeploys, whileSomethingElseDeploysAgain } = sentinel(sim, NS);

describe('slow and stuck reconciles', () => {
  it('slow-reconcile stays UPGRADING for the given (scaled) seconds', async () => {
    await deployed();
    setAnnotations(sim.rig.store, 'flinkdeployments', NS, 'orders', {
      [SCENARIO_ANNOTATION]: 'slow-reconcile',
      [SLOW_SECONDS_ANNOTATION]: '40',
    });
    editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => (s.image = 'flink:1.20.1'));
    await waitForStatus(
      sim.rig.store,
      'flinkdeployments',
      NS,
      'orders',
      (s) => s.reconciliationStatus?.state === 'UPGRADING',
      'UPGRADING',
    );
    const enteredAt = Date.now();
    await waitForStatus(
      sim.rig.store,
      'flinkdeployments',
      NS,
      'orders',
      (s) => s.reconciliationStatus?.state === 'DEPLOYED' && s.jobManagerDeploymentStatus === 'DEPLOYING',
      'deploying',
    );
    // 40 operator seconds at fast speed = 400 ms.
    expect(Date.now() - enteredAt).toBeGreaterThanOrEqual(380);
    await waitStable(sim.rig.store, NS, 'orders');
  });

  it('stuck-upgrading never leaves UPGRADING until the knob is cleared', async () => {
    await deployed();
    sim.rig.operator.setScenario(NS, 'orders', 'stuck-upgrading');
    const generation = editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => (s.image = 'flink:1.20.1'));
    await waitForStatus(
      sim.rig.store,
      'flinkdeployments',
      NS,
      'orders',
      (s) => s.reconciliationStatus?.state === 'UPGRADING',
      'UPGRADING',
    );
    await whileSomethingElseDeploys();
    await whileSomethingElseDeploysAgain();
    const stuck = statusOf(get());
    expect(stuck.reconciliationStatus?.state).toBe('UPGRADING');
    expect(stuck.lifecycleState).toBe('UPGRADING');
    expect(stuck.observedGeneration).toBe(generation);
    sim.rig.operator.clearScenario(NS, 'orders');
    await waitStable(sim.rig.store, NS, 'orders');
  });

  it('stuck-upgrading on a suspend shows UPGRADING with the new observedGeneration, then finishes', async () => {
    await deployed();
    sim.rig.operator.setScenario(NS, 'orders', 'stuck-upgrading');
    const generation = editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => (s.job.state = 'suspended'));
    const stuck = await waitForStatus(
      sim.rig.store,
      'flinkdeployments',
      NS,
      'orders',
      (s) => s.reconciliationStatus?.state === 'UPGRADING',
      'UPGRADING',
    );
    expect(statusOf(stuck).observedGeneration).toBe(generation);
    expect(statusOf(stuck).jobStatus?.state).toBe('RUNNING');
    sim.rig.operator.clearScenario(NS, 'orders');
    const done = await waitForStatus(
      sim.rig.store,
      'flinkdeployments',
      NS,
      'orders',
      (s) => s.lifecycleState === 'SUSPENDED',
      'SUSPENDED',
    );
    expect(statusOf(done).jobStatus?.state).toBe('FINISHED');
  });
});

describe('clearing a knob in the middle of its wait', () => {
  // 10 000 operator seconds = 100 s at fast speed: only the cleared knob (which interrupts the wait) ends it in time.
  const slow = { slowReconcileSeconds: 10_000 };
  const cases = [
    {
      what: 'a first deployment',
      name: 'orders',
      arm: () => {
        sim.rig.operator.setScenario(NS, 'orders', 'slow-reconcile', slow);
        sim.rig.store.create('flinkdeployments', deployment('orders', NS));
      },
    },
    {
      what: 'a job upgrade',
      name: 'orders',
      arm: async () => {
        await deployed();
        sim.rig.operator.setScenario(NS, 'orders', 'slow-reconcile', slow);
        editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => (s.image = 'flink:1.20.1'));
      },
    },
    {
      what: 'a session cluster restart',
      name: 'session-cluster',
      arm: async () => {
        sim.rig.store.create('flinkdeployments', sessionCluster('session-cluster', NS));
        await waitForStatus(
          sim.rig.store,
          'flinkdeployments',
          NS,
          'session-cluster',
          (s) => s.lifecycleState === 'STABLE',
          'STABLE',
        );
        sim.rig.operator.setScenario(NS, 'session-cluster', 'slow-reconcile', slow);
        editSpec(sim.rig.store, 'flinkdeployments', NS, 'session-cluster', (s) => (s.restartNonce = 3));
      },
    },
  ];

  it.each(cases)('$what carries on from UPGRADING to STABLE', async ({ name, arm }) => {
    await arm();
    await waitForStatus(
      sim.rig.store,
      'flinkdeployments',
      NS,
      name,
      (s) => s.lifecycleState === 'UPGRADING',
      'UPGRADING',
    );
    sim.rig.operator.clearScenario(NS, name);
    await waitForStatus(
      sim.rig.store,
      'flinkdeployments',
      NS,
      name,
      (s, o) => s.lifecycleState === 'STABLE' && s.observedGeneration === o.metadata.generation,
      'STABLE',
    );
  });
});
