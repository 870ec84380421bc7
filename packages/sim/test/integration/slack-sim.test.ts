// The simulated Slack Web API driven by the real WebClient: shapes, errors, Block Kit limits, rate limits, faults.
import { webApi } from '@slack/bolt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BLOCK_KIT_LIMITS as L, startSimSlack, type SimSlack, type SimSlackOptions } from '../../src/slack-api.js';

const TOKEN = 'xoxb-sim-test';
const OPS = 'C0OPS';
const T0 = 1_767_326_126_000;
const silent: webApi.Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  setLevel: () => undefined,
  getLevel: () => webApi.LogLevel.ERROR,
  setName: () => undefined,
};

let sim: SimSlack;
let clock: number | undefined;

async function start(extra: SimSlackOptions = {}): Promise<void> {
  sim = await startSimSlack({
    botToken: TOKEN,
    users: [
      { id: 'U0ALICE', name: 'alice' },
      { id: 'U0BOB', name: 'bob', real_name: 'Bob B' },
      { id: 'U0CAROL', name: 'carol' },
    ],
    channels: [
      { id: OPS, name: 'ops', members: ['U0ALICE', 'U0BOB'] },
      { id: 'C0NOBOT', name: 'elsewhere', botMember: false },
      { id: 'C0OTHER', name: 'other' },
    ],
    usergroups: [{ id: 'S0LEADS', handle: 'leads', users: ['U0ALICE', 'U0BOB'] }],
    chatPostMessagePerChannelPerSecond: Infinity,
    now: () => clock ?? Date.now(),
    ...extra,
  });
}

function client(opts: webApi.WebClientOptions = {}, token = TOKEN): webApi.WebClient {
  return new webApi.WebClient(token, { slackApiUrl: sim.apiUrl, retryConfig: { retries: 0 }, logger: silent, ...opts });
}

/** The `data` of the Slack platform error the call must fail with. */
async function slackError(call: Promise<unknown>): Promise<Record<string, unknown>> {
  const error: unknown = await call.then(
    () => new Error('expected the call to fail'),
    (e: unknown) => e,
  );
  expect(error).toMatchObject({ code: webApi.ErrorCode.PlatformError });
  return (error as { data: Record<string, unknown> }).data;
}

const section = (text: string, extra: Record<string, unknown> = {}) => ({
  type: 'section',
  text: { type: 'mrkdwn', text },
  ...extra,
});
const button = (extra: Record<string, unknown> = {}) => ({
  type: 'button',
  text: { type: 'plain_text', text: 'Go' },
  action_id: 'go',
  ...extra,
});
const actions = (elements: unknown[]) => ({ type: 'actions', elements });
const times = <T>(n: number, make: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => make(i));

beforeEach(async () => {
  clock = undefined;
  await start();
});
afterEach(async () => {
  await sim.close();
});

describe('messages, threads and permalinks', () => {
  it('posts, threads, edits and reads back like Slack', async () => {
    const web = client();
    const auth = await web.auth.test();
    expect(auth).toMatchObject({ ok: true, user_id: 'U0SIMBOT', bot_id: 'B0SIMBOT', team_id: 'T0SIM' });

    const parent = await web.chat.postMessage({ channel: OPS, text: 'card', blocks: [section('*State:* QUEUED')] });
    expect(parent.ts).toMatch(/^\d{10}\.\d{6}$/);
    expect(parent).toMatchObject({
      ok: true,
      channel: OPS,
      message: { text: 'card', bot_id: 'B0SIMBOT', user: 'U0SIMBOT' },
    });
    const r1 = await web.chat.postMessage({ channel: OPS, text: 'submitted', thread_ts: parent.ts! });
    const r2 = await web.chat.postMessage({ channel: OPS, text: 'done', thread_ts: r1.ts!, reply_broadcast: true });
    expect([parent.ts, r1.ts, r2.ts].map(Number)).toEqual([parent.ts, r1.ts, r2.ts].map(Number).sort());
    expect(new Set([parent.ts, r1.ts, r2.ts]).size).toBe(3);

    const edited = await web.chat.update({
      channel: OPS,
      ts: parent.ts!,
      text: 'card v2',
      blocks: [section('*State:* COMPLETED')],
    });
    expect(edited).toMatchObject({ ok: true, channel: OPS, ts: parent.ts, text: 'card v2' });

    const thread = await web.conversations.replies({ channel: OPS, ts: parent.ts! });
    expect(thread.messages?.map((m) => m.text)).toEqual(['card v2', 'submitted', 'done']);
    expect(thread.messages?.[0]).toMatchObject({ reply_count: 2, thread_ts: parent.ts, latest_reply: r2.ts });
    expect(thread.messages?.[2]).toMatchObject({
      thread_ts: parent.ts,
      parent_user_id: 'U0SIMBOT',
      subtype: 'thread_broadcast',
    });
    expect(sim.messages(OPS).map((m) => m.text)).toEqual(['card v2', 'done']);
    expect(sim.messages(OPS)[0]).toMatchObject({
      blocks: [section('*State:* COMPLETED')],
      edited: { user: 'U0SIMBOT' },
    });
    expect(sim.replies(OPS, parent.ts!).map((m) => m.ts)).toEqual([parent.ts, r1.ts, r2.ts]);

    const link = await web.chat.getPermalink({ channel: OPS, message_ts: parent.ts! });
    expect(link.permalink).toBe(`https://sandbox.slack.com/archives/${OPS}/p${parent.ts!.replace('.', '')}`);
    const replyLink = await web.chat.getPermalink({ channel: OPS, message_ts: r1.ts! });
    expect(replyLink.permalink).toContain(`?thread_ts=${parent.ts}&cid=${OPS}`);
  });

  it('stores metadata and returns it only with include_all_metadata', async () => {
    const web = client();
    const metadata = { event_type: 'flink_chatops', event_payload: { op: 'op-abc123', seq: 3 } };
    const parent = await web.chat.postMessage({ channel: OPS, text: 'card' });
    await web.chat.postMessage({ channel: OPS, text: 'reply', thread_ts: parent.ts!, metadata });
    const plain = await web.conversations.replies({ channel: OPS, ts: parent.ts! });
    const full = await web.conversations.replies({ channel: OPS, ts: parent.ts!, include_all_metadata: true });
    expect(plain.messages?.[1]?.metadata).toBeUndefined();
    expect(full.messages?.[1]?.metadata).toEqual(metadata);
    const top = await web.conversations.history({ channel: OPS, include_all_metadata: true });
    expect(top.messages?.map((m) => m.text)).toEqual(['card']);
    expect(sim.replies(OPS, parent.ts!)[1]?.metadata).toEqual(metadata);
  });

  it('pages conversations.history newest first with cursors', async () => {
    const web = client();
    for (const n of [1, 2, 3, 4, 5]) await web.chat.postMessage({ channel: OPS, text: `m${n}` });
    const first = await web.conversations.history({ channel: OPS, limit: 2 });
    expect(first.messages?.map((m) => m.text)).toEqual(['m5', 'm4']);
    expect(first.has_more).toBe(true);
    const second = await web.conversations.history({
      channel: OPS,
      limit: 2,
      cursor: first.response_metadata?.next_cursor,
    });
    expect(second.messages?.map((m) => m.text)).toEqual(['m3', 'm2']);
  });

  it('answers ephemerals, reactions, users, channels and user groups', async () => {
    const web = client();
    const eph = await web.chat.postEphemeral({ channel: OPS, user: 'U0ALICE', text: 'only you' });
    expect(eph.message_ts).toMatch(/^\d+\.\d{6}$/);
    expect(sim.ephemerals(OPS, 'U0ALICE').map((e) => e.text)).toEqual(['only you']);
    const posted = await web.chat.postMessage({ channel: OPS, text: 'x' });
    await web.reactions.add({ channel: OPS, timestamp: posted.ts!, name: 'white_check_mark' });
    expect(sim.messages(OPS)[0]?.reactions).toEqual([{ name: 'white_check_mark', users: ['U0SIMBOT'], count: 1 }]);
    expect((await web.users.info({ user: 'U0BOB' })).user).toMatchObject({
      id: 'U0BOB',
      name: 'bob',
      real_name: 'Bob B',
    });
    expect((await web.conversations.info({ channel: OPS })).channel).toMatchObject({
      id: OPS,
      name: 'ops',
      is_member: true,
    });
    expect((await web.usergroups.users.list({ usergroup: 'S0LEADS' })).users).toEqual(['U0ALICE', 'U0BOB']);
  });
});

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

describe('Block Kit validation', () => {
  const invalid: [string, unknown[], string][] = [
    [
      'too many blocks',
      times(L.blocksPerMessage + 1, () => ({ type: 'divider' })),
      `no more than ${L.blocksPerMessage} items allowed [json-pointer:/blocks]`,
    ],
    [
      'section text',
      [section('x'.repeat(L.sectionText + 1))],
      `must be less than ${L.sectionText + 1} characters [json-pointer:/blocks/0/text/text]`,
    ],
    [
      'section fields',
      [{ type: 'section', fields: times(11, () => ({ type: 'mrkdwn', text: 'f' })) }],
      'no more than 10 items allowed [json-pointer:/blocks/0/fields]',
    ],
    [
      'field text',
      [{ type: 'section', fields: [{ type: 'mrkdwn', text: 'x'.repeat(2001) }] }],
      'must be less than 2001 characters [json-pointer:/blocks/0/fields/0/text]',
    ],
    [
      'header text',
      [{ type: 'header', text: { type: 'plain_text', text: 'x'.repeat(151) } }],
      'must be less than 151 characters [json-pointer:/blocks/0/text/text]',
    ],
    [
      'header mrkdwn',
      [{ type: 'header', text: { type: 'mrkdwn', text: 'x' } }],
      'must be a valid enum value [json-pointer:/blocks/0/text/type]',
    ],
    [
      'context elements',
      [{ type: 'context', elements: times(11, () => ({ type: 'mrkdwn', text: 'c' })) }],
      'no more than 10 items allowed [json-pointer:/blocks/0/elements]',
    ],
    [
      'actions elements',
      [actions(times(26, (i) => button({ action_id: `a${i}` })))],
      'no more than 25 items allowed [json-pointer:/blocks/0/elements]',
    ],
    [
      'button text',
      [actions([button({ text: { type: 'plain_text', text: 'x'.repeat(76) } })])],
      'must be less than 76 characters [json-pointer:/blocks/0/elements/0/text/text]',
    ],
    [
      'button value',
      [actions([button({ value: 'x'.repeat(2001) })])],
      'must be less than 2001 characters [json-pointer:/blocks/0/elements/0/value]',
    ],
    [
      'button url',
      [actions([button({ url: 'x'.repeat(3001) })])],
      'must be less than 3001 characters [json-pointer:/blocks/0/elements/0/url]',
    ],
    [
      'block_id length',
      [section('x', { block_id: 'b'.repeat(256) })],
      'must be less than 256 characters [json-pointer:/blocks/0/block_id]',
    ],
    [
      'action_id length',
      [actions([button({ action_id: 'a'.repeat(256) })])],
      'must be less than 256 characters [json-pointer:/blocks/0/elements/0/action_id]',
    ],
    [
      'duplicate block_id',
      [section('x', { block_id: 'b' }), { type: 'divider', block_id: 'b' }],
      'duplicate block_id: b [json-pointer:/blocks/1/block_id]',
    ],
    ['unknown block type', [{ type: 'carousel' }], 'unsupported block type: carousel [json-pointer:/blocks/0/type]'],
    ['section without text', [{ type: 'section' }], 'missing required field: text [json-pointer:/blocks/0]'],
    [
      'extra property',
      [{ type: 'divider', style: 'bold' }],
      'invalid additional property: style [json-pointer:/blocks/0]',
    ],
  ];

  it.each(invalid)('refuses %s with invalid_blocks', async (_name, blocks, message) => {
    const data = await slackError(
      client().chat.postMessage({ channel: OPS, text: 'x', blocks: blocks as webApi.KnownBlock[] }),
    );
    expect(data).toMatchObject({ error: 'invalid_blocks', errors: [message] });
  });

  it('accepts every limit exactly', async () => {
    const atLimits = [
      { type: 'header', text: { type: 'plain_text', text: 'h'.repeat(L.headerText) } },
      section('s'.repeat(L.sectionText), { block_id: 'b'.repeat(L.blockId) }),
      actions(
        times(L.actionsElements, (i) =>
          button({
            action_id: `a${i}`,
            value: i === 0 ? 'v'.repeat(L.buttonValue) : 'v',
            text: { type: 'plain_text', text: 't'.repeat(L.buttonText) },
          }),
        ),
      ),
      ...times(L.blocksPerMessage - 3, () => ({ type: 'divider' })),
    ];
    await expect(
      client().chat.postMessage({ channel: OPS, text: 'x', blocks: atLimits as webApi.KnownBlock[] }),
    ).resolves.toMatchObject({ ok: true });
  });

  it('refuses a message whose blocks sum past ~13k characters with msg_blocks_too_long', async () => {
    const web = client();
    const blocks = (n: number) => times(n, () => section('x'.repeat(2900))) as webApi.KnownBlock[];
    await expect(web.chat.postMessage({ channel: OPS, text: 'x', blocks: blocks(4) })).resolves.toMatchObject({
      ok: true,
    });
    expect((await slackError(web.chat.postMessage({ channel: OPS, text: 'x', blocks: blocks(5) }))).error).toBe(
      'msg_blocks_too_long',
    );
    const posted = sim.messages(OPS)[0]!;
    expect(
      (await slackError(web.chat.update({ channel: OPS, ts: posted.ts, text: 'x', blocks: blocks(5) }))).error,
    ).toBe('msg_blocks_too_long');
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
    clock = T0;
    await start({ rateLimits: { 'chat.update': 2 } });
    const web = client({ rejectRateLimitedCalls: true });
    const { ts } = await web.chat.postMessage({ channel: OPS, text: 'card' });
    await web.chat.update({ channel: OPS, ts: ts!, text: 'v1' });
    clock = T0 + 20_000;
    await web.chat.update({ channel: OPS, ts: ts!, text: 'v2' });
    await expect(web.chat.update({ channel: OPS, ts: ts!, text: 'v3' })).rejects.toMatchObject({ retryAfter: 40 });
    clock = T0 + 60_001;
    await expect(web.chat.update({ channel: OPS, ts: ts!, text: 'v4' })).resolves.toMatchObject({ ok: true });
    expect(sim.messages(OPS)[0]?.text).toBe('v4');
  });

  it('paces chat.postMessage per channel: a burst of 3, then 1/s', async () => {
    await sim.close();
    clock = T0;
    await start({ chatPostMessagePerChannelPerSecond: 1 });
    const web = client({ rejectRateLimitedCalls: true });
    for (const n of [1, 2, 3]) await web.chat.postMessage({ channel: OPS, text: `m${n}` });
    await expect(web.chat.postMessage({ channel: OPS, text: 'm4' })).rejects.toMatchObject({ retryAfter: 1 });
    await expect(web.chat.postMessage({ channel: 'C0OTHER', text: 'elsewhere' })).resolves.toMatchObject({ ok: true });
    clock = T0 + 1000;
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

describe('response_url and events', () => {
  it('accepts 5 uses, ephemeral to the command user, then refuses with used_url', async () => {
    const url = sim.responseUrl('cmd-1', { channel: OPS, user: 'U0ALICE' });
    const post = (text: string) =>
      fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text }) });
    const statuses: number[] = [];
    for (const n of [1, 2, 3, 4, 5, 6]) statuses.push((await post(`r${n}`)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 404]);
    expect(sim.responses.map((r) => [r.use, r.error])).toEqual([
      ...times(5, (i) => [i + 1, undefined]),
      [6, 'used_url'],
    ]);
    expect(sim.ephemerals(OPS, 'U0ALICE')).toHaveLength(5);
    expect(sim.ephemerals(OPS, 'U0BOB')).toEqual([]);
    expect(sim.messages(OPS)).toEqual([]);
  });

  it('replaces the clicked message on replace_original and posts in_channel replies', async () => {
    const card = await client().chat.postMessage({ channel: OPS, text: 'approve?', blocks: [actions([button()])] });
    const url = sim.responseUrl(undefined, { channel: OPS, user: 'U0BOB', messageTs: card.ts });
    const post = (body: object) =>
      fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await post({ replace_original: true, text: 'approved' })).status).toBe(200);
    expect((await post({ response_type: 'in_channel', text: 'public' })).status).toBe(200);
    expect(sim.messages(OPS).map((m) => [m.text, m.blocks])).toEqual([
      ['approved', []],
      ['public', undefined],
    ]);
  });

  it('waitFor resolves on the event that makes the predicate true', async () => {
    const seen = sim.waitFor(() => sim.messages(OPS).find((m) => m.text === 'hello'));
    await client().chat.postMessage({ channel: OPS, text: 'hello' });
    await expect(seen).resolves.toMatchObject({ text: 'hello', user: 'U0SIMBOT' });
    await expect(sim.waitFor(() => sim.calls.length > 99, 50)).rejects.toThrow(/gave up after 50 ms/);
  });
});
