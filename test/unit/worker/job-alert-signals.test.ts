// The judge of one watched job (docs/alerts.md#thresholds): each alert kind from status, JobException warnings and
// Flink REST readings, step by step on a given clock.
import { describe, expect, it } from 'vitest';
import type { AlertKind } from '../../../src/app/ports/alerts.js';
import { JobAlertState, numRestartsOf, signalsOf } from '../../../src/worker/job-alert-signals.js';
import { MIN, PROD_RULE, S, T0 } from '../../support/alert-rule.js';

const JOB = 'a'.repeat(32);
const rule = PROD_RULE;

function job(state: string, extra: Record<string, unknown> = {}, interval = '60s'): unknown {
  return {
    kind: 'FlinkDeployment',
    metadata: { name: 'orders', namespace: 'streaming-prod', uid: 'u1' },
    spec: { flinkConfiguration: { 'execution.checkpointing.interval': interval }, job: { jarURI: 'local:///x.jar' } },
    status: { jobManagerDeploymentStatus: 'READY', jobStatus: { state, jobId: JOB }, ...extra },
  };
}

function warning(name: string, count: number, at: number): unknown {
  return {
    metadata: { name, namespace: 'streaming-prod' },
    involvedObject: { kind: 'FlinkDeployment', name: 'orders', uid: 'u1' },
    type: 'Warning',
    reason: 'JobException',
    message: 'java.lang.RuntimeException: boom',
    count,
    lastTimestamp: new Date(at).toISOString(),
  };
}

const checkpoints = (completed: number, failed: number, history?: string[]) => ({
  counts: { completed, failed, total: completed + failed, in_progress: 0, restored: 0 },
  latest: { completed: completed === 0 ? null : { id: completed } },
  ...(history === undefined ? {} : { history: history.map((status, i) => ({ id: 100 - i, status })) }),
});

const firing = (state: JobAlertState, kind: AlertKind, now: number, grace = 2 * MIN) =>
  state.judge(rule, now, grace)[kind];

describe('JobAlertState', () => {
  it('fires job-failed from jobStatus.state with the error in words, and clears when it runs again', () => {
    const s = new JobAlertState(T0);
    s.onResource(
      job('FAILED', { error: '{"type":"org.apache.flink.runtime.JobException","message":"Recovery is suppressed"}' }),
      T0,
    );
    expect(firing(s, 'job-failed', T0)).toEqual({
      state: 'firing',
      summary: 'job FAILED: Recovery is suppressed (jobStatus.state, operator status)',
      source: 'status',
    });
    s.onResource(job('RUNNING'), T0 + MIN);
    expect(firing(s, 'job-failed', T0 + MIN)).toEqual({ state: 'clear' });
  });

  it('keeps job-failed while the failed job is started again, saying so, and clears it only when it runs', () => {
    const s = new JobAlertState(T0);
    s.onResource(job('FAILED', { error: 'java.lang.IllegalStateException: boom\n\tat x.y(Z.java:1)' }), T0);
    // The operator resubmits it: the error is cleared from status, the job is on its way back.
    for (const [state, at] of [
      ['RECONCILING', T0 + 10 * S],
      ['CREATED', T0 + 20 * S],
    ] as const) {
      s.onResource(job(state), at);
      expect(firing(s, 'job-failed', at)).toEqual({
        state: 'firing',
        summary:
          'job FAILED: java.lang.IllegalStateException: boom; being started again, not RUNNING yet (jobStatus.state, operator status)',
        source: 'status',
      });
    }
    s.onResource(job('RUNNING'), T0 + 30 * S);
    expect(firing(s, 'job-failed', T0 + 30 * S)).toEqual({ state: 'clear' });
    // A redeploy passes through FINISHED on its way back; a suspend ends the failure: stopped on purpose.
    s.onResource(job('FAILED'), T0 + 40 * S);
    s.onResource(job('FINISHED'), T0 + 45 * S);
    expect(firing(s, 'job-failed', T0 + 45 * S)).toMatchObject({ state: 'firing' });
    s.onResource(job('FINISHED', { lifecycleState: 'SUSPENDED' }), T0 + 50 * S);
    expect(firing(s, 'job-failed', T0 + 50 * S)).toEqual({ state: 'clear' });
  });

  it('does not know a job on its way back whose failure it never saw (a worker started mid-restart)', () => {
    const s = new JobAlertState(T0);
    s.onResource(job('RECONCILING'), T0);
    expect(firing(s, 'job-failed', T0)).toEqual({ state: 'unknown' });
  });

  it('counts restarts from JobException warnings within the window, each new occurrence once', () => {
    const s = new JobAlertState(T0);
    s.onResource(job('RUNNING'), T0);
    s.onEvent(warning('w1', 1, T0 + MIN), T0 + MIN);
    s.onEvent(warning('w1', 1, T0 + MIN), T0 + MIN); // the same event again (a relist): nothing new
    s.onEvent(warning('w2', 1, T0 + 3 * MIN), T0 + 3 * MIN);
    expect(firing(s, 'restarting', T0 + 3 * MIN)).toEqual({ state: 'unknown' });
    s.onEvent(warning('w2', 2, T0 + 7 * MIN), T0 + 7 * MIN);
    expect(firing(s, 'restarting', T0 + 7 * MIN)).toEqual({
      state: 'firing',
      summary: '3 restarts in 6 min (3 JobException warnings within 10m, events)',
      source: 'events',
    });
    // The first one leaves the window: 2 in 10 min, watched long enough to say so.
    expect(firing(s, 'restarting', T0 + 11 * MIN + S)).toEqual({ state: 'clear' });
  });

  it('a warning Kubernetes dropped (kube-apiserver --event-ttl) and the operator wrote again from count 1 counts anew', () => {
    const s = new JobAlertState(T0);
    s.onResource(job('RUNNING'), T0);
    s.onEvent(warning('w1', 5, T0 - 50 * MIN), T0);
    s.onEventGone(warning('w1', 5, T0 - 50 * MIN));
    for (const n of [1, 2, 3]) s.onEvent(warning('w1', n, T0 + n * MIN), T0 + n * MIN);
    expect(firing(s, 'restarting', T0 + 3 * MIN)).toMatchObject({
      state: 'firing',
      summary: '3 restarts in 2 min (3 JobException warnings within 10m, events)',
    });
  });

  it('ignores Normal events and other reasons, and dates an old listed warning by its own time', () => {
    const s = new JobAlertState(T0);
    s.onResource(job('RUNNING'), T0);
    s.onEvent({ ...(warning('n', 5, T0) as object), type: 'Normal' }, T0);
    s.onEvent({ ...(warning('e', 5, T0) as object), reason: 'Error' }, T0);
    s.onEvent(warning('old', 4, T0 - 30 * MIN), T0);
    expect(firing(s, 'restarting', T0 + 10 * MIN)).toEqual({ state: 'clear' });
  });

  it('counts restarts from numRestarts growth, naming both numbers, ahead of fewer warnings', () => {
    const s = new JobAlertState(T0);
    s.onResource(job('RUNNING'), T0);
    s.onRest({ at: T0, jobId: JOB, numRestarts: 2 });
    s.onRest({ at: T0 + MIN, jobId: JOB, numRestarts: 2 });
    s.onRest({ at: T0 + 2 * MIN, jobId: JOB, numRestarts: 4 });
    s.onEvent(warning('w1', 1, T0 + 2 * MIN), T0 + 2 * MIN);
    expect(firing(s, 'restarting', T0 + 2 * MIN)).toEqual({ state: 'unknown' });
    s.onRest({ at: T0 + 6 * MIN, jobId: JOB, numRestarts: 6 });
    const now = T0 + 6 * MIN;
    expect(firing(s, 'restarting', now)).toEqual({
      state: 'firing',
      summary: '4 restarts in 6 min (numRestarts 2 → 6, Flink REST)',
      source: 'rest',
    });
    // Same readings a minute later: the same words, so the incident does not change.
    s.onRest({ at: T0 + 7 * MIN, jobId: JOB, numRestarts: 6 });
    expect(firing(s, 'restarting', T0 + 7 * MIN)).toEqual(firing(s, 'restarting', now));
  });

  it('starts numRestarts over for a new job id', () => {
    const s = new JobAlertState(T0);
    s.onResource(job('RUNNING'), T0);
    s.onRest({ at: T0, jobId: JOB, numRestarts: 9 });
    s.onRest({ at: T0 + MIN, jobId: 'b'.repeat(32), numRestarts: 1 });
    s.onRest({ at: T0 + 2 * MIN, jobId: 'b'.repeat(32), numRestarts: 2 });
    expect(firing(s, 'restarting', T0 + 10 * MIN)).toEqual({ state: 'clear' });
  });

  it('fires checkpoints-failing at the configured failures in a row, from history or from the counts', () => {
    const s = new JobAlertState(T0);
    s.onResource(job('RUNNING'), T0);
    expect(firing(s, 'checkpoints-failing', T0)).toEqual({ state: 'unknown' });
    s.onRest({ at: T0, jobId: JOB, checkpoints: checkpoints(10, 1) });
    expect(firing(s, 'checkpoints-failing', T0)).toEqual({ state: 'clear' });
    s.onRest({ at: T0 + MIN, jobId: JOB, checkpoints: checkpoints(10, 4) });
    expect(firing(s, 'checkpoints-failing', T0 + MIN)).toEqual({
      state: 'firing',
      summary: '3 checkpoints failed in a row (counts: 10 completed, 4 failed; Flink REST)',
      source: 'rest',
    });
    s.onRest({ at: T0 + 2 * MIN, jobId: JOB, checkpoints: checkpoints(11, 4) });
    expect(firing(s, 'checkpoints-failing', T0 + 2 * MIN)).toEqual({ state: 'clear' });
    s.onRest({
      at: T0 + 3 * MIN,
      jobId: JOB,
      checkpoints: checkpoints(11, 9, ['IN_PROGRESS', 'FAILED', 'FAILED', 'COMPLETED']),
    });
    expect(firing(s, 'checkpoints-failing', T0 + 3 * MIN)).toEqual({ state: 'clear' });
  });

  it('fires checkpoints-failing when none completed in 3 intervals by the JobManager’s clock, judged per reading', () => {
    const s = new JobAlertState(T0);
    s.onResource(job('RUNNING', {}, '30s'), T0);
    const at = (ack: number) => ({
      ...checkpoints(5, 0),
      latest: { completed: { id: 5, trigger_timestamp: ack - 100, latest_ack_timestamp: ack } },
    });
    // The JobManager's clock is an hour off the worker's: only its own timestamps are compared.
    const jm = T0 + 60 * MIN;
    s.onRest({ at: T0, jobId: JOB, checkpoints: at(jm - 10 * S), jobNow: jm, runningSince: jm - 9 * MIN });
    // Between reads the judgement is the last reading's, however long the worker waits.
    expect(firing(s, 'checkpoints-failing', T0 + 10 * MIN)).toEqual({ state: 'clear' });
    s.onRest({ at: T0 + MIN, jobId: JOB, checkpoints: at(jm - 10 * S), jobNow: jm + 80 * S - 1 });
    expect(firing(s, 'checkpoints-failing', T0 + MIN)).toEqual({ state: 'clear' });
    s.onRest({ at: T0 + 2 * MIN, jobId: JOB, checkpoints: at(jm - 10 * S), jobNow: jm + 80 * S });
    expect(firing(s, 'checkpoints-failing', T0 + 2 * MIN)).toEqual({
      state: 'firing',
      summary:
        'no checkpoint completed in 3 intervals of 30 s (the last completed is 5; none in progress; JobManager clock, Flink REST)',
      source: 'rest',
    });
    // A failover in the last read interval explains the gap until the next reading.
    s.onRest({ at: T0 + 3 * MIN, jobId: JOB, numRestarts: 0, checkpoints: at(jm - 10 * S), jobNow: jm + 3 * MIN });
    s.onRest({ at: T0 + 4 * MIN, jobId: JOB, numRestarts: 1, checkpoints: at(jm - 10 * S), jobNow: jm + 4 * MIN });
    expect(firing(s, 'checkpoints-failing', T0 + 4 * MIN)).toEqual({ state: 'clear' });
    s.onResource(job('FAILED'), T0 + 5 * MIN);
    expect(firing(s, 'checkpoints-failing', T0 + 5 * MIN)).toEqual({ state: 'clear' });
  });

  it('fires jobmanager-error only once ERROR lasted FAILURE_GRACE; until then it is not known', () => {
    const s = new JobAlertState(T0);
    const error = { jobManagerDeploymentStatus: 'ERROR', error: 'ImagePullBackOff' };
    s.onResource({ ...(job('RECONCILING') as object), status: error }, T0);
    expect(firing(s, 'jobmanager-error', T0 + MIN)).toEqual({ state: 'unknown' });
    s.onResource({ ...(job('RECONCILING') as object), status: error }, T0 + MIN);
    expect(firing(s, 'jobmanager-error', T0 + 2 * MIN)).toEqual({
      state: 'firing',
      summary:
        'JobManager deployment in ERROR for over 2 min: ImagePullBackOff (jobManagerDeploymentStatus, operator status)',
      source: 'status',
    });
    s.onResource(job('RUNNING'), T0 + 3 * MIN);
    expect(firing(s, 'jobmanager-error', T0 + 3 * MIN)).toEqual({ state: 'clear' });
  });
});

describe('signalsOf', () => {
  it('lists firing kinds with the time first seen, and keeps an open signal while its kind is not known', () => {
    const since = new Map<AlertKind, number>();
    const open = [{ kind: 'restarting' as const, since: T0 - MIN, summary: '5 restarts in 4 min (…)', source: 'rest' }];
    const judged = {
      'job-failed': { state: 'firing', summary: 'job FAILED (…)', source: 'status' },
      restarting: { state: 'unknown' },
      'checkpoints-failing': { state: 'unknown' },
      'jobmanager-error': { state: 'clear' },
    } as const;
    expect(signalsOf(judged, open, since, T0)).toEqual([
      { kind: 'job-failed', since: T0, summary: 'job FAILED (…)', source: 'status' },
      open[0],
    ]);
    expect(signalsOf(judged, [], since, T0 + MIN)[0]?.since).toBe(T0);
    const cleared = { ...judged, 'job-failed': { state: 'clear' }, restarting: { state: 'clear' } } as const;
    expect(signalsOf(cleared, open, since, T0 + 2 * MIN)).toEqual([]);
    expect(since.size).toBe(0);
  });
});

describe('numRestartsOf', () => {
  it('reads the metric as Flink answers it, and nothing else', () => {
    expect(numRestartsOf([{ id: 'numRestarts', value: '6' }])).toBe(6);
    expect(numRestartsOf([{ id: 'uptime', value: '6' }])).toBeUndefined();
    expect(numRestartsOf({ errors: ['Not found'] })).toBeUndefined();
  });
});
