// `/jobs/<id>/checkpoints` of the simulated JobManager on its own clock (docs/alerts.md#how-a-stall-is-judged reads
// it): one checkpoint per configured interval, triggered and then acknowledged a moment later, the latest shown in
// progress until then, and `now` of `/jobs/<id>` the same clock.
import { describe, expect, it } from 'vitest';
import { checkpoints } from '../../../src/kube/flink-rest-checkpoints.js';
import { jobDetails, type JobView } from '../../../src/kube/flink-rest-jobs.js';

const T0 = Date.UTC(2030, 2, 1, 12, 0, 0);
const JOB = 'd'.repeat(32);

function view(now: number, interval: string): JobView {
  const conf = { 'execution.checkpointing.interval': interval, 'state.checkpoints.dir': 's3://ckpt' };
  const spec = { flinkConfiguration: conf, job: { jarURI: 'local:///x.jar', parallelism: 1 } };
  return {
    job: {
      apiVersion: 'flink.apache.org/v1beta1',
      kind: 'FlinkDeployment',
      metadata: { name: 'orders', namespace: 'ns' },
      spec,
    },
    spec,
    conf,
    jobId: JOB,
    status: { jobId: JOB, state: 'RUNNING', startTime: String(T0) },
    has: () => false,
    value: () => undefined,
    speed: 'realistic',
    jobManagers: undefined,
    now,
  };
}

type Body = {
  counts: Record<string, number>;
  latest: { completed: Record<string, unknown> | null };
  history: Record<string, unknown>[];
};

describe('simulated /jobs/<id>/checkpoints', () => {
  it('shows the checkpoint just triggered in progress, then completed a second later, on the JobManager clock', () => {
    const running = checkpoints(view(T0 + 30_500, '10s')) as Body;
    expect(running.counts).toMatchObject({ total: 3, completed: 2, in_progress: 1, failed: 0 });
    expect(running.history.map((h) => [h.id, h.status, h.trigger_timestamp])).toEqual([
      [3, 'IN_PROGRESS', T0 + 30_000],
      [2, 'COMPLETED', T0 + 20_000],
      [1, 'COMPLETED', T0 + 10_000],
    ]);
    expect(running.latest.completed).toMatchObject({
      id: 2,
      trigger_timestamp: T0 + 20_000,
      latest_ack_timestamp: T0 + 21_000,
    });
    const done = checkpoints(view(T0 + 31_000, '10s')) as Body;
    expect(done.counts).toMatchObject({ total: 3, completed: 3, in_progress: 0 });
    expect(done.latest.completed).toMatchObject({ id: 3, latest_ack_timestamp: T0 + 31_000 });
    expect(jobDetails(view(T0 + 31_000, '10s')).now).toBe(T0 + 31_000);
  });

  it('a short interval’s checkpoints take a third of it, so one completes every interval', () => {
    const body = checkpoints(view(T0 + 60_000 + 200, '1s')) as Body;
    expect(body.counts).toMatchObject({ total: 60, completed: 59, in_progress: 1 });
    expect(body.latest.completed).toMatchObject({ id: 59, latest_ack_timestamp: T0 + 59_333 });
  });
});
