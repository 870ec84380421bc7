// chat.delete in the simulated Slack, as node-slack-sdk's web-api types it (ChatDeleteResponse: ok, channel, ts; the
// errors message_not_found, cant_delete_message, channel_not_found): the message leaves history and its thread; a
// deleted parent with replies stays as a tombstone heading them.
import { describe, expect, it } from 'vitest';
import { client, OPS, sim, slackError, useSlackWeb } from '../support/slack-web.js';

useSlackWeb();

describe('chat.delete (ChatDeleteResponse)', () => {
  it('answers channel and ts, and the message is gone from history and from what the test sees', async () => {
    const web = client();
    const kept = await web.chat.postMessage({ channel: OPS, text: 'kept' });
    const gone = await web.chat.postMessage({ channel: OPS, text: 'duplicate' });
    const deleted: string[] = [];
    sim.on('message', (e) => e.kind === 'deleted' && deleted.push(e.message.ts));
    expect(await web.chat.delete({ channel: OPS, ts: gone.ts! })).toMatchObject({
      ok: true,
      channel: OPS,
      ts: gone.ts,
    });
    expect(deleted).toEqual([gone.ts]);
    const history = await web.conversations.history({ channel: OPS });
    expect(history.messages?.map((m) => m.text)).toEqual(['kept']);
    expect(sim.messages(OPS).map((m) => m.ts)).toEqual([kept.ts]);
    // Deleting it again: Slack no longer has it.
    expect(await slackError(web.chat.delete({ channel: OPS, ts: gone.ts! }))).toMatchObject({
      error: 'message_not_found',
    });
  });

  it("refuses someone else's message (cant_delete_message) and an unknown channel (channel_not_found)", async () => {
    const web = client();
    const theirs = sim.postAsUser(OPS, 'U0ALICE', 'mine, not the bot’s');
    expect(await slackError(web.chat.delete({ channel: OPS, ts: theirs.ts }))).toMatchObject({
      error: 'cant_delete_message',
    });
    expect(sim.messages(OPS)).toHaveLength(1);
    expect(await slackError(web.chat.delete({ channel: 'C0NOWHERE', ts: theirs.ts }))).toMatchObject({
      error: 'channel_not_found',
    });
  });

  it('a reply leaves its thread (the counts follow); a parent with replies becomes a tombstone, gone with the last', async () => {
    const web = client();
    const parent = await web.chat.postMessage({ channel: OPS, text: 'card' });
    const r1 = await web.chat.postMessage({ channel: OPS, text: 'one', thread_ts: parent.ts! });
    const r2 = await web.chat.postMessage({ channel: OPS, text: 'two', thread_ts: parent.ts! });
    await web.chat.delete({ channel: OPS, ts: r2.ts! });
    const thread = await web.conversations.replies({ channel: OPS, ts: parent.ts! });
    expect(thread.messages?.map((m) => m.text)).toEqual(['card', 'one']);
    expect(thread.messages?.[0]).toMatchObject({ reply_count: 1, latest_reply: r1.ts });

    await web.chat.delete({ channel: OPS, ts: parent.ts! });
    const headed = await web.conversations.replies({ channel: OPS, ts: parent.ts! });
    expect(headed.messages?.[0]).toMatchObject({
      subtype: 'tombstone',
      text: 'This message was deleted.',
      reply_count: 1,
    });
    expect(headed.messages?.map((m) => m.ts)).toEqual([parent.ts, r1.ts]);
    expect(await slackError(web.chat.delete({ channel: OPS, ts: parent.ts! }))).toMatchObject({
      error: 'message_not_found',
    });
    await web.chat.delete({ channel: OPS, ts: r1.ts! });
    expect(sim.messages(OPS)).toEqual([]);
  });
});
