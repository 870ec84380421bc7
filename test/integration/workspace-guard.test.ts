// Who may use the bot (docs/configuration.md#who-may-use-the-bot): a Slack Connect member of a shared channel — their
// command carries the host's team_id, their own team comes from users.info; their click names it — is refused
// privately, and nothing is recorded or written. SLACK_ALLOWED_TEAMS lets another workspace in. The real Bolt app,
// signed requests.
import { describe, expect, it } from 'vitest';
import { GUEST, USERS, useBotEnvs } from '../support/bot-env.js';

const bots = useBotEnvs();
const OUTSIDER = /this bot serves only its own Slack workspace/;

describe('the workspace guard', () => {
  it('refuses a command and a query of a Slack Connect guest privately; nothing is recorded, posted or written', async () => {
    const env = await bots.start();
    const writes = () =>
      Object.entries(bots.cluster.server.stats().requests)
        .filter(([k]) => /^(patch|create) /.test(k))
        .reduce((n, [, v]) => n + v, 0);
    const before = writes();
    const scale = await (await env.command('scale streaming-dev/orders 3', GUEST.id)).reply();
    expect(scale.text).toMatch(OUTSIDER);
    const status = await (await env.command('status streaming-dev/orders', GUEST.id)).reply();
    expect(status.text).toMatch(OUTSIDER);
    expect(await env.operationCount()).toBe(0);
    expect(env.sim.messages(env.channel)).toEqual([]);
    expect(writes()).toBe(before);
    // Someone of the workspace is served as ever.
    const own = await env.request('scale streaming-dev/orders 3', USERS.alice);
    expect(own.state).toBe('QUEUED');
  });

  it("refuses a guest's click: no vote counted, the card unchanged", async () => {
    const env = await bots.start();
    const card = await env.request('scale streaming-prod/fraud-detection 5 --reason "guard"', USERS.alice);
    expect(card.state).toBe('AWAITING_APPROVAL');
    const clicked = await (await env.click('approve', card, GUEST.id, { teamId: GUEST.team })).reply();
    expect(clicked.text).toMatch(OUTSIDER);
    const after = await env.record(card.id);
    expect(after.state).toBe('AWAITING_APPROVAL');
    expect(after.approvals).toEqual([]);
    expect(after.history.length).toBe(card.history.length);
  });

  it('SLACK_ALLOWED_TEAMS lets the other workspace in; a users.info that fails refuses rather than guesses', async () => {
    const open = await bots.start({ env: { SLACK_ALLOWED_TEAMS: 'T0SIM,T0OTHER' } });
    const admitted = await open.request('scale streaming-dev/orders 4', GUEST.id);
    expect(admitted.requester).toBe(GUEST.id);

    const env = await bots.start();
    env.sim.faults.failNext('users.info', 'ratelimited');
    const unverified = await (await env.command('scale streaming-dev/orders 3', USERS.alice)).reply();
    expect(unverified.text).toMatch(/could not be checked just now, so nothing was done/);
    expect(await env.operationCount()).toBe(0);
  });
});
