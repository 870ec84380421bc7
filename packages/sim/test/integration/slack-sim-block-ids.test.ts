// Slack names every block the app left unnamed (docs/development.md#block-ids-as-slack-fills-them-in): chat.postMessage,
// chat.update, chat.postEphemeral, response_url replies and views.publish keep the app's ids and fill in the rest.
import { describe, expect, it } from 'vitest';
import { actions, button, client, OPS, section, sim, useSlackWeb } from '../support/slack-web.js';

useSlackWeb();

const ids = (blocks: unknown): unknown[] => (blocks as { block_id?: unknown }[]).map((b) => b.block_id);
const generatedId = expect.stringMatching(/^[A-Za-z0-9]{5}$/);

describe('block ids, as Slack fills them in', () => {
  it('chat.postMessage fills in a missing block_id, keeps a given one, and stores what it echoes', async () => {
    const blocks = [
      section('regressed'),
      actions([button({ action_id: 'flink_ops_undo' })]),
      section('x', { block_id: 'mine' }),
    ];
    const posted = await client().chat.postMessage({ channel: OPS, text: 'regressed', blocks });
    expect(ids(posted.message?.blocks)).toEqual([generatedId, generatedId, 'mine']);
    const [first, second] = ids(posted.message?.blocks);
    expect(first).not.toBe(second);
    expect(ids(sim.messages(OPS)[0]?.blocks)).toEqual(ids(posted.message?.blocks));
  });

  it('chat.update, chat.postEphemeral, response_url and views.publish fill them in too', async () => {
    const web = client();
    const posted = await web.chat.postMessage({ channel: OPS, text: 'card' });
    await web.chat.update({ channel: OPS, ts: posted.ts ?? '', text: 'card', blocks: [actions([button()])] });
    expect(ids(sim.messages(OPS)[0]?.blocks)).toEqual([generatedId]);

    await web.chat.postEphemeral({ channel: OPS, user: 'U0ALICE', text: 'p', blocks: [section('p')] });
    const url = sim.responseUrl(undefined, { channel: OPS, user: 'U0BOB' });
    const reply = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'r', blocks: [section('r')] }),
    });
    expect(reply.status).toBe(200);
    expect(ids(sim.ephemerals(OPS, 'U0ALICE')[0]?.blocks)).toEqual([generatedId]);
    expect(ids(sim.ephemerals(OPS, 'U0BOB')[0]?.blocks)).toEqual([generatedId]);

    await web.views.publish({ user_id: 'U0ALICE', view: { type: 'home', blocks: [section('home')] } as never });
    expect(ids(sim.homeView('U0ALICE')?.view.blocks)).toEqual([generatedId]);
  });
});
