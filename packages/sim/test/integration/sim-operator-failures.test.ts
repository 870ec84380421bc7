// Reconcile failures of the simulated operator: a stop that fails once and succeeds on the retry, UpgradeFailed,
// session jobs reporting every failure as `Error`, and the lifecycle rule that makes only manual-restore errors FAILED.
import { describe, expect, it } from 'vitest';
import { lifecycleState, type Status as OperatorStatus } from '../../src/kube/flink-status.js';
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
import { sessionCluster, sessionJob } from '../support/sim-resources.js';

const NS = 'streaming-prod';
const sim = useSimRig(NS);
const { get, deployed, eventCount } = sim;
const UPGRADE_FAILED =
  'Job is in terminal state but last checkpoint is unknown, possibly due to an unrecoverable restore error. Manual restore required.';

function warning(
  reason: string,
  count = 1,
  name = 'orders',
  resource: 'flinkdeployments' | 'flinksessionjobs' = 'flinkdeployments',
) {
  const object = () => sim.rig.store.get(resource, NS, name);
  return waitFor(
    sim.rig.store,
    () => eventsFor(sim.rig.store, object() ?? get()).find((e) => e.reason === reason && e.count >= count),
    5000,
    `${reason} ×${count}`,
  );
}

function errorOf(status: Status): {
  type: string;
  message: string;
  throwableList: { type: string; message?: string }[];
} {
  return JSON.parse(status.error as string) as ReturnType<typeof errorOf>;
}

describe('stop-with-savepoint fails once (savepoint-failure=once)', () => {
  it('suspend: SavepointError and status.error, nothing reconciled; the next reconcile suspends and clears the error', async () => {
    const first = await deployed();
    const jobId = statusOf(first).jobStatus?.jobId as string;
    sim.rig.operator.setScenario(NS, 'orders', 'savepoint-failure=once');
    const rec = recordStatuses(sim.rig.store, 'flinkdeployments', NS, 'orders');
    const generation = editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => (s.job.state = 'suspended'));
    const done = statusOf(
      await waitForStatus(
        sim.rig.store,
        'flinkdeployments',
        NS,
        'orders',
        (s) => s.lifecycleState === 'SUSPENDED',
        'SUSPENDED',
      ),
    );
    rec.stop();
    const failedWrite = rec.seen.find((r) => r.status.error !== undefined)?.status as Status;
    expect(failedWrite).toMatchObject({
      observedGeneration: generation - 1,
      lifecycleState: 'STABLE',
      jobStatus: { state: 'RUNNING', jobId },
    });
    expect(reconciledSpec(failedWrite)?.job.state).toBe('running');
    const timeout = `Timed out stopping the job ${jobId} with savepoint, please configure a larger timeout via 'execution.checkpointing.timeout'`;
    expect(errorOf(failedWrite)).toEqual({
      type: 'org.apache.flink.kubernetes.operator.exception.UpgradeFailureException',
      message: timeout,
      throwableList: [{ type: 'java.util.concurrent.TimeoutException' }],
    });
    const error = eventsFor(sim.rig.store, get()).find((e) => e.reason === 'SavepointError');
    expect(error).toMatchObject({
      type: 'Warning',
      component: 'JobManagerDeployment',
      count: 1,
      message: `${timeout} -> TimeoutException`,
    });
    expect(done).toMatchObject({
      observedGeneration: generation,
      reconciliationStatus: { state: 'DEPLOYED' },
      jobStatus: { state: 'FINISHED' },
    });
    expect(done.error).toBeUndefined();
    expect(done.jobStatus?.upgradeSavepointPath).toMatch(/\/savepoints\/savepoint-/);
    // One Suspended per attempt: the failed one and the retry.
    expect(eventCount('Suspended')).toBe(2);
  });

  it('upgrade: the retry redeploys the new image', async () => {
    await deployed();
    sim.rig.operator.setScenario(NS, 'orders', ['savepoint-failure=once']);
    const generation = editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => (s.image = 'flink:1.20.1'));
    await warning('SavepointError');
    const after = statusOf(await waitStable(sim.rig.store, NS, 'orders'));
    expect(after.observedGeneration).toBe(generation);
    expect(reconciledSpec(after)?.image).toBe('flink:1.20.1');
    expect(after.error).toBeUndefined();
    expect(eventCount('SavepointError')).toBe(1);
  });

  it('a session job reports it as Error from component Job, then suspends', async () => {
    sim.rig.store.create('flinkdeployments', sessionCluster('session-cluster', NS));
    sim.rig.store.create('flinksessionjobs', sessionJob('etl', NS, 'session-cluster'));
    await waitStable(sim.rig.store, NS, 'etl', 'flinksessionjobs');
    sim.rig.operator.setScenario(NS, 'etl', 'savepoint-failure=once');
    editSpec(sim.rig.store, 'flinksessionjobs', NS, 'etl', (s) => (s.job.state = 'suspended'));
    const error = await warning('Error', 1, 'etl', 'flinksessionjobs');
    expect(error).toMatchObject({ type: 'Warning', component: 'Job' });
    expect(error.message).toMatch(/^Timed out stopping the job [0-9a-f]{32} with savepoint/);
    const failed = errorOf(statusOf(sim.rig.store.get('flinksessionjobs', NS, 'etl')));
    expect(failed.type).toBe('org.apache.flink.kubernetes.operator.exception.ReconciliationException');
    expect(failed.message).toMatch(
      /^org\.apache\.flink\.kubernetes\.operator\.exception\.UpgradeFailureException: Timed out stopping/,
    );
    const done = await waitForStatus(
      sim.rig.store,
      'flinksessionjobs',
      NS,
      'etl',
      (s) => s.lifecycleState === 'SUSPENDED',
      'SUSPENDED',
    );
    expect(statusOf(done).error).toBeUndefined();
    expect(eventsFor(sim.rig.store, done).map((e) => e.reason)).not.toContain('SavepointError');
  });

  it('a persistent failure of a session job stop keeps reporting Error', async () => {
    sim.rig.store.create('flinkdeployments', sessionCluster('session-cluster', NS));
    sim.rig.store.create('flinksessionjobs', sessionJob('etl', NS, 'session-cluster'));
    await waitStable(sim.rig.store, NS, 'etl', 'flinksessionjobs');
    sim.rig.operator.setScenario(NS, 'etl', 'savepoint-failure');
    editSpec(sim.rig.store, 'flinksessionjobs', NS, 'etl', (s) => (s.job.state = 'suspended'));
    const error = await warning('Error', 2, 'etl', 'flinksessionjobs');
    expect(error.message).toMatch(/^Savepoint Error -> /);
  });
});

describe('UpgradeFailed', () => {
  it('the knob fails every redeploy: Warning, status.error, generation not observed, retried until cleared', async () => {
    const first = await deployed();
    sim.rig.operator.setScenario(NS, 'orders', 'upgrade-failed');
    const generation = editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => (s.restartNonce = 5));
    const event = await warning('UpgradeFailed', 2);
    expect(event).toMatchObject({ type: 'Warning', component: 'JobManagerDeployment', message: UPGRADE_FAILED });
    const status = statusOf(get());
    expect(status).toMatchObject({
      observedGeneration: generation - 1,
      lifecycleState: 'STABLE',
      jobManagerDeploymentStatus: 'READY',
    });
    expect(status.jobStatus?.jobId).toBe(statusOf(first).jobStatus?.jobId);
    expect(errorOf(status)).toMatchObject({
      type: 'org.apache.flink.kubernetes.operator.exception.UpgradeFailureException',
      message: UPGRADE_FAILED,
    });
    expect(eventCount('Suspended')).toBe(0);
    sim.rig.operator.clearScenario(NS, 'orders');
    const after = statusOf(await waitStable(sim.rig.store, NS, 'orders'));
    expect(after.observedGeneration).toBe(generation);
    expect(after.error).toBeUndefined();
  });

  it('on a resume the lifecycle stays SUSPENDED (rule 5 comes before rule 7)', async () => {
    await deployed('orders', { upgradeMode: 'last-state' });
    editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => (s.job.state = 'suspended'));
    await waitForStatus(
      sim.rig.store,
      'flinkdeployments',
      NS,
      'orders',
      (s) => s.lifecycleState === 'SUSPENDED',
      'SUSPENDED',
    );
    sim.rig.operator.setScenario(NS, 'orders', 'upgrade-failed');
    editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => (s.job.state = 'running'));
    await warning('UpgradeFailed');
    expect(statusOf(get())).toMatchObject({ lifecycleState: 'SUSPENDED', jobManagerDeploymentStatus: 'MISSING' });
    expect(errorOf(statusOf(get())).message).toContain('Manual restore required.');
  });

  /** Deploys orders last-state, restarts it from its HA metadata (the placeholder), then makes the job FAIL. */
  async function failedAfterHaRestart(): Promise<void> {
    await deployed('orders', { upgradeMode: 'last-state' });
    editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => (s.restartNonce = 1));
    const restarted = await waitStable(sim.rig.store, NS, 'orders');
    expect(statusOf(restarted).jobStatus?.upgradeSavepointPath).toBe('KUBERNETES_OPERATOR_LAST_STATE');
    sim.rig.operator.setScenario(NS, 'orders', 'job-failure');
    await waitForStatus(
      sim.rig.store,
      'flinkdeployments',
      NS,
      'orders',
      (s) => s.jobStatus?.state === 'FAILED',
      'FAILED',
    );
    sim.rig.operator.clearScenario(NS, 'orders');
  }

  it('not for a failed job after an HA restore: the operator records the checkpoint Flink knows, a restart restores it', async () => {
    await failedAfterHaRestart();
    // SnapshotObserver.observeLatestCheckpoint: the newest of latest.restored and latest.completed.
    expect(statusOf(get()).jobStatus?.upgradeSavepointPath).toMatch(/\/chk-\d+$/);
    const generation = editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => (s.restartNonce = 2));
    const back = await waitForStatus(
      sim.rig.store,
      'flinkdeployments',
      NS,
      'orders',
      (s) => s.observedGeneration === generation && s.jobStatus?.state === 'RUNNING' && s.lifecycleState === 'STABLE',
      'RUNNING again',
    );
    expect(statusOf(back).error).toBeUndefined();
    expect(eventCount('UpgradeFailed')).toBe(0);
  });
});

describe('restore of a session job suspended with a savepoint', () => {
  it('cannot cancel the cleared jobId: Error on every reconcile, nothing reconciled', async () => {
    sim.rig.store.create('flinkdeployments', sessionCluster('session-cluster', NS));
    sim.rig.store.create('flinksessionjobs', sessionJob('etl', NS, 'session-cluster'));
    await waitStable(sim.rig.store, NS, 'etl', 'flinksessionjobs');
    editSpec(sim.rig.store, 'flinksessionjobs', NS, 'etl', (s) => (s.job.state = 'suspended'));
    await waitForStatus(
      sim.rig.store,
      'flinksessionjobs',
      NS,
      'etl',
      (s) => s.lifecycleState === 'SUSPENDED',
      'SUSPENDED',
    );
    const generation = editSpec(sim.rig.store, 'flinksessionjobs', NS, 'etl', (s) => {
      s.job.initialSavepointPath = 's3://backups/etl/savepoint-1';
      s.job.savepointRedeployNonce = 1;
      s.job.state = 'running';
    });
    const error = await warning('Error', 2, 'etl', 'flinksessionjobs');
    expect(error).toMatchObject({
      component: 'Job',
      message: expect.stringMatching(/^Cannot parse JobID from "null"\..* -> Cannot invoke/),
    });
    const status = statusOf(sim.rig.store.get('flinksessionjobs', NS, 'etl'));
    expect(status.observedGeneration).toBe(generation - 1);
    expect(errorOf(status).type).toBe('org.apache.flink.kubernetes.operator.exception.ReconciliationException');
    expect(
      eventsFor(sim.rig.store, sim.rig.store.get('flinksessionjobs', NS, 'etl') ?? get()).filter(
        (e) => e.reason === 'Submit',
      ),
    ).toHaveLength(1);
  });
});

describe('lifecycleState rule 7', () => {
  const base: OperatorStatus = {
    reconciliationStatus: {
      state: 'DEPLOYED',
      lastReconciledSpec: JSON.stringify({ spec: { job: { state: 'running' } } }),
    },
    jobStatus: { state: 'RECONCILING' },
  };
  it.each([
    ['ERROR', 'ErrImagePull: [flink-main-container] Failed to pull image "flink:broken"', 'DEPLOYED'],
    ['ERROR', UPGRADE_FAILED, 'FAILED'],
    [
      'MISSING',
      'JobManager deployment is missing and HA metadata is not available to make stateful upgrades.',
      'FAILED',
    ],
    ['MISSING', 'Missing JobManager deployment', 'DEPLOYED'],
    ['READY', UPGRADE_FAILED, 'DEPLOYED'],
  ])('JobManager %s with error %j is %s', (jm, error, expected) => {
    expect(lifecycleState({ ...base, jobManagerDeploymentStatus: jm, error })).toBe(expected);
  });

  it('never applies to a session job (no JobManager status)', () => {
    expect(lifecycleState({ ...base, error: UPGRADE_FAILED })).toBe('DEPLOYED');
  });
});
