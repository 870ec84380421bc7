// The simulated Slack's Socket Mode on the wire, with a bare WebSocket client: one-use URLs from
// apps.connections.open, `hello`, envelopes and acks, `disconnect`, refused links; what Slack does with an envelope
// nobody acknowledged — Events API deliveries retried (at once, after 1 and 5 min, three retries at most, with
// `retry_attempt`/`retry_reason`, which @slack/socket-mode SocketModeClient.ts reads on events_api only), slash
// commands and clicks never sent again but failed for the person after 3 s (docs.slack.dev "Acknowledging requests").
import { once } from 'node:events';
import { afterEach, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startSimSlack, type SimSlack } from '../../src/slack-api.js';

const APP_TOKEN = 'xapp-1-A0SIMAPP-wire';
let sim: SimSlack | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

interface Link {
  ws: WebSocket;
  messages: Record<string, unknown>[];
  next(type?: string): Promise<Record<string, unknown>>;
}

async function openUrl(s: SimSlack): Promise<string> {
  const res = await fetch(`${s.apiUrl}apps.connections.open`, {
    method: 'POST',
    headers: { authorization: `Bearer ${APP_TOKEN}` },
  });
  const body = (await res.json()) as { ok: boolean; url: string };
  expect(body.ok).toBe(true);
  return body.url;
}

async function connect(url: string): Promise<Link> {
  const ws = new WebSocket(url);
  const messages: Record<string, unknown>[] = [];
  const waiters: (() => void)[] = [];
  ws.on('message', (data) => {
    messages.push(JSON.parse(String(data)) as Record<string, unknown>);
    waiters.splice(0).forEach((w) => w());
  });
  await once(ws, 'open');
  let read = 0;
  const next = async (type?: string): Promise<Record<string, unknown>> => {
    for (;;) {
      while (read < messages.length) {
        const m = messages[read++] as Record<string, unknown>;
        if (type === undefined || m.type === type) return m;
      }
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  return { ws, messages, next };
}

it('says hello, sends an envelope, takes the ack with its payload; a used URL is refused', async () => {
  sim = await startSimSlack({ appToken: APP_TOKEN });
  const url = await openUrl(sim);
  const link = await connect(url);
  expect(await link.next()).toMatchObject({
    type: 'hello',
    num_connections: 1,
    connection_info: { app_id: 'A0SIMAPP' },
  });

  const acked = sim.socket.deliver('slash_commands', { command: '/flink', text: 'help', trigger_id: '1.2.3' });
  const envelope = await link.next('slash_commands');
  expect(envelope).toMatchObject({
    type: 'slash_commands',
    accepts_response_payload: true,
    payload: { command: '/flink', text: 'help' },
  });
  link.ws.send(JSON.stringify({ envelope_id: envelope.envelope_id, payload: { text: 'ok' } }));
  expect(await acked).toMatchObject({ envelopeId: envelope.envelope_id, payload: { text: 'ok' }, attempt: 0 });
  // An ack for an envelope already acknowledged is only recorded.
  link.ws.send(JSON.stringify({ envelope_id: envelope.envelope_id }));
  await sim.waitFor(() => sim?.socket.strayAcks.length === 1);

  const refused = new WebSocket(url);
  const [, response] = (await once(refused, 'unexpected-response')) as [unknown, { statusCode: number }];
  expect(response.statusCode).toBe(401);
  link.ws.close();
});

it('retries an event whose link went on the next connection, with retry fields (SocketModeClient.ts retry_attempt)', async () => {
  sim = await startSimSlack({ appToken: APP_TOKEN });
  const first = await connect(await openUrl(sim));
  await first.next('hello');
  const acked = sim.socket.deliver('events_api', {
    type: 'event_callback',
    event_id: 'Ev1',
    event: { type: 'app_home_opened' },
  });
  const sent = await first.next('events_api');
  expect(sent).toMatchObject({ retry_attempt: 0, accepts_response_payload: false });
  first.ws.terminate();
  await sim.waitFor(() => sim?.socket.connectionCount === 0);

  const second = await connect(await openUrl(sim));
  const again = await second.next('events_api');
  expect(again).toMatchObject({ envelope_id: sent.envelope_id, retry_attempt: 1, retry_reason: 'timeout' });
  second.ws.send(JSON.stringify({ envelope_id: again.envelope_id }));
  expect((await acked).attempt).toBe(1);
  expect(sim.socket.deliveries[0]?.sends).toHaveLength(2);
  second.ws.close();
});

it('asks for a refresh with `disconnect` and closes the link itself if the app does not; refused links while down', async () => {
  sim = await startSimSlack({ appToken: APP_TOKEN });
  const link = await connect(await openUrl(sim));
  await link.next('hello');
  expect(sim.socket.disconnect('refresh_requested', { graceMs: 50 })).toBe(1);
  expect(await link.next('disconnect')).toMatchObject({ type: 'disconnect', reason: 'refresh_requested' });
  const [code] = (await once(link.ws, 'close')) as [number];
  expect(code).toBe(1000);

  sim.socket.refuse(true);
  const refused = new WebSocket(await openUrl(sim));
  const [, response] = (await once(refused, 'unexpected-response')) as [unknown, { statusCode: number }];
  expect(response.statusCode).toBe(503);
  sim.socket.refuse(false);
  const back = await connect(await openUrl(sim));
  await back.next('hello');
  back.ws.close();
});

it('apps.connections.open wants the app-level token', async () => {
  sim = await startSimSlack({ appToken: APP_TOKEN, botToken: 'xoxb-wire' });
  const call = async (token: string, method = 'apps.connections.open') =>
    (await fetch(`${sim?.apiUrl}${method}`, { method: 'POST', headers: { authorization: `Bearer ${token}` } })).json();
  expect(await call('xoxb-wire')).toEqual({ ok: false, error: 'not_allowed_token_type' });
  expect(await call('xapp-1-other')).toEqual({ ok: false, error: 'invalid_auth' });
  expect(await call(APP_TOKEN, 'auth.test')).toEqual({ ok: false, error: 'not_allowed_token_type' });
  sim.faults.failNext('apps.connections.open', 'internal_error');
  expect(await call(APP_TOKEN)).toEqual({ ok: false, error: 'internal_error' });
});

/** Slack's clock run fast: a 150 ms ack deadline (3 s) and retries after 0, 60 and 300 ms (0, 1 and 5 min). */
const FAST = { socketAckDeadlineMs: 150, socketEventRetryDelaysMs: [0, 60, 300] };

it('retries an unacknowledged event at once, after 1 and after 5 min (scaled), then gives it up (Slack Events API retries)', async () => {
  sim = await startSimSlack({ appToken: APP_TOKEN, ...FAST });
  const link = await connect(await openUrl(sim));
  await link.next('hello');
  const given = sim.socket.deliver('events_api', { type: 'event_callback', event_id: 'Ev2', event: { type: 'x' } });
  const failed = expect(given).rejects.toThrow(/given up: retries_exhausted/);
  const sent = [await link.next('events_api'), await link.next('events_api')];
  sent.push(await link.next('events_api'), await link.next('events_api'));
  await failed;
  expect(sent.map((m) => [m.retry_attempt, m.retry_reason])).toEqual([
    [0, ''],
    [1, 'timeout'],
    [2, 'timeout'],
    [3, 'timeout'],
  ]);
  expect(new Set(sent.map((m) => m.envelope_id)).size).toBe(1);
  const [delivery] = sim.socket.deliveries;
  expect(delivery?.failed?.error).toBe('retries_exhausted');
  // Each retry waits its delay after the previous attempt's 150 ms deadline (the sim's own timers: lower bounds).
  const at = delivery?.sends.map((s) => s.at) ?? [];
  expect((at[2] ?? 0) - (at[1] ?? 0)).toBeGreaterThanOrEqual(150 + 60 - 2);
  expect((at[3] ?? 0) - (at[2] ?? 0)).toBeGreaterThanOrEqual(150 + 300 - 2);
  expect(sim.socket.unacknowledged).toEqual([]);
  link.ws.close();
});

it('an event acknowledged on its second retry settles with that attempt; later acks are stray', async () => {
  sim = await startSimSlack({ appToken: APP_TOKEN, ...FAST });
  const link = await connect(await openUrl(sim));
  await link.next('hello');
  const acked = sim.socket.deliver('events_api', { type: 'event_callback', event_id: 'Ev3', event: { type: 'x' } });
  await link.next('events_api');
  await link.next('events_api');
  const third = await link.next('events_api');
  link.ws.send(JSON.stringify({ envelope_id: third.envelope_id }));
  expect(await acked).toMatchObject({ attempt: 2 });
  link.ws.send(JSON.stringify({ envelope_id: third.envelope_id }));
  await sim.waitFor(() => sim?.socket.strayAcks.length === 1);
  link.ws.close();
});

it('never sends a slash command or a click again: unacknowledged, it fails for the person with operation_timeout after the deadline (docs.slack.dev "Acknowledging requests")', async () => {
  sim = await startSimSlack({ appToken: APP_TOKEN, ...FAST });
  const first = await connect(await openUrl(sim));
  await first.next('hello');
  for (const type of ['slash_commands', 'interactive'] as const) {
    const given = sim.socket.deliver(type, { trigger_id: `t-${type}` });
    const failed = expect(given).rejects.toThrow(/given up: operation_timeout/);
    const sent = await first.next(type);
    expect(sent).not.toHaveProperty('retry_attempt');
    await failed;
    const delivery = sim.socket.deliveries.find((d) => d.envelopeId === sent.envelope_id);
    expect(delivery).toMatchObject({ sends: [expect.anything()], failed: { error: 'operation_timeout' } });
    // The app's ack after the deadline changes nothing for the person: Slack only notes it.
    first.ws.send(JSON.stringify({ envelope_id: sent.envelope_id }));
    await sim.waitFor(() => sim?.socket.strayAcks.some((a) => a.envelopeId === sent.envelope_id));
    expect(delivery?.ack).toBeUndefined();
  }
  // A link lost under a command: nothing comes on the next one either.
  const command = sim.socket.deliver('slash_commands', { trigger_id: 't-lost' });
  const failed = expect(command).rejects.toThrow(/operation_timeout/);
  await first.next('slash_commands');
  first.ws.terminate();
  const second = await connect(await openUrl(sim));
  await second.next('hello');
  await failed;
  const probe = sim.socket.deliver('events_api', { type: 'event_callback', event_id: 'Ev4', event: { type: 'x' } });
  const next = await second.next();
  expect(next.type).toBe('events_api');
  second.ws.send(JSON.stringify({ envelope_id: next.envelope_id }));
  await probe;
  expect(second.messages.filter((m) => m.type === 'slash_commands')).toEqual([]);
  second.ws.close();
});

it('a command while no link is open waits out the deadline for one, then fails with dispatch_failed; within it, it goes out', async () => {
  sim = await startSimSlack({ appToken: APP_TOKEN, socketAckDeadlineMs: 1_500 });
  const lost = sim.socket.deliver('slash_commands', { trigger_id: 't-none' });
  await expect(lost).rejects.toThrow(/given up: dispatch_failed/);
  expect(sim.socket.deliveries[0]).toMatchObject({ sends: [], failed: { error: 'dispatch_failed' } });

  const url = await openUrl(sim);
  const held = sim.socket.deliver('slash_commands', { trigger_id: 't-held' });
  const link = await connect(url);
  await link.next('hello');
  const sent = await link.next('slash_commands');
  link.ws.send(JSON.stringify({ envelope_id: sent.envelope_id }));
  expect(await held).toMatchObject({ attempt: 0 });
  link.ws.close();
});

it('closeAfterNextSend: a close frame right behind the envelope, so the app reads it but cannot ack on that link', async () => {
  sim = await startSimSlack({ appToken: APP_TOKEN, ...FAST });
  const link = await connect(await openUrl(sim));
  await link.next('hello');
  sim.socket.closeAfterNextSend();
  const given = sim.socket.deliver('interactive', { trigger_id: 't-closed' });
  const failed = expect(given).rejects.toThrow(/operation_timeout/);
  const [sent, [code]] = await Promise.all([link.next('interactive'), once(link.ws, 'close') as Promise<[number]>]);
  expect(sent.payload).toEqual({ trigger_id: 't-closed' });
  expect(code).toBe(1001);
  await failed;
});
