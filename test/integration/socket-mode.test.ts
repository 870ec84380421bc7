// The bot in Socket Mode (docs/configuration.md#configuration, docs/operating.md#health-metrics-and-logs) against the
// simulated Slack's apps.connections.open and WebSocket: the slash-command, approval and App Home flows over envelopes
// and acks; a server `disconnect`, a closed link, a lost ack and a socket that stays down. Slack retries only events;
// a command or click whose ack never arrived fails for the person and is never sent again
// (docs/deployment.md#socket-mode-two-bots-or-more): nothing done twice, and the person never left without a word.
import { describe, expect, it } from 'vitest';
import { readiness, redisReady, socketReady } from '../../src/http/health.js';
import { startHealthServer, type HealthServer } from '../../src/http/server.js';
import { APP_TOKEN, TOKEN, USERS, type BotEnv, useBotEnvs } from '../support/bot-env.js';
import { eventually } from '../support/poll.js';

const bots = useBotEnvs();

const start = () => bots.start({ transport: 'socket' });

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
    // Typed while the link is being replaced: Slack holds it for the next connection, within its 3 s.
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

  it('an ack lost on the way: Slack shows the person operation_timeout and sends nothing again; the command ran once', async () => {
    const e = await start();
    e.sim.socket.loseNextAck();
    const sent = await e.command('scale streaming-dev/orders 3', USERS.bob);
    expect(sent).toMatchObject({ status: 0, failed: 'operation_timeout' });
    // The bot's ack left it, so it went on: one operation, one card, one job; Slack sent the command once.
    const card = await e.sim.waitFor(() => e.sim.messages(e.channel)[0], 10_000, 'the card');
    const opId = /op-[a-z0-9]{6,12}/.exec(card.text)?.[0] as string;
    expect((await e.waitForState(opId, ['QUEUED'])).state).toBe('QUEUED');
    expect(e.sim.socket.deliveries[0]?.sends).toHaveLength(1);
    expect(await e.operationCount()).toBe(1);
    expect(await e.waitForJob(opId, 1)).toBe('waiting');
    expect(e.sim.messages(e.channel)).toHaveLength(1);
  });

  it('an approval whose ack is lost counts once, and the clicker gets its answer', async () => {
    const e = await start();
    const requested = await e.request(
      'upgrade streaming-prod/orders --image flink:1.20.1 --mode stateless --reason "hotfix"',
      USERS.alice,
    );
    expect(requested.state).toBe('AWAITING_APPROVAL');
    e.sim.socket.loseNextAck();
    const click = await e.click('approve', requested, USERS.lead1);
    expect(click).toMatchObject({ status: 0, failed: 'operation_timeout' });
    expect((await click.reply()).text).toContain(`You approved ${requested.id}`);
    const record = await e.record(requested.id);
    expect(record.approvals).toHaveLength(1);
    expect(record.history.filter((h) => h.type === 'approval')).toHaveLength(1);
    expect(e.sim.socket.deliveries.find((d) => d.envelopeId === click.envelopeId)?.sends).toHaveLength(1);
  });

  it('a command whose ack cannot be sent (the link closes right behind it): nothing done, the person is told; again, it runs', async () => {
    const e = await start();
    const link = e.bot.socket!;
    e.sim.socket.closeAfterNextSend();
    const sent = await e.command('scale streaming-dev/orders 3', USERS.bob);
    expect(sent).toMatchObject({ status: 0, failed: 'operation_timeout' });
    // Before, the bot left this to a copy of the command that Slack never sends: the person heard nothing.
    expect((await sent.reply()).text).toMatch(
      /before `\/flink scale streaming-dev\/orders 3` could be acknowledged.*nothing was done/,
    );
    expect(await e.operationCount()).toBe(0);
    expect(e.sim.messages(e.channel)).toEqual([]);
    await eventually('a new connection', () => link.connects >= 2 && link.connected);
    const again = await e.request('scale streaming-dev/orders 3', USERS.bob);
    expect(again.state).toBe('QUEUED');
    expect(await e.operationCount()).toBe(1);
  });

  it('an approval whose ack cannot be sent is not counted, the lead is told, and the next click approves once', async () => {
    const e = await start();
    const link = e.bot.socket!;
    const requested = await e.request(
      'upgrade streaming-prod/orders --image flink:1.20.1 --mode stateless --reason "hotfix"',
      USERS.alice,
    );
    e.sim.socket.closeAfterNextSend();
    const click = await e.click('approve', requested, USERS.lead1);
    expect(click).toMatchObject({ status: 0, failed: 'operation_timeout' });
    expect((await click.reply()).text).toMatch(/your click on .* could be acknowledged.*nothing was done/);
    expect(await e.record(requested.id)).toEqual(requested);
    await eventually('a new connection', () => link.connects >= 2 && link.connected);
    expect((await (await e.click('approve', requested, USERS.lead1)).reply()).text).toContain(
      `You approved ${requested.id}`,
    );
    expect((await e.record(requested.id)).approvals).toHaveLength(1);
  });

  it('an App Home event whose ack cannot be sent is retried by Slack and handled once', async () => {
    const e = await start();
    await e.request('restart streaming-prod/orders --reason "home"', USERS.alice);
    e.sim.socket.closeAfterNextSend();
    expect((await e.openHome(USERS.lead1)).status).toBe(200);
    const event = e.sim.socket.deliveries.find((d) => d.type === 'events_api');
    expect(event?.sends).toHaveLength(2);
    expect(event?.ack).toMatchObject({ attempt: 1 });
    await e.sim.waitFor(() => e.sim.homeView(USERS.lead1), 10_000, 'the Home view');
    expect(e.sim.calls.filter((c) => c.method === 'views.publish')).toHaveLength(1);
  });

  it('/readyz is 503 while the socket stays down and 200 once it is back; a command typed meanwhile fails at Slack', async () => {
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
      // No link carries it: after 3 s Slack shows the person dispatch_failed; no replica ever sees it.
      expect(await e.command('status streaming-dev/orders', USERS.bob)).toMatchObject({
        status: 0,
        failed: 'dispatch_failed',
      });
      expect(e.sim.socket.deliveries[0]?.sends).toEqual([]);
      // Reconnect attempts are refused meanwhile; the bot stays not ready.
      await e.sim.waitFor(() => e.sim.calls.filter((c) => c.method === 'apps.connections.open').length >= 3, 15_000);
      expect((await readyz(health)).status).toBe(503);
      e.sim.socket.refuse(false);
      await eventually('the link to come back', () => link.connected);
      expect(await readyz(health)).toEqual({ status: 200, checks: { redis: 'ok', 'slack-socket': 'ok' } });
      expect((await (await e.command('status streaming-dev/orders', USERS.bob)).reply()).text).toContain('orders');
    } finally {
      await health.close();
    }
  });
});
