// Read-only queries (docs/commands.md#queries): answered only to the asker unless --public; status, list, ops, op,
// explain, locks.
import { describe, expect, it } from 'vitest';
import { USERS, type BotEnv, useBotEnvs } from '../support/bot-env.js';
import { waitStable } from '@flink-chatops/sim/testing/sim';
import { deployment } from '@flink-chatops/sim/testing/sim-resources';

const bots = useBotEnvs();
let env: BotEnv | undefined;

async function ask(e: BotEnv, text: string, user: string = USERS.alice) {
  const sent = await e.command(text, user);
  expect(sent.status).toBe(200);
  const reply = await sent.reply();
  return { ...reply, all: JSON.stringify(reply.body) };
}

describe('every query is private unless --public', () => {
  const QUERIES = [
    'help',
    'help scale',
    'status streaming-prod/orders',
    'list',
    'ops',
    'op <op>',
    'explain restart streaming-dev/orders',
    'locks',
  ];

  it.each(QUERIES)('%s', async (query) => {
    env = await bots.start();
    const e = env;
    const op = await e.request('scale streaming-dev/orders 3', USERS.bob);
    const text = query.replace('<op>', op.id);
    const before = e.sim.messages(e.channel).length;

    const privately = await ask(e, text);
    expect(privately.body.response_type).toBe('ephemeral');
    expect(privately.text.length).toBeGreaterThan(0);
    expect(e.sim.ephemerals(e.channel, USERS.alice).some((m) => m.source === 'response_url')).toBe(true);
    expect(e.sim.messages(e.channel)).toHaveLength(before);

    const inChannel = await ask(e, `${text} --public`);
    expect(inChannel.body.response_type).toBe('in_channel');
    await e.sim.waitFor(() => e.sim.messages(e.channel).length === before + 1);
  });
});

describe('answers', () => {
  it('status: lifecycle, job state, image, parallelism, upgrade mode, last savepoint, lease, freeze, last operation', async () => {
    env = await bots.start();
    const e = env;
    const op = await e.request('scale streaming-prod/orders 5 --reason "status test"', USERS.alice);
    await (await e.command('lock streaming-prod/orders --reason "audit"', USERS.alice)).reply();
    const status = await ask(e, 'status streaming-prod/orders');
    for (const expected of ['STABLE', 'RUNNING', 'flink:1.20', 'savepoint', 's3://', op.id, 'audit', 'production']) {
      expect(status.all).toContain(expected);
    }
  });

  it('status names the installed CRDs (docs/deployment.md#operator-versions): 1.15 here, no resources, Flink to v2_2', async () => {
    env = await bots.start();
    const status = await ask(env, 'status streaming-prod/orders');
    expect(status.all).toContain(
      '*CRDs:* operator 1.15 CRDs; without jobManager/taskManager.resources; flinkVersion up to v2_2',
    );
    expect(status.all).not.toContain('operator 1.16 on 1.15 CRDs');
  });

  it('status warns of a 1.16 operator on 1.15 CRDs: its fingerprint in lastReconciledSpec, no resources in the CRD', async () => {
    env = await bots.start();
    const { store } = bots.cluster;
    store.create('flinkdeployments', deployment('skewed', 'streaming-dev'));
    await waitStable(store, 'streaming-dev', 'skewed');
    // What the 1.16 operator writes on its first reconcile: `"resources": null` beside `resource`.
    store.update(
      'flinkdeployments',
      'streaming-dev',
      'skewed',
      (object) => {
        const reconciliation = (object.status?.reconciliationStatus ?? {}) as { lastReconciledSpec: string };
        const reconciled = JSON.parse(reconciliation.lastReconciledSpec) as {
          spec: Record<string, Record<string, unknown>>;
        };
        for (const part of ['jobManager', 'taskManager'])
          reconciled.spec[part] = { ...reconciled.spec[part], resources: null };
        reconciliation.lastReconciledSpec = JSON.stringify(reconciled);
        return object;
      },
      { subresource: 'status' },
    );
    const status = await ask(env, 'status streaming-dev/skewed');
    expect(status.all).toContain(
      ':warning: *operator 1.16 on 1.15 CRDs: the FlinkDeployment CRD lacks jobManager/taskManager.resources (upgrade the CRDs)*',
    );
  });

  it('status of a target that does not exist is refused in words', async () => {
    env = await bots.start();
    expect((await ask(env, 'status streaming-dev/ghost')).text).toContain(
      'there is no FlinkDeployment streaming-dev/ghost',
    );
  });

  it('an unknown target gets the close names the requester can list and a pointer to list', async () => {
    env = await bots.start();
    const typo = await ask(env, 'status streaming-dev/ordrs');
    expect(typo.text).toContain(
      'there is no FlinkDeployment streaming-dev/ordrs. Did you mean `streaming-dev/orders`?',
    );
    expect(typo.text).toContain('`/flink list streaming-dev` shows what is there');
    // An operation in the wrong namespace: the same name where it is, and the ack's bubble shows the refusal.
    const sent = await env.command('scale streaming-dev/payments 3', USERS.alice);
    const wrong = await sent.reply();
    expect(wrong.text).toContain(
      'there is no FlinkDeployment streaming-dev/payments. Did you mean `streaming-prod/payments`?',
    );
    expect(wrong.body.replace_original).toBe(true);
  });

  it('list: the managed deployments and session jobs, and a problem line for a namespace the bot cannot read', async () => {
    env = await bots.start();
    const e = env;
    const all = await ask(e, 'list');
    for (const name of [
      'streaming-prod/orders',
      'streaming-prod/payments',
      'sessionjob:streaming-prod/sessionjob-etl',
      'streaming-dev/orders',
    ]) {
      expect(all.all).toContain(name);
    }
    bots.cluster.server.faults.forbidNamespace('streaming-dev');
    try {
      const partial = await ask(e, 'list');
      expect(partial.all).toContain('the bot has no access to namespace streaming-dev (add a RoleBinding)');
      expect(partial.all).toContain('streaming-prod/orders');
    } finally {
      bots.cluster.server.faults.allowNamespace('streaming-dev');
    }
    expect((await ask(e, 'list kube-system')).text).toContain('the bot does not manage namespace kube-system');
  });

  it('ops lists recent operations newest first (with --limit and per target); op shows one with its history', async () => {
    env = await bots.start();
    const e = env;
    const first = await e.request('scale streaming-dev/orders 3', USERS.bob);
    const second = await e.request('restart streaming-prod/orders --reason "ops test"', USERS.alice);
    await (await e.click('reject', second, USERS.lead1)).reply();

    const ops = await ask(e, 'ops');
    expect(ops.all.indexOf(second.id)).toBeGreaterThan(-1);
    expect(ops.all.indexOf(second.id)).toBeLessThan(ops.all.indexOf(first.id));
    const limited = await ask(e, 'ops --limit 1');
    expect(limited.all).toContain(second.id);
    expect(limited.all).not.toContain(first.id);
    const forTarget = await ask(e, 'ops streaming-dev/orders');
    expect(forTarget.all).toContain(first.id);
    expect(forTarget.all).not.toContain(second.id);

    const op = await ask(e, `op ${second.id}`);
    expect(op.text).toContain(second.id);
    for (const expected of ['ACCEPTED', 'AWAITING_APPROVAL', 'REJECTED', USERS.alice, USERS.lead1, 'ops test'])
      expect(op.all).toContain(expected);
    expect((await ask(e, 'op op-missing00')).text).toContain('there is no operation op-missing00');
  });

  it('explain shows the plan and decision without recording an operation, and says when it would be refused', async () => {
    env = await bots.start();
    const e = env;
    const explained = await ask(e, 'explain scale streaming-prod/orders 7 --reason "what if"');
    for (const expected of ['spec.job.parallelism', '7', 'prod-needs-a-lead'])
      expect(explained.all).toContain(expected);
    // Without the --reason production requires: the plan and decision anyway, the reason listed as needed.
    const unreasoned = await ask(e, 'explain scale streaming-prod/orders 7');
    for (const expected of ['spec.job.parallelism', 'prod-needs-a-lead', 'a --reason is required'])
      expect(unreasoned.all).toContain(expected);
    expect(unreasoned.text).not.toContain('refused');
    const refused = await ask(e, 'explain scale streaming-prod/orders 7 --reason "what if"', USERS.bob);
    expect(refused.text).toContain('it would be refused: you may not request scale in streaming-prod');
    // --at / --window: when it would run (the env's clock is Wednesday 10:00 UTC), or why it would be refused.
    const later = await ask(e, 'explain restart streaming-dev/orders --at 12:30');
    expect(later.all).toContain('once allowed it would wait, then runs at 12:30 UTC');
    expect((await ask(e, 'explain restart streaming-dev/orders --at 2026-11-20T10:00:00Z')).text).toContain(
      'it would be refused: --at 2026-11-20T10:00:00.000Z is in the past',
    );
    expect((await ask(e, 'explain restart streaming-dev/orders --window nightly')).text).toContain(
      'it would be refused: unknown window "nightly"',
    );
    expect(await e.operationCount()).toBe(0);
    expect(e.sim.messages(e.channel)).toEqual([]);
  });

  it('locks shows freezes with their holders and the audit of lock and unlock', async () => {
    env = await bots.start();
    const e = env;
    await (await e.command('lock streaming-dev/orders --reason "load test"', USERS.bob)).reply();
    await (await e.command('lock streaming-prod/payments --reason "migration"', USERS.alice)).reply();
    await (await e.command('unlock streaming-prod/payments', USERS.alice)).reply();
    const locks = await ask(e, 'locks');
    for (const expected of ['streaming-dev/orders', 'load test', USERS.bob, 'streaming-prod/payments', 'migration'])
      expect(locks.all).toContain(expected);
  });
});
