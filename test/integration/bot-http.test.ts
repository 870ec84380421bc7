// The HTTP surface of the bot (docs/lifecycle.md#the-card): signatures verified, the ack first (no Slack or Kubernetes
// call before it, for a whole burst too) and without an operation id.
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { USERS, type BotEnv, useBotEnvs } from '../support/bot-env.js';
import { nowSeconds } from '../support/slack.js';

const bots = useBotEnvs();
let env: BotEnv | undefined;

const OP_ID = /op-[a-z0-9]{6,12}/;

describe('request verification', () => {
  it.each([
    ['a forged signature', { badSignature: true }],
    ['a timestamp older than 5 minutes', { ts: nowSeconds() - 301 }],
  ])('answers 401 to a slash command with %s and records nothing', async (_name, opts) => {
    env = await bots.start();
    const e = env;
    const callsBefore = e.sim.calls.length;
    const refused = await e.command('restart streaming-dev/orders', USERS.alice, opts);
    expect(refused.status).toBe(401);
    // A correctly signed command sent afterwards is answered; the refused one would have been handled first.
    await (await e.command('help')).reply();
    expect(await e.operationCount()).toBe(0);
    // Only the signed `help` reached the bot: the workspace guard's users.info for alice
    // (docs/configuration.md#who-may-use-the-bot), nothing else.
    expect(e.sim.calls.slice(callsBefore).map((c) => c.method)).toEqual(['users.info']);
    expect(e.sim.responses.map((r) => r.id)).toEqual(['cmd-2']);
  });

  it('answers 401 to a forged click and changes nothing', async () => {
    env = await bots.start();
    const record = await env.request('restart streaming-prod/orders --reason "forged click"', USERS.alice);
    const forged = await env.click('approve', record, USERS.lead1, { post: { badSignature: true } });
    expect(forged.status).toBe(401);
    // The same click correctly signed is acted on: the forged one would have been handled before it.
    await (await env.click('reject', record, USERS.lead1)).reply();
    const after = await env.record(record.id);
    expect(after.state).toBe('REJECTED');
    expect(after.approvals).toEqual([]);
    expect(after.history.filter((h) => h.type === 'approval')).toEqual([]);
  });
});

describe('the ack', () => {
  it('comes back before any Slack or Kubernetes call for the command, and carries no operation id', async () => {
    env = await bots.start();
    const e = env;
    const kubeTimes: number[] = [];
    const off = bots.cluster.server.onRequest(() => kubeTimes.push(performance.now()));
    try {
      const callsBefore = e.sim.calls.length;
      const sent = await e.command('restart streaming-dev/orders', USERS.alice);
      expect(sent.status).toBe(200);
      expect(sent.body).not.toMatch(OP_ID);
      expect(JSON.parse(sent.body)).toEqual({ response_type: 'ephemeral', text: 'Working on `restart`…' });
      const post = await e.sim.waitFor(() =>
        e.sim.calls.slice(callsBefore).find((c) => c.method === 'chat.postMessage'),
      );
      const firstSlackCall = Math.min(...e.sim.calls.slice(callsBefore).map((c) => e.callTimes.get(c.seq) ?? Infinity));
      expect(sent.answeredAt).toBeLessThan(firstSlackCall);
      expect(kubeTimes.length).toBeGreaterThan(0);
      expect(sent.answeredAt).toBeLessThan(Math.min(...kubeTimes));
      expect(String(post.args.text)).toMatch(OP_ID);
    } finally {
      off();
    }
  });

  it('of every command of a burst comes back before any of them is planned', async () => {
    // Planning waits until no ack has gone out for a while (docs/operating.md#under-a-burst), so the last of 24
    // commands sent at once is answered before the first Slack or Kubernetes call any of them makes. The quiet is
    // longer here than its 20 ms default, so that a busy test machine's gaps between requests do not end it.
    env = await bots.start({ overrides: { planningQuiet: { quietMs: 250, maxHoldMs: 10_000 } } });
    const e = env;
    const kubeTimes: number[] = [];
    const off = bots.cluster.server.onRequest(() => kubeTimes.push(performance.now()));
    try {
      const callsBefore = e.sim.calls.length;
      const sent = await Promise.all(
        Array.from({ length: 24 }, (_x, i) => e.command(`restart streaming-dev/orders --reason "burst ${i}"`)),
      );
      expect(sent.map((s) => s.status)).toEqual(sent.map(() => 200));
      // Cards are paced at one a second per channel: the first one shows planning has begun.
      await e.sim.waitFor(() => e.sim.calls.slice(callsBefore).find((c) => c.method === 'chat.postMessage'));
      const lastAck = Math.max(...sent.map((s) => s.answeredAt));
      const firstSlackCall = Math.min(...e.sim.calls.slice(callsBefore).map((c) => e.callTimes.get(c.seq) ?? Infinity));
      expect(lastAck).toBeLessThan(firstSlackCall);
      expect(kubeTimes.length).toBeGreaterThan(0);
      expect(lastAck).toBeLessThan(Math.min(...kubeTimes));
    } finally {
      off();
    }
  });

  it('is empty for queries and commands; their answers come through the response_url', async () => {
    env = await bots.start();
    for (const text of [
      'status streaming-dev/orders',
      'lock streaming-dev/orders --reason "ack test"',
      'nonsense words',
    ]) {
      const sent = await env.command(text, USERS.alice);
      expect(sent.status).toBe(200);
      expect(sent.body).toBe('');
      expect((await sent.reply()).text.length).toBeGreaterThan(0);
    }
  });
});
