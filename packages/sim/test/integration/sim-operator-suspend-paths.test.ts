// The simulated operator's stop choices beyond a plain suspend: a job that already stopped (NOOP), a job that is
// not running (cancel or HA), and spec changes to a suspended job (SpecChanged, nothing recorded).
import { describe, expect, it } from 'vitest';
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
import { type DeploymentOptions } from '../support/sim-resources.js';

const NS = 'streaming-prod';
const sim = useSimRig(NS);
const { get, deployed, eventCount } = sim;

/** Deploys orders and lets its job fail for good (the `job-failure` knob), as the observer would report it. */
async function failedJob(options: DeploymentOptions): Promise<Status> {
  await deployed('orders', options);
  sim.rig.operator.setScenario(NS, 'orders', 'job-failure');
  const failed = await waitForStatus(
    sim.rig.store,
    'flinkdeployments',
    NS,
    'orders',
    (s) => s.jobStatus?.state === 'FAILED',
    'job FAILED',
  );
  sim.rig.operator.clearScenario(NS, 'orders');
  return statusOf(failed);
}

describe('suspending a job that already stopped (NOOP)', () => {
  const cases = [
    { upgradeMode: 'savepoint', ha: true, recorded: 'savepoint' },
    { upgradeMode: 'savepoint', ha: false, recorded: 'savepoint' },
    { upgradeMode: 'last-state', ha: true, recorded: 'savepoint' },
    { upgradeMode: 'stateless', ha: true, recorded: 'stateless' },
  ] as const;

  it.each(cases)(
    '$upgradeMode (HA $ha): no savepoint, no Suspended, FINISHED, recorded $recorded, SUSPENDED at once',
    async ({ upgradeMode, ha, recorded }) => {
      const before = await failedJob({ upgradeMode, ha });
      expect(before.lifecycleState).toBe('FAILED');
      const suspended = eventCount('Suspended');
      const generation = editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => (s.job.state = 'suspended'));
      const done = statusOf(
        await waitForStatus(
          sim.rig.store,
          'flinkdeployments',
          NS,
          'orders',
          (s) => s.observedGeneration === generation,
          'observed',
        ),
      );
      expect(done).toMatchObject({
        lifecycleState: 'SUSPENDED',
        jobManagerDeploymentStatus: 'READY',
        reconciliationStatus: { state: 'DEPLOYED' },
      });
      expect(done.jobStatus).toMatchObject({ state: 'FINISHED', updateTime: before.jobStatus?.updateTime });
      expect(done.jobStatus?.upgradeSavepointPath).toBe(before.jobStatus?.upgradeSavepointPath);
      expect(reconciledSpec(done)?.job).toMatchObject({ state: 'suspended', upgradeMode: recorded });
      expect(done.error).toBeUndefined();
      expect(eventCount('Suspended')).toBe(suspended);
      expect(sim.rig.store.list('flinkstatesnapshots', NS)).toEqual([]);
    },
  );

  it('a restart of a FAILED savepoint-mode job restores from the recorded savepoint without stopping anything', async () => {
    await deployed('orders');
    editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => (s.job.state = 'suspended'));
    await waitForStatus(
      sim.rig.store,
      'flinkdeployments',
      NS,
      'orders',
      (s) => s.lifecycleState === 'SUSPENDED',
      'SUSPENDED',
    );
    editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => (s.job.state = 'running'));
    await waitStable(sim.rig.store, NS, 'orders');
    sim.rig.operator.setScenario(NS, 'orders', 'job-failure');
    const failed = statusOf(
      await waitForStatus(
        sim.rig.store,
        'flinkdeployments',
        NS,
        'orders',
        (s) => s.jobStatus?.state === 'FAILED',
        'FAILED',
      ),
    );
    sim.rig.operator.clearScenario(NS, 'orders');
    const counts = { suspended: eventCount('Suspended'), submit: eventCount('Submit') };
    editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => (s.restartNonce = 1));
    const restarted = statusOf(await waitStable(sim.rig.store, NS, 'orders'));
    expect(restarted.jobStatus?.upgradeSavepointPath).toBe(failed.jobStatus?.upgradeSavepointPath);
    expect(restarted.jobStatus?.jobId).not.toBe(failed.jobStatus?.jobId);
    expect(eventCount('Suspended')).toBe(counts.suspended);
    expect(eventCount('Submit')).toBe(counts.submit + 1);
  });
});

describe('stopping a savepoint-mode job that is not running', () => {
  /** The observer saw the job restarting its tasks: neither RUNNING nor terminal. */
  function restarting(): void {
    sim.rig.store.update(
      'flinkdeployments',
      NS,
      'orders',
      (o) => ({
        ...o,
        status: { ...o.status, jobStatus: { ...(o.status?.jobStatus as object), state: 'RESTARTING' } },
      }),
      { subresource: 'status' },
    );
  }

  it('without HA: an async cancel (CANCELLING, the old spec, generation not observed)', async () => {
    await deployed('orders', { ha: false });
    restarting();
    const rec = recordStatuses(sim.rig.store, 'flinkdeployments', NS, 'orders');
    const generation = editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => (s.job.state = 'suspended'));
    const done = statusOf(
      await waitForStatus(
        sim.rig.store,
        'flinkdeployments',
        NS,
        'orders',
        (s) => s.jobStatus?.state === 'CANCELED',
        'CANCELED',
      ),
    );
    rec.stop();
    const cancelling = rec.seen.find((r) => r.status.jobStatus?.state === 'CANCELLING')?.status as Status;
    expect(reconciledSpec(cancelling)?.job).toMatchObject({ state: 'running', upgradeMode: 'savepoint' });
    expect(done).toMatchObject({
      observedGeneration: generation - 1,
      lifecycleState: 'UPGRADING',
      jobManagerDeploymentStatus: 'READY',
    });
    expect(reconciledSpec(done)?.job.state).toBe('suspended');
  });

  it('with HA: a last-state stop that keeps the HA metadata, recorded as last-state', async () => {
    await deployed('orders', { ha: true });
    restarting();
    const generation = editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => (s.job.state = 'suspended'));
    const done = statusOf(
      await waitForStatus(
        sim.rig.store,
        'flinkdeployments',
        NS,
        'orders',
        (s) => s.observedGeneration === generation,
        'observed',
      ),
    );
    expect(done).toMatchObject({
      lifecycleState: 'SUSPENDED',
      jobManagerDeploymentStatus: 'MISSING',
      jobStatus: { state: 'FINISHED' },
    });
    expect(reconciledSpec(done)?.job.upgradeMode).toBe('last-state');
  });
});

describe('a spec change to a suspended job', () => {
  it('emits SpecChanged once per generation and records nothing until the resume applies it', async () => {
    await deployed('orders');
    editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => (s.job.state = 'suspended'));
    const suspended = statusOf(
      await waitForStatus(
        sim.rig.store,
        'flinkdeployments',
        NS,
        'orders',
        (s) => s.lifecycleState === 'SUSPENDED',
        'SUSPENDED',
      ),
    );
    const rec = recordStatuses(sim.rig.store, 'flinkdeployments', NS, 'orders');
    const scaled = editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => (s.job.parallelism = 4));
    const message =
      'UPGRADE change(s) detected (Diff: FlinkDeploymentSpec[job.parallelism : 2 -> 4]), starting reconciliation.';
    await waitFor(sim.rig.store, () => eventsFor(sim.rig.store, get()).find((e) => e.message === message));
    const upgraded = editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => (s.image = 'flink:1.20.1'));
    await waitFor(
      sim.rig.store,
      () => eventsFor(sim.rig.store, get()).filter((e) => e.reason === 'SpecChanged').length === 3,
    );
    await deployed('sentinel');
    rec.stop();
    // Only the two spec edits changed the object: the operator wrote no status at all.
    expect(rec.seen.map((r) => r.generation)).toEqual([scaled, upgraded]);
    expect(statusOf(get())).toEqual(suspended);
    const changes = eventsFor(sim.rig.store, get()).filter((e) => e.reason === 'SpecChanged');
    expect(changes.map((e) => e.count)).toEqual([1, 1, 1]);
    expect(changes[2]).toMatchObject({ type: 'Normal', component: 'JobManagerDeployment' });
    expect(changes[2]?.message).toContain('job.parallelism : 2 -> 4, image : flink:1.20 -> flink:1.20.1');

    const resumed = editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => (s.job.state = 'running'));
    const after = statusOf(await waitStable(sim.rig.store, NS, 'orders'));
    expect(after.observedGeneration).toBe(resumed);
    expect(reconciledSpec(after)).toMatchObject({ image: 'flink:1.20.1', job: { parallelism: 4, state: 'running' } });
  });
});
