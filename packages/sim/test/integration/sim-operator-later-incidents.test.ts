// Jobs that go wrong later, on their own: `incidents-after` holds a run's knob incidents back (failovers, the job
// failing, failing checkpoints), read where a watcher reads them — Flink REST through the API server's service
// proxy and the operator's events — and the operator resubmitting a FAILED job with
// `kubernetes.operator.job.restart.failed`.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSimCluster, type SimCluster } from '../../src/kube/cluster.js';
import { SCENARIO_ANNOTATION } from '../../src/kube/scenarios.js';
import { scaledMs } from '../../src/kube/speed.js';
import type { KubeObject } from '../../src/kube/store.js';
import { editSpec, eventsFor, statusOf, waitFor, waitForStatus, waitStable } from '../support/sim.js';
import { deployment, snapshot } from '../support/sim-resources.js';

const NS = 'streaming-prod';
/**
 * The delay the tests give `incidents-after`: 60 operator seconds, 600 ms at the fast speed (long enough that
 * the reads right after RUNNING come before it even on a busy machine).
 */
const DELAY_SECONDS = 60;
const DELAY_MS = scaledMs('fast', DELAY_SECONDS);
/** A timer never fires early by more than a millisecond or so. */
const SLACK_MS = 10;
let c: SimCluster;

beforeEach(async () => {
  c = await startSimCluster({ seed: 'none', speed: 'fast' });
});
afterEach(async () => {
  await c.close();
});

interface Timeline {
  /** Real ms at which the job was seen RUNNING / FAILED (each time it became so) and each JobException. */
  running: number[];
  failed: number[];
  exceptions: number[];
  stop(): void;
}

/** When the resource's job became RUNNING or FAILED, and when each of its JobException events appeared. */
function timeline(name: string): Timeline {
  const t: Timeline = { running: [], failed: [], exceptions: [], stop: () => undefined };
  let state: unknown;
  t.stop = c.store.subscribe((change) => {
    const o = change.object;
    if (change.resource === 'events' && change.type === 'ADDED' && o.reason === 'JobException') {
      if ((o.involvedObject as { name?: string }).name === name) t.exceptions.push(Date.now());
    }
    if (change.resource !== 'flinkdeployments' || o.metadata.name !== name) return;
    const now = statusOf(o).jobStatus?.state;
    if (now === state) return;
    state = now;
    if (now === 'RUNNING') t.running.push(Date.now());
    if (now === 'FAILED') t.failed.push(Date.now());
  });
  return t;
}

function create(name: string, knobs: string, conf: Record<string, unknown> = {}): void {
  c.store.create('flinkdeployments', deployment(name, NS, { conf, annotations: { [SCENARIO_ANNOTATION]: knobs } }));
}

const get = (name = 'orders'): KubeObject => c.store.get('flinkdeployments', NS, name) as KubeObject;
const jobIdOf = (o: KubeObject): string => String(statusOf(o).jobStatus?.jobId);
const reasons = (name: string, reason: string): number =>
  eventsFor(c.store, get(name))
    .filter((e) => e.reason === reason)
    .reduce((n, e) => n + e.count, 0);

/** A GET to the job's JobManager REST API through `services/<name>-rest:rest/proxy`. */
async function rest<T>(name: string, path: string): Promise<T> {
  const res = await fetch(`${c.url}/api/v1/namespaces/${NS}/services/${name}-rest:rest/proxy${path}`);
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}

const numRestarts = async (o: KubeObject): Promise<string> =>
  (await rest<{ id: string; value: string }[]>(o.metadata.name, `/jobs/${jobIdOf(o)}/metrics`))[0]?.value ?? '';
const exceptionEntries = async (o: KubeObject): Promise<{ timestamp: number; stacktrace: string }[]> =>
  (
    await rest<{ exceptionHistory: { entries: { timestamp: number; stacktrace: string }[] } }>(
      o.metadata.name,
      `/jobs/${jobIdOf(o)}/exceptions`,
    )
  ).exceptionHistory.entries;

describe('incidents-after: task failovers', () => {
  it('none until the delay has passed since RUNNING, then numRestarts and /exceptions show each; a change starts over', async () => {
    const t = timeline('orders');
    create('orders', `job-exceptions=2,incidents-after=${DELAY_SECONDS}s`);
    const first = await waitStable(c.store, NS, 'orders');
    expect(await numRestarts(first)).toBe('0');
    expect(await exceptionEntries(first)).toEqual([]);

    await waitFor(c.store, () => t.exceptions.length === 2, 5000, 'two JobException events');
    expect((t.exceptions[0] as number) - (t.running[0] as number)).toBeGreaterThanOrEqual(DELAY_MS - SLACK_MS);
    expect(await numRestarts(first)).toBe('2');
    const entries = await exceptionEntries(first);
    expect(entries.map((e) => e.stacktrace.split(' in ')[0])).toEqual([
      expect.stringMatching(/Simulated task failure #2$/),
      expect.stringMatching(/Simulated task failure #1$/),
    ]);
    expect(entries.every((e) => e.timestamp >= Number(statusOf(first).jobStatus?.startTime))).toBe(true);
    // Failovers leave the job RUNNING on the same run.
    expect(statusOf(get()).jobStatus).toMatchObject({ state: 'RUNNING', jobId: jobIdOf(first) });

    // The next change is a new run: its JobMaster starts with no restarts, and they come the delay later again.
    editSpec(c.store, 'flinkdeployments', NS, 'orders', (s) => (s.restartNonce = 1));
    const second = await waitStable(c.store, NS, 'orders');
    expect(statusOf(second).jobStatus?.startTime).not.toBe(statusOf(first).jobStatus?.startTime);
    expect(await numRestarts(second)).toBe('0');
    expect(await exceptionEntries(second)).toEqual([]);
    await waitFor(c.store, () => t.exceptions.length === 4, 5000, 'two more JobException events');
    t.stop();
    expect((t.exceptions[2] as number) - (t.running.at(-1) as number)).toBeGreaterThanOrEqual(DELAY_MS - SLACK_MS);
    expect(await numRestarts(get())).toBe('2');
    expect(reasons('orders', 'JobException')).toBe(4);
  });

  it('a knob cleared before its incident is due cancels it', async () => {
    create('orders', '');
    create('sentinel', '');
    await Promise.all([waitStable(c.store, NS, 'orders'), waitStable(c.store, NS, 'sentinel')]);
    c.operator.setScenario(NS, 'orders', ['job-failure', `incidents-after=${DELAY_SECONDS}`]);
    c.operator.setScenario(NS, 'sentinel', ['job-exceptions=1', `incidents-after=${DELAY_SECONDS}`]);
    c.operator.clearScenario(NS, 'orders');
    // The sentinel's failover was scheduled after the orders failure would have been: it comes later.
    await waitFor(c.store, () => reasons('sentinel', 'JobException') === 1, 5000, 'the sentinel failover');
    expect(statusOf(get()).jobStatus?.state).toBe('RUNNING');
    expect(reasons('orders', 'Error') + reasons('orders', 'JobException')).toBe(0);
  });
});

describe('incidents-after: a job left alone FAILS on its own later', () => {
  it('FAILED the delay after RUNNING, with the Error, JobStatusChanged and JobException events', async () => {
    const t = timeline('orders');
    create('orders', `job-failure,incidents-after=${DELAY_SECONDS}s`);
    const running = await waitStable(c.store, NS, 'orders');
    const failed = await waitForStatus(
      c.store,
      'flinkdeployments',
      NS,
      'orders',
      (s) => s.jobStatus?.state === 'FAILED',
      'FAILED',
    );
    t.stop();
    expect((t.failed[0] as number) - (t.running[0] as number)).toBeGreaterThanOrEqual(DELAY_MS - SLACK_MS);
    expect(failed.metadata.generation).toBe(running.metadata.generation);
    expect(statusOf(failed)).toMatchObject({ lifecycleState: 'FAILED', jobStatus: { jobId: jobIdOf(running) } });
    const last = eventsFor(c.store, failed)
      .slice(-3)
      .map((e) => e.reason);
    expect(last).toEqual(['Error', 'JobStatusChanged', 'JobException']);
  });
});

interface Checkpoint {
  className: string;
  id: number;
  status: string;
  latest_ack_timestamp: number;
  failure_timestamp?: number;
}
interface Checkpoints {
  counts: { total: number; completed: number; failed: number };
  latest: { completed: Checkpoint | null; failed: Checkpoint | null; savepoint: { id: number } | null };
  history: Checkpoint[];
}

describe('incidents-after: checkpoints that start failing later', () => {
  it('complete first, then fail: REST counts, latest, history and the savepoint id agree; checkpointInfo stays', async () => {
    // One checkpoint per operator second; a failover marks the moment the checkpoints start failing.
    const knobs = `checkpoints-failing,job-exceptions=2,incidents-after=${DELAY_SECONDS}s`;
    create('orders', knobs, { 'execution.checkpointing.interval': '1s' });
    const running = await waitStable(c.store, NS, 'orders');
    const path = `/jobs/${jobIdOf(running)}/checkpoints`;
    const before = await rest<Checkpoints>('orders', path);
    expect(before.counts.failed).toBe(0);
    expect(before.latest.failed).toBeNull();

    await waitFor(c.store, () => reasons('orders', 'JobException') === 2, 5000, 'the failovers after the delay');
    const after = await rest<Checkpoints>('orders', path);
    const { total, completed, failed } = after.counts;
    expect(completed).toBeGreaterThan(0);
    expect(failed).toBeGreaterThan(0);
    expect(total).toBe(completed + failed);
    expect(after.latest.completed?.id).toBe(completed);
    expect(after.latest.failed).toMatchObject({ className: 'failed', status: 'FAILED', id: total });
    expect(after.latest.failed?.failure_timestamp).toBeGreaterThan(after.latest.completed?.latest_ack_timestamp ?? 0);
    // History: newest first, consecutive ids, the failed ones after every completed one.
    expect(after.history.map((h) => h.id)).toEqual(Array.from({ length: Math.min(10, total) }, (_, i) => total - i));
    expect(after.history.map((h) => h.status)).toEqual(
      after.history.map((h) => (h.id > completed ? 'FAILED' : 'COMPLETED')),
    );
    // Read again later: nothing completes any more.
    c.store.create('flinkstatesnapshots', snapshot('sp1', NS, 'orders'));
    await waitForStatus(c.store, 'flinkstatesnapshots', NS, 'sp1', (s) => s.state === 'COMPLETED', 'COMPLETED');
    const later = await rest<Checkpoints>('orders', path);
    expect(later.counts.completed).toBe(completed);
    expect(later.counts.failed).toBeGreaterThan(failed);
    // The operator's model of the job counts the same completed checkpoints: the savepoint takes the next id.
    expect(later.latest.savepoint?.id).toBe(completed + 1);
    // The operator reports only checkpoints it triggered itself: none.
    expect(statusOf(get()).jobStatus?.checkpointInfo).toEqual({ lastPeriodicCheckpointTimestamp: 0 });
  });

  it('without incidents-after every checkpoint fails from the start (the knob as it was)', async () => {
    create('orders', 'checkpoints-failing,job-exceptions=1', { 'execution.checkpointing.interval': '1s' });
    const running = await waitStable(c.store, NS, 'orders');
    await waitFor(c.store, () => reasons('orders', 'JobException') === 1, 5000, 'a failover');
    const body = await rest<Checkpoints>('orders', `/jobs/${jobIdOf(running)}/checkpoints`);
    expect(body.counts.completed).toBe(0);
    expect(body.counts.failed).toBe(body.counts.total);
    expect(body.counts.total).toBeGreaterThan(0);
    expect(body.latest.completed).toBeNull();
    expect(body.history.every((h) => h.status === 'FAILED')).toBe(true);
  });
});

describe('kubernetes.operator.job.restart.failed', () => {
  const RESTART_FAILED = { 'kubernetes.operator.job.restart.failed': 'true' };

  it('a FAILED job is resubmitted at the next reconcile, RUNNING with a new job id and start time, and fails again later', async () => {
    const knobs = `job-failure,incidents-after=${DELAY_SECONDS}s`;
    create('orders', knobs, RESTART_FAILED);
    create('plain', knobs);
    const first = statusOf(await waitStable(c.store, NS, 'orders'));
    const plain = await waitStable(c.store, NS, 'plain');
    await waitForStatus(c.store, 'flinkdeployments', NS, 'orders', (s) => s.jobStatus?.state === 'FAILED', 'FAILED');
    const back = await waitForStatus(
      c.store,
      'flinkdeployments',
      NS,
      'orders',
      (s) => s.jobStatus?.state === 'RUNNING' && s.jobStatus.jobId !== first.jobStatus?.jobId,
      'resubmitted and RUNNING',
    );
    const status = statusOf(back);
    expect(Number(status.jobStatus?.startTime)).toBeGreaterThan(Number(first.jobStatus?.startTime));
    expect(status.error).toBeUndefined();
    expect(status.observedGeneration).toBe(first.observedGeneration);
    expect(status.reconciliationStatus?.lastReconciledSpec).toBe(first.reconciliationStatus?.lastReconciledSpec);
    expect(reasons('orders', 'Submit')).toBe(2);
    expect(reasons('orders', 'SpecChanged')).toBe(0);
    const changes = eventsFor(c.store, back)
      .filter((e) => e.reason === 'JobStatusChanged')
      .map((e) => e.message);
    expect(changes).toContain('Job status changed from RUNNING to FAILED');
    expect(changes).toContain('Job status changed from CREATED to RUNNING');
    expect(await numRestarts(back)).toBe('0');

    // Without the option the job stays FAILED: no resubmission in all that time.
    expect(statusOf(get('plain')).jobStatus).toMatchObject({ state: 'FAILED', jobId: jobIdOf(plain) });
    expect(reasons('plain', 'Submit')).toBe(1);

    // The knobs stay: the new run fails the delay later and is resubmitted again.
    await waitForStatus(
      c.store,
      'flinkdeployments',
      NS,
      'orders',
      (s) => s.jobStatus?.jobId !== jobIdOf(back) && s.jobStatus?.state === 'RUNNING',
      'the third run',
    );
    expect(reasons('orders', 'Submit')).toBe(3);
  });
});
