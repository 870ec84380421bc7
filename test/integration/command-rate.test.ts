// The per-person command limit (docs/configuration.md#rate-limit) through the real Bolt app and signed slash commands:
// past COMMAND_RATE_LIMIT commands in a minute, the person is told so privately and nothing is recorded, posted or
// written; other people are not slowed; the next minute (virtual time) the person is served again.
import { describe, expect, it } from 'vitest';
import { USERS, WEDNESDAY, useBotEnvs } from '../support/bot-env.js';

const bots = useBotEnvs();

describe('the command rate limit', () => {
  it('refuses the command past the limit privately, records nothing, and serves the person again next minute', async () => {
    let now = WEDNESDAY;
    const env = await bots.start({ env: { COMMAND_RATE_LIMIT: '3' }, now: () => now });
    const writes = () =>
      Object.entries(bots.cluster.server.stats().requests)
        .filter(([k]) => /^(patch|create) /.test(k))
        .reduce((n, [, v]) => n + v, 0);
    for (let i = 0; i < 3; i++) {
      const help = await env.command('help', USERS.alice);
      expect((await help.reply()).text).not.toMatch(/commands in the last minute/);
    }
    const writesBefore = writes();
    now += 20_000;
    const fourth = await env.command('scale streaming-dev/orders 3', USERS.alice);
    expect(fourth.status).toBe(200);
    const refusal = await fourth.reply();
    expect(refusal.body.response_type).toBe('ephemeral');
    expect(refusal.text).toBe(
      'you sent 4 commands in the last minute, more than the 3 a minute this bot takes from one person; ' +
        'wait 40 s and try again. Nothing was done.',
    );
    // Someone else is served meanwhile; their answer comes after anything the refused command could have started.
    const other = await env.request('scale streaming-dev/orders 4', USERS.bob);
    expect(other.requester).toBe(USERS.bob);
    expect(await env.operationCount()).toBe(1);
    expect(env.sim.messages(env.channel)).toHaveLength(1);
    expect(writes()).toBe(writesBefore);

    now += 40_000;
    const next = await env.request('scale streaming-dev/orders 3', USERS.alice);
    expect(next.requester).toBe(USERS.alice);
    expect(next.state).toBe('QUEUED');
  });
});
