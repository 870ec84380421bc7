// Done when (issue 40): a job checkpointing every 10 s, watched for 3 minutes with Flink REST read once a minute,
// raises no alert (docs/alerts.md#how-a-stall-is-judged). The real watcher against the simulated cluster and real
// Redis, in operator time: the simulator runs fast (an operator second is 10 ms) and the watcher's clock runs 100×, so
// its one-minute reads and 5 s ticks are operator minutes and seconds. A companion job whose checkpoints start
// failing raises one, so the watch is shown to be able to alert.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { staticPolicy } from '../../src/app/policy-source.js';
import { DEFAULT_CLUSTER } from '../../src/config.js';
import { KubeClusters } from '../../src/kube/clusters.js';
import { WatchHub } from '../../src/kube/watch-hub.js';
import { createLogger } from '../../src/log.js';
import { RedisAlertStore } from '../../src/store/alerts.js';
import { JobAlertWatcher } from '../../src/worker/job-alerts.js';
import { parsePolicyText } from '../../src/app/policy-load.js';
import { SCENARIO_ANNOTATION } from '@flink-chatops/sim/kube/scenarios';
import { waitStable } from '@flink-chatops/sim/testing/sim';
import { deployment } from '@flink-chatops/sim/testing/sim-resources';
import { eventually } from '../support/poll.js';
import { NS, POLICY_YAML, WorkerEnv } from '../support/worker-env.js';

const RATE = 100;
const MIN = 60_000;

describe('job alerts at a 10 s checkpoint interval (worker watch, simulated cluster)', () => {
  let env: WorkerEnv;
  let watcher: JobAlertWatcher | undefined;
  let hub: WatchHub | undefined;
  /** Operator time: 100× the real clock from the start of the test, as the simulator's fast speed. */
  let now: () => number;

  beforeEach(async () => {
    env = await WorkerEnv.start();
    const t0 = Date.now();
    now = () => t0 + (Date.now() - t0) * RATE;
  });

  afterEach(async () => {
    watcher?.close();
    hub?.close();
    await env.close();
  });

  async function watch(): Promise<RedisAlertStore> {
    const parsed = parsePolicyText(
      `${POLICY_YAML}alerts:\n  - name: dev\n    namespaces: ["${NS}"]\n    channel: C0ALERTS\n`,
    );
    if (!parsed.ok) throw new Error(parsed.errors.join('; '));
    const config = env.config();
    const { kubeConfig, kube, rest } = KubeClusters.load(config.clusters, env.cluster.kubeconfigPath).get(
      DEFAULT_CLUSTER,
    );
    const logger = createLogger('silent');
    hub = new WatchHub({ kubeConfig, list: (kind, namespace) => kube.listCollection(kind, namespace), logger });
    const store = new RedisAlertStore(env.redis.redis, env.prefix);
    watcher = new JobAlertWatcher({
      store,
      hub,
      list: (kind, namespace) => kube.listCollection(kind, namespace),
      rest,
      policy: staticPolicy(parsed.policy),
      cluster: DEFAULT_CLUSTER,
      several: false,
      logger,
      now,
      failureGraceMs: 2 * MIN,
      // Ticks every 5 operator seconds, REST once an operator minute, the first read within it.
      timing: { tickMs: 5_000 / RATE, resyncMs: MIN, restIntervalMs: MIN },
    });
    await watcher.start();
    return store;
  }

  const job = (name: string) => ({ kind: 'FlinkDeployment' as const, namespace: NS, name });
  const conf = { 'execution.checkpointing.interval': '10s' };

  it('a job checkpointing every 10 s, watched for 3 minutes, raises no alert', async () => {
    const { store: sim } = env.cluster;
    sim.create('flinkdeployments', deployment('orders', NS, { conf }));
    await waitStable(sim, NS, 'orders');
    let checkpointReads = 0;
    env.cluster.server.onRequest((info) => {
      if (info.subresource === 'proxy' && info.path.endsWith('/checkpoints')) checkpointReads += 1;
    });
    const alerts = await watch();
    const from = now();
    // Watched for 3 operator minutes and read at least 3 times (once a minute, the first within the first).
    await eventually('3 operator minutes watched, 3 readings', () => now() - from >= 3 * MIN && checkpointReads >= 3, {
      timeoutMs: 10_000,
    });
    expect(watcher?.watched()).toEqual([job('orders')]);
    expect(await alerts.get('', job('orders'))).toBeUndefined();
    expect(await alerts.listOpen()).toEqual([]);
  });

  it('a job whose checkpoints start failing raises one within those 3 minutes', async () => {
    const { store: sim } = env.cluster;
    const annotations = { [SCENARIO_ANNOTATION]: 'checkpoints-failing,incidents-after=30s' };
    sim.create('flinkdeployments', deployment('orders', NS, { conf, annotations }));
    await waitStable(sim, NS, 'orders');
    const alerts = await watch();
    const from = now();
    const incident = await eventually('the checkpoints-failing alert', async () => {
      const open = await alerts.get('', job('orders'));
      return open?.seen.includes('checkpoints-failing') ? open : undefined;
    });
    expect(now() - from).toBeLessThan(3 * MIN);
    expect(incident.signals).toEqual([
      expect.objectContaining({ kind: 'checkpoints-failing', summary: expect.stringContaining('failed in a row') }),
    ]);
  });
});
