// The sandbox's Image pull recovers knob against the FAILURE_GRACE the sandbox gives its worker
// (docs/sandbox.md#knob-timings): the real worker sees the JobManager in ERROR, waits, and the upgrade ends COMPLETED,
// never FAILED, as the panel shows the new image running.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KnobBoard } from '@flink-chatops/sim/page-knobs';
import { eventsFor } from '@flink-chatops/sim/testing/sim';
import { SANDBOX_FAILURE_GRACE_SECONDS } from '@flink-chatops/sim/sandbox';
import { NS, WorkerEnv } from '../support/worker-env.js';

let env: WorkerEnv;
beforeAll(async () => {
  env = await WorkerEnv.start({ env: { FAILURE_GRACE: `${SANDBOX_FAILURE_GRACE_SECONDS.fast}s` } });
  await env.startWorker();
});
afterAll(async () => {
  await env?.close();
});

describe('sandbox knobs within FAILURE_GRACE', () => {
  it('an upgrade with Image pull recovers on: the pull fails (ErrImagePull), then the upgrade is COMPLETED', async () => {
    await env.deploy('knob-recovers');
    expect(new KnobBoard(env.cluster).set(NS, 'knob-recovers', 'image-pull-recovers', true)).toEqual([
      'image-pull-recovers',
    ]);
    const { id } = await env.request({
      kind: 'upgrade',
      target: { kind: 'FlinkDeployment', namespace: NS, name: 'knob-recovers' },
      image: 'flink:1.20.1',
      incidentChannels: [],
    });
    const done = await env.waitTerminal(id);
    expect(done.state).toBe('COMPLETED');
    expect(done.history.filter((e) => e.type === 'state').map((e) => e.name)).not.toContain('FAILED');
    const object = env.cluster.store.get('flinkdeployments', NS, 'knob-recovers');
    expect(object && eventsFor(env.cluster.store, object).map((e) => e.reason)).toContain('ErrImagePull');
  });
});
