// The simulated operator on what real jobs do: a flapping savepoint-mode job falls back to last-state (HA), the
// wait for an upgradable state, session jobs lost with a session-cluster redeploy, resubmission of a FAILED job,
// a savepoint abandoned while Flink completes it anyway, Blue/Green children.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createBlueGreenPair } from '../../src/kube/bluegreen.js';
import { startSimOperator } from '../../src/kube/operator.js';
import { SimStore, type KubeObject } from '../../src/kube/store.js';
import { crPath, startSimApi } from '../support/kube.js';
import {
  editSpec,
  eventsFor,
  reconciledSpec,
  statusOf,
  useSimRig,
  waitFor,
  waitForStatus,
  waitStable,
} from '../support/sim.js';
import { deployment, sessionCluster, sessionJob, snapshot } from '../support/sim-resources.js';
import { checkpointDurationMs, latestInProgress } from '../../src/kube/job-checkpoints.js';

const NS = 'streaming-prod';
const sim = useSimRig(NS);
const PLACEHOLDER = 'KUBERNETES_OPERATOR_LAST_STATE';
/** One checkpoint per operator second: 10 ms at the fast speed. */
const CHECKPOINTS = { 'execution.checkpointing.interval': '1s' };

function restarting(store: SimStore, name = 'orders') {
  return waitForStatus(store, 'flinkdeployments', NS, name, (s) => s.jobStatus?.state === 'RESTARTING', 'RESTARTING');
}

describe('a savepoint-mode job that is not RUNNING', () => {
  it('falls back to last-state from HA metadata: same job id, the placeholder, the last completed checkpoint restored', async () => {
    const { store, operator } = sim.rig;
    store.create('flinkdeployments', deployment('orders', NS, { conf: CHECKPOINTS }));
    await waitStable(store, NS, 'orders');
    operator.setScenario(NS, 'orders', 'job-restarting');
    const flapping = statusOf(await restarting(store));
    expect(eventsFor(store, sim.get()).some((e) => e.reason === 'JobException')).toBe(true);
    const jobId = String(flapping.jobStatus?.jobId);
    // Checkpoints triggered from the start until the job left RUNNING (updateTime), one per 10 ms; the latest one is
    // not completed when the job left before its acknowledgement (it was in progress).
    const elapsed = Number(flapping.jobStatus?.updateTime) - Number(flapping.jobStatus?.startTime);
    const ticks = Math.floor(elapsed / 10);
    const checkpoint = ticks - (latestInProgress(ticks, elapsed, 10, checkpointDurationMs('fast', 10)) ? 1 : 0);
    expect(checkpoint).toBeGreaterThan(0);

    editSpec(store, 'flinkdeployments', NS, 'orders', (s) => (s.restartNonce = 1));
    const after = statusOf(await waitStable(store, NS, 'orders'));
    expect(after.jobStatus?.jobId).toBe(jobId);
    expect(after.jobStatus?.upgradeSavepointPath).toBe(PLACEHOLDER);
    expect(reconciledSpec(after)?.job.upgradeMode).toBe('last-state');
    expect(operator.jobManagers.haRestore(jobId)?.path).toBe(
      `s3://flink-state/${NS}/orders/checkpoints/${jobId}/chk-${checkpoint}`,
    );
    expect(store.list('flinkstatesnapshots', NS)).toEqual([]);
    // The knob is spent on the flapping run: the redeployed job runs (and resumes suspended → running the same way).
    expect(after.jobStatus?.state).toBe('RUNNING');
  });

  it('without a completed checkpoint the HA restore records no placeholder and no restored checkpoint', async () => {
    const { store, operator } = sim.rig;
    // Checkpointing configured, but a first checkpoint an hour away: the HA metadata holds none (atLeastOneCheckpoint).
    const conf = { 'execution.checkpointing.interval': '1h' };
    const first = statusOf(await sim.deployed('orders', { upgradeMode: 'last-state', conf }));
    editSpec(store, 'flinkdeployments', NS, 'orders', (s) => (s.restartNonce = 1));
    const after = statusOf(await waitStable(store, NS, 'orders'));
    const jobId = String(first.jobStatus?.jobId);
    expect(after.jobStatus?.jobId).toBe(jobId);
    expect(after.jobStatus?.upgradeSavepointPath).not.toBe(PLACEHOLDER);
    expect(operator.jobManagers.haRestore(jobId)).toBeUndefined();
  });

  it('with the fallback disabled waits: SpecChanged only, nothing written, and proceeds once the job runs again', async () => {
    const lines: string[] = [];
    const store = new SimStore();
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const operator = startSimOperator({ store, speed: 'fast', logger });
    try {
      const conf = { 'kubernetes.operator.job.upgrade.last-state-fallback.enabled': 'false' };
      store.create('flinkdeployments', deployment('orders', NS, { conf }));
      await waitStable(store, NS, 'orders');
      operator.setScenario(NS, 'orders', 'job-restarting');
      const before = await restarting(store);
      const generation = editSpec(store, 'flinkdeployments', NS, 'orders', (s) => (s.restartNonce = 1));
      // Two reconciles that chose to wait (the second is the periodic one): the positive signal for the absence below.
      const waits = () => lines.filter((l) => l.includes('waiting for upgradeable state')).length;
      await waitFor(store, () => waits() >= 2, 5000, 'two waiting reconciles');
      const waiting = store.get('flinkdeployments', NS, 'orders');
      expect(waiting?.status).toEqual(before.status);
      expect(statusOf(waiting).observedGeneration).toBe(generation - 1);
      // Besides the first deployment's events and the flapping job's: SpecChanged, nothing else.
      const reasons = eventsFor(store, waiting!)
        .map((e) => e.reason)
        .filter((r) => r !== 'JobException' && r !== 'JobStatusChanged');
      expect(reasons.sort()).toEqual(['SpecChanged', 'Submit']);

      operator.clearScenario(NS, 'orders');
      const done = statusOf(await waitStable(store, NS, 'orders'));
      expect(done.observedGeneration).toBe(generation);
      expect(done.jobStatus?.upgradeSavepointPath).toMatch(/\/savepoints\/savepoint-/);
    } finally {
      await operator.close();
    }
  });
});

describe('a session cluster redeployed without HA', () => {
  it('leaves its stateful session job at "Job Not Found"; restart never proceeds, restore brings it back', async () => {
    const { store } = sim.rig;
    const cluster = sessionCluster('session', NS, { ha: false });
    store.create('flinkdeployments', cluster);
    store.create('flinksessionjobs', sessionJob('etl', NS, 'session'));
    store.create('flinksessionjobs', sessionJob('events', NS, 'session', { upgradeMode: 'stateless' }));
    const etl = statusOf(await waitStable(store, NS, 'etl', 'flinksessionjobs'));
    const events = statusOf(await waitStable(store, NS, 'events', 'flinksessionjobs'));

    editSpec(store, 'flinkdeployments', NS, 'session', (s) => (s.restartNonce = 1));
    const lost = await waitForStatus(
      store,
      'flinksessionjobs',
      NS,
      'etl',
      (s) => s.error === 'Job Not Found',
      'Job Not Found',
    );
    expect(statusOf(lost).reconciliationStatus?.state).toBe('DEPLOYED');
    expect(statusOf(lost).jobStatus?.state).toBe('RECONCILING');
    expect(statusOf(lost).jobStatus?.jobId).toBe(etl.jobStatus?.jobId);
    const missing = eventsFor(store, lost).find((e) => e.reason === 'Missing');
    expect(missing).toMatchObject({ type: 'Warning', message: 'Job Not Found' });
    // The stateless one is marked suspended and started again under the id it kept (a RECONCILING job's id is reused).
    const restarted = await waitForStatus(
      store,
      'flinksessionjobs',
      NS,
      'events',
      (s) => s.jobStatus?.state === 'RUNNING' && s.jobStatus.startTime !== events.jobStatus?.startTime,
      'running again',
    );
    expect(eventsFor(store, restarted).some((e) => e.reason === 'Missing')).toBe(true);
    expect(statusOf(restarted).jobStatus?.jobId).toBe(events.jobStatus?.jobId);
    expect(Number(statusOf(restarted).jobStatus?.startTime)).toBeGreaterThan(Number(events.jobStatus?.startTime));

    const missingCount = () =>
      eventsFor(store, store.get('flinksessionjobs', NS, 'etl')!).find((e) => e.reason === 'Missing')?.count ?? 0;
    const seen = missingCount();
    const generation = editSpec(store, 'flinksessionjobs', NS, 'etl', (s) => (s.job.restartNonce = 1));
    // Each reconcile observes the missing job again: two more Missing events prove two reconciles went by.
    await waitFor(store, () => missingCount() >= seen + 2, 5000, 'two reconciles after the restart');
    const stuck = store.get('flinksessionjobs', NS, 'etl')!;
    expect(statusOf(stuck).observedGeneration).toBe(generation - 1);
    expect(reconciledSpec(statusOf(stuck))?.job.restartNonce).toBeUndefined();
    // No Suspended, no second Submit, no error event: the first deployment's events, Missing and SpecChanged.
    expect([...new Set(eventsFor(store, stuck).map((e) => e.reason))].sort()).toEqual([
      'JobStatusChanged',
      'Missing',
      'SpecChanged',
      'Submit',
    ]);
    expect(eventsFor(store, stuck).find((e) => e.reason === 'Submit')?.count).toBe(1);

    const path = `s3://flink-state/${NS}/etl/savepoints/savepoint-manual`;
    editSpec(store, 'flinksessionjobs', NS, 'etl', (s) =>
      Object.assign(s.job, { savepointRedeployNonce: 1, initialSavepointPath: path }),
    );
    const back = statusOf(await waitStable(store, NS, 'etl', 'flinksessionjobs'));
    expect(back.error).toBeUndefined();
    expect(back.jobStatus?.upgradeSavepointPath).toBe(path);
    expect(back.jobStatus?.jobId).not.toBe(etl.jobStatus?.jobId);
  });
});

describe('kubernetes.operator.job.restart.failed', () => {
  it('resubmits a FAILED job by itself: a new job id from the last checkpoint, no generation change', async () => {
    const { store, operator } = sim.rig;
    const conf = { 'kubernetes.operator.job.restart.failed': 'true' };
    const first = statusOf(await sim.deployed('orders', { conf }));
    const spec = first.reconciliationStatus?.lastReconciledSpec;
    operator.setScenario(NS, 'orders', 'job-failure');
    const failed = statusOf(
      await waitForStatus(store, 'flinkdeployments', NS, 'orders', (s) => s.jobStatus?.state === 'FAILED', 'FAILED'),
    );
    operator.clearScenario(NS, 'orders');
    const back = await waitForStatus(
      store,
      'flinkdeployments',
      NS,
      'orders',
      (s) => s.jobStatus?.state === 'RUNNING' && s.jobStatus.jobId !== first.jobStatus?.jobId,
      'resubmitted',
    );
    const status = statusOf(back);
    expect(status.observedGeneration).toBe(first.observedGeneration);
    expect(back.metadata.generation).toBe(1);
    expect(status.reconciliationStatus?.lastReconciledSpec).toBe(spec);
    expect(status.error).toBeUndefined();
    expect(status.jobStatus?.upgradeSavepointPath).toBe(failed.jobStatus?.upgradeSavepointPath);
    expect(status.jobStatus?.upgradeSavepointPath).toMatch(/\/checkpoints\/.*\/chk-\d+$/);
    expect(sim.eventCount('Submit')).toBe(2);
    expect(sim.eventCount('SpecChanged')).toBe(0);
  });
});

describe('savepoint-abandoned', () => {
  it('one REST failure abandons the IN_PROGRESS snapshot, the job runs on, and Flink completes the savepoint', async () => {
    const { store, operator } = sim.rig;
    const running = statusOf(await sim.deployed());
    operator.setScenario(NS, 'orders', 'savepoint-abandoned');
    const states: string[] = [];
    const unsubscribe = store.subscribe(() => {
      const state = String(statusOf(store.get('flinkdeployments', NS, 'orders')).jobStatus?.state);
      if (states.at(-1) !== state) states.push(state);
    });
    store.create('flinkstatesnapshots', snapshot('sp1', NS, 'orders'));
    const abandoned = await waitForStatus(
      store,
      'flinkstatesnapshots',
      NS,
      'sp1',
      (s) => s.state === 'ABANDONED',
      'ABANDONED',
    );
    expect(statusOf(abandoned).error).toBe(
      'Secondary resource JobReference(kind=FlinkDeployment, name=orders) for savepoint sp1 is not running',
    );
    expect(statusOf(abandoned).path).toBeUndefined();
    expect(eventsFor(store, abandoned).map((e) => e.reason)).toEqual(['SnapshotAbandoned']);
    const jobId = String(running.jobStatus?.jobId);
    // Flink finishing the savepoint changes no Kubernetes object: wait on the JobManager's own state.
    const savepoint = await operator.jobManagers.nextSavepoint(jobId);
    unsubscribe();
    expect(savepoint.path).toMatch(
      new RegExp(`^s3://flink-state/${NS}/orders/savepoints/savepoint-${jobId.slice(0, 6)}-`),
    );
    expect(states).toEqual(['RUNNING', 'RECONCILING', 'RUNNING']);
    expect(statusOf(sim.get()).jobStatus?.jobId).toBe(jobId);
    expect(
      eventsFor(store, sim.get()).find((e) => e.message === 'Job status changed from RECONCILING to RUNNING'),
    ).toBeDefined();
  });

  it('a savepoint Flink completes normally is the JobManager latest savepoint too', async () => {
    const { store, operator } = sim.rig;
    const jobId = String(statusOf(await sim.deployed()).jobStatus?.jobId);
    store.create('flinkstatesnapshots', snapshot('sp1', NS, 'orders'));
    const done = await waitForStatus(
      store,
      'flinkstatesnapshots',
      NS,
      'sp1',
      (s) => s.state === 'COMPLETED',
      'COMPLETED',
    );
    expect(operator.jobManagers.latestSavepoint(jobId)?.path).toBe(statusOf(done).path);
  });
});

describe('Blue/Green children', () => {
  it('the API server serves the parent; its blue child carries the ownerReference and is reconciled like any FlinkDeployment', async () => {
    const api = await startSimApi();
    const operator = startSimOperator({ store: api.store, speed: 'fast' });
    try {
      const template = deployment('checkout', NS).spec as Record<string, unknown>;
      const { parent } = createBlueGreenPair(api.store, NS, 'checkout', template);
      const listed = (await api.custom.listNamespacedCustomObject(crPath(NS, 'flinkbluegreendeployments'))) as {
        items: KubeObject[];
      };
      expect(listed.items.map((i) => [i.kind, i.metadata.name])).toEqual([['FlinkBlueGreenDeployment', 'checkout']]);
      const child = (await api.custom.getNamespacedCustomObject({
        ...crPath(NS),
        name: 'checkout-blue',
      })) as KubeObject;
      expect(child.metadata.ownerReferences).toEqual([
        {
          apiVersion: 'flink.apache.org/v1beta1',
          blockOwnerDeletion: true,
          controller: false,
          kind: 'FlinkBlueGreenDeployment',
          name: 'checkout',
          uid: parent.metadata.uid,
        },
      ]);
      const running = statusOf(await waitStable(api.store, NS, 'checkout-blue'));
      expect(running.jobStatus?.state).toBe('RUNNING');
    } finally {
      await operator.close();
      await api.close();
    }
  });
});
