// The ack's "Working on …" bubble leaves one message per outcome (docs/lifecycle.md#the-ack): a refusal takes its
// place, a posted card deletes it, and queries (acked empty) are answered with a new private message.
import { expect, it } from 'vitest';
import { USERS, useBotEnvs } from '../support/bot-env.js';

const bots = useBotEnvs();

it('a refused operation command: the refusal replaces the bubble, which stays the only message', async () => {
  const e = await bots.start();
  const sent = await e.command('scale streaming-prod/nowhere 3 --reason "typo"', USERS.alice);
  expect(JSON.parse(sent.body)).toEqual({ response_type: 'ephemeral', text: 'Working on `scale`…' });
  const reply = await sent.reply();
  expect(reply.body.replace_original).toBe(true);
  const shown = await e.sim.waitFor(() => {
    const mine = e.sim.ephemerals(e.channel, USERS.alice);
    return mine.length === 1 && !mine[0]?.text.startsWith('Working on') ? mine : undefined;
  });
  expect(shown[0]?.source).toBe('command');
  expect(shown[0]?.text).toContain('nowhere');
});

it('an operation that gets its card: the bubble is deleted once the card is posted', async () => {
  const e = await bots.start();
  const record = await e.request('scale streaming-dev/orders 3', USERS.bob);
  expect(record.card?.ts).toBeDefined();
  await e.sim.waitFor(() => e.sim.ephemerals(e.channel, USERS.bob).length === 0);
  const deleted = e.sim.responses.filter((r) => JSON.stringify(r.body).includes('"delete_original":true'));
  expect(deleted).toHaveLength(1);
  expect(e.sim.messages(e.channel).filter((m) => m.text.includes(record.id))).toHaveLength(1);
});

it('a query is acked empty: its answer is a new private message, not a replacement', async () => {
  const e = await bots.start();
  const sent = await e.command('help', USERS.alice);
  expect(sent.body).toBe('');
  const reply = await sent.reply();
  expect(reply.body.replace_original).toBeUndefined();
  expect(e.sim.ephemerals(e.channel, USERS.alice).map((m) => m.source)).toEqual(['response_url']);
});
