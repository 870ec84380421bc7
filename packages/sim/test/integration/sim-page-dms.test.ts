// The sandbox page's direct messages: the page API shows the app's DMs to each person, streams them live, and sends
// a click on a DM's button to the bot as the same signed block_actions request as a click on a channel card.
import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { webApi } from '@slack/bolt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSimCluster, type SimCluster } from '../../src/kube/cluster.js';
import { startPageServer, type PageServer } from '../../src/page-server.js';
import type { PageState } from '../../src/page-state.js';
import { startSimSlack, type SimSlack } from '../../src/slack-api.js';
import { BOT, CHANNELS, TEAM, USERGROUPS, USERS } from '../../src/workspace.js';

const SECRET = 'page-dms-secret';
const DM = 'D0LEAD1';
const blocks = [
  { type: 'section', text: { type: 'mrkdwn', text: 'op-7 waits for your approval' } },
  {
    type: 'actions',
    block_id: 'approval:0123456789abcdef',
    elements: [
      { type: 'button', text: { type: 'plain_text', text: 'Approve' }, action_id: 'flink_ops_approve', value: 'op-7' },
    ],
  },
];

interface Received {
  body: string;
  signatureOk: boolean;
}

let slack: SimSlack;
let cluster: SimCluster;
let page: PageServer;
let bot: Server;
let client: webApi.WebClient;
const received: Received[] = [];

/** A stand-in for the bot's /slack/events: checks the signature, records the request, acks with 200. */
async function startBot(): Promise<string> {
  bot = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const ts = String(req.headers['x-slack-request-timestamp']);
      const expected = `v0=${createHmac('sha256', SECRET).update(`v0:${ts}:${body}`).digest('hex')}`;
      received.push({ body, signatureOk: req.headers['x-slack-signature'] === expected });
      res.writeHead(200).end();
    });
  });
  bot.listen(0, '127.0.0.1');
  await once(bot, 'listening');
  return `http://127.0.0.1:${(bot.address() as AddressInfo).port}/slack/events`;
}

beforeEach(async () => {
  received.length = 0;
  page = await startPageServer({ port: 0 });
  slack = await startSimSlack({
    users: [...USERS],
    channels: CHANNELS.map(({ topic: _t, ...c }) => c),
    usergroups: [...USERGROUPS],
    ...BOT,
    ...TEAM,
    permalinkBase: page.url,
  });
  cluster = await startSimCluster({ seed: 'none', speed: 'fast' });
  const botEventsUrl = await startBot();
  page.connect({
    slack,
    cluster,
    botEventsUrl,
    signingSecret: SECRET,
    command: '/flink',
    policy: undefined,
    policyFile: 'policy.yaml',
  });
  client = new webApi.WebClient('xoxb-page', { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
});
afterEach(async () => {
  await page.close();
  bot.close();
  await Promise.all([slack.close(), cluster.close()]);
});

const post = async (path: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> => {
  const res = await fetch(`${page.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
};
const state = async (): Promise<PageState> => (await (await fetch(`${page.url}/api/state`)).json()) as PageState;

/** Reads the page's event stream until an event's data contains `needle`. */
async function streamUntil(needle: string, trigger: () => Promise<unknown>): Promise<string> {
  const abort = new AbortController();
  const res = await fetch(`${page.url}/events`, { signal: abort.signal });
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  let triggered = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended before ${needle}`);
      text += decoder.decode(value, { stream: true });
      const events = text.split('\n\n');
      if (!triggered && events.some((e) => e.startsWith('event: state'))) {
        triggered = true;
        text = '';
        await trigger();
        continue;
      }
      const hit = events.find((e) => e.startsWith('event: message') && e.includes(needle));
      if (hit !== undefined) return hit;
    }
  } finally {
    abort.abort();
  }
}

describe('the sandbox page: direct messages', () => {
  it('the state carries each person’s DM with the app; other people’s DMs stay empty', async () => {
    await client.conversations.open({ users: 'U0LEAD1' });
    const posted = await client.chat.postMessage({ channel: DM, text: 'op-7 waits for your approval', blocks });
    const s = await state();
    expect(s.dmChannels.U0LEAD1).toBe(DM);
    expect(s.messages[DM]?.map((m) => m.ts)).toEqual([posted.ts]);
    expect(s.homes.U0LEAD1?.dms.map((m) => m.text)).toEqual(['op-7 waits for your approval']);
    expect(s.messages[s.dmChannels.U0ALICE ?? '']).toEqual([]);
  });

  it('streams a DM edit live on the page’s event stream', async () => {
    await client.conversations.open({ users: 'U0LEAD1' });
    const posted = await client.chat.postMessage({ channel: DM, text: 'op-7 waits for your approval', blocks });
    const event = await streamUntil('op-7 approved', () =>
      client.chat.update({ channel: DM, ts: posted.ts ?? '', text: 'op-7 approved', blocks: [] }),
    );
    expect(event).toContain(`"channel":"${DM}"`);
    expect(event).toContain('"kind":"updated"');
  });

  it('a click on a DM button reaches the bot signed, with the DM as channel and container; only its person may click', async () => {
    await client.conversations.open({ users: 'U0LEAD1' });
    const posted = await client.chat.postMessage({ channel: DM, text: 'op-7 waits for your approval', blocks });
    const click = {
      channel: DM,
      messageTs: posted.ts,
      actionId: 'flink_ops_approve',
      blockId: 'approval:0123456789abcdef',
      value: 'op-7',
    };
    const ok = await post('/api/action', { user: 'U0LEAD1', ...click });
    expect(ok).toMatchObject({ status: 200, json: { ok: true, status: 200 } });
    expect(received).toHaveLength(1);
    expect(received[0]?.signatureOk).toBe(true);
    const payload = JSON.parse(new URLSearchParams(received[0]?.body).get('payload') ?? '{}') as Record<
      string,
      unknown
    >;
    expect(payload).toMatchObject({
      type: 'block_actions',
      user: { id: 'U0LEAD1' },
      channel: { id: DM, name: 'directmessage' },
      container: { type: 'message', message_ts: posted.ts, channel_id: DM },
      message: { ts: posted.ts, blocks },
      actions: [{ action_id: 'flink_ops_approve', value: 'op-7', text: { text: 'Approve' } }],
    });

    expect((await post('/api/action', { user: 'U0ALICE', ...click })).status).toBe(403);
    expect((await post('/api/command', { user: 'U0LEAD1', channel: DM, text: '/flink help' })).status).toBe(403);
    expect(received).toHaveLength(1);
  });
  it('a button the app posted without a block_id is clicked with the id Slack gave its block (an Undo, say)', async () => {
    const undo = [
      { type: 'section', text: { type: 'mrkdwn', text: 'Regressed after the change' } },
      {
        type: 'actions',
        elements: [
          { type: 'button', text: { type: 'plain_text', text: 'Undo' }, action_id: 'flink_ops_undo', value: 'op-7' },
        ],
      },
    ];
    await client.conversations.open({ users: 'U0LEAD1' });
    const posted = await client.chat.postMessage({ channel: DM, text: 'Regressed after the change', blocks: undo });
    // What the page renders from: the stored message, block ids and all.
    const shown = (await state()).messages[DM]?.find((m) => m.ts === posted.ts);
    const blockId = (shown?.blocks?.[1] as { block_id?: string } | undefined)?.block_id ?? '';
    expect(blockId).toMatch(/^[A-Za-z0-9]{5}$/);
    const click = { channel: DM, messageTs: posted.ts, actionId: 'flink_ops_undo', blockId, value: 'op-7' };
    expect(await post('/api/action', { user: 'U0LEAD1', ...click })).toMatchObject({ status: 200, json: { ok: true } });
    const payload = JSON.parse(new URLSearchParams(received[0]?.body).get('payload') ?? '{}') as Record<
      string,
      unknown
    >;
    expect(payload).toMatchObject({
      actions: [{ action_id: 'flink_ops_undo', block_id: blockId, value: 'op-7', text: { text: 'Undo' } }],
    });
  });
});
