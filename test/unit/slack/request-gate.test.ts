// The gate in front of Bolt's listener on a real node:http server: what passes reaches the listener with its body
// already read, other paths pass at once, a slow body is cut, and a replay store that cannot answer admits nothing.
import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/log.js';
import { gateSlackRequests, type RequestGateOptions } from '../../../src/slack/request-gate.js';
import { checkSigningHeaders } from '../../../src/slack/request-signature.js';
import type { SeenRequests } from '../../../src/store/seen-signatures.js';
import { headersOnly } from '../../support/raw-http.js';
import { nowSeconds, signSlackRequest } from '../../support/slack.js';

const SECRET = 'gate-secret';
const servers: Server[] = [];

function memorySeen(): SeenRequests {
  const keys = new Set<string>();
  return { first: async (key) => (keys.has(key) ? false : (keys.add(key), true)) };
}

/** The gate around a listener that records what reached it; resolves with the server's base URL. */
async function gated(options: Partial<RequestGateOptions> = {}) {
  const reached: { path: string; rawBody?: string }[] = [];
  const listener: RequestListener = (req, res) => {
    const rawBody = (req as IncomingMessage & { rawBody?: Buffer }).rawBody?.toString();
    reached.push({ path: req.url ?? '', ...(rawBody === undefined ? {} : { rawBody }) });
    res.end('reached');
  };
  const server = createServer(
    gateSlackRequests(listener, {
      signingSecret: SECRET,
      seen: memorySeen(),
      logger: createLogger('silent'),
      ...options,
    }),
  );
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, reached };
}

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

describe('the request gate', () => {
  it('hands a signed request to the listener with the body it read; other paths and methods pass untouched', async () => {
    const { base, reached } = await gated();
    const body = 'command=%2Fflink&text=help';
    const signed = await fetch(`${base}/slack/events`, {
      method: 'POST',
      body,
      headers: signSlackRequest(SECRET, body),
    });
    expect(await signed.text()).toBe('reached');
    const health = await fetch(`${base}/healthz`);
    expect(await health.text()).toBe('reached');
    const get = await fetch(`${base}/slack/events`);
    expect(await get.text()).toBe('reached');
    expect(reached).toEqual([
      { path: '/slack/events', rawBody: body },
      { path: '/healthz' },
      { path: '/slack/events' },
    ]);
  });

  it('answers 408 when the body does not arrive in time, and the listener never runs', async () => {
    const { base, reached } = await gated({ bodyTimeoutMs: 50 });
    const body = 'text=slow';
    const answer = await headersOnly(`${base}/slack/events`, signSlackRequest(SECRET, body), body.length);
    expect(answer.status).toBe(408);
    expect(answer.body).toMatch(/did not arrive within 50 ms/);
    expect(reached).toEqual([]);
  });

  it('answers 503 and admits nothing when the replay store cannot be asked', async () => {
    const seen: SeenRequests = {
      first: () => Promise.reject(new Error('Redis is unreachable')),
    };
    const { base, reached } = await gated({ seen });
    const body = 'text=help';
    const res = await fetch(`${base}/slack/events`, { method: 'POST', body, headers: signSlackRequest(SECRET, body) });
    expect(res.status).toBe(503);
    expect(await res.text()).not.toMatch(/Redis/);
    expect(reached).toEqual([]);
  });

  it('refuses a forged signature with 401 after reading the body, and admits the genuine one after it', async () => {
    const { base, reached } = await gated();
    const body = 'text=help';
    const forged = await fetch(`${base}/slack/events`, {
      method: 'POST',
      body,
      headers: signSlackRequest(`${SECRET}-forged`, body),
    });
    expect(forged.status).toBe(401);
    expect(await forged.text()).toMatch(/signature does not match/);
    // The forged copy claimed nothing: the genuine request is still admitted.
    const genuine = await fetch(`${base}/slack/events`, {
      method: 'POST',
      body,
      headers: signSlackRequest(SECRET, body),
    });
    expect(genuine.status).toBe(200);
    expect(reached).toHaveLength(1);
  });
});

describe('the signing headers', () => {
  const now = nowSeconds();
  const sig = `v0=${'a'.repeat(64)}`;
  it.each([
    [{ 'x-slack-signature': sig }, /missing or malformed X-Slack-Request-Timestamp/],
    [{ 'x-slack-request-timestamp': '1e9', 'x-slack-signature': sig }, /malformed X-Slack-Request-Timestamp/],
    [{ 'x-slack-request-timestamp': String(now - 301), 'x-slack-signature': sig }, /more than 300 s old/],
    [{ 'x-slack-request-timestamp': String(now + 61), 'x-slack-signature': sig }, /more than 60 s in the future/],
    [{ 'x-slack-request-timestamp': String(now) }, /missing or malformed X-Slack-Signature/],
    [{ 'x-slack-request-timestamp': String(now), 'x-slack-signature': 'v1=abc' }, /malformed X-Slack-Signature/],
  ])('refuses %o', (headers, reason) => {
    const check = checkSigningHeaders(headers, now);
    expect(check.ok).toBe(false);
    expect(check.ok ? '' : check.reason).toMatch(reason);
  });

  it('accepts a timestamp within five minutes behind and one minute ahead', () => {
    for (const ts of [now - 300, now, now + 60])
      expect(checkSigningHeaders({ 'x-slack-request-timestamp': String(ts), 'x-slack-signature': sig }, now)).toEqual({
        ok: true,
        signed: { timestamp: ts, signature: sig },
      });
  });
});
