// The simulated Slack Web API driven by the real WebClient: message, thread and permalink shapes, response_url
// and waiting on events (errors and faults: slack-sim-errors.test.ts; Block Kit limits: slack-sim-blocks.test.ts).
import { describe, expect, it } from 'vitest';
import { actions, button, client, OPS, section, sim, times, useSlackWeb } from '../support/slack-web.js';
import type { SimEphemeral } from '../../src/slack-api.js';

useSlackWeb();

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

  it("treats a slash command's ack as the response_url's original: replace_original and delete_original act on it", async () => {
    const post = (url: string, body: Record<string, unknown>) =>
      fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const refused = sim.responseUrl('cmd-refused', { channel: OPS, user: 'U0ALICE' });
    const shown = sim.commandAck(refused, { text: 'Working on `scale`…' }, '/flink scale x 3') as SimEphemeral;
    expect(shown).toMatchObject({ source: 'command', command: '/flink scale x 3', user: 'U0ALICE' });
    expect((await post(refused, { text: 'no such target', replace_original: true })).status).toBe(200);
    expect(sim.ephemerals(OPS, 'U0ALICE').map((e) => [e.ts, e.text])).toEqual([[shown.ts, 'no such target']]);

    const carded = sim.responseUrl('cmd-card', { channel: OPS, user: 'U0ALICE' });
    sim.commandAck(carded, { text: 'Working on `restart`…' });
    const gone = sim.waitFor(() => sim.ephemerals(OPS).length === 1);
    expect((await post(carded, { delete_original: true })).status).toBe(200);
    await gone;
    expect(sim.ephemerals(OPS, 'U0ALICE').map((e) => e.text)).toEqual(['no such target']);
    // Slack shows the ack before any reply to its url: an ack arriving after the delete is not shown.
    const early = sim.responseUrl('cmd-early', { channel: OPS, user: 'U0ALICE' });
    expect((await post(early, { delete_original: true })).status).toBe(200);
    expect(sim.commandAck(early, { text: 'Working on `restart`…' })).toBe('superseded');
    expect(sim.ephemerals(OPS, 'U0ALICE')).toHaveLength(1);
    // A url not issued here has no ack to act on.
    expect(sim.commandAck('https://hooks.slack.com/commands/T0/1/x', { text: 'x' })).toBeUndefined();
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

  it('waitFor resolves on the event that makes the predicate true; giving up, it names what and the last calls', async () => {
    const seen = sim.waitFor(() => sim.messages(OPS).find((m) => m.text === 'hello'));
    await client().chat.postMessage({ channel: OPS, text: 'hello' });
    await expect(seen).resolves.toMatchObject({ text: 'hello', user: 'U0SIMBOT' });
    await expect(sim.waitFor(() => sim.calls.length > 99, 50, '100 calls')).rejects.toThrow(
      'gave up on 100 calls after 50 ms (1 calls recorded, the last: chat.postMessage)',
    );
  });
});
