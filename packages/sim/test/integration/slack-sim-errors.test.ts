// The simulated Slack Web API's failure answers through the real WebClient: Slack's errors, tokens and body forms,
// rate limits (429 with Retry-After, per-minute windows, per-channel pacing) and injected faults.
import { webApi } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import {
  client,
  OPS,
  section,
  setClock,
  silent,
  sim,
  slackError,
  start,
  TOKEN,
  useSlackWeb,
} from '../support/slack-web.js';

const T0 = 1_767_326_126_000;

useSlackWeb();

describe('errors', () => {
  it.each([
    ['not_in_channel', (w: webApi.WebClient) => w.chat.postMessage({ channel: 'C0NOBOT', text: 'x' })],
    ['channel_not_found', (w: webApi.WebClient) => w.chat.postMessage({ channel: 'C0NOPE', text: 'x' })],
    ['no_text', (w: webApi.WebClient) => w.apiCall('chat.postMessage', { channel: OPS })],
    ['msg_too_long', (w: webApi.WebClient) => w.chat.postMessage({ channel: OPS, text: 'x'.repeat(40_001) })],
    [
      'invalid_metadata_schema',
      (w: webApi.WebClient) =>
        w.apiCall('chat.postMessage', { channel: OPS, text: 'x', metadata: { event_type: 'e' } }),
    ],
    ['message_not_found', (w: webApi.WebClient) => w.chat.update({ channel: OPS, ts: '1.000001', text: 'x' })],
    ['thread_not_found', (w: webApi.WebClient) => w.conversations.replies({ channel: OPS, ts: '1.000001' })],
    [
      'user_not_in_channel',
      (w: webApi.WebClient) => w.chat.postEphemeral({ channel: OPS, user: 'U0CAROL', text: 'x' }),
    ],
    ['user_not_found', (w: webApi.WebClient) => w.users.info({ user: 'U0NOBODY' })],
    ['no_such_subteam', (w: webApi.WebClient) => w.usergroups.users.list({ usergroup: 'S0NOPE' })],
    ['unknown_method', (w: webApi.WebClient) => w.apiCall('chat.nonsense', {})],
  ])('%s', async (expected, call) => {
    const data = await slackError(call(client()));
    expect(data.error).toBe(expected);
    expect(sim.calls.at(-1)?.response).toMatchObject({ ok: false, error: expected });
    expect(sim.messages(OPS)).toEqual([]);
  });

  it('refuses other tokens, and edits of messages the bot did not post', async () => {
    expect((await slackError(client({}, 'xoxb-someone-else').auth.test())).error).toBe('invalid_auth');
    const human = sim.postAsUser(OPS, 'U0ALICE', 'hi');
    expect((await slackError(client().chat.update({ channel: OPS, ts: human.ts, text: 'x' }))).error).toBe(
      'cant_update_message',
    );
  });

  it('takes form bodies with the token inside and JSON bodies with a Bearer header', async () => {
    const form = await fetch(`${sim.apiUrl}chat.postMessage`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: TOKEN, channel: OPS, text: 'form' }).toString(),
    });
    const json = await fetch(`${sim.apiUrl}chat.postMessage`, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ channel: OPS, text: 'json', blocks: [section('b')] }),
    });
    const none = await fetch(`${sim.apiUrl}auth.test`, { method: 'POST' });
    expect([await form.json(), await json.json(), await none.json()]).toMatchObject([
      { ok: true },
      { ok: true },
      { ok: false, error: 'not_authed' },
    ]);
    expect(sim.messages(OPS).map((m) => m.text)).toEqual(['form', 'json']);
    expect(sim.calls[1]?.args).toMatchObject({ blocks: [section('b')] });
    expect(sim.calls.every((c) => !('token' in c.args))).toBe(true);
  });
});

describe('rate limits and faults', () => {
  it('answers 429 with Retry-After: rejected with rejectRateLimitedCalls, retried after the wait by default', async () => {
    sim.faults.rateLimit('chat.postMessage', { times: 1, retryAfterSec: 1 });
    const error: unknown = await client({ rejectRateLimitedCalls: true })
      .chat.postMessage({ channel: OPS, text: 'a' })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: webApi.ErrorCode.RateLimitedError, retryAfter: 1 });
    expect(sim.messages(OPS)).toEqual([]);

    sim.faults.rateLimit('chat.postMessage', { times: 1, retryAfterSec: 1 });
    const started = Date.now();
    const patient = new webApi.WebClient(TOKEN, { slackApiUrl: sim.apiUrl, logger: silent });
    await expect(patient.chat.postMessage({ channel: OPS, text: 'b' })).resolves.toMatchObject({ ok: true });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(sim.calls.map((c) => [c.status, c.fault])).toEqual([
      [429, 'ratelimited'],
      [429, 'ratelimited'],
      [200, undefined],
    ]);
    expect(sim.messages(OPS).map((m) => m.text)).toEqual(['b']);
  });

  it('limits a method per minute with a sliding window', async () => {
    await sim.close();
    setClock(T0);
    await start({ rateLimits: { 'chat.update': 2 } });
    const web = client({ rejectRateLimitedCalls: true });
    const { ts } = await web.chat.postMessage({ channel: OPS, text: 'card' });
    await web.chat.update({ channel: OPS, ts: ts!, text: 'v1' });
    setClock(T0 + 20_000);
    await web.chat.update({ channel: OPS, ts: ts!, text: 'v2' });
    await expect(web.chat.update({ channel: OPS, ts: ts!, text: 'v3' })).rejects.toMatchObject({ retryAfter: 40 });
    setClock(T0 + 60_001);
    await expect(web.chat.update({ channel: OPS, ts: ts!, text: 'v4' })).resolves.toMatchObject({ ok: true });
    expect(sim.messages(OPS)[0]?.text).toBe('v4');
  });

  it('paces chat.postMessage per channel: a burst of 3, then 1/s', async () => {
    await sim.close();
    setClock(T0);
    await start({ chatPostMessagePerChannelPerSecond: 1 });
    const web = client({ rejectRateLimitedCalls: true });
    for (const n of [1, 2, 3]) await web.chat.postMessage({ channel: OPS, text: `m${n}` });
    await expect(web.chat.postMessage({ channel: OPS, text: 'm4' })).rejects.toMatchObject({ retryAfter: 1 });
    await expect(web.chat.postMessage({ channel: 'C0OTHER', text: 'elsewhere' })).resolves.toMatchObject({ ok: true });
    setClock(T0 + 1000);
    await expect(web.chat.postMessage({ channel: OPS, text: 'm4' })).resolves.toMatchObject({ ok: true });
    expect(sim.messages(OPS)).toHaveLength(4);
  });

  it('timeoutNext applies the call but never answers it', async () => {
    sim.faults.timeoutNext('chat.postMessage');
    const error: unknown = await client({ timeout: 300 })
      .chat.postMessage({ channel: OPS, text: 'lost answer' })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: webApi.ErrorCode.RequestError });
    expect(sim.messages(OPS).map((m) => m.text)).toEqual(['lost answer']);
    expect(sim.calls[0]).toMatchObject({ method: 'chat.postMessage', fault: 'timeout', response: { ok: true } });
    await expect(client().chat.postMessage({ channel: OPS, text: 'next' })).resolves.toMatchObject({ ok: true });
  });

  it('failNext answers the given error once and applies nothing', async () => {
    sim.faults.failNext('chat.postMessage', 'not_in_channel');
    expect((await slackError(client().chat.postMessage({ channel: OPS, text: 'x' }))).error).toBe('not_in_channel');
    await client().chat.postMessage({ channel: OPS, text: 'y' });
    expect(sim.messages(OPS).map((m) => m.text)).toEqual(['y']);
    expect(() => sim.faults.failNext('chat.nope', 'x')).toThrow(/no method "chat.nope".*chat.postMessage/);
  });
});
