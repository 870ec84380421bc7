// The simulated Slack's Socket Mode on the wire, with a bare WebSocket client: one-use URLs from
// apps.connections.open, `hello`, envelopes and acks, redelivery after a lost link, `disconnect`, refused links.
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

it('sends an unacknowledged envelope again on the next connection, with retry fields for events', async () => {
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
