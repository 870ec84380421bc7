// Stalls and every alert rule against realistic cadences (docs/alerts.md#how-a-stall-is-judged): jobs checkpointing every 5 s to
// every 10 min, Flink REST read once a minute and judged every 5 s in virtual time; a healthy job raises nothing, a
// real stall and failing checkpoints still do.
import { describe, expect, it } from 'vitest';
import type { AlertKind } from '../../../src/app/ports/alerts.js';
import { JobAlertState } from '../../../src/worker/job-alert-signals.js';
import { HealthyCheckpointingJob } from '../../support/flink-checkpoint-model.js';
import { MIN, PROD_RULE, S, T0 } from '../../support/alert-rule.js';

const JOB = 'c'.repeat(32);
const rule = PROD_RULE;
const TICK = 5 * S;
const READ = MIN;

function running(interval: string, conf: Record<string, string> = {}): unknown {
  return {
    kind: 'FlinkDeployment',
    metadata: { name: 'orders', namespace: 'streaming-prod', uid: 'u1' },
    spec: { flinkConfiguration: { 'execution.checkpointing.interval': interval, ...conf }, job: { jarURI: 'x' } },
    status: { jobManagerDeploymentStatus: 'READY', jobStatus: { state: 'RUNNING', jobId: JOB } },
  };
}

/** A seeded [0, 1) generator, so every run sees the same job. */
function seeded(seed: number): () => number {
  let x = seed;
  return () => (x = (x * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
}

/**
 * Watches `model` for `ms` of virtual time: a read every minute (the JobManager's clock `skewMs` from the worker's),
 * a judgement every tick. Returns each firing judgement as "<kind> at +<s>: <summary>".
 */
function watch(model: HealthyCheckpointingJob, resource: unknown, ms: number, skewMs = 0, phaseMs = 15 * S): string[] {
  const state = new JobAlertState(T0);
  state.onResource(resource, T0);
  const fired: string[] = [];
  let reads = 0;
  for (let now = T0; now <= T0 + ms; now += TICK) {
    if ((now - T0 - phaseMs) % READ === 0 && now - T0 >= phaseMs) {
      state.onRest({ at: now, jobId: JOB, ...model.reading(now + skewMs) });
      reads += 1;
    }
    const judged = state.judge(rule, now, 2 * MIN);
    for (const kind of Object.keys(judged) as AlertKind[]) {
      const j = judged[kind];
      if (j.state === 'firing') fired.push(`${kind} at +${(now - T0) / S}s: ${j.summary}`);
    }
  }
  // Watched and judged: every reading in, and the checkpoints known to be fine at the end.
  expect(reads).toBe(Math.floor((ms - phaseMs) / READ) + 1);
  expect(state.judge(rule, T0 + ms, 2 * MIN)['checkpoints-failing']).toEqual({ state: 'clear' });
  return fired;
}

const CADENCES = [
  { interval: '5s', ms: 5 * S },
  { interval: '10s', ms: 10 * S },
  { interval: '30s', ms: 30 * S },
  { interval: '1m', ms: MIN },
  { interval: '10m', ms: 10 * MIN },
];

describe('job alerts at realistic cadences (reads once a minute)', () => {
  for (const { interval, ms } of CADENCES) {
    it(`a healthy job checkpointing every ${interval} raises nothing in 3 hours, slow checkpoints and a failover included`, () => {
      const random = seeded(ms);
      // Mostly quick, now and then one slower than the interval (Flink triggers the next one after it).
      const durationMs = (k: number) =>
        k % 7 === 3 ? Math.min(2.5 * ms, 5 * MIN) : 200 + random() * Math.min(ms, 8 * S);
      const model = new HealthyCheckpointingJob({
        start: T0 - 5 * MIN,
        intervalMs: ms,
        durationMs,
        failovers: [{ at: T0 + 70 * MIN, recoveryMs: 12 * S }],
        random,
      });
      expect(watch(model, running(interval), 3 * 60 * MIN)).toEqual([]);
    });
  }

  it('the JobManager’s clock minutes away from the worker’s changes nothing', () => {
    const model = new HealthyCheckpointingJob({ start: T0, intervalMs: 10 * S, durationMs: () => 800 });
    expect(watch(model, running('10s'), 30 * MIN, 7 * MIN)).toEqual([]);
    expect(watch(model, running('10s'), 30 * MIN, -7 * MIN)).toEqual([]);
  });

  it('a real stall fires at the first reading past 3 intervals by Flink’s clock, and no sooner', () => {
    // Checkpoints of a 10 s job stop completing after 20 min: none triggered any more, none in progress.
    const model = new HealthyCheckpointingJob({ start: T0 - MIN, intervalMs: 10 * S, durationMs: () => 500 });
    const state = new JobAlertState(T0);
    state.onResource(running('10s'), T0);
    const stallAt = T0 + 20 * MIN + 5 * S;
    const frozen = model.reading(stallAt);
    const read = (at: number) =>
      state.onRest({ at, jobId: JOB, ...(at < stallAt ? model.reading(at) : { ...frozen, jobNow: at }) });
    read(T0 + 20 * MIN + 17 * S);
    expect(state.judge(rule, T0 + 20 * MIN + 50 * S, 2 * MIN)['checkpoints-failing']).toEqual({ state: 'clear' });
    read(T0 + 21 * MIN + 17 * S);
    expect(state.judge(rule, T0 + 21 * MIN + 17 * S, 2 * MIN)['checkpoints-failing']).toEqual({
      state: 'firing',
      summary:
        'no checkpoint completed in 3 intervals of 10 s (the last completed is 126; none in progress; JobManager clock, Flink REST)',
      source: 'rest',
    });
  });

  it('a checkpoint in progress longer than the interval is fine until it outlives the timeout', () => {
    const conf = { 'execution.checkpointing.timeout': '5 min' };
    const model = new HealthyCheckpointingJob({
      start: T0 - MIN,
      intervalMs: 10 * S,
      durationMs: (k) => (k < 6 ? 500 : 60 * MIN),
    });
    const state = new JobAlertState(T0);
    state.onResource(running('10s', conf), T0);
    // Checkpoint 6 is triggered at T0 and hangs: within the timeout it is a slow one, past it a stall.
    for (const m of [1, 2, 3, 4]) {
      state.onRest({ at: T0 + m * MIN, jobId: JOB, ...model.reading(T0 + m * MIN) });
      expect(state.judge(rule, T0 + m * MIN, 2 * MIN)['checkpoints-failing']).toEqual({ state: 'clear' });
    }
    state.onRest({ at: T0 + 5 * MIN, jobId: JOB, ...model.reading(T0 + 5 * MIN) });
    expect(state.judge(rule, T0 + 5 * MIN, 2 * MIN)['checkpoints-failing']).toMatchObject({
      state: 'firing',
      summary: expect.stringContaining('one in progress past the timeout of 5 min'),
    });
  });

  it('checkpoints failing in a row still fire at every cadence', () => {
    for (const { interval, ms } of CADENCES) {
      const model = new HealthyCheckpointingJob({ start: T0 - 40 * MIN, intervalMs: ms, durationMs: () => 300 });
      const ok = model.reading(T0);
      const state = new JobAlertState(T0);
      state.onResource(running(interval), T0);
      state.onRest({ at: T0, jobId: JOB, ...ok });
      const failing = {
        ...ok,
        checkpoints: {
          counts: { completed: 4, failed: 3, in_progress: 0 },
          latest: { completed: { id: 4, latest_ack_timestamp: T0 - 30 * S, trigger_timestamp: T0 - 31 * S } },
          history: [7, 6, 5].map((id) => ({ id, status: 'FAILED', trigger_timestamp: T0 - id * S })),
        },
      };
      state.onRest({ at: T0 + MIN, jobId: JOB, ...failing });
      expect(state.judge(rule, T0 + MIN, 2 * MIN)['checkpoints-failing'], interval).toMatchObject({
        state: 'firing',
        summary: expect.stringContaining('3 checkpoints failed in a row'),
      });
    }
  });
});
