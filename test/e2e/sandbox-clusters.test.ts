// The sandbox's two simulated clusters (README.md#try-it, docs/deployment.md#several-clusters): eu and us, both with
// streaming-prod/orders, one kubeconfig with a context each, a worker per cluster; a request for
// us/streaming-prod/orders goes through the page, is run by the us worker (queue flink-ops.us) and patches only us's
// object.
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { KubeConfig } from '@kubernetes/client-node';
import { OperationQueue, jobIdOf } from '../../src/queue/queue.js';
import { SANDBOX_CLUSTERS, SANDBOX_POLICY, startSandbox, type RunningSandbox } from '@flink-chatops/sim/sandbox';
import type { SimMessage } from '@flink-chatops/sim/slack-api';
import type { PageState } from '@flink-chatops/sim/page-state';
import { ACTION_IDS } from '../../src/slack/blocks/index.js';
import { eventually } from '../support/poll.js';

const CHANNEL = 'C0DATAPLATFORM';
const OUTCOME_MS = 60_000;

let sandbox: RunningSandbox | undefined;
let starting: Promise<RunningSandbox> | undefined;

/** Started by the first test that needs it (fast simulation, the Redis of the test run, this run's prefix). */
function ready(): Promise<RunningSandbox> {
  starting ??= (async () => {
    const started = await startSandbox(
      { speed: 'fast', port: 0, policyFile: SANDBOX_POLICY },
      { REDIS_URL: inject('redisUrl'), PATH: process.env.PATH, LOG_LEVEL: 'warn' },
    );
    if (!started.ok) throw new Error(started.message);
    sandbox = started.sandbox;
    await Promise.all(sandbox.clusters.map(({ cluster }) => cluster.seeded));
    return sandbox;
  })();
  return starting;
}

afterAll(async () => {
  await sandbox?.close();
});

async function post(
  s: RunningSandbox,
  path: string,
  body: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${s.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Waits on the sandbox's simulated Slack (`probe` checked at each of its events), naming `what` if it gives up. */
function until<T>(
  s: RunningSandbox,
  what: string,
  probe: () => T | undefined | false,
  timeoutMs = OUTCOME_MS,
): Promise<T> {
  return s.slack.waitFor(probe, timeoutMs).catch((error: unknown) => {
    throw new Error(`waiting for ${what}: ${String(error)}`);
  });
}

const clusterOf = (s: RunningSandbox, name: string) => {
  const found = s.clusters.find((c) => c.name === name);
  if (!found) throw new Error(`no cluster ${name}`);
  return found.cluster;
};
const parallelism = (s: RunningSandbox, cluster: string, ns: string, name: string) =>
  (clusterOf(s, cluster).store.get('flinkdeployments', ns, name)?.spec?.job as { parallelism?: number } | undefined)
    ?.parallelism;

/** The approve button of a card: its block id and value. */
function approveButton(message: SimMessage): { blockId: string; value: string } | undefined {
  for (const block of (message.blocks ?? []) as {
    block_id?: string;
    elements?: { action_id?: string; value?: string }[];
  }[]) {
    const button = block.elements?.find((e) => e.action_id === ACTION_IDS.approve);
    if (button && block.block_id) return { blockId: block.block_id, value: button.value ?? '' };
  }
  return undefined;
}

describe('sandbox with two clusters', () => {
  it('starts eu and us with overlapping namespace/name, one kubeconfig with a context each, and a worker per cluster', async () => {
    const s = await ready();
    expect(s.clusters.map((c) => c.name)).toEqual(['eu', 'us']);
    expect(SANDBOX_CLUSTERS.map((c) => c.name)).toEqual(['eu', 'us']);
    expect(s.workers).toEqual([{ clusters: ['eu'] }, { clusters: ['us'] }]);
    expect(s.config.clusters).toMatchObject({ names: ['eu', 'us'], fromContexts: true });

    // The same streaming-prod/orders in both, each cluster's own object; streaming-dev only in eu, streaming-analytics only in us.
    const eu = clusterOf(s, 'eu').store;
    const us = clusterOf(s, 'us').store;
    expect(eu.get('flinkdeployments', 'streaming-prod', 'orders')?.metadata.uid).toBeDefined();
    expect(us.get('flinkdeployments', 'streaming-prod', 'orders')?.metadata.uid).not.toBe(
      eu.get('flinkdeployments', 'streaming-prod', 'orders')?.metadata.uid,
    );
    expect(eu.get('flinkdeployments', 'streaming-dev', 'orders')).toBeDefined();
    expect(us.get('flinkdeployments', 'streaming-dev', 'orders')).toBeUndefined();
    expect(us.get('flinkdeployments', 'streaming-analytics', 'sessionizer')).toBeDefined();
    expect(eu.get('flinkdeployments', 'streaming-analytics', 'sessionizer')).toBeUndefined();

    // The kubeconfig: contexts eu and us, each at its own API server, plain http allowed for client-node 1.x.
    const kc = new KubeConfig();
    kc.loadFromFile(s.kubeconfigPath);
    expect(kc.getContexts().map((c) => c.name)).toEqual(['eu', 'us']);
    for (const { name, cluster } of s.clusters) {
      const entry = kc.getCluster(kc.getContextObject(name)?.cluster ?? '');
      expect(entry).toMatchObject({ server: cluster.url, skipTLSVerify: true });
    }
  });

  it('the page lists both clusters, and a knob names the cluster it acts on', async () => {
    const s = await ready();
    const state = (await (await fetch(`${s.url}/api/state`)).json()) as PageState;
    expect(state.clusters).toEqual(['eu', 'us']);
    const rows = state.cluster.map((r) => `${r.cluster}/${r.namespace}/${r.name}`);
    expect(rows).toEqual(
      expect.arrayContaining([
        'eu/streaming-prod/orders',
        'us/streaming-prod/orders',
        'eu/streaming-dev/orders',
        'us/streaming-analytics/sessionizer',
      ]),
    );
    expect(state.channels.find((c) => c.id === CHANNEL)).toMatchObject({
      defaultNamespace: 'streaming-dev',
      defaultCluster: 'eu',
    });

    const knob = { namespace: 'streaming-prod', name: 'orders', knob: 'slow-reconcile' };
    const ambiguous = await post(s, '/api/knob', knob);
    expect(ambiguous.status).toBe(400);
    expect(ambiguous.body.error).toContain('eu, us');
    expect((await post(s, '/api/knob', { ...knob, cluster: 'ap' })).status).toBe(404);
    expect((await post(s, '/api/knob', { ...knob, namespace: 'streaming-dev', cluster: 'us' })).status).toBe(404);

    const on = await post(s, '/api/knob', { ...knob, cluster: 'us', on: true });
    expect(on.body).toMatchObject({ ok: true, cluster: 'us', knobs: ['slow-reconcile'] });
    const after = (await (await fetch(`${s.url}/api/state`)).json()) as PageState;
    const knobsOf = (cluster: string) =>
      after.cluster.find((r) => r.cluster === cluster && r.namespace === 'streaming-prod' && r.name === 'orders')
        ?.knobs;
    expect(knobsOf('us')).toEqual(['slow-reconcile']);
    expect(knobsOf('eu')).toEqual([]);
    expect((await post(s, '/api/knob', { ...knob, cluster: 'us', on: false })).body).toMatchObject({
      ok: true,
      knobs: [],
    });
  });

  it('us/streaming-prod/orders: approved on the page, run by the us worker, patches only the us cluster', async () => {
    const s = await ready();
    for (const { cluster } of s.clusters) cluster.server.resetStats();
    const euBefore = parallelism(s, 'eu', 'streaming-prod', 'orders');
    expect(parallelism(s, 'us', 'streaming-prod', 'orders')).toBe(3);

    const sent = await post(s, '/api/command', {
      user: 'U0ALICE',
      channel: CHANNEL,
      text: '/flink scale us/streaming-prod/orders 5 --reason "us peak"',
    });
    expect(sent.body).toMatchObject({ ok: true, status: 200 });
    const card = await until(s, 'the card', () =>
      s.slack
        .messages(CHANNEL)
        .find((m) => JSON.stringify(m.blocks ?? []).includes('us/streaming-prod/orders') && approveButton(m)),
    );
    const opId = /op-[a-z0-9]{6,12}/.exec(JSON.stringify(card.blocks))?.[0] as string;
    expect(opId).toBeDefined();
    const button = approveButton(card) as { blockId: string; value: string };

    const approved = await post(s, '/api/action', {
      user: 'U0LEAD1',
      channel: CHANNEL,
      messageTs: card.ts,
      actionId: ACTION_IDS.approve,
      blockId: button.blockId,
      value: button.value,
    });
    expect(approved.body).toMatchObject({ ok: true, status: 200 });
    const cardNow = () => s.slack.messages(CHANNEL).find((m) => m.ts === card.ts);
    await until(s, 'COMPLETED', () => JSON.stringify(cardNow()?.blocks ?? []).includes('State: COMPLETED'));

    expect(parallelism(s, 'us', 'streaming-prod', 'orders')).toBe(5);
    expect(parallelism(s, 'eu', 'streaming-prod', 'orders')).toBe(euBefore);
    const patches = (cluster: string) => clusterOf(s, cluster).server.stats().requests['patch flinkdeployments'] ?? 0;
    expect(patches('us')).toBeGreaterThanOrEqual(1);
    expect(patches('eu')).toBe(0);
    const annotations =
      clusterOf(s, 'us').store.get('flinkdeployments', 'streaming-prod', 'orders')?.metadata.annotations ?? {};
    expect(annotations['flink-chatops/operation-id']).toBe(opId);

    // Only the us worker consumes flink-ops.us: the operation's job finished there, and flink-ops.eu never had it.
    const redis = new Redis(s.redis.url, { maxRetriesPerRequest: 1 });
    try {
      const queue = (cluster: string) => new OperationQueue({ connection: redis, prefix: s.prefix, cluster });
      const [usQueue, euQueue] = [queue('us'), queue('eu')];
      // The card says COMPLETED as soon as the verdict is recorded; the job itself ends just after, once the run has
      // started the target's after-COMPLETED watch and given its lease back (docs/lifecycle.md#after-completed).
      const usJob = await usQueue.queue.getJob(jobIdOf(opId, 1));
      expect(usJob).toBeDefined();
      await eventually('the us job to complete', async () => (await usJob?.getState()) === 'completed');
      expect(await euQueue.queue.getJob(jobIdOf(opId, 1))).toBeUndefined();
      await Promise.all([usQueue.close(), euQueue.close()]);
    } finally {
      redis.disconnect();
    }
  });

  it('a target without a cluster: the channel default (eu) in #data-platform; ambiguous in #incidents, which has none', async () => {
    const s = await ready();
    await post(s, '/api/command', { user: 'U0ALICE', channel: CHANNEL, text: '/flink status streaming-prod/orders' });
    await until(
      s,
      'the eu status',
      () => s.slack.ephemerals(CHANNEL).find((e) => e.text.includes('eu/streaming-prod/orders')),
      10_000,
    );

    await post(s, '/api/command', { user: 'U0ALICE', channel: 'C0INCIDENTS', text: '/flink status orders' });
    const refusal = await until(
      s,
      'the refusal',
      () => s.slack.ephemerals('C0INCIDENTS').find((e) => e.text.includes('ambiguous')),
      10_000,
    );
    expect(refusal.text).toContain('eu/streaming-prod/orders');
    expect(refusal.text).toContain('us/streaming-prod/orders');
  });
});
