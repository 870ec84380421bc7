// The post-change judge (docs/lifecycle.md#after-completed): restarts, failing checkpoints, the job leaving RUNNING
// and the JobManager leaving READY against the state at COMPLETED; the words the thread shows.
import { describe, expect, it } from 'vitest';
import {
  healthyText,
  judgeHealth,
  readRestHealth,
  regressionText,
  type HealthBaseline,
  type HealthObservation,
} from '../../../../../src/domain/kit/evidence/regression.js';

const T0 = Date.UTC(2030, 2, 1, 12, 0, 0);
const MIN = 60_000;
const baseline = (over: Partial<HealthBaseline> = {}): HealthBaseline => ({
  at: T0,
  jobId: 'a'.repeat(32),
  clusterId: 'orders',
  rest: {
    jobState: 'RUNNING',
    numRestarts: 0,
    failedCheckpoints: 1,
    lastCompletedCheckpointId: 40,
    exceptionTimes: [T0 - MIN],
  },
  exceptionEvents: { 'orders.1': 2 },
  ...over,
});
const seen = (over: Partial<HealthObservation> = {}): HealthObservation => ({
  now: T0 + 4 * MIN,
  jobState: 'RUNNING',
  jobManager: 'READY',
  exceptionEvents: { 'orders.1': 2 },
  graceMs: 2 * MIN,
  ...over,
});

describe('judgeHealth', () => {
  it('a job as healthy as at COMPLETED is no regression', () => {
    expect(judgeHealth(baseline(), seen({ rest: baseline().rest }))).toBeUndefined();
  });

  it('3 restarts by numRestarts are a regression, named with the numbers and Flink REST', () => {
    const found = judgeHealth(baseline(), seen({ rest: { jobState: 'RUNNING', numRestarts: 3 } }));
    expect(found).toEqual({
      kind: 'restarts',
      what: '3 restarts in 4 min',
      numbers: 'numRestarts 0 → 3',
      source: 'Flink REST',
      afterMs: 4 * MIN,
    });
    expect(regressionText({ ...found })).toBe(
      'regressed after the change: 3 restarts in 4 min (numRestarts 0 → 3, Flink REST)',
    );
    expect(judgeHealth(baseline(), seen({ rest: { numRestarts: 2 } }))).toBeUndefined();
  });

  it('without the metric, counts exception-history entries newer than the baseline', () => {
    const times = [T0 - MIN, T0 + MIN, T0 + 2 * MIN, T0 + 3 * MIN];
    const base = baseline({ rest: { exceptionTimes: [T0 - MIN] } });
    expect(judgeHealth(base, seen({ rest: { exceptionTimes: times } }))?.numbers).toBe(
      '3 new root exceptions in the exception history',
    );
    expect(judgeHealth(base, seen({ rest: { exceptionTimes: times.slice(0, 3) } }))).toBeUndefined();
  });

  it('without REST, JobException events counted past their baseline counts (new events and grown counts)', () => {
    const base = baseline({ rest: undefined });
    expect(judgeHealth(base, seen({ exceptionEvents: { 'orders.1': 3, 'orders.2': 1 } }))).toBeUndefined();
    expect(judgeHealth(base, seen({ exceptionEvents: { 'orders.1': 4, 'orders.2': 1 } }))).toMatchObject({
      kind: 'restarts',
      source: 'JobException events',
      numbers: '3 JobException events since COMPLETED',
    });
  });

  it('without REST, an event that expired and came back with a lower count counts all of it (kube-apiserver --event-ttl)', () => {
    const base = baseline({ rest: undefined, exceptionEvents: { 'orders.1': 5 } });
    expect(judgeHealth(base, seen({ exceptionEvents: { 'orders.1': 2 } }))).toBeUndefined();
    expect(judgeHealth(base, seen({ exceptionEvents: { 'orders.1': 3 } }))).toMatchObject({
      numbers: '3 JobException events since COMPLETED',
    });
  });

  it('where REST answers, its counters decide restarts, not the events; FAILED counts from either source', () => {
    const events = { 'orders.1': 9 };
    expect(judgeHealth(baseline(), seen({ rest: { numRestarts: 1 }, exceptionEvents: events }))).toBeUndefined();
    expect(judgeHealth(baseline(), seen({ exceptionEvents: events }))?.source).toBe('JobException events');
    expect(judgeHealth(baseline(), seen({ rest: { jobState: 'FAILED' } }))).toMatchObject({
      kind: 'job-state',
      source: 'Flink REST',
    });
  });

  it('3 failed checkpoints with none completed after them; a completed one after them is no regression', () => {
    const failing = { failedCheckpoints: 4, lastCompletedCheckpointId: 40, lastFailedCheckpointId: 43 };
    expect(judgeHealth(baseline(), seen({ rest: failing }))).toMatchObject({
      kind: 'checkpoints',
      numbers: 'failed checkpoints 1 → 4, the last completed #40',
    });
    expect(judgeHealth(baseline(), seen({ rest: { ...failing, lastCompletedCheckpointId: 44 } }))).toBeUndefined();
    expect(judgeHealth(baseline(), seen({ rest: { ...failing, failedCheckpoints: 3 } }))).toBeUndefined();
  });

  it('FAILED at once; any other state and a JobManager out of READY only past FAILURE_GRACE', () => {
    expect(judgeHealth(baseline(), seen({ jobState: 'FAILED' }))).toMatchObject({
      kind: 'job-state',
      source: 'operator status',
      what: 'the job left RUNNING: FAILED',
    });
    const since = T0 + 3 * MIN;
    expect(judgeHealth(baseline(), seen({ jobState: 'RESTARTING', notRunningSince: since }))).toBeUndefined();
    expect(judgeHealth(baseline(), seen({ jobState: 'RESTARTING', notRunningSince: since - MIN }))).toMatchObject({
      kind: 'job-state',
      what: 'the job left RUNNING: RESTARTING for 2 min',
    });
    expect(judgeHealth(baseline(), seen({ jobManager: 'ERROR', notReadySince: since }))).toBeUndefined();
    expect(judgeHealth(baseline(), seen({ jobManager: 'ERROR', notReadySince: since - MIN }))?.kind).toBe('jobmanager');
  });
});

describe('readRestHealth and the words', () => {
  it('reads the answers defensively', () => {
    expect(
      readRestHealth({
        job: { state: 'RUNNING' },
        checkpoints: { counts: { failed: 2 }, latest: { completed: { id: 7 }, failed: { id: 9 } } },
        metrics: [{ id: 'numRestarts', value: '5' }],
        exceptions: { exceptionHistory: { entries: [{ timestamp: 10 }, { timestamp: 'x' }] } },
      }),
    ).toEqual({
      jobState: 'RUNNING',
      numRestarts: 5,
      exceptionTimes: [10],
      failedCheckpoints: 2,
      lastCompletedCheckpointId: 7,
      lastFailedCheckpointId: 9,
    });
    expect(readRestHealth({ job: 'nonsense', metrics: [{ id: 'other' }] })).toEqual({});
  });

  it('a quiet watch: "healthy for 10 min after the change"', () => {
    expect(healthyText({ watchAfterMs: 10 * MIN })).toBe('healthy for 10 min after the change');
    expect(healthyText({ watchAfterMs: 20_000, sources: ['Flink REST'] })).toBe(
      'healthy for 20 s after the change (Flink REST)',
    );
  });
});
