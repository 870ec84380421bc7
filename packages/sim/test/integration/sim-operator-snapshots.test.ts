// The simulated operator on FlinkStateSnapshots: completion, retries per backoffLimit, FAILED, ABANDONED, bad references.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  editSpec,
  eventsFor,
  recordStatuses,
  simRig,
  statusOf,
  waitFor,
  waitForStatus,
  waitStable,
  type SimRig,
} from '../support/sim.js';
import { deployment, sessionCluster, sessionJob, snapshot } from '../support/sim-resources.js';

const NS = 'streaming-prod';
/** The operator's own status times: ISO_INSTANT (flink-kubernetes-operator DateTimeUtils.kubernetes), fractions when there are some. */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;
let rig: SimRig;

beforeEach(async () => {
  rig = simRig();
  rig.store.create('flinkdeployments', deployment('orders', NS));
  await waitStable(rig.store, NS, 'orders');
});
afterEach(async () => {
  await rig.close();
});

function snap(name = 'sp') {
  const object = rig.store.get('flinkstatesnapshots', NS, name);
  if (!object) throw new Error(`${name} missing`);
  return object;
}

function terminal(name = 'sp') {
  return waitForStatus(
    rig.store,
    'flinkstatesnapshots',
    NS,
    name,
    (s) => ['COMPLETED', 'FAILED', 'ABANDONED'].includes(String(s.state)),
    'terminal',
  );
}

describe('FlinkStateSnapshot', () => {
  it('goes TRIGGER_PENDING → IN_PROGRESS → COMPLETED with a path under state.savepoints.dir and the operator labels', async () => {
    const rec = recordStatuses(rig.store, 'flinkstatesnapshots', NS, 'sp');
    rig.store.create('flinkstatesnapshots', snapshot('sp', NS, 'orders', { backoffLimit: 2 }));
    const done = await terminal();
    rec.stop();
    expect(rec.seen.map((r) => r.status.state).filter((s, i, all) => s && s !== all[i - 1])).toEqual([
      'TRIGGER_PENDING',
      'IN_PROGRESS',
      'COMPLETED',
    ]);
    const status = statusOf(done);
    const jobId = statusOf(rig.store.get('flinkdeployments', NS, 'orders')).jobStatus?.jobId as string;
    expect(status.path).toMatch(
      new RegExp(`^s3://flink-state/streaming-prod/orders/savepoints/savepoint-${jobId.slice(0, 6)}-[0-9a-f]{12}$`),
    );
    expect(status.failures).toBe(0);
    expect(status.triggerId).toMatch(/^[0-9a-f]{32}$/);
    expect(status.triggerTimestamp).toMatch(ISO_INSTANT);
    expect(status.resultTimestamp).toMatch(ISO_INSTANT);
    expect(done.metadata.labels).toEqual({
      'snapshot.type': 'SAVEPOINT',
      'snapshot.trigger-type': 'MANUAL',
      'snapshot.state': 'COMPLETED',
      'job-reference.kind': 'FlinkDeployment',
      'job-reference.name': 'orders',
    });
  });

  it('writes under spec.savepoint.path when given, and takes checkpoints too', async () => {
    rig.store.create('flinkstatesnapshots', snapshot('sp', NS, 'orders', { path: 's3://adhoc/orders/' }));
    rig.store.create('flinkstatesnapshots', snapshot('chk', NS, 'orders', { checkpoint: true }));
    expect(statusOf(await terminal('sp')).path).toMatch(/^s3:\/\/adhoc\/orders\/savepoint-[0-9a-f]{6}-[0-9a-f]{12}$/);
    const checkpoint = await terminal('chk');
    expect(statusOf(checkpoint).path).toMatch(
      /^s3:\/\/flink-state\/streaming-prod\/orders\/checkpoints\/[0-9a-f]{32}\/chk-\d+$/,
    );
    expect(checkpoint.metadata.labels?.['snapshot.type']).toBe('CHECKPOINT');
  });

  it.each([
    { backoffLimit: undefined, failures: 1, note: 'default -1: no retry in any release up to 1.15' },
    { backoffLimit: 0, failures: 1, note: 'no retry' },
    { backoffLimit: 2, failures: 3, note: 'two retries' },
  ])(
    'a failing savepoint with backoffLimit $backoffLimit ends FAILED after $failures attempt(s) ($note)',
    async ({ backoffLimit, failures }) => {
      rig.operator.setScenario(NS, 'orders', 'savepoint-failure');
      const rec = recordStatuses(rig.store, 'flinkstatesnapshots', NS, 'sp');
      rig.store.create(
        'flinkstatesnapshots',
        snapshot('sp', NS, 'orders', backoffLimit === undefined ? {} : { backoffLimit }),
      );
      const done = await terminal();
      rec.stop();
      const status = statusOf(done);
      expect(status.state).toBe('FAILED');
      expect(status.failures).toBe(failures);
      expect(JSON.parse(status.error as string).message).toContain('Failure to finalize checkpoint');
      const retries = rec.seen.filter(
        (r, i) =>
          r.status.state === 'TRIGGER_PENDING' && (rec.seen[i - 1]?.status.failures ?? 0) < (r.status.failures ?? 0),
      );
      expect(retries).toHaveLength(failures - 1);
      const errors = eventsFor(rig.store, done).filter((e) => e.reason === 'SavepointError');
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({ type: 'Warning', component: 'Snapshot', count: failures });
      // The event's message is the snapshot's status.error JSON, as FlinkStateSnapshotController writes it.
      expect(errors[0]?.message).toBe(status.error);
      expect(JSON.parse(status.error as string).type).toBe(
        'org.apache.flink.kubernetes.operator.exception.ReconciliationException',
      );
      // status.error is already there while the snapshot waits for its retry.
      for (const retry of retries) expect(retry.status.error).toBeDefined();
      expect(done.metadata.labels?.['snapshot.state']).toBe('FAILED');
    },
  );

  it('a retry can succeed: failures counts the failed attempts', async () => {
    rig.operator.setScenario(NS, 'orders', 'savepoint-failure');
    rig.store.create('flinkstatesnapshots', snapshot('sp', NS, 'orders', { backoffLimit: 2 }));
    await waitFor(rig.store, () => eventsFor(rig.store, snap()).find((e) => e.reason === 'SavepointError'));
    rig.operator.clearScenario(NS, 'orders');
    const done = await terminal();
    expect(statusOf(done)).toMatchObject({ state: 'COMPLETED', failures: 1 });
    expect(statusOf(done).error).toBeUndefined();
  });

  it('is ABANDONED with SnapshotAbandoned when the job is not RUNNING', async () => {
    editSpec(rig.store, 'flinkdeployments', NS, 'orders', (s) => (s.job.state = 'suspended'));
    await waitForStatus(
      rig.store,
      'flinkdeployments',
      NS,
      'orders',
      (s) => s.lifecycleState === 'SUSPENDED',
      'SUSPENDED',
    );
    rig.store.create('flinkstatesnapshots', snapshot('sp', NS, 'orders', { backoffLimit: 2 }));
    const done = await terminal();
    expect(statusOf(done).state).toBe('ABANDONED');
    expect(statusOf(done).error).toBe(
      'Secondary resource JobReference(kind=FlinkDeployment, name=orders) for savepoint sp is not running',
    );
    expect(statusOf(done).path).toBeUndefined();
    const abandoned = eventsFor(rig.store, done).find((e) => e.reason === 'SnapshotAbandoned');
    expect(abandoned).toMatchObject({ type: 'Warning', component: 'Snapshot' });
  });

  it('a wrong jobReference.name gives a ValidationError on every reconcile and the snapshot stays TRIGGER_PENDING', async () => {
    rig.store.create('flinkstatesnapshots', snapshot('sp', NS, 'nosuch', { backoffLimit: 2 }));
    // Re-validated every reconcile interval (60 s, 600 ms at fast speed): the same event with a growing count.
    const event = await waitFor(rig.store, () =>
      eventsFor(rig.store, snap()).find((e) => e.reason === 'ValidationError' && e.count >= 2),
    );
    expect(event).toMatchObject({
      type: 'Warning',
      component: 'Operator',
      message: `Target for snapshot ${NS}/nosuch was not found`,
    });
    rig.store.create('flinkstatesnapshots', snapshot('other', NS, 'orders'));
    await terminal('other');
    expect(statusOf(snap()).state).toBe('TRIGGER_PENDING');
    expect(snap().metadata.labels?.['snapshot.state']).toBe('TRIGGER_PENDING');
  });

  it('savepoint-failure=once: the first attempt fails, the retry completes', async () => {
    rig.operator.setScenario(NS, 'orders', 'savepoint-failure=once');
    const rec = recordStatuses(rig.store, 'flinkstatesnapshots', NS, 'sp');
    rig.store.create('flinkstatesnapshots', snapshot('sp', NS, 'orders', { backoffLimit: 2 }));
    const done = await terminal();
    rec.stop();
    expect(statusOf(done)).toMatchObject({ state: 'COMPLETED', failures: 1 });
    const pending = rec.seen.find((r) => r.status.state === 'TRIGGER_PENDING' && r.status.failures === 1);
    expect(JSON.parse(pending?.status.error as string).message).toContain('Failure to finalize checkpoint');
  });

  it("an IN_PROGRESS snapshot polls the job's current jobId: a resubmitted job fails the attempt, the retry completes", async () => {
    rig.store.create('flinkstatesnapshots', snapshot('sp', NS, 'orders', { backoffLimit: 2 }));
    const inProgress = await waitForStatus(
      rig.store,
      'flinkstatesnapshots',
      NS,
      'sp',
      (s) => s.state === 'IN_PROGRESS',
      'IN_PROGRESS',
    );
    const newJobId = 'f'.repeat(32);
    rig.store.update(
      'flinkdeployments',
      NS,
      'orders',
      (o) => ({ ...o, status: { ...o.status, jobStatus: { ...(o.status?.jobStatus as object), jobId: newJobId } } }),
      { subresource: 'status' },
    );
    const error = await waitFor(rig.store, () =>
      eventsFor(rig.store, snap()).find((e) => e.reason === 'SavepointError'),
    );
    const triggerId = String(statusOf(inProgress).triggerId);
    expect(JSON.parse(error.message).message).toContain(
      `AsynchronousJobOperationKey{triggerId=${triggerId}, jobId=${newJobId}}`,
    );
    const done = statusOf(await terminal());
    expect(done).toMatchObject({ state: 'COMPLETED', failures: 1 });
    expect(done.path).toMatch(/\/savepoint-ffffff-[0-9a-f]{12}$/);
  });
});

describe('FlinkStateSnapshot of a session job (1.15: the directory comes from the session cluster only)', () => {
  /** A session cluster without state.savepoints.dir, and a session job that sets one in its own configuration. */
  async function sessionJobWithOwnDir(): Promise<void> {
    const cluster = sessionCluster('session-cluster', NS);
    delete (cluster.spec?.flinkConfiguration as Record<string, unknown>)['state.savepoints.dir'];
    rig.store.create('flinkdeployments', cluster);
    rig.store.create(
      'flinksessionjobs',
      sessionJob('etl', NS, 'session-cluster', {
        upgradeMode: 'stateless',
        conf: { 'state.savepoints.dir': 's3://jobs/etl/savepoints' },
      }),
    );
    await waitStable(rig.store, NS, 'etl', 'flinksessionjobs');
  }

  it("ignores the job's own state.savepoints.dir: FAILED after backoffLimit + 1 attempts", async () => {
    await sessionJobWithOwnDir();
    rig.store.create('flinkstatesnapshots', snapshot('sp', NS, 'etl', { kind: 'FlinkSessionJob', backoffLimit: 2 }));
    const done = statusOf(await terminal());
    expect(done).toMatchObject({ state: 'FAILED', failures: 3 });
    const message =
      'Either the savepoint path in the spec or configuration state.savepoints.dir in the Flink resource has to be supplied';
    expect(JSON.parse(done.error as string)).toEqual({
      type: 'org.apache.flink.kubernetes.operator.exception.ReconciliationException',
      message: `java.lang.IllegalArgumentException: ${message}`,
      throwableList: [{ type: 'java.lang.IllegalArgumentException', message }],
    });
  });

  it('uses spec.savepoint.path when given', async () => {
    await sessionJobWithOwnDir();
    rig.store.create(
      'flinkstatesnapshots',
      snapshot('sp', NS, 'etl', { kind: 'FlinkSessionJob', backoffLimit: 2, path: 's3://jobs/etl/savepoints' }),
    );
    expect(statusOf(await terminal())).toMatchObject({
      state: 'COMPLETED',
      path: expect.stringMatching(/^s3:\/\/jobs\/etl\/savepoints\/savepoint-/),
    });
  });
});
