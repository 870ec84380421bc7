// Job alerts with real workers against the simulated cluster (docs/alerts.md): a job failing on its own opens one
// incident and one stream entry however many workers watch it, recovers when it runs again; a job outside `alerts`
// raises nothing and costs no Flink REST read; REST is read at most once a minute per job, however many workers
// watch it.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Target } from '../../src/domain/model/target.js';
import { RedisAlertStore } from '../../src/store/alerts.js';
import { storeKeys } from '../../src/store/keys.js';
import { SCENARIO_ANNOTATION } from '@flink-chatops/sim/kube/scenarios';
import { editSpec, setAnnotations, waitForStatus, waitStable } from '@flink-chatops/sim/testing/sim';
import { deployment } from '@flink-chatops/sim/testing/sim-resources';
import { eventually, holds } from '../support/poll.js';
import { NS, WorkerEnv } from '../support/worker-env.js';

const POLICY_ALERTS = `alerts:
  - name: dev-jobs
    targets: ["${NS}/orders", "${NS}/clicks"]
    channel: C0ALERTS
    mention: "<!subteam^S0ONCALL>"
`;
const TIMING = { tickMs: 100, resyncMs: 500 };

const job = (name: string): Target => ({ kind: 'FlinkDeployment', namespace: NS, name });

describe('job alerts (worker)', () => {
  let env: WorkerEnv;
  let alerts: RedisAlertStore;
  /** Proxied Flink REST GETs per FlinkDeployment name. */
  const restReads = new Map<string, number>();

  beforeEach(async () => {
    env = await WorkerEnv.start({ policyExtra: POLICY_ALERTS });
    alerts = new RedisAlertStore(env.redis.redis, env.prefix);
    restReads.clear();
    env.cluster.server.onRequest((info) => {
      if (info.subresource !== 'proxy' || info.name === undefined) return;
      const name = info.name.replace(/-rest(:.*)?$/, '');
      restReads.set(name, (restReads.get(name) ?? 0) + 1);
    });
  });

  afterEach(async () => {
    await env.close();
  });

  const streamEntries = async () => {
    const entries = await env.redis.redis.xrange(storeKeys(env.prefix).alertEvents, '-', '+');
    return entries.map(([, fields]) =>
      Object.fromEntries(fields.flatMap((f, i) => (i % 2 ? [] : [[f, fields[i + 1]]]))),
    );
  };

  it('opens one incident for a failing job with two workers watching, and recovers it when the job runs again', async () => {
    const started = Date.now();
    await env.startWorker({}, { jobAlertTiming: TIMING });
    await env.startWorker({}, { jobAlertTiming: TIMING });
    const { store } = env.cluster;
    store.create('flinkdeployments', deployment('clicks', NS));
    await waitStable(store, NS, 'clicks');
    for (const name of ['orders', 'quiet'])
      store.create('flinkdeployments', deployment(name, NS, { annotations: { [SCENARIO_ANNOTATION]: 'job-failure' } }));
    for (const name of ['orders', 'quiet'])
      await waitForStatus(store, 'flinkdeployments', NS, name, (s) => s.jobStatus?.state === 'FAILED', 'FAILED');

    const opened = await eventually('the incident of orders', async () => {
      const incident = await alerts.get('', job('orders'));
      return incident?.seen.includes('job-failed') ? incident : undefined;
    });
    expect(opened).toMatchObject({
      cluster: '',
      target: job('orders'),
      rule: 'dev-jobs',
      channel: 'C0ALERTS',
      mention: '<!subteam^S0ONCALL>',
      version: 1,
      signals: [{ kind: 'job-failed', source: 'status', summary: expect.stringContaining('job FAILED') }],
    });
    // Both workers observe it again and again (every resync): still one incident, one entry.
    const resyncs = Date.now() + 3 * TIMING.resyncMs;
    await eventually(
      'a few resyncs of both workers',
      holds(async () => {
        expect(await streamEntries()).toEqual([
          { incident: opened.id, version: '1', cluster: '', target: `FlinkDeployment/${NS}/orders` },
        ]);
        expect((await alerts.listOpen()).map((i) => i.id)).toEqual([opened.id]);
        expect(await alerts.get('', job('quiet'))).toBeUndefined();
        expect(Date.now()).toBeGreaterThan(resyncs);
      }),
    );

    // Running again: the knob goes and the job is restarted, as a restart operation would.
    setAnnotations(store, 'flinkdeployments', NS, 'orders', { [SCENARIO_ANNOTATION]: undefined });
    editSpec(store, 'flinkdeployments', NS, 'orders', (spec) => (spec.restartNonce = 1));
    const recovered = await eventually('the recovery of orders', async () => {
      const incident = await alerts.get('', job('orders'));
      return incident?.recoveredAt !== undefined ? incident : undefined;
    });
    // On its way back (the redeploy) the failure stays, saying so; recovered only once it runs.
    expect(recovered).toMatchObject({ id: opened.id, version: 3, signals: [], seen: ['job-failed'] });
    expect((await streamEntries()).map((e) => [e.incident, e.version])).toEqual([
      [opened.id, '1'],
      [opened.id, '2'],
      [opened.id, '3'],
    ]);
    expect(await alerts.listOpen()).toEqual([]);

    // The job outside `alerts` was never read; watched ones at most once (three GETs) within the first minute.
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(restReads.get('quiet') ?? 0).toBe(0);
    for (const name of ['orders', 'clicks']) expect(restReads.get(name) ?? 0).toBeLessThanOrEqual(2 * 3);
  });

  it('reads Flink REST of a running watched job once per interval with two workers watching, never of a job outside alerts', async () => {
    const restIntervalMs = 500;
    await env.startWorker({}, { jobAlertTiming: { ...TIMING, restIntervalMs } });
    await env.startWorker({}, { jobAlertTiming: { ...TIMING, restIntervalMs } });
    const { store } = env.cluster;
    store.create('flinkdeployments', deployment('clicks', NS));
    store.create('flinkdeployments', deployment('other', NS));
    await waitStable(store, NS, 'clicks');
    await waitStable(store, NS, 'other');
    const from = Date.now();
    const before = restReads.get('clicks') ?? 0;
    // Eight reads: enough that two workers reading each on its own would be twice the bound.
    await eventually('eight REST reads of clicks', () => (restReads.get('clicks') ?? 0) >= before + 24, {
      timeoutMs: 15_000,
    });
    const elapsed = Date.now() - from;
    const reads = ((restReads.get('clicks') ?? 0) - before) / 3;
    // One read (numRestarts, checkpoints and the job) per interval for both workers, plus the one whose turn began before
    // counting did and one of slack: the worker without the turn uses the other's reading (docs/alerts.md#cost).
    // Each reading alone, they would make 8 reads in about 4 intervals.
    expect(reads).toBeLessThanOrEqual(Math.ceil(elapsed / restIntervalMs) + 2);
    expect(restReads.get('other') ?? 0).toBe(0);
    expect(await alerts.get('', job('clicks'))).toBeUndefined();
  });
});
