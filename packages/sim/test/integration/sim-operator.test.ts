// The simulated operator on FlinkDeployments: first deployment, suspend per upgrade mode, resume.
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
import { deployment } from '../support/sim-resources.js';

const NS = 'streaming-prod';
const sim = useSimRig(NS);
const { get, deployed, reasons, eventCount } = sim;

/** The values in order with consecutive repeats collapsed (what a watcher sees change). */
function changes<T>(values: T[]): T[] {
  return values.filter((v, i) => i === 0 || v !== values[i - 1]);
}

describe('first deployment', () => {
  it('goes CREATED → UPGRADING → DEPLOYED → STABLE with the JobManager and job sequences of the operator', async () => {
    const rec = recordStatuses(sim.rig.store, 'flinkdeployments', NS, 'orders');
    await deployed();
    rec.stop();
    // The first change is the create itself, before the operator wrote any status.
    expect(rec.seen[0]?.status).toEqual({});
    const seen = rec.seen.map((r) => r.status).slice(1);
    expect(changes(seen.map((s) => s.lifecycleState))).toEqual(['CREATED', 'UPGRADING', 'DEPLOYED', 'STABLE']);
    expect(changes(seen.map((s) => s.jobManagerDeploymentStatus))).toEqual([
      'MISSING',
      'DEPLOYING',
      'DEPLOYED_NOT_READY',
      'READY',
    ]);
    expect(changes(seen.map((s) => s.jobStatus?.state).filter(Boolean))).toEqual(['RECONCILING', 'CREATED', 'RUNNING']);
    expect(seen[0]?.reconciliationStatus?.state).toBe('UPGRADING');
    // observedGeneration and the target spec (suspended) are written before anything is deployed.
    const before = seen.find((s) => s.lifecycleState === 'UPGRADING') as Status;
    expect(before.observedGeneration).toBe(1);
    expect(reconciledSpec(before)?.job.state).toBe('suspended');

    const status = statusOf(get());
    const raw = JSON.parse(status.reconciliationStatus?.lastReconciledSpec as string) as Record<string, unknown>;
    expect(raw.resource_metadata).toEqual({ apiVersion: 'flink.apache.org/v1beta1', firstDeployment: true });
    expect(reconciledSpec(status)?.job).toMatchObject({
      state: 'running',
      upgradeMode: 'savepoint',
      parallelism: 2,
      savepointRedeployNonce: null,
    });
    expect(status.reconciliationStatus?.lastStableSpec).toBe(status.reconciliationStatus?.lastReconciledSpec);
    expect(typeof status.reconciliationStatus?.reconciliationTimestamp).toBe('number');
    expect(status.jobStatus?.jobId).toMatch(/^[0-9a-f]{32}$/);
    expect(status.taskManager).toEqual({ labelSelector: 'component=taskmanager,app=orders', replicas: 1 });
    expect(status.conditions).toEqual([
      {
        type: 'Running',
        status: 'True',
        reason: 'Running',
        message: 'Job status RUNNING',
        lastTransitionTime: expect.any(String),
      },
    ]);
    expect(reasons()).toEqual(['Submit', 'JobStatusChanged', 'JobStatusChanged']);
    const submit = eventsFor(sim.rig.store, get()).find((e) => e.reason === 'Submit');
    expect(submit).toMatchObject({
      type: 'Normal',
      component: 'JobManagerDeployment',
      message: 'Starting deployment',
      count: 1,
    });
  });

  it('deploys nothing and writes no lastReconciledSpec for a resource created suspended', async () => {
    sim.rig.store.create('flinkdeployments', deployment('dormant', NS, { state: 'suspended' }));
    await deployed('sentinel');
    const status = statusOf(get('dormant'));
    expect(status.lifecycleState).toBe('CREATED');
    expect(status.reconciliationStatus).toEqual({ state: 'UPGRADING' });
    expect(status.jobManagerDeploymentStatus).toBe('MISSING');
    expect(eventsFor(sim.rig.store, get('dormant'))).toEqual([]);
    editSpec(sim.rig.store, 'flinkdeployments', NS, 'dormant', (s) => (s.job.state = 'running'));
    await waitStable(sim.rig.store, NS, 'dormant');
  });

  it('starts a first deployment from initialSavepointPath', async () => {
    const path = 's3://flink-state/streaming-prod/orders/savepoints/savepoint-a1b2c3-000000000001';
    const object = deployment('orders', NS);
    (object.spec as { job: Record<string, unknown> }).job.initialSavepointPath = path;
    sim.rig.store.create('flinkdeployments', object);
    const stable = await waitStable(sim.rig.store, NS, 'orders');
    expect(statusOf(stable).jobStatus?.upgradeSavepointPath).toBe(path);
  });
});

describe('suspend', () => {
  const cases = [
    { mode: 'savepoint', ha: true, jm: 'READY', savepoint: true },
    { mode: 'last-state', ha: true, jm: 'MISSING', savepoint: false },
    { mode: 'stateless', ha: true, jm: 'MISSING', savepoint: false },
  ] as const;

  it.each(cases)(
    '$mode: SUSPENDED, job FINISHED (written by the operator), JobManager $jm',
    async ({ mode, ha, jm, savepoint }) => {
      await deployed('orders', { upgradeMode: mode, ha });
      const generation = editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => (s.job.state = 'suspended'));
      const done = await waitForStatus(
        sim.rig.store,
        'flinkdeployments',
        NS,
        'orders',
        (s) => s.lifecycleState === 'SUSPENDED',
        'SUSPENDED',
      );
      const status = statusOf(done);
      expect(status.observedGeneration).toBe(generation);
      expect(status.reconciliationStatus?.state).toBe('DEPLOYED');
      expect(status.jobStatus?.state).toBe('FINISHED');
      expect(status.jobManagerDeploymentStatus).toBe(jm);
      expect(status.taskManager).toEqual({ labelSelector: '', replicas: 0 });
      expect(reconciledSpec(status)?.job.state).toBe('suspended');
      expect(status.reconciliationStatus?.lastStableSpec).toBe(status.reconciliationStatus?.lastReconciledSpec);
      expect(status.conditions?.[0]).toMatchObject({
        status: 'False',
        reason: 'Finished',
        message: 'Job status FINISHED',
      });
      const suspended = eventsFor(sim.rig.store, done).find((e) => e.reason === 'Suspended');
      expect(suspended).toMatchObject({ type: 'Normal', message: 'Suspending existing deployment.' });
      expect(eventsFor(sim.rig.store, done).find((e) => e.reason === 'SpecChanged')?.message).toBe(
        'UPGRADE change(s) detected (Diff: FlinkDeploymentSpec[job.state : running -> suspended]), starting reconciliation.',
      );
      const snapshots = sim.rig.store.list('flinkstatesnapshots', NS);
      if (savepoint) {
        expect(status.jobStatus?.upgradeSavepointPath).toMatch(
          /^s3:\/\/flink-state\/streaming-prod\/orders\/savepoints\/savepoint-[0-9a-f]{6}-[0-9a-f]{12}$/,
        );
        const upgrade = await waitFor(sim.rig.store, () =>
          sim.rig.store.list('flinkstatesnapshots', NS).find((s) => statusOf(s).state === 'COMPLETED'),
        );
        expect(upgrade.metadata.name).toMatch(/^orders-savepoint-upgrade-\d{13}$/);
        expect(upgrade.spec).toMatchObject({
          savepoint: { alreadyExists: true },
          jobReference: { kind: 'FlinkDeployment', name: 'orders' },
        });
        expect(statusOf(upgrade).path).toBe(status.jobStatus?.upgradeSavepointPath);
      } else {
        expect(status.jobStatus?.upgradeSavepointPath).toBeUndefined();
        expect(snapshots).toEqual([]);
      }
    },
  );

  it('last-state without HA is an async cancel: the old spec with only upgradeMode changed, then markSuspended', async () => {
    const first = await deployed('orders', { upgradeMode: 'last-state', ha: false });
    const before = statusOf(first);
    const rec = recordStatuses(sim.rig.store, 'flinkdeployments', NS, 'orders');
    const generation = editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => (s.job.state = 'suspended'));
    const done = await waitForStatus(
      sim.rig.store,
      'flinkdeployments',
      NS,
      'orders',
      (s) => s.jobStatus?.state === 'CANCELED',
      'CANCELED',
    );
    rec.stop();
    const cancelling = rec.seen.find((r) => r.status.jobStatus?.state === 'CANCELLING')?.status as Status;
    expect(cancelling.reconciliationStatus?.state).toBe('UPGRADING');
    expect(cancelling.observedGeneration).toBe(generation - 1);
    expect(cancelling.jobManagerDeploymentStatus).toBe('READY');
    expect(cancelling.jobStatus?.updateTime).toBe(before.jobStatus?.updateTime);
    // The OLD spec: still running, only the restore mode recorded (cancel restores "as a savepoint").
    expect(reconciledSpec(cancelling)).toEqual({
      ...reconciledSpec(before),
      job: { ...reconciledSpec(before)?.job, upgradeMode: 'savepoint' },
    });
    const status = statusOf(done);
    expect(status.observedGeneration).toBe(generation - 1);
    expect(status.reconciliationStatus?.state).toBe('UPGRADING');
    expect(status.lifecycleState).toBe('UPGRADING');
    expect(status.jobManagerDeploymentStatus).toBe('READY');
    expect(reconciledSpec(status)?.job).toMatchObject({ state: 'suspended', upgradeMode: 'savepoint' });
    expect(status.jobStatus?.updateTime).not.toBe(before.jobStatus?.updateTime);
    expect(status.jobStatus?.upgradeSavepointPath).toMatch(
      /^s3:\/\/flink-state\/streaming-prod\/orders\/checkpoints\/[0-9a-f]{32}\/chk-\d+$/,
    );
    expect(
      eventsFor(sim.rig.store, done).some((e) => e.message === 'Job status changed from CANCELLING to CANCELED'),
    ).toBe(true);
    expect(reasons()).toContain('Suspended');

    // Nothing moves on later reconciles: suspended → suspended writes nothing.
    sim.rig.operator.setScenario(NS, 'orders', 'slow-reconcile');
    sim.rig.operator.clearScenario(NS, 'orders');
    await deployed('sentinel');
    expect(statusOf(get()).reconciliationStatus).toEqual(status.reconciliationStatus);
    expect(statusOf(get()).observedGeneration).toBe(generation - 1);
  });

  it('updateTime moves only on observed job changes, not on the FINISHED the operator writes', async () => {
    const first = await deployed('orders', { upgradeMode: 'savepoint' });
    const running = statusOf(first).jobStatus?.updateTime;
    expect(running).toMatch(/^\d{13}$/);
    editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => (s.job.state = 'suspended'));
    const done = await waitForStatus(
      sim.rig.store,
      'flinkdeployments',
      NS,
      'orders',
      (s) => s.lifecycleState === 'SUSPENDED',
      'SUSPENDED',
    );
    expect(statusOf(done).jobStatus).toMatchObject({ state: 'FINISHED', updateTime: running });
  });
});

describe('unset parallelism', () => {
  it('reads 0 in lastReconciledSpec (JobSpec.parallelism is an int) when taskManager.replicas decides it', async () => {
    const object = deployment('orders', NS, { replicas: 2 });
    delete (object.spec as { job: Record<string, unknown> }).job.parallelism;
    sim.rig.store.create('flinkdeployments', object);
    const stable = await waitStable(sim.rig.store, NS, 'orders');
    expect(reconciledSpec(statusOf(stable))?.job.parallelism).toBe(0);
    expect(statusOf(stable).reconciliationStatus?.lastReconciledSpec).toContain('"parallelism":0');
    editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => (s.job.parallelism = 4));
    await waitStable(sim.rig.store, NS, 'orders');
    editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => delete s.job.parallelism);
    const back = statusOf(await waitStable(sim.rig.store, NS, 'orders'));
    expect(reconciledSpec(back)?.job.parallelism).toBe(0);
    expect(
      eventsFor(sim.rig.store, get())
        .filter((e) => e.reason === 'SpecChanged')
        .map((e) => e.message),
    ).toContainEqual(expect.stringContaining('FlinkDeploymentSpec[job.parallelism : 4 -> 0]'));
  });

  it('without taskManager.replicas it is refused: Job parallelism must be larger than 0', async () => {
    await deployed();
    editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => delete s.job.parallelism);
    const event = await waitFor(sim.rig.store, () =>
      eventsFor(sim.rig.store, get()).find((e) => e.reason === 'ValidationError'),
    );
    expect(event.message).toBe('Job parallelism must be larger than 0');
  });
});

describe('resume', () => {
  const cases = [
    { mode: 'savepoint', specMode: 'savepoint', sameJobId: false, restore: 'savepoint path' },
    { mode: 'last-state', specMode: 'last-state', sameJobId: true, restore: 'HA' },
    { mode: 'savepoint', specMode: 'stateless', sameJobId: false, restore: 'nothing' },
  ] as const;

  it.each(cases)(
    'after a $mode suspend with spec mode $specMode restores from $restore',
    async ({ mode, specMode, sameJobId }) => {
      const first = await deployed('orders', { upgradeMode: mode });
      const jobId = statusOf(first).jobStatus?.jobId;
      editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => (s.job.state = 'suspended'));
      const suspended = await waitForStatus(
        sim.rig.store,
        'flinkdeployments',
        NS,
        'orders',
        (s) => s.lifecycleState === 'SUSPENDED',
        'SUSPENDED',
      );
      const path = statusOf(suspended).jobStatus?.upgradeSavepointPath;
      const counts = {
        submit: eventCount('Submit'),
        jobStatus: eventCount('JobStatusChanged'),
        spec: eventCount('SpecChanged'),
      };
      editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => {
        s.job.state = 'running';
        s.job.upgradeMode = specMode;
      });
      const resumed = statusOf(await waitStable(sim.rig.store, NS, 'orders'));
      expect(eventCount('SpecChanged')).toBe(counts.spec + 1);
      expect(eventCount('Submit')).toBe(counts.submit + 1);
      expect(eventCount('JobStatusChanged')).toBeGreaterThan(counts.jobStatus);
      expect(resumed.jobStatus?.jobId === jobId).toBe(sameJobId);
      expect(reconciledSpec(resumed)?.job.upgradeMode).toBe(specMode === 'stateless' ? 'stateless' : mode);
      if (mode === 'savepoint') expect(resumed.jobStatus?.upgradeSavepointPath).toBe(path);
      if (mode === 'last-state') expect(resumed.jobStatus?.upgradeSavepointPath).toBe('KUBERNETES_OPERATOR_LAST_STATE');
    },
  );
});
