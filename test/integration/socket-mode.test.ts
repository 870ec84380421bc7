// The bot in Socket Mode (docs/configuration.md#configuration, docs/operating.md#health-metrics-and-logs) against the
// simulated Slack's apps.connections.open and WebSocket: the slash-command, approval and App Home flows over envelopes
// and acks; a server `disconnect`, a cut link, a lost ack and a socket that stays down — reconnected, nothing lost,
// nothing done twice, /readyz following the link.
import { describe, expect, it } from 'vitest';
import { readiness, redisReady, socketReady } from '../../src/http/health.js';
import { startHealthServer, type HealthServer } from '../../src/http/server.js';
import { APP_TOKEN, TOKEN, USERS, type BotEnv, useBotEnvs } from '../support/bot-env.js';
import { recordLogs, type LogRecorder } from '../support/log-lines.js';
import { eventually } from '../support/poll.js';

const bots = useBotEnvs();

const start = (logs?: LogRecorder) =>
  bots.start({ transport: 'socket', ...(logs ? { overrides: { logger: logs.logger } } : {}) });

/** The bot's own word that it recognised Slack's copy of envelope `envelopeId` and dropped it (src/slack/redelivery.ts). */
function copyDropped(logs: LogRecorder, e: BotEnv, envelopeId: string | undefined) {
  const payload = e.sim.socket.deliveries.find((d) => d.envelopeId === envelopeId)?.payload as
    { trigger_id?: string } | undefined;
  const delivery = `trigger:${payload?.trigger_id}`;
  return logs.logged(
    `the copy of ${delivery} dropped`,
    (l) => l.delivery === delivery && l.msg.startsWith('Slack sent a delivery again'),
  );
}

/** Every envelope was acknowledged exactly once, and no ack came for an envelope already acknowledged. */
function expectNothingLostNothingTwice(e: BotEnv): void {
  const { deliveries, acks, strayAcks, unacknowledged } = e.sim.socket;
  expect(unacknowledged).toEqual([]);
  expect(acks.map((a) => a.envelopeId).sort()).toEqual(deliveries.map((d) => d.envelopeId).sort());
  expect(strayAcks).toEqual([]);
}

/** The readiness server `serve` runs next to a Socket Mode bot, with the same checks. */
async function healthOf(e: BotEnv): Promise<HealthServer> {
  const link = e.bot.socket;
  if (!link) throw new Error('the bot is not in Socket Mode');
  return startHealthServer({
    port: 0,
    host: '127.0.0.1',
    ready: readiness({ redis: redisReady(e.bot.redis), 'slack-socket': socketReady(link) }),
  });
}

async function readyz(health: HealthServer): Promise<{ status: number; checks: Record<string, string> }> {
  const res = await fetch(`${health.url}/readyz`);
  return { status: res.status, checks: ((await res.json()) as { checks: Record<string, string> }).checks };
}

describe('Socket Mode: the flows over the socket', () => {
  it('connects with the app token through apps.connections.open; the bot token is the wrong type there', async () => {
    const e = await start();
    expect(e.bot.url).toBeUndefined();
    expect(e.bot.socket?.connected).toBe(true);
    expect(e.sim.socket.connectionCount).toBe(1);
    const opens = e.sim.calls.filter((c) => c.method === 'apps.connections.open');
    expect(opens).toHaveLength(1);
    expect(opens[0]?.response).toMatchObject({
      ok: true,
      url: expect.stringMatching(/^ws:\/\/127\.0\.0\.1:\d+\/link\/\?ticket=/),
    });
    const open = (token: string) =>
      fetch(`${e.sim.apiUrl}apps.connections.open`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
      }).then((r) => r.json());
    expect(await open(TOKEN)).toEqual({ ok: false, error: 'not_allowed_token_type' });
    expect(await open('xapp-1-someone-else')).toEqual({ ok: false, error: 'invalid_auth' });
    expect(await open(APP_TOKEN)).toMatchObject({ ok: true });
  });

  it('a production request becomes a card, the ack carrying the sign of life; a lead approves by button: QUEUED', async () => {
    const e = await start();
    const sent = await e.command('scale streaming-prod/orders 5 --reason "socket"', USERS.alice);
    expect(sent.status).toBe(200);
    expect(JSON.parse(sent.body)).toEqual({ response_type: 'ephemeral', text: 'Working on `scale`…' });
    const delivery = e.sim.socket.deliveries.find((d) => d.envelopeId === sent.envelopeId);
    expect(delivery).toMatchObject({
      type: 'slash_commands',
      acceptsResponsePayload: true,
      sends: [expect.anything()],
      ack: { attempt: 0 },
    });
    const card = await e.sim.waitFor(() => e.sim.messages(e.channel)[0], 10_000);
    const opId = /op-[a-z0-9]{6,12}/.exec(card.text)?.[0] as string;
    const requested = await e.waitForState(opId, ['AWAITING_APPROVAL']);

    const click = await e.click('approve', requested, USERS.lead1);
    expect(click.status).toBe(200);
    expect(click.body).toBe('');
    expect(e.sim.socket.deliveries.find((d) => d.envelopeId === click.envelopeId)).toMatchObject({
      type: 'interactive',
      acceptsResponsePayload: false,
    });
    expect((await click.reply()).text).toContain(`You approved ${opId}`);
    const queued = await e.record(opId);
    expect(queued.state).toBe('QUEUED');
    expect(queued.approvals.map((a) => a.user)).toEqual([USERS.lead1]);
    expect(await e.waitForJob(opId, 1)).toBe('waiting');
    expectNothingLostNothingTwice(e);
  });

  it('a query is answered through the response_url; a refused approval changes nothing', async () => {
    const e = await start();
    const status = await e.command('status streaming-prod/orders', USERS.bob);
    expect(status.body).toBe('');
    const reply = await status.reply();
    expect(reply.body.response_type).toBe('ephemeral');
    expect(reply.text).toContain('orders');

    const requested = await e.request('restart streaming-prod/orders --reason "socket"', USERS.alice);
    const refused = await (await e.click('approve', requested, USERS.bob)).reply();
    expect(refused.text).toContain('you are not in leads');
    expect(await e.record(requested.id)).toEqual(requested);
    expectNothingLostNothingTwice(e);
  });

  it('opening App Home sends an events_api envelope; the bot publishes the view once', async () => {
    const e = await start();
    const record = await e.request('restart streaming-prod/orders --reason "home"', USERS.alice);
    const opened = await e.openHome(USERS.lead1);
    expect(opened.status).toBe(200);
    const home = await e.sim.waitFor(() => e.sim.homeView(USERS.lead1), 10_000);
    expect(JSON.stringify(home.view)).toContain(record.id);
    expect(e.sim.calls.filter((c) => c.method === 'views.publish')).toHaveLength(1);
    const event = e.sim.socket.deliveries.find((d) => d.type === 'events_api');
    expect(event?.payload).toMatchObject({
      type: 'event_callback',
      event: { type: 'app_home_opened', user: USERS.lead1 },
    });
  });
});

describe('Socket Mode: a link that goes away', () => {
  it('a server `disconnect` (refresh_requested): the bot reconnects; a command sent meanwhile is delivered once', async () => {
    const e = await start();
    const link = e.bot.socket!;
    const before = await e.request('scale streaming-dev/orders 3', USERS.bob);
    expect(e.sim.socket.disconnect('refresh_requested')).toBe(1);
    // Typed while the link is being replaced: Slack holds it for the next connection.
    const sent = e.command('status streaming-dev/orders', USERS.bob);
    await eventually('a new connection', () => link.connects >= 2 && link.connected);
    expect((await (await sent).reply()).text).toContain('orders');
    const after = await e.request('scale streaming-dev/orders 4', USERS.bob);
    expect(after.state).toBe('QUEUED');
    expect(await e.operationCount()).toBe(2);
    expect([before.id, after.id]).toHaveLength(2);
    expect(e.sim.calls.filter((c) => c.method === 'apps.connections.open').length).toBeGreaterThanOrEqual(2);
    expectNothingLostNothingTwice(e);
  });

  it('a `warning` is followed like a refresh: the bot reconnects at once and nothing is lost', async () => {
    const e = await start();
    const link = e.bot.socket!;
    e.sim.socket.disconnect('warning');
    await eventually('a new connection', () => link.connects >= 2 && link.connected);
    const record = await e.request('scale streaming-dev/orders 3', USERS.bob);
    expect(record.state).toBe('QUEUED');
    expectNothingLostNothingTwice(e);
  });

  it('an ack lost with the link: Slack sends the command again on the next connection, and one operation results', async () => {
    const logs = recordLogs();
    const e = await start(logs);
    e.sim.socket.loseNextAck();
    const record = await e.request('scale streaming-dev/orders 3', USERS.bob);
    expect(record.state).toBe('QUEUED');
    const [delivery] = e.sim.socket.deliveries;
    // Sent twice (the first ack never arrived); acknowledged once, on the redelivery.
    expect(delivery?.sends).toHaveLength(2);
    expect(delivery?.ack).toMatchObject({ attempt: 1 });
    expect(delivery?.sends[0]?.connection).not.toBe(delivery?.sends[1]?.connection);
    // The redelivery was recognised (same trigger_id) and dropped — the bot says so once it has, and does nothing
    // more with it: one operation, one card, one job.
    await copyDropped(logs, e, delivery?.envelopeId);
    expect(await e.operationCount()).toBe(1);
    expect(e.sim.messages(e.channel)).toHaveLength(1);
    expect(await e.waitForJob(record.id, 1)).toBe('waiting');
    expect(e.sim.calls.filter((c) => c.method === 'chat.postMessage' && c.args.channel === e.channel)).toHaveLength(1);
    expectNothingLostNothingTwice(e);
  });

  it('an approval whose ack is lost counts once', async () => {
    const logs = recordLogs();
    const e = await start(logs);
    const requested = await e.request(
      'upgrade streaming-prod/orders --image flink:1.20.1 --mode stateless --reason "hotfix"',
      USERS.alice,
    );
    expect(requested.state).toBe('AWAITING_APPROVAL');
    e.sim.socket.loseNextAck();
    const click = await e.click('approve', requested, USERS.lead1);
    expect(e.sim.socket.deliveries.find((d) => d.envelopeId === click.envelopeId)?.sends).toHaveLength(2);
    expect((await click.reply()).text).toContain(`You approved ${requested.id}`);
    // The copy is dropped before any handler sees it: once the bot says so, nothing more can come of it.
    await copyDropped(logs, e, click.envelopeId);
    const record = await e.record(requested.id);
    expect(record.approvals).toHaveLength(1);
    expect(record.history.filter((h) => h.type === 'approval')).toHaveLength(1);
    // No "you already approved" answer either: the copy was not handled at all.
    expect(e.sim.responses.filter((r) => JSON.stringify(r.body).includes('already approved'))).toEqual([]);
    expectNothingLostNothingTwice(e);
  });

  it('a link cut right after a command is written: delivered again if need be, exactly one operation', async () => {
    const e = await start();
    e.sim.socket.dropAfterNextSend();
    const record = await e.request('scale streaming-dev/orders 3', USERS.bob);
    expect(record.state).toBe('QUEUED');
    // Whether the bot read the first send or not, every copy of the command reached it before this query on the
    // same link: once the query is answered, a second copy acted on would have recorded its operation.
    expect((await (await e.command('status streaming-dev/orders', USERS.bob)).reply()).text).toContain('orders');
    expect(await e.operationCount()).toBe(1);
    expect(e.sim.messages(e.channel)).toHaveLength(1);
    expect(e.sim.socket.deliveries[0]?.sends.length).toBeGreaterThanOrEqual(2);
    expectNothingLostNothingTwice(e);
  });

  it('/readyz is 503 while the socket stays down and 200 once it is back; a command sent meanwhile is not lost', async () => {
    const e = await start();
    const link = e.bot.socket!;
    const health = await healthOf(e);
    try {
      expect(await readyz(health)).toEqual({ status: 200, checks: { redis: 'ok', 'slack-socket': 'ok' } });
      e.sim.socket.refuse(true);
      expect(e.sim.socket.drop()).toBe(1);
      await eventually('the link to go down', () => !link.connected);
      const down = await readyz(health);
      expect(down.status).toBe(503);
      expect(down.checks.redis).toBe('ok');
      expect(down.checks['slack-socket']).toMatch(/^Socket Mode link \w+ for [\d.]+s$/);
      const sent = e.command('status streaming-dev/orders', USERS.bob);
      // Several reconnect attempts are refused meanwhile; the bot stays not ready and the command waits.
      await e.sim.waitFor(() => e.sim.calls.filter((c) => c.method === 'apps.connections.open').length >= 3, 15_000);
      expect((await readyz(health)).status).toBe(503);
      expect(e.sim.socket.deliveries[0]?.sends.length ?? 0).toBe(0);
      e.sim.socket.refuse(false);
      expect((await (await sent).reply()).text).toContain('orders');
      await eventually('the link to come back', () => link.connected);
      expect(await readyz(health)).toEqual({ status: 200, checks: { redis: 'ok', 'slack-socket': 'ok' } });
      expectNothingLostNothingTwice(e);
    } finally {
      await health.close();
    }
  });
});
