// savepoints and exceptions (docs/commands.md#queries) through the real Bolt app, simulated Slack and cluster, real
// Redis.
import { describe, expect, it } from 'vitest';
import { parseCommand } from '../../src/domain/engines/language/parse.js';
import { validateBlocks } from '@flink-chatops/sim/slack-api';
import type { SimCluster } from '@flink-chatops/sim/kube/cluster';
import { waitFor } from '@flink-chatops/sim/testing/sim';
import { USERS, type BotEnv, useBotEnvs } from '../support/bot-env.js';

const bots = useBotEnvs();

async function ask(e: BotEnv, text: string, user: string = USERS.alice) {
  const sent = await e.command(text, user);
  expect(sent.status).toBe(200);
  const reply = await sent.reply();
  return { ...reply, all: JSON.stringify(reply.body), blocks: reply.body.blocks };
}

/** A FlinkStateSnapshot of an existing savepoint, completed by the operator, then given `resultTimestamp` `at`. */
async function snapshot(
  cluster: SimCluster,
  ns: string,
  name: string,
  ref: { kind: string; name: string },
  path: string,
  at: Date,
): Promise<void> {
  cluster.store.create('flinkstatesnapshots', {
    apiVersion: 'flink.apache.org/v1beta1',
    kind: 'FlinkStateSnapshot',
    metadata: { name, namespace: ns },
    spec: { backoffLimit: 2, jobReference: ref, savepoint: { alreadyExists: true, path, disposeOnDelete: false } },
  });
  const state = () =>
    (cluster.store.get('flinkstatesnapshots', ns, name)?.status as { state?: string } | undefined)?.state;
  await waitFor(cluster.store, () => state() === 'COMPLETED', 10_000, `snapshot ${ns}/${name} to complete`, state);
  cluster.store.update(
    'flinkstatesnapshots',
    ns,
    name,
    (s) => ({ ...s, status: { ...s.status, resultTimestamp: at.toISOString().replace('.000Z', 'Z') } }),
    {
      subresource: 'status',
    },
  );
}

const hoursAgo = (h: number) => new Date(Math.floor(Date.now() / 1000) * 1000 - h * 3_600_000);

describe('savepoints', () => {
  it('lists the right target only, newest first, and its restore command pasted back plans that restore', async () => {
    const e = await bots.start();
    const c = bots.cluster;
    const dev = { kind: 'FlinkDeployment', name: 'orders' };
    await snapshot(c, 'streaming-dev', 'orders-sp-oldest', dev, 's3://flink/dev/orders/savepoint-aaa111', hoursAgo(3));
    await snapshot(c, 'streaming-dev', 'orders-sp-newest', dev, 's3://flink/dev/orders/savepoint-ccc333', hoursAgo(1));
    await snapshot(c, 'streaming-dev', 'orders-sp-middle', dev, 's3://flink/dev/orders/savepoint-bbb222', hoursAgo(2));
    // Same name, other namespace; same namespace and name, other kind: neither may show.
    await snapshot(
      c,
      'streaming-prod',
      'orders-prod-sp',
      dev,
      's3://flink/prod/orders/savepoint-ppp999',
      hoursAgo(0.5),
    );
    await snapshot(
      c,
      'streaming-dev',
      'orders-sessionjob-sp',
      { kind: 'FlinkSessionJob', name: 'orders' },
      's3://flink/dev/sj/savepoint-sss777',
      hoursAgo(0.5),
    );

    const answer = await ask(e, 'savepoints streaming-dev/orders');
    expect(answer.body.response_type).toBe('ephemeral');
    expect(validateBlocks(answer.blocks)).toEqual({ ok: true });
    expect(answer.all).toContain('Last recorded by the operator');
    const order = ['savepoint-ccc333', 'savepoint-bbb222', 'savepoint-aaa111'].map((p) => answer.all.indexOf(p));
    expect(order.every((i) => i > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(answer.all).not.toContain('ppp999');
    expect(answer.all).not.toContain('sss777');
    expect(answer.all).toContain('/flink restore streaming-dev/orders --from s3://flink/dev/orders/savepoint-ccc333');

    const limited = await ask(e, 'savepoints streaming-dev/orders --limit 1');
    expect(limited.all).toContain('savepoint-ccc333');
    expect(limited.all).not.toContain('savepoint-bbb222');
    expect(limited.all).toContain('Showing the newest 1 of 3');

    // Pasted back as typed: the parser and the planner make exactly that restore.
    const pasted = /\/flink restore \S+ --from [^\s`]+/.exec(answer.text + answer.all)?.[0] ?? '';
    expect(pasted).toBe('/flink restore streaming-dev/orders --from s3://flink/dev/orders/savepoint-ccc333');
    const parsed = parseCommand(pasted, { defaultNamespace: 'streaming-prod', command: '/flink' });
    expect(parsed).toMatchObject({
      type: 'intent',
      intent: {
        kind: 'restore',
        target: { namespace: 'streaming-dev', name: 'orders' },
        from: 's3://flink/dev/orders/savepoint-ccc333',
      },
    });
    const record = await e.request(pasted, USERS.bob);
    expect(record.kind).toBe('restore');
    expect(record.target).toEqual({ kind: 'FlinkDeployment', namespace: 'streaming-dev', name: 'orders' });
    expect(JSON.stringify(record.plan)).toContain('"initialSavepointPath":"s3://flink/dev/orders/savepoint-ccc333"');
  });

  it('shows the prod target its own snapshots, and refuses an unknown target in words', async () => {
    const e = await bots.start();
    const prod = await ask(e, 'savepoints orders');
    expect(prod.all).toContain('ppp999');
    expect(prod.all).not.toContain('aaa111');
    expect((await ask(e, 'savepoints streaming-dev/ghost')).text).toContain(
      'there is no FlinkDeployment streaming-dev/ghost',
    );
    expect((await ask(e, 'savepoints kube-system/x')).text).toContain('the bot does not manage namespace kube-system');
  });
});

describe('exceptions', () => {
  it('a job with failovers: exceptions newest first (time, task, first line), restarts, status.error as text, within Slack limits', async () => {
    const e = await bots.start();
    const c = bots.cluster;
    c.operator.setScenario('streaming-prod', 'fraud-detection', ['job-exceptions=3', 'job-failure']);
    const jobState = () =>
      (
        c.store.get('flinkdeployments', 'streaming-prod', 'fraud-detection')?.status?.jobStatus as
          { state?: string } | undefined
      )?.state;
    await waitFor(c.store, () => jobState() === 'FAILED', 15_000, 'fraud-detection to fail', jobState);

    const answer = await ask(e, 'exceptions streaming-prod/fraud-detection --public');
    expect(answer.body.response_type).toBe('in_channel');
    expect(validateBlocks(answer.blocks)).toEqual({ ok: true });
    // Newest first by when each exception happened (`exception-timestamp`; the simulator jitters it by up to 2 s).
    const sections = (answer.blocks as { text?: { text?: string } }[])
      .map((b) => b.text?.text ?? '')
      .filter((t) => t.includes('Simulated'));
    expect(sections).toHaveLength(4);
    // Each is in Flink's exception history and in the operator's events: listed once, saying both.
    for (const t of sections) expect(t).toContain('· _Flink, events_');
    const times = sections.map((t) => Number(/<!date\^(\d+)\^/.exec(t)?.[1]));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    for (const n of [1, 2, 3]) expect(answer.all).toContain(`Simulated task failure #${n}`);
    expect(answer.all).toContain('Simulated fatal failure of job fraud-detection');
    expect(answer.all).toMatch(
      /Source: Kafka events -&gt; Map|KeyedProcess -&gt; Filter|Window\(TumblingEventTimeWindows\)/,
    );
    expect(answer.all).not.toContain('StateMachineExample.java');
    expect(answer.all).toContain('more lines not shown');
    expect(answer.all).toContain('Job status changed from RUNNING to FAILED');
    expect(answer.all).toContain('Recovery is suppressed by NoRestartBackoffTimeStrategy');
    expect(answer.all).not.toContain('\\"type\\"');
    expect(answer.all).not.toContain('REST API is not reachable');

    const limited = await ask(e, 'exceptions streaming-prod/fraud-detection --limit 2');
    expect(limited.all).toContain('Showing the newest 2 of 4');
    const exceptionBlocks = (limited.blocks as unknown[]).filter((b) => JSON.stringify(b).includes('Simulated'));
    expect(exceptionBlocks).toHaveLength(2);
  });
});
