// The simulated operator on session clusters and FlinkSessionJobs: readiness gate, cancel-based suspends, no JM fields.
import { describe, expect, it } from 'vitest';
import {
  editSpec,
  eventsFor,
  reconciledSpec,
  recordStatuses,
  useSimRig,
  statusOf,
  waitFor,
  waitForStatus,
  waitStable,
  type Status,
} from '../support/sim.js';
import { deployment, sessionCluster, sessionJob } from '../support/sim-resources.js';

const NS = 'streaming-prod';
const sim = useSimRig(NS);

function job(name = 'etl') {
  const object = sim.rig.store.get('flinksessionjobs', NS, name);
  if (!object) throw new Error(`${name} missing`);
  return object;
}

async function runningJob(options: Parameters<typeof sessionJob>[3] = {}) {
  sim.rig.store.create('flinkdeployments', sessionCluster('session-cluster', NS));
  sim.rig.store.create('flinksessionjobs', sessionJob('etl', NS, 'session-cluster', options));
  return waitStable(sim.rig.store, NS, 'etl', 'flinksessionjobs');
}

describe('session cluster', () => {
  it('an upgrade (SessionReconciler) emits neither Suspended nor Submit', async () => {
    sim.rig.store.create('flinkdeployments', sessionCluster('session-cluster', NS));
    await waitForStatus(
      sim.rig.store,
      'flinkdeployments',
      NS,
      'session-cluster',
      (s) => s.lifecycleState === 'STABLE',
      'STABLE',
    );
    const generation = editSpec(
      sim.rig.store,
      'flinkdeployments',
      NS,
      'session-cluster',
      (s) => (s.image = 'flink:1.20.1'),
    );
    const done = await waitForStatus(
      sim.rig.store,
      'flinkdeployments',
      NS,
      'session-cluster',
      (s) => s.lifecycleState === 'STABLE' && s.observedGeneration === generation,
      'upgraded',
    );
    expect(eventsFor(sim.rig.store, done).map((e) => e.reason)).toEqual(['SpecChanged']);
  });

  it('is STABLE once its JobManager is READY, with a Running condition on the JobManager and no job state', async () => {
    sim.rig.store.create('flinkdeployments', sessionCluster('session-cluster', NS));
    const cluster = await waitForStatus(
      sim.rig.store,
      'flinkdeployments',
      NS,
      'session-cluster',
      (s) => s.lifecycleState === 'STABLE',
      'STABLE',
    );
    const status = statusOf(cluster);
    expect(status.jobManagerDeploymentStatus).toBe('READY');
    expect(status.jobStatus?.state).toBeUndefined();
    expect(status.conditions?.[0]).toMatchObject({ type: 'Running', status: 'True', reason: 'Ready' });
    expect(reconciledSpec(status)?.job).toBeNull();
  });
});

describe('FlinkSessionJob', () => {
  it('reconciles only once the session cluster is READY; Submit comes from component Job; no JM fields or conditions', async () => {
    sim.rig.store.create('flinksessionjobs', sessionJob('etl', NS, 'session-cluster'));
    sim.rig.store.create('flinkdeployments', deployment('sentinel', NS));
    await waitStable(sim.rig.store, NS, 'sentinel');
    expect(statusOf(job()).reconciliationStatus?.lastReconciledSpec).toBeUndefined();
    expect(statusOf(job()).observedGeneration).toBeUndefined();
    expect(eventsFor(sim.rig.store, job())).toEqual([]);

    sim.rig.store.create('flinkdeployments', sessionCluster('session-cluster', NS));
    const stable = await waitStable(sim.rig.store, NS, 'etl', 'flinksessionjobs');
    const status = statusOf(stable);
    expect(status.jobManagerDeploymentStatus).toBeUndefined();
    expect(status.conditions).toBeUndefined();
    expect(status.taskManager).toBeUndefined();
    const submit = eventsFor(sim.rig.store, stable).find((e) => e.reason === 'Submit');
    expect(submit).toMatchObject({ component: 'Job', message: 'Starting deployment' });
  });

  it('a change waits while the cluster is not READY: observedGeneration unchanged, no event', async () => {
    await runningJob();
    sim.rig.operator.setScenario(NS, 'session-cluster', 'stuck-upgrading');
    editSpec(sim.rig.store, 'flinkdeployments', NS, 'session-cluster', (s) => (s.restartNonce = 1));
    await waitForStatus(
      sim.rig.store,
      'flinkdeployments',
      NS,
      'session-cluster',
      (s) => s.lifecycleState === 'UPGRADING',
      'cluster UPGRADING',
    );
    expect(statusOf(sim.rig.store.get('flinkdeployments', NS, 'session-cluster')).jobManagerDeploymentStatus).toBe(
      'MISSING',
    );
    const eventsBefore = eventsFor(sim.rig.store, job()).length;
    const generation = editSpec(sim.rig.store, 'flinksessionjobs', NS, 'etl', (s) => (s.job.parallelism = 4));
    sim.rig.store.create('flinkdeployments', deployment('sentinel', NS));
    await waitStable(sim.rig.store, NS, 'sentinel');
    expect(statusOf(job()).observedGeneration).toBe(generation - 1);
    expect(eventsFor(sim.rig.store, job())).toHaveLength(eventsBefore);

    sim.rig.operator.clearScenario(NS, 'session-cluster');
    const after = await waitStable(sim.rig.store, NS, 'etl', 'flinksessionjobs');
    expect(reconciledSpec(statusOf(after))?.job.parallelism).toBe(4);
  });

  it.each(['stateless', 'last-state'] as const)(
    'a %s suspend is an async cancel: the old spec while CANCELLING, job.state suspended at CANCELED, generation not observed',
    async (mode) => {
      const first = await runningJob({ upgradeMode: mode });
      const rec = recordStatuses(sim.rig.store, 'flinksessionjobs', NS, 'etl');
      const generation = editSpec(sim.rig.store, 'flinksessionjobs', NS, 'etl', (s) => (s.job.state = 'suspended'));
      const done = await waitForStatus(
        sim.rig.store,
        'flinksessionjobs',
        NS,
        'etl',
        (s) => s.jobStatus?.state === 'CANCELED',
        'CANCELED',
      );
      rec.stop();
      const cancelling = rec.seen.find((r) => r.status.jobStatus?.state === 'CANCELLING')?.status as Status;
      expect(cancelling.observedGeneration).toBe(generation - 1);
      expect(cancelling.lifecycleState).toBe('UPGRADING');
      expect(reconciledSpec(cancelling)?.job).toMatchObject({
        state: 'running',
        upgradeMode: mode === 'stateless' ? 'stateless' : 'savepoint',
      });
      const status = statusOf(done);
      expect(status.observedGeneration).toBe(generation - 1);
      expect(status.reconciliationStatus?.state).toBe('UPGRADING');
      expect(reconciledSpec(status)?.job.state).toBe('suspended');
      expect(status.jobStatus?.jobId).toBe(statusOf(first).jobStatus?.jobId);
      if (mode === 'last-state')
        expect(status.jobStatus?.upgradeSavepointPath).toMatch(/\/checkpoints\/[0-9a-f]{32}\/chk-\d+$/);
      expect(eventsFor(sim.rig.store, done).map((e) => e.reason)).toContain('Suspended');

      editSpec(sim.rig.store, 'flinksessionjobs', NS, 'etl', (s) => (s.job.state = 'running'));
      const resumed = statusOf(await waitStable(sim.rig.store, NS, 'etl', 'flinksessionjobs'));
      expect(resumed.jobStatus?.jobId).not.toBe(statusOf(first).jobStatus?.jobId);
    },
  );

  it('a savepoint suspend is synchronous: SUSPENDED, FINISHED, jobId cleared, an UPGRADE snapshot of the session job', async () => {
    await runningJob({ upgradeMode: 'savepoint' });
    editSpec(sim.rig.store, 'flinksessionjobs', NS, 'etl', (s) => (s.job.state = 'suspended'));
    const done = await waitForStatus(
      sim.rig.store,
      'flinksessionjobs',
      NS,
      'etl',
      (s) => s.lifecycleState === 'SUSPENDED',
      'SUSPENDED',
    );
    const status = statusOf(done);
    expect(status.jobStatus?.state).toBe('FINISHED');
    expect(status.jobStatus?.jobId).toBeUndefined();
    expect(status.reconciliationStatus?.state).toBe('DEPLOYED');
    const snapshot = await waitFor(sim.rig.store, () =>
      sim.rig.store.list('flinkstatesnapshots', NS).find((s) => statusOf(s).state === 'COMPLETED'),
    );
    expect(snapshot.spec?.jobReference).toEqual({ kind: 'FlinkSessionJob', name: 'etl' });
    expect(statusOf(snapshot).path).toBe(status.jobStatus?.upgradeSavepointPath);
    expect(snapshot.metadata.labels).toMatchObject({
      'job-reference.kind': 'FlinkSessionJob',
      'snapshot.trigger-type': 'UPGRADE',
    });
  });

  it('refuses a changed deploymentName', async () => {
    await runningJob();
    sim.rig.store.create('flinkdeployments', sessionCluster('other-cluster', NS));
    await waitForStatus(
      sim.rig.store,
      'flinkdeployments',
      NS,
      'other-cluster',
      (s) => s.jobManagerDeploymentStatus === 'READY',
      'READY',
    );
    editSpec(sim.rig.store, 'flinksessionjobs', NS, 'etl', (s) => (s.deploymentName = 'other-cluster'));
    const event = await waitFor(sim.rig.store, () =>
      eventsFor(sim.rig.store, job()).find((e) => e.reason === 'ValidationError'),
    );
    expect(event.message).toBe("The deploymentName can't be changed");
  });
});
