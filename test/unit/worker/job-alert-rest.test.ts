// What a job-alert REST reading keeps of `/checkpoints` and `/jobs/<id>` (docs/alerts.md#cost): a reading is shared through Redis and
// held per job, so it is cut to what the judgement reads, and judging the cut one says the same as the whole.
import { describe, expect, it } from 'vitest';
import { validatePolicy } from '../../../src/domain/engines/policy/validate.js';
import { alertRuleFor } from '../../../src/domain/engines/policy/alerts.js';
import type { FlinkRest } from '../../../src/kube/flink-rest.js';
import { createLogger } from '../../../src/log.js';
import type { Target } from '../../../src/domain/model/target.js';
import { jobClock, JobAlertRestReads, slimCheckpoints } from '../../../src/worker/job-alert-rest.js';
import { JobAlertState } from '../../../src/worker/job-alert-signals.js';

const JOB = 'b'.repeat(32);
const T0 = Date.UTC(2030, 2, 1, 12, 0, 0);

/** `/jobs/<id>/checkpoints` as Flink answers it: three failed in a row after a completed one. */
function checkpoints(): unknown {
  const entry = (id: number, status: string) => ({
    '@class': status === 'COMPLETED' ? 'completed' : 'failed',
    id,
    status,
    is_savepoint: false,
    trigger_timestamp: T0 + id * 1000,
    latest_ack_timestamp: T0 + id * 1000 + 40,
    state_size: 1_048_576,
    end_to_end_duration: 40,
    num_subtasks: 24,
    num_acknowledged_subtasks: status === 'COMPLETED' ? 24 : 11,
    tasks: {},
    external_path: status === 'COMPLETED' ? `s3://ckpt/${JOB}/chk-${id}` : undefined,
  });
  return {
    counts: { restored: 0, total: 44, in_progress: 1, completed: 40, failed: 3 },
    summary: { state_size: { min: 1, max: 2, avg: 1 }, end_to_end_duration: { min: 30, max: 50, avg: 40 } },
    latest: { completed: entry(40, 'COMPLETED'), savepoint: null, failed: entry(43, 'FAILED'), restored: null },
    history: [
      entry(44, 'IN_PROGRESS'),
      entry(43, 'FAILED'),
      entry(42, 'FAILED'),
      entry(41, 'FAILED'),
      entry(40, 'COMPLETED'),
    ],
  };
}

function running(): unknown {
  return {
    metadata: { name: 'orders', namespace: 'streaming-prod' },
    spec: { flinkConfiguration: { 'execution.checkpointing.interval': '10s' } },
    status: { jobManagerDeploymentStatus: 'READY', jobStatus: { state: 'RUNNING', jobId: JOB } },
  };
}

describe('slimCheckpoints', () => {
  it('keeps the counts, the latest completed id and times, each entry’s status and trigger time, nothing else', () => {
    expect(slimCheckpoints(checkpoints())).toEqual({
      counts: { completed: 40, failed: 3, in_progress: 1 },
      latest: { completed: { id: 40, trigger_timestamp: T0 + 40_000, latest_ack_timestamp: T0 + 40_040 } },
      history: ['IN_PROGRESS', 'FAILED', 'FAILED', 'FAILED', 'COMPLETED'].map((status, i) => ({
        status,
        trigger_timestamp: T0 + (44 - i) * 1000,
      })),
    });
    expect(JSON.stringify(slimCheckpoints(checkpoints())).length).toBeLessThan(
      JSON.stringify(checkpoints()).length / 4,
    );
    // A job with no checkpoint yet: nothing but the counts.
    expect(slimCheckpoints({ counts: { completed: 0, failed: 0 }, latest: { completed: null }, history: [] })).toEqual({
      counts: { completed: 0, failed: 0 },
      latest: { completed: {} },
      history: [],
    });
  });

  it('judging the cut reading says what judging the whole one says', () => {
    const policy = validatePolicy({
      version: 1,
      namespaces: [{ name: 'streaming-prod', environment: 'production' }],
      alerts: [{ name: 'prod', namespaces: ['streaming-prod'], channel: 'C0ALERTS' }],
    });
    if (!policy.ok) throw new Error(policy.errors.join('\n'));
    const rule = alertRuleFor(policy.policy, '', {
      kind: 'FlinkDeployment',
      namespace: 'streaming-prod',
      name: 'orders',
    });
    if (!rule) throw new Error('expected the rule');
    const judged = (body: unknown) => {
      const state = new JobAlertState(T0);
      state.onResource(running(), T0);
      state.onRest({ at: T0, jobId: JOB, numRestarts: 0, checkpoints: body });
      return state.judge(rule, T0 + 1_000, 120_000);
    };
    const whole = judged(checkpoints());
    expect(whole['checkpoints-failing']).toMatchObject({
      state: 'firing',
      summary: expect.stringContaining('3 checkpoints failed in a row'),
    });
    expect(judged(slimCheckpoints(checkpoints()))).toEqual(whole);
  });
});

describe('jobClock', () => {
  it('reads the JobManager’s now and when the job last started running, RUNNING’s timestamp first', () => {
    expect(jobClock({ now: T0, 'start-time': T0 - 5_000, timestamps: { RUNNING: T0 - 1_000 } })).toEqual({
      jobNow: T0,
      runningSince: T0 - 1_000,
    });
    expect(jobClock({ now: T0, 'start-time': T0 - 5_000 })).toEqual({ jobNow: T0, runningSince: T0 - 5_000 });
    expect(jobClock({ now: 'soon', 'start-time': -1 })).toEqual({});
  });
});

describe('JobAlertRestReads and text from the cluster', () => {
  // docs/deep-verification.md#how-rest-is-reached: a job id or session cluster that is not valid in a URL is never
  // polled by the job-alert watch, which would otherwise read it again every interval on its own.
  it('never polls a job whose job id or session cluster is not valid in a URL; polls a valid one', async () => {
    const calls: string[] = [];
    let answered: () => void = () => undefined;
    const bothAnswered = new Promise<void>((resolve) => (answered = resolve));
    const rest: FlinkRest = {
      get: async (namespace, clusterId, path) => {
        calls.push(`${namespace} ${clusterId} ${path}`);
        if (calls.length >= 3) answered();
        return { ok: false, reason: 'unavailable', message: 'no JobManager' };
      },
    };
    const reads = new JobAlertRestReads({
      rest,
      cluster: '',
      intervalMs: 60_000,
      now: () => T0,
      logger: createLogger('silent'),
      onRead: () => undefined,
    });
    const watched = (target: Target, resource: unknown) => {
      const state = new JobAlertState(T0);
      state.onResource(resource, T0);
      return { target, state, restDueAt: 0, reading: false };
    };
    const steeringId = `../../streaming-prod/services/orders-rest:rest/proxy/jobs/${JOB}`;
    const dev = (name: string) => ({ kind: 'FlinkDeployment' as const, namespace: 'streaming-dev', name });
    const session = { kind: 'FlinkSessionJob' as const, namespace: 'streaming-dev', name: 'steered' };
    const runningJob = (jobId: string, spec: Record<string, unknown> = {}) => ({
      metadata: { name: 'x', namespace: 'streaming-dev' },
      spec,
      status: { jobStatus: { state: 'RUNNING', jobId } },
    });
    reads.due(watched(dev('bad-id'), runningJob(steeringId)), T0);
    reads.due(watched(session, runningJob(JOB, { deploymentName: 'x/../../streaming-prod/services/orders' })), T0);
    reads.due(watched(dev('orders'), runningJob(JOB)), T0);
    await bothAnswered;
    reads.close();
    expect(calls.sort()).toEqual([
      `streaming-dev orders /jobs/${JOB}`,
      `streaming-dev orders /jobs/${JOB}/checkpoints`,
      `streaming-dev orders /jobs/${JOB}/metrics?get=numRestarts`,
    ]);
  });
});
