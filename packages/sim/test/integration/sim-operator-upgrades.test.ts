// The simulated operator on FlinkDeployment spec changes: restart, scale, image upgrade and its traps, savepoint redeploy, validation, events.
import { describe, expect, it } from 'vitest';
import { eventName, javaStringHashCode, recordEvent } from '../../src/kube/events.js';
import { jobGraphOf } from '../../src/kube/job-graph.js';
import { SimStore } from '../../src/kube/store.js';
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
import { deployment, type Loose } from '../support/sim-resources.js';

const NS = 'streaming-prod';
const sim = useSimRig(NS);
const { get, deployed, reasons, eventCount } = sim;

describe('redeploying changes', () => {
  it('restartNonce: a full redeploy with the current mode (a new upgrade savepoint)', async () => {
    const first = await deployed();
    const events = { suspended: eventCount('Suspended'), submit: eventCount('Submit') };
    const generation = editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => (s.restartNonce = 42));
    const after = await waitStable(sim.rig.store, NS, 'orders');
    const status = statusOf(after);
    expect(status.observedGeneration).toBe(generation);
    expect(reconciledSpec(status)?.restartNonce).toBe(42);
    expect(status.jobStatus?.jobId).not.toBe(statusOf(first).jobStatus?.jobId);
    expect(status.jobStatus?.upgradeSavepointPath).toMatch(/savepoint-/);
    expect(eventCount('Suspended')).toBe(events.suspended + 1);
    expect(eventCount('Submit')).toBe(events.submit + 1);
    expect(eventsFor(sim.rig.store, after).find((e) => e.reason === 'SpecChanged')?.message).toContain(
      'FlinkDeploymentSpec[restartNonce : null -> 42]',
    );
  });

  it('an HA last-state restart keeps the jobId', async () => {
    const first = await deployed('orders', { upgradeMode: 'last-state' });
    editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => (s.restartNonce = 7));
    const after = await waitStable(sim.rig.store, NS, 'orders');
    expect(statusOf(after).jobStatus?.jobId).toBe(statusOf(first).jobStatus?.jobId);
    expect(statusOf(after).jobStatus?.upgradeSavepointPath).toBe('KUBERNETES_OPERATOR_LAST_STATE');
  });

  it('a stateless restart gets a new jobId and keeps no state', async () => {
    const first = await deployed('orders', { upgradeMode: 'stateless' });
    editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => (s.restartNonce = 7));
    const after = await waitStable(sim.rig.store, NS, 'orders');
    expect(statusOf(after).jobStatus?.jobId).not.toBe(statusOf(first).jobStatus?.jobId);
    expect(sim.rig.store.list('flinkstatesnapshots', NS)).toEqual([]);
  });

  it('scale: a parallelism change is a full redeploy in native mode', async () => {
    await deployed();
    const submits = eventCount('Submit');
    editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => (s.job.parallelism = 4));
    const status = statusOf(await waitStable(sim.rig.store, NS, 'orders'));
    expect(reconciledSpec(status)?.job.parallelism).toBe(4);
    expect(status.taskManager?.replicas).toBe(2);
    expect(eventCount('Submit')).toBe(submits + 1);
    expect(eventsFor(sim.rig.store, get()).find((e) => e.reason === 'SpecChanged')?.message).toContain(
      'UPGRADE change(s) detected (Diff: FlinkDeploymentSpec[job.parallelism : 2 -> 4])',
    );
  });

  it('scale with taskManager.replicas set: parallelism is ignored, yet the change still redeploys', async () => {
    await deployed('orders', { replicas: 3 });
    expect(statusOf(get()).taskManager?.replicas).toBe(3);
    const submits = eventCount('Submit');
    editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => (s.job.parallelism = 16));
    const status = statusOf(await waitStable(sim.rig.store, NS, 'orders'));
    expect(eventCount('Submit')).toBe(submits + 1);
    expect(status.taskManager).toEqual({ labelSelector: 'component=taskmanager,app=orders', replicas: 3 });
    expect(reconciledSpec(status)?.job.parallelism).toBe(16);
  });

  it('in-place scaling of the parallelism overrides: a Scaling event, no redeploy', async () => {
    const first = await deployed('orders', { conf: { 'jobmanager.scheduler': 'adaptive' } });
    const generation = editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => {
      // An override of a vertex the job has (one of an unknown vertex changes no requirement: no Scaling event).
      s.flinkConfiguration['pipeline.jobvertex-parallelism-overrides'] = `${String(jobGraphOf(first)[0]?.id)}:4`;
    });
    const after = await waitForStatus(
      sim.rig.store,
      'flinkdeployments',
      NS,
      'orders',
      (s) => s.observedGeneration === generation,
      'observed',
    );
    expect(reasons()).toContain('Scaling');
    expect(reasons()).not.toContain('Suspended');
    expect(statusOf(after).jobStatus?.jobId).toBe(statusOf(first).jobStatus?.jobId);
    expect(statusOf(after).reconciliationStatus?.state).toBe('DEPLOYED');
    expect(eventsFor(sim.rig.store, after).find((e) => e.reason === 'SpecChanged')?.message).toMatch(
      /^SCALE change\(s\) detected/,
    );
  });
});

describe('image upgrade and the traps', () => {
  it('observedGeneration == generation and Running=True while UPGRADING; events deduplicated by content', async () => {
    const first = await deployed();
    const submit = eventsFor(sim.rig.store, first).find((e) => e.reason === 'Submit');
    const rec = recordStatuses(sim.rig.store, 'flinkdeployments', NS, 'orders');
    const generation = editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => (s.image = 'flink:1.20.1'));
    const after = await waitStable(sim.rig.store, NS, 'orders');
    rec.stop();
    const upgrading = rec.seen.filter((r) => r.status.reconciliationStatus?.state === 'UPGRADING').map((r) => r.status);
    expect(upgrading.length).toBeGreaterThan(0);
    // Trap 1: the operator accepted the generation before anything was redeployed.
    expect(upgrading.every((s) => s.observedGeneration === generation)).toBe(true);
    // Trap 2: the Running condition still says True while the job is FINISHED mid-upgrade.
    expect(upgrading.some((s) => s.conditions?.[0]?.status === 'True' && s.jobStatus?.state === 'FINISHED')).toBe(true);
    expect(reconciledSpec(upgrading[0] as Status)?.job.state).toBe('suspended');
    expect(eventsFor(sim.rig.store, after).find((e) => e.reason === 'SpecChanged')?.message).toBe(
      'UPGRADE change(s) detected (Diff: FlinkDeploymentSpec[image : flink:1.20 -> flink:1.20.1]), starting reconciliation.',
    );
    expect(reconciledSpec(statusOf(after))?.image).toBe('flink:1.20.1');
    // Trap 8: the second Submit is the same Event object with count 2.
    const submitAfter = eventsFor(sim.rig.store, after).find((e) => e.reason === 'Submit');
    expect(submitAfter?.name).toBe(submit?.name);
    expect(submitAfter?.count).toBe(2);
    expect(submitAfter?.firstTimestamp).toBe(submit?.firstTimestamp);
    expect(submitAfter!.lastTimestamp >= submit!.lastTimestamp).toBe(true);
    expect(eventsFor(sim.rig.store, after).filter((e) => e.reason === 'Submit')).toHaveLength(1);
  });

  it('IGNORE-class changes advance observedGeneration and redeploy nothing', async () => {
    const first = await deployed();
    const before = statusOf(first);
    const edits: ((s: Loose) => void)[] = [
      (s) => (s.job.upgradeMode = 'last-state'),
      (s) => (s.flinkConfiguration['kubernetes.operator.savepoint.history.max.count'] = '5'),
      (s) => (s.flinkConfiguration['job.autoscaler.enabled'] = 'true'),
      (s) => (s.job.initialSavepointPath = 's3://elsewhere/savepoint-1'),
      (s) => (s.job.allowNonRestoredState = true),
    ];
    for (const edit of edits) {
      const generation = editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', edit);
      const after = await waitForStatus(
        sim.rig.store,
        'flinkdeployments',
        NS,
        'orders',
        (s) => s.observedGeneration === generation,
        `generation ${generation}`,
      );
      const status = statusOf(after);
      expect(status.reconciliationStatus?.lastReconciledSpec).toBe(before.reconciliationStatus?.lastReconciledSpec);
      expect(status.jobStatus?.jobId).toBe(before.jobStatus?.jobId);
      expect(status.lifecycleState).toBe('STABLE');
    }
    expect(reasons()).not.toContain('SpecChanged');
    expect(reasons()).not.toContain('Suspended');
  });
});

describe('savepoint redeploy', () => {
  it('cancels without a savepoint, restores from the path with a new jobId, and is STABLE before the job runs', async () => {
    const first = await deployed();
    const path = 's3://backups/orders/savepoint-0a1b2c-d3e4f5a6b7c8';
    const suspendedEvents = eventCount('Suspended');
    const rec = recordStatuses(sim.rig.store, 'flinkdeployments', NS, 'orders');
    const generation = editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => {
      s.job.initialSavepointPath = path;
      s.job.savepointRedeployNonce = 1001;
    });
    const after = await waitStable(sim.rig.store, NS, 'orders');
    rec.stop();
    const early = rec.seen.find(
      (r) =>
        r.generation === generation && r.status.lifecycleState === 'STABLE' && r.status.jobStatus?.state !== 'RUNNING',
    );
    expect(early?.status.jobStatus?.state).toBe('RECONCILING');
    const status = statusOf(after);
    expect(status.jobStatus?.upgradeSavepointPath).toBe(path);
    expect(status.jobStatus?.jobId).not.toBe(statusOf(first).jobStatus?.jobId);
    expect(reconciledSpec(status)?.job).toMatchObject({ savepointRedeployNonce: 1001, upgradeMode: 'savepoint' });
    expect(eventCount('Suspended')).toBe(suspendedEvents);
    expect(eventsFor(sim.rig.store, after).find((e) => e.reason === 'SpecChanged')?.message).toMatch(
      /^SAVEPOINT_REDEPLOY change\(s\) detected/,
    );
    expect(eventCount('Submit')).toBe(2);
    expect(sim.rig.store.list('flinkstatesnapshots', NS)).toEqual([]);
  });

  it('on a suspended target only records the path', async () => {
    await deployed();
    editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => (s.job.state = 'suspended'));
    await waitForStatus(
      sim.rig.store,
      'flinkdeployments',
      NS,
      'orders',
      (s) => s.lifecycleState === 'SUSPENDED',
      'SUSPENDED',
    );
    const submits = eventCount('Submit');
    const generation = editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => {
      s.job.initialSavepointPath = 's3://backups/orders/savepoint-1';
      s.job.savepointRedeployNonce = 5;
    });
    const after = await waitForStatus(
      sim.rig.store,
      'flinkdeployments',
      NS,
      'orders',
      (s) => s.observedGeneration === generation,
      'observed',
    );
    const status = statusOf(after);
    expect(status.jobStatus?.upgradeSavepointPath).toBe('s3://backups/orders/savepoint-1');
    expect(status.lifecycleState).toBe('SUSPENDED');
    expect(reconciledSpec(status)?.job.savepointRedeployNonce).toBe(5);
    expect(eventCount('Submit')).toBe(submits);
  });
});

describe('operator-side validation', () => {
  it('rejects savepointRedeployNonce without initialSavepointPath: ValidationError, status.error, old spec keeps running', async () => {
    const first = await deployed();
    const generation = editSpec(
      sim.rig.store,
      'flinkdeployments',
      NS,
      'orders',
      (s) => (s.job.savepointRedeployNonce = 3),
    );
    await waitFor(sim.rig.store, () => eventsFor(sim.rig.store, get()).find((e) => e.reason === 'ValidationError'));
    const status = statusOf(get());
    expect(status.observedGeneration).toBe(generation - 1);
    expect(JSON.parse(status.error as string)).toEqual({
      type: 'org.apache.flink.kubernetes.operator.exception.ValidationException',
      message: 'savepointRedeployNonce can only be used together with a non-empty initialSavepointPath',
      throwableList: [],
    });
    expect(status.jobStatus?.jobId).toBe(statusOf(first).jobStatus?.jobId);
    expect(status.jobStatus?.state).toBe('RUNNING');
    const event = eventsFor(sim.rig.store, get()).find((e) => e.reason === 'ValidationError');
    expect(event).toMatchObject({ type: 'Warning', component: 'Operator' });
    editSpec(
      sim.rig.store,
      'flinkdeployments',
      NS,
      'orders',
      (s) => (s.job.initialSavepointPath = 's3://backups/orders/savepoint-2'),
    );
    const fixed = statusOf(await waitStable(sim.rig.store, NS, 'orders'));
    expect(fixed.error).toBeUndefined();
  });

  it('rejects a switch from job to session cluster', async () => {
    await deployed();
    editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => delete s.job);
    const event = await waitFor(sim.rig.store, () =>
      eventsFor(sim.rig.store, get()).find((e) => e.reason === 'ValidationError'),
    );
    expect(event.message).toBe('Cannot switch from job to session cluster');
  });
});

describe('event naming and dedup', () => {
  it.each([
    ['', 0],
    ['hello', 99162322],
    ['Hello World', -862545276],
    ['polygenelubricants', -2147483648],
  ])('Java String.hashCode(%j) = %i', (text, hash) => {
    expect(javaStringHashCode(text)).toBe(hash);
  });

  it('names an event <component>.<hash & 0x7fffffff> and bumps count and lastTimestamp on a repeat', () => {
    let now = new Date('2026-03-01T10:00:00.400Z');
    const store = new SimStore({ now: () => now });
    const involved = store.create('flinkdeployments', deployment('orders', NS));
    const input = {
      involved,
      type: 'Normal',
      reason: 'Submit',
      component: 'JobManagerDeployment',
      message: 'Starting deployment',
    } as const;
    const content = `SubmitStarting deploymentNormalFlinkDeploymentorders${involved.metadata.uid as string}`;
    expect(eventName(input)).toBe(`JobManagerDeployment.${javaStringHashCode(content) & 0x7fffffff}`);
    const first = recordEvent(store, input);
    now = new Date('2026-03-01T10:00:07.900Z');
    const second = recordEvent(store, input);
    expect(second.metadata.name).toBe(first.metadata.name);
    expect(second).toMatchObject({
      count: 2,
      firstTimestamp: '2026-03-01T10:00:00Z',
      lastTimestamp: '2026-03-01T10:00:07Z',
    });
    expect(second.involvedObject).toEqual({
      apiVersion: 'flink.apache.org/v1beta1',
      kind: 'FlinkDeployment',
      name: 'orders',
      namespace: NS,
      uid: involved.metadata.uid,
    });
    expect(second.source).toEqual({ component: 'JobManagerDeployment' });
    expect(recordEvent(store, { ...input, message: 'Starting deployment again' }).metadata.name).not.toBe(
      first.metadata.name,
    );
  });
});
