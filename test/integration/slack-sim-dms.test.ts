// The simulated Slack's direct messages: conversations.open, posting and editing in a `D…` channel, reading it
// back, and a button click on a DM copy as Slack sends it.
import { webApi } from '@slack/bolt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSimSlack, type SimSlack } from '@flink-chatops/sim/slack-api';
import { cardClickBody, messageClickBody } from '../support/slack.js';

const TOKEN = 'xoxb-sim-dms';
let sim: SimSlack;
let client: webApi.WebClient;

beforeEach(async () => {
  sim = await startSimSlack({
    botToken: TOKEN,
    users: [
      { id: 'U0ALICE', name: 'alice' },
      { id: 'U0BOB', name: 'bob' },
      { id: 'U0CAROL', name: 'carol' },
      { id: 'U0OTHERBOT', name: 'other', is_bot: true },
    ],
    channels: [{ id: 'C0OPS', name: 'ops' }],
    chatPostMessagePerChannelPerSecond: Infinity,
  });
  client = new webApi.WebClient(TOKEN, {
    slackApiUrl: sim.apiUrl,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
  });
});
afterEach(async () => {
  await sim.close();
});

const error = (args: Record<string, unknown>): Promise<unknown> =>
  client.apiCall('conversations.open', args).then(
    () => 'ok',
    (e: { data?: { error?: string } }) => e.data?.error,
  );

const approveButton = {
  type: 'button',
  text: { type: 'plain_text', text: 'Approve' },
  action_id: 'flink_ops_approve',
  value: 'op-1',
};
const dmBlocks = [
  { type: 'section', text: { type: 'mrkdwn', text: 'op-1 needs your approval' } },
  { type: 'actions', block_id: 'approval:0123456789abcdef', elements: [approveButton] },
];

describe('conversations.open', () => {
  it('opens one D channel per person, the same id every time', async () => {
    const first = await client.conversations.open({ users: 'U0ALICE' });
    expect(first).toMatchObject({ ok: true, channel: { id: 'D0ALICE' } });
    expect(first.already_open).toBeUndefined();
    const again = await client.conversations.open({ users: 'U0ALICE' });
    expect(again).toMatchObject({ ok: true, no_op: true, already_open: true, channel: { id: 'D0ALICE' } });
    const full = await client.conversations.open({ users: 'U0ALICE', return_im: true });
    expect(full.channel).toMatchObject({ id: 'D0ALICE', is_im: true, user: 'U0ALICE' });
    expect((await client.conversations.open({ channel: 'D0ALICE' })).channel?.id).toBe('D0ALICE');
    expect(sim.dmChannel('U0ALICE')).toBe('D0ALICE');
    expect(sim.dmChannel('U0BOB')).toBeUndefined();
    const info = await client.conversations.info({ channel: 'D0ALICE' });
    expect(info.channel).toMatchObject({ id: 'D0ALICE', is_im: true, user: 'U0ALICE' });
  });

  it('answers what Slack answers for missing, unknown and unsuitable arguments', async () => {
    expect(await error({})).toBe('users_list_not_supplied');
    expect(await error({ users: 'U0NOBODY' })).toBe('user_not_found');
    expect(await error({ users: 'U0ALICE,U0NOBODY' })).toBe('user_not_found');
    expect(await error({ users: 'U0OTHERBOT' })).toBe('cannot_dm_bot');
    expect(await error({ channel: 'C0OPS' })).toBe('method_not_supported_for_channel_type');
    expect(await error({ channel: 'D0NOBODY' })).toBe('channel_not_found');
    expect(await client.apiCall('conversations.open', { users: 'U0BOB', prevent_creation: true })).toMatchObject({
      ok: true,
      no_op: true,
    });
    expect(sim.dmChannel('U0BOB')).toBeUndefined();
  });

  it('opens a group DM for several people, once per set of people', async () => {
    const group = await client.conversations.open({ users: 'U0ALICE,U0BOB' });
    const again = await client.conversations.open({ users: 'U0BOB, U0ALICE' });
    expect(group.channel?.id).toMatch(/^G/);
    expect(again).toMatchObject({ already_open: true, channel: { id: group.channel?.id } });
    await client.chat.postMessage({ channel: group.channel?.id ?? '', text: 'to both' });
    expect(sim.messages(group.channel?.id ?? '').map((m) => m.text)).toEqual(['to both']);
  });
});

describe('posting in a DM', () => {
  it('posts, threads, edits and reads back in the D channel without joining it', async () => {
    const dm = (await client.conversations.open({ users: 'U0BOB' })).channel?.id ?? '';
    const posted = await client.chat.postMessage({
      channel: dm,
      text: 'op-1 needs you',
      blocks: dmBlocks,
      metadata: { event_type: 'flink_chatops', event_payload: { op: 'op-1', seq: 1 } },
    });
    expect(posted).toMatchObject({ ok: true, channel: dm });
    const ts = posted.ts ?? '';
    await client.chat.postMessage({ channel: dm, thread_ts: ts, text: 'reminder for op-1' });
    const updated = await client.chat.update({
      channel: dm,
      ts,
      text: 'op-1 approved by lena',
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'approved' } }],
    });
    expect(updated).toMatchObject({ ok: true, channel: dm, ts });

    const history = await client.conversations.history({ channel: dm, include_all_metadata: true });
    expect(history.messages?.map((m) => m.text)).toEqual(['op-1 approved by lena']);
    expect(history.messages?.[0]?.metadata).toMatchObject({ event_payload: { op: 'op-1' } });
    const replies = await client.conversations.replies({ channel: dm, ts });
    expect(replies.messages?.map((m) => m.text)).toEqual(['op-1 approved by lena', 'reminder for op-1']);
    const link = await client.chat.getPermalink({ channel: dm, message_ts: ts });
    expect(link.permalink).toContain(`/archives/${dm}/p`);

    expect(sim.dms('U0BOB').map((m) => [m.text, m.edited !== undefined])).toEqual([['op-1 approved by lena', true]]);
    expect(sim.messages(dm)).toEqual(sim.dms('U0BOB'));
    expect(sim.messages('U0BOB')).toEqual(sim.dms('U0BOB'));
    expect(sim.replies(dm, ts)).toHaveLength(2);
    expect(sim.dms('U0ALICE')).toEqual([]);
  });

  it('a DM channel is found only once opened; a user id as channel opens it', async () => {
    const refused = await client.chat
      .postMessage({ channel: 'D0CAROL', text: 'hi' })
      .catch((e: { data?: { error?: string } }) => e.data?.error);
    expect(refused).toBe('channel_not_found');
    await client.chat.postMessage({ channel: 'U0CAROL', text: 'hi' });
    expect(sim.dmChannel('U0CAROL')).toBe('D0CAROL');
    expect((await client.conversations.open({ users: 'U0CAROL' })).already_open).toBe(true);
    expect(sim.dms('U0CAROL').map((m) => m.text)).toEqual(['hi']);
  });
});

describe('a click in a DM', () => {
  it('carries the D channel, the message container and the message; its response_url edits the DM copy', async () => {
    const dm = (await client.conversations.open({ users: 'U0BOB' })).channel?.id ?? '';
    const posted = await client.chat.postMessage({ channel: dm, text: 'op-1 needs you', blocks: dmBlocks });
    const [message] = sim.dms('U0BOB');
    if (!message) throw new Error('no DM');
    const body = messageClickBody(
      sim,
      { channel: dm, ts: posted.ts ?? '', message: message as unknown as Record<string, unknown> },
      {
        user: 'U0BOB',
        actionId: 'flink_ops_approve',
        value: 'op-1',
        blockId: 'approval:0123456789abcdef',
        responseId: 'dm-click',
      },
    );
    const payload = JSON.parse(new URLSearchParams(body).get('payload') ?? '{}') as Record<string, unknown> & {
      response_url: string;
    };
    expect(payload).toMatchObject({
      type: 'block_actions',
      user: { id: 'U0BOB' },
      channel: { id: dm, name: 'directmessage' },
      container: { type: 'message', message_ts: posted.ts, channel_id: dm },
      message: { ts: posted.ts, text: 'op-1 needs you' },
      actions: [{ action_id: 'flink_ops_approve', value: 'op-1', block_id: 'approval:0123456789abcdef' }],
    });
    const res = await fetch(payload.response_url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ replace_original: true, text: 'op-1: approved' }),
    });
    expect(res.status).toBe(200);
    expect(sim.dms('U0BOB').map((m) => m.text)).toEqual(['op-1: approved']);
  });

  it('cardClickBody clicks the same buttons on a DM copy of the card with `at`', async () => {
    const dm = (await client.conversations.open({ users: 'U0BOB' })).channel?.id ?? '';
    const posted = await client.chat.postMessage({ channel: dm, text: 'op-1', blocks: dmBlocks });
    const record = { id: 'op-1', card: { channel: 'C0OPS', ts: '1.000001' }, plan: { digest: '0123456789abcdef0123' } };
    const body = cardClickBody(sim, record, {
      user: 'U0BOB',
      actionId: 'flink_ops_approve',
      responseId: 'dm-card',
      at: { channel: dm, ts: posted.ts ?? '' },
    });
    const payload = JSON.parse(new URLSearchParams(body).get('payload') ?? '{}') as Record<string, unknown>;
    expect(payload).toMatchObject({
      channel: { id: dm },
      container: { message_ts: posted.ts, channel_id: dm },
      actions: [{ value: 'op-1' }],
    });
  });
});
