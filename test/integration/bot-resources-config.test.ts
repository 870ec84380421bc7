// resources and config through the bot (signed slash commands, simulated Slack and cluster, the example policy):
// the suspended refusal, a DENIED card naming the limit, a refused config key, and the old → new diff on the card.
import { describe, expect, it } from 'vitest';
import { USERS, type BotEnv, useBotEnvs } from '../support/bot-env.js';

const bots = useBotEnvs();

async function started(): Promise<BotEnv> {
  return bots.start();
}

describe('resources and config through the bot', () => {
  it('on a suspended job: refused privately, nothing recorded', async () => {
    const e = await started();
    for (const text of [
      'resources streaming-prod/ledger-export --tm-memory 8g --reason r',
      'config streaming-prod/ledger-export set execution.checkpointing.interval=30s --reason r',
    ]) {
      const reply = await (await e.command(text, USERS.alice)).reply();
      expect(reply.text).toContain(
        'streaming-prod/ledger-export is suspended: the operator records the change but applies it only at resume; resume first',
      );
    }
    expect(await e.operationCount()).toBe(0);
  });

  it('above the policy limit: DENIED, the card naming the limit', async () => {
    const e = await started();
    const record = await e.request('resources streaming-dev/orders --tm-memory 32g', USERS.alice);
    expect(record.state).toBe('DENIED');
    const reasons = record.decision?.outcome === 'deny' ? record.decision.reasons : [];
    expect(reasons).toEqual(['TaskManager memory 32g is above the policy limit limits.taskManagerMemory = 16g']);
    expect(JSON.stringify(await e.cardIn(record, 'DENIED'))).toContain('limits.taskManagerMemory = 16g');
  });

  it('a denied key: refused privately naming the config rule; nothing recorded', async () => {
    const e = await started();
    const reply = await (
      await e.command('config streaming-dev/orders set high-availability.type=NONE', USERS.alice)
    ).reply();
    expect(reply.text).toContain(`high-availability.type is denied by the policy's config.deny "high-availability*"`);
    expect(await e.operationCount()).toBe(0);
  });

  it('hostile input is refused by the parser with a clear message', async () => {
    const e = await started();
    const keys = Array.from({ length: 500 }, (_, i) => `k${i}.x=1`).join(' ');
    const cases: [string, string][] = [
      [`config streaming-dev/orders set ${keys}`, 'config takes at most 50 of'],
      ['config streaming-dev/orders set "my key=1"', 'the key "my key" contains a space'],
      ['config streaming-dev/orders set env.java.opts=-Da=b', 'contains "="'],
      ['resources streaming-dev/orders --tm-memory 4zb', 'has an unknown unit "zb"'],
    ];
    for (const [text, message] of cases)
      expect((await (await e.command(text, USERS.alice)).reply()).text).toContain(message);
    expect(await e.operationCount()).toBe(0);
  });

  it('config set: the card shows old → new per key', async () => {
    const e = await started();
    const key = 'execution.checkpointing.interval';
    const live = bots.cluster.store.get('flinkdeployments', 'streaming-dev', 'orders')?.spec
      ?.flinkConfiguration as Record<string, string>;
    const before = live[key] ?? null;
    const record = await e.request(
      `config streaming-dev/orders set ${key}=17s restart-strategy.type=fixed-delay`,
      USERS.alice,
    );
    expect(record.plan?.diff).toEqual([
      { path: `spec.flinkConfiguration.${key}`, before, after: '17s' },
      { path: 'spec.flinkConfiguration.restart-strategy.type', before: null, after: 'fixed-delay' },
    ]);
    const card = JSON.stringify((await e.cardIn(record, record.state)).blocks);
    expect(card).toContain(`spec.flinkConfiguration.${key}: ${before ?? '(unset)'} → 17s`);
    expect(card).toContain('spec.flinkConfiguration.restart-strategy.type: (unset) → fixed-delay');
  });
});
