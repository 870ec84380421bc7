// Who may use the bot (docs/configuration.md#who-may-use-the-bot): a Slack Connect member of a shared channel — their
// command carries the host's team_id, their own team comes from users.info; their click names it — is refused
// privately, and nothing is recorded or written. SLACK_ALLOWED_TEAMS lets another workspace in. The real Bolt app,
// signed requests.
import { homeBlockActionsBody } from '@flink-chatops/sim/signing';
import { describe, expect, it } from 'vitest';
import { GUEST, SECRET, USERS, useBotEnvs, type BotEnv } from '../support/bot-env.js';
import { postSigned } from '../support/slack.js';

const bots = useBotEnvs();
const OUTSIDER = /this bot serves only its own Slack workspace/;

/** The host's Enterprise Grid org, and a guest of a shared channel whose own org is another Grid org. */
const HOST_ORG = 'E0HOST';
const GRID_GUEST = { id: 'U0GRIDGUEST', name: 'grid-guest', team_id: 'T0THEIRS', enterprise_id: 'E0THEIRS' };
/** Someone of the host's org whose own workspace is a sister workspace of the bot's. */
const SISTER = {
  id: 'U0SISTER',
  name: 'sister',
  team_id: 'T0SISTER',
  enterprise_id: HOST_ORG,
  enterprise_teams: ['T0SISTER', 'T0SIM'],
};
/** An Enterprise Grid install's slash command: the payload names the install's org, whoever types it. */
const GRID_COMMAND = { enterprise_id: HOST_ORG, enterprise_name: 'host', is_enterprise_install: 'false' };

const publishes = (e: BotEnv, user: string) =>
  e.sim.calls.filter((c) => c.method === 'views.publish' && c.args.user_id === user);
const lookedUp = (e: BotEnv, user: string) =>
  e.sim.calls.find((c) => c.method === 'users.info' && c.args.user === user && c.response.ok === true);

/** `user` opens Home and their view is published: the bot has handled everything sent before it. */
async function homeOf(e: BotEnv, user: string): Promise<void> {
  const before = publishes(e, user).length;
  expect((await e.openHome(user)).status).toBe(200);
  await e.sim.waitFor(() => publishes(e, user).length > before, 10_000, `the Home of ${user}`);
}

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

  it("on an Enterprise Grid install, judges a guest by their own team and org, not by the payload's enterprise", async () => {
    const env = await bots.start({ env: { SLACK_ALLOWED_TEAMS: `T0SIM,${HOST_ORG}` } });
    env.sim.addUser(GRID_GUEST);
    env.sim.addUser(SISTER);
    // A guest of another (non-Grid) workspace and one of another Grid org type into the shared channel.
    for (const guest of [GUEST.id, GRID_GUEST.id]) {
      const sent = await env.command('scale streaming-dev/orders 3', guest, undefined, GRID_COMMAND);
      expect((await sent.reply()).text).toMatch(OUTSIDER);
    }
    expect(await env.operationCount()).toBe(0);
    expect(env.sim.messages(env.channel)).toEqual([]);
    // Someone of the host's org, from a sister workspace, is served.
    const sister = await env.command('scale streaming-dev/orders 3', SISTER.id, undefined, GRID_COMMAND);
    expect(sister.status).toBe(200);
    const card = await env.sim.waitFor(() => env.sim.messages(env.channel)[0], 10_000, "the sister's card");
    expect(card.text).toMatch(/op-/);

    // Clicks name the install's org too: the guest's own team and org decide.
    const prod = await env.request('scale streaming-prod/fraud-detection 5 --reason "grid"', USERS.alice);
    for (const guest of [GUEST, { id: GRID_GUEST.id, team: GRID_GUEST.team_id }]) {
      const clicked = await env.click('approve', prod, guest.id, { teamId: guest.team, enterpriseId: HOST_ORG });
      expect((await clicked.reply()).text).toMatch(OUTSIDER);
    }
    const after = await env.record(prod.id);
    expect(after.state).toBe('AWAITING_APPROVAL');
    expect(after.approvals).toEqual([]);
  });

  it('an outsider opening App Home gets nothing published; their Home buttons do nothing', async () => {
    const env = await bots.start();
    const record = await env.request('restart streaming-prod/orders --reason "home guard"', USERS.alice);
    expect((await env.openHome(GUEST.id)).status).toBe(200);
    // Events are acknowledged before anyone is judged: the guard asks users.info, then drops the event.
    await env.sim.waitFor(() => lookedUp(env, GUEST.id), 10_000, "the guard's users.info for the guest");
    // A Home button pressed by the outsider, signed as Slack sends it with their own team.
    const button = {
      actionId: 'flink_ops_home_refresh',
      blockId: 'home_refresh',
      value: 'refresh',
      buttonText: 'Refresh',
    };
    const refresh = homeBlockActionsBody(
      { teamId: GUEST.team, teamDomain: 'other', appId: 'A0SIMAPP' },
      { user: { id: GUEST.id, name: 'guest' }, viewId: 'V0NOHOME', view: { type: 'home', blocks: [] }, ...button },
      Date.now(),
    );
    expect((await postSigned(env.bot.url as string, refresh, SECRET)).status).toBe(200);
    // Someone of the workspace opens Home after both: their view is published, the outsider's never was.
    await homeOf(env, USERS.lead1);
    expect(JSON.stringify(env.sim.homeView(USERS.lead1)?.view)).toContain(record.id);
    expect(publishes(env, GUEST.id)).toEqual([]);
    expect(env.sim.homeView(GUEST.id)).toBeUndefined();
  });
});
