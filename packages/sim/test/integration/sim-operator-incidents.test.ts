// What happens to jobs the simulated operator runs without any spec change: task failovers (JobException), a job
// failing for good, and a JobManager whose image pull fails for a while and then recovers.
import { describe, expect, it } from 'vitest';
import { jobExceptionKey } from '../../src/kube/events.js';
import { startSimOperator } from '../../src/kube/operator.js';
import { SCENARIO_ANNOTATION } from '../../src/kube/scenarios.js';
import { SimStore } from '../../src/kube/store.js';
import {
  editSpec,
  eventsFor,
  recordStatuses,
  setAnnotations,
  statusOf,
  useSimRig,
  waitFor,
  waitForStatus,
  waitStable,
} from '../support/sim.js';
import { deployment } from '../support/sim-resources.js';

const NS = 'streaming-dev';
const sim = useSimRig(NS);
const { get, deployed } = sim;

/** The values in order with consecutive repeats collapsed (what a watcher sees change). */
function changes<T>(values: T[]): T[] {
  return values.filter((v, i) => i === 0 || v !== values[i - 1]);
}

function jobExceptions(name = 'orders') {
  return eventsFor(sim.rig.store, get(name)).filter((e) => e.reason === 'JobException');
}

describe('task failovers (job-exceptions)', () => {
  it('N JobException Warnings after the job reaches RUNNING, each its own event, with the observer annotations', async () => {
    sim.rig.store.create(
      'flinkdeployments',
      deployment('orders', NS, { annotations: { [SCENARIO_ANNOTATION]: 'job-exceptions=2' } }),
    );
    const stable = await waitStable(sim.rig.store, NS, 'orders');
    const running = statusOf(stable).jobStatus?.updateTime as string;
    const events = await waitFor(sim.rig.store, () => (jobExceptions().length === 2 ? jobExceptions() : undefined));
    for (const event of events) {
      expect(event).toMatchObject({ type: 'Warning', component: 'Job', count: 1 });
      expect(event.message.split('\n')[0]).toMatch(
        /^java\.lang\.RuntimeException: Simulated task failure #\d in .+ \(\d\/2\)$/,
      );
      expect(event.name).toMatch(/^Job\.\d+$/);
      expect(Date.parse(event.annotations['exception-timestamp'] as string)).toBeGreaterThan(Number(running) - 5000);
      expect(event.annotations['task-name']).toBe(event.message.split(' in ')[1]?.split('\n')[0]);
      expect(event.annotations['tm-id']).toMatch(/^orders-taskmanager-1-\d$/);
    }
    expect(new Set(events.map((e) => e.name)).size).toBe(2);
    // The job stays healthy: RUNNING and STABLE on the same run.
    expect(statusOf(get())).toMatchObject({
      lifecycleState: 'STABLE',
      jobStatus: { state: 'RUNNING', jobId: statusOf(stable).jobStatus?.jobId },
    });
    // A redeploy is a new run: two more.
    editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => (s.restartNonce = 1));
    await waitStable(sim.rig.store, NS, 'orders');
    await waitFor(sim.rig.store, () => jobExceptions().length === 4);
  });

  it('a knob set on a job that already runs applies to that run; without it nothing is emitted', async () => {
    await deployed('orders');
    await deployed('sentinel');
    expect(jobExceptions()).toEqual([]);
    sim.rig.operator.setScenario(NS, 'orders', 'job-exceptions=1');
    const [event] = await waitFor(sim.rig.store, () => (jobExceptions().length === 1 ? jobExceptions() : undefined));
    // The operator's dedup key for JobException: "jobmanager-exception-" + hex(Objects.hash(message)).
    expect(jobExceptionKey(event?.message ?? '')).toMatch(/^jobmanager-exception-[0-9a-f]{1,8}$/);
    expect(jobExceptions('sentinel')).toEqual([]);
  });

  it('job-failure: Error with the cause, JobStatusChanged to FAILED, the root exception; FAILED with status.error', async () => {
    const stable = await deployed('orders');
    setAnnotations(sim.rig.store, 'flinkdeployments', NS, 'orders', { [SCENARIO_ANNOTATION]: 'job-failure' });
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
    expect(failed).toMatchObject({ lifecycleState: 'FAILED', jobManagerDeploymentStatus: 'READY' });
    // The observer records a terminal job's last completed checkpoint as the path to restore from.
    expect(failed.jobStatus?.upgradeSavepointPath).toMatch(
      new RegExp(`^s3://flink-state/${NS}/orders/checkpoints/${String(statusOf(stable).jobStatus?.jobId)}/chk-\\d+$`),
    );
    expect(JSON.parse(failed.error as string)).toMatchObject({
      type: 'org.apache.flink.runtime.JobException',
      message: 'Recovery is suppressed by NoRestartBackoffTimeStrategy',
    });
    const reasons = eventsFor(sim.rig.store, get()).map((e) => `${e.reason}: ${e.message.split('\n')[0] ?? ''}`);
    expect(reasons.slice(-3)).toEqual([
      'Error: Recovery is suppressed by NoRestartBackoffTimeStrategy -> Simulated fatal failure of job orders',
      'JobStatusChanged: Job status changed from RUNNING to FAILED',
      expect.stringMatching(/^JobException: java\.lang\.RuntimeException: Simulated fatal failure of job orders in /),
    ]);
  });
});

describe('ambient task failovers (the realistic demo)', () => {
  it('come now and then to every running job when the operator is started with ambientJobExceptions', async () => {
    const store = new SimStore();
    // A low draw makes every reconcile interval's chance hit (fast speed: 600 ms per interval).
    const operator = startSimOperator({ store, speed: 'fast', ambientJobExceptions: true, random: () => 0.01 });
    try {
      store.create('flinkdeployments', deployment('orders', NS));
      await waitStable(store, NS, 'orders');
      const event = await waitFor(
        store,
        () =>
          eventsFor(store, store.get('flinkdeployments', NS, 'orders') ?? get()).find(
            (e) => e.reason === 'JobException',
          ),
        5000,
      );
      expect(event).toMatchObject({ type: 'Warning', component: 'Job' });
    } finally {
      await operator.close();
    }
  });
});

describe('an image pull that recovers (image-pull-failure=<duration>)', () => {
  it('ERROR with one ErrImagePull, lifecycle DEPLOYED, then DEPLOYED_NOT_READY → READY, RUNNING, STABLE, error cleared', async () => {
    await deployed('orders');
    sim.rig.operator.setScenario(NS, 'orders', 'image-pull-failure=2s');
    const rec = recordStatuses(sim.rig.store, 'flinkdeployments', NS, 'orders');
    const generation = editSpec(sim.rig.store, 'flinkdeployments', NS, 'orders', (s) => (s.image = 'flink:1.20.1'));
    const failed = statusOf(
      await waitForStatus(
        sim.rig.store,
        'flinkdeployments',
        NS,
        'orders',
        (s) => s.jobManagerDeploymentStatus === 'ERROR',
        'ERROR',
      ),
    );
    expect(failed).toMatchObject({
      observedGeneration: generation,
      lifecycleState: 'DEPLOYED',
      jobStatus: { state: 'RECONCILING' },
    });
    expect(JSON.parse(failed.error as string).message).toMatch(
      /^\[flink-main-container\] Failed to pull image "flink:1\.20\.1"/,
    );
    const after = statusOf(await waitStable(sim.rig.store, NS, 'orders'));
    rec.stop();
    const seen = rec.seen.map((r) => r.status).filter((s) => s.observedGeneration === generation);
    const fromError = seen.slice(seen.findIndex((s) => s.jobManagerDeploymentStatus === 'ERROR'));
    expect(changes(fromError.map((s) => s.jobManagerDeploymentStatus))).toEqual([
      'ERROR',
      'DEPLOYED_NOT_READY',
      'READY',
    ]);
    expect(changes(fromError.map((s) => s.jobStatus?.state))).toEqual(['RECONCILING', 'CREATED', 'RUNNING']);
    expect(fromError.map((s) => s.lifecycleState)).not.toContain('FAILED');
    expect(after.error).toBeUndefined();
    expect(fromError.filter((s) => s.error !== undefined).every((s) => s.jobStatus?.state !== 'RUNNING')).toBe(true);
    expect(
      eventsFor(sim.rig.store, get())
        .filter((e) => e.reason === 'ErrImagePull')
        .map((e) => e.count),
    ).toEqual([1]);
    expect(eventsFor(sim.rig.store, get()).map((e) => e.reason)).not.toContain('ImagePullBackOff');
  });

  it('on a first deployment too', async () => {
    sim.rig.store.create(
      'flinkdeployments',
      deployment('orders', NS, { annotations: { [SCENARIO_ANNOTATION]: 'image-pull-failure=1s' } }),
    );
    await waitForStatus(
      sim.rig.store,
      'flinkdeployments',
      NS,
      'orders',
      (s) => s.jobManagerDeploymentStatus === 'ERROR',
      'ERROR',
    );
    const stable = statusOf(await waitStable(sim.rig.store, NS, 'orders'));
    expect(stable.error).toBeUndefined();
  });
});
