// Where `--incident` may mirror digests (docs/policy.md#incident-channels), through signed Slack requests against the
// simulated Slack's channel members: channels the requester is in or the policy names, at most three; otherwise
// refused privately, nothing recorded, nothing posted.
import { describe, expect, it } from 'vitest';
import { INCIDENTS, USERS, useBotEnvs, type BotEnv } from '../support/bot-env.js';

const bots = useBotEnvs();
/** A private channel with the bot in it but not alice; a public one alice is in; three more she is in. */
const SECRET_ROOM = 'C0SECRETROOM';
const WAR_ROOM = 'C0WARROOM';
const MORE = ['C0ROOMA', 'C0ROOMB', 'C0ROOMC'];

async function started(): Promise<BotEnv> {
  return bots.start({
    beforeBot: async (sim) => {
      sim.addChannel({ id: SECRET_ROOM, name: 'secret-room', is_private: true, members: [USERS.lead1] });
      sim.addChannel({ id: WAR_ROOM, name: 'war-room', members: [USERS.alice, USERS.lead1] });
      for (const id of MORE) sim.addChannel({ id, name: id.toLowerCase(), members: [USERS.alice] });
      return {};
    },
  });
}

const link = (id: string) => `--incident <#${id}|x>`;

describe('--incident', () => {
  it.each([
    ['a private channel the requester is not in', [SECRET_ROOM], 'you are not a member of it'],
    ['a channel the bot cannot see', ['C0NOSUCHROOM'], 'the bot cannot confirm you are a member of it'],
    ['more than three channels', [WAR_ROOM, ...MORE], '--incident takes at most 3 channels; you gave 4'],
  ])('refuses %s privately, records nothing and posts nowhere', async (_what, channels, message) => {
    const e = await started();
    const sent = await e.command(`restart streaming-dev/orders ${channels.map(link).join(' ')}`, USERS.alice);
    const reply = await sent.reply();
    expect(reply.text).toContain(message);
    expect(reply.body).toMatchObject({ response_type: 'ephemeral' });
    expect(await e.operationCount()).toBe(0);
    for (const channel of [e.channel, ...channels]) expect(e.sim.messages(channel)).toEqual([]);
  });

  it('mirrors into channels the requester is in and the ones the policy names', async () => {
    const e = await started();
    const record = await e.request(`restart streaming-dev/orders ${link(WAR_ROOM)} ${link(INCIDENTS)}`, USERS.alice);
    expect(record.incidentChannels).toEqual(expect.arrayContaining([WAR_ROOM, INCIDENTS]));
    await e.sim.waitFor(() => e.sim.messages(WAR_ROOM).find((m) => m.text.includes(record.id)), 20_000);
  });
});
