// App Home (docs/lifecycle.md#app-home) through the real Bolt app: app_home_opened as a signed Events API request from
// the simulated Slack, one views.publish per open, approvals with the card's own buttons, DM answers to refused Home
// clicks.
import { TEAM } from '@flink-chatops/sim/workspace';
import { describe, expect, it } from 'vitest';
import type { OperationRecord } from '../../src/domain/engines/operation.js';
import { PageApi } from '@flink-chatops/sim/page-api';
import { KnobBoard } from '@flink-chatops/sim/page-cluster';
import { buildState } from '@flink-chatops/sim/page-state';
import { homeBlockActionsBody } from '@flink-chatops/sim/signing';
import { validateBlocks } from '@flink-chatops/sim/slack-api';
import { ACTION_IDS, approvalBlockId } from '../../src/slack/blocks/index.js';
import { SECRET, USERS, type BotEnv, useBotEnvs } from '../support/bot-env.js';
import { postSigned } from '../support/slack.js';

const bots = useBotEnvs();
const WS = { teamId: 'T0SIM', teamDomain: 'sandbox', appId: 'A0SIMAPP' };

const publishes = (e: BotEnv, user: string) =>
  e.sim.calls.filter((c) => c.method === 'views.publish' && c.args.user_id === user);

/** Opens `user`'s Home and waits for the view it publishes; returns the view's JSON and the ack time. */
async function openHome(e: BotEnv, user: string) {
  const before = publishes(e, user).length;
  const opened = await e.sim.openHome(user, { url: e.bot.url as string, signingSecret: SECRET });
  expect(opened.status).toBe(200);
  await e.sim.waitFor(
    () => publishes(e, user).length > before && publishes(e, user).at(-1)?.response.ok === true,
    10_000,
  );
  const home = e.sim.homeView(user);
  if (!home) throw new Error(`no Home for ${user}`);
  return { home, json: JSON.stringify(home.view), ms: opened.ms, publishesBefore: before };
}

async function clickFromHome(e: BotEnv, user: string, action: keyof typeof ACTION_IDS, record: OperationRecord) {
  const home = e.sim.homeView(user);
  if (!home || !record.plan) throw new Error('nothing to click on');
  const body = homeBlockActionsBody(
    WS,
    {
      user: { id: user, name: user.toLowerCase() },
      viewId: home.id,
      view: home.view,
      actionId: ACTION_IDS[action],
      blockId: approvalBlockId(record.plan.digest),
      value: record.id,
      buttonText: action,
    },
    Date.now(),
  );
  const res = await postSigned(e.bot.url as string, body, SECRET);
  expect(res.status).toBe(200);
}

const dm = (e: BotEnv, user: string) => e.sim.messages(`D${user.slice(1)}`);

describe('App Home', () => {
  it('a lead sees the pending approval, approves from Home, the card updates; one views.publish per open, answered within 3 s', async () => {
    const e = await bots.start();
    const record = await e.request('restart streaming-prod/orders --reason "home test"', USERS.alice);
    expect(record.state).toBe('AWAITING_APPROVAL');

    const lead = await openHome(e, USERS.lead1);
    expect(lead.ms).toBeLessThan(3000);
    expect(validateBlocks(lead.home.view.blocks, 'view')).toEqual({ ok: true });
    expect(lead.json).toContain('Waiting for your approval');
    expect(lead.json).toContain(record.id);
    expect(lead.json).toContain(approvalBlockId(record.plan?.digest ?? ''));
    expect(lead.json).toContain(ACTION_IDS.approve);

    await clickFromHome(e, USERS.lead1, 'approve', record);
    await e.cardIn(record, 'QUEUED');
    // The lead's DM channel also holds the approver DM of the request (docs/policy.md#reaching-approvers): the answer
    // is the message after it.
    const answered = await e.sim.waitFor(
      () => dm(e, USERS.lead1).find((m) => m.text.includes(record.id) && m.metadata === undefined),
      10_000,
    );
    expect(answered.text).toContain(`You approved ${record.id}`);
    // The click republishes the lead's Home: the approval is no longer waiting for them. That view, published after
    // the open was handled, is the second: the open published one.
    const block = approvalBlockId(record.plan?.digest ?? '');
    await e.sim.waitFor(
      () => publishes(e, USERS.lead1).find((c) => !JSON.stringify(c.args.view).includes(block)),
      10_000,
    );
    expect(publishes(e, USERS.lead1)).toHaveLength(2);
    const after = JSON.stringify(e.sim.homeView(USERS.lead1)?.view);
    expect(after).not.toContain(block);
    expect(after).toContain('nothing waits for you');
  });

  it('a requester sees their operations in flight and no buttons for their own request; a refused Home click is answered by DM', async () => {
    const e = await bots.start();
    const record = await e.request('restart streaming-prod/payments --reason "mine"', USERS.alice);
    const mine = await openHome(e, USERS.alice);
    expect(mine.json).toContain('Your operations in flight');
    expect(mine.json).toContain(record.id);
    expect(mine.json).not.toContain(ACTION_IDS.approve);
    expect(publishes(e, USERS.alice)).toHaveLength(1);

    // bob is in no group: nothing waits for him, and a forged click is refused, by DM.
    const bob = await openHome(e, USERS.bob);
    expect(bob.json).toContain('nothing waits for you');
    await clickFromHome(e, USERS.bob, 'approve', record);
    const refused = await e.sim.waitFor(() => dm(e, USERS.bob).find((m) => m.text.includes(record.id)), 10_000);
    expect(refused.text).toMatch(/not in leads/);
    expect((await e.record(record.id)).state).toBe('AWAITING_APPROVAL');
  });

  it('Refresh publishes the Home again, once', async () => {
    const e = await bots.start();
    const first = await openHome(e, USERS.lead2);
    const refresh = () => {
      const button = {
        actionId: 'flink_ops_home_refresh',
        blockId: 'home_refresh',
        value: 'refresh',
        buttonText: 'Refresh',
      };
      const body = homeBlockActionsBody(
        WS,
        { user: { id: USERS.lead2, name: 'lead2' }, viewId: first.home.id, view: first.home.view, ...button },
        Date.now(),
      );
      return postSigned(e.bot.url as string, body, SECRET);
    };
    expect((await refresh()).status).toBe(200);
    await e.sim.waitFor(() => publishes(e, USERS.lead2).length >= 2, 10_000);
    // Once: a request now waits for the leads, and a second Refresh, handled after the first, publishes the first
    // view that shows it — the third publish, not the fourth.
    const record = await e.request('restart streaming-prod/orders --reason "refresh"', USERS.alice);
    expect((await refresh()).status).toBe(200);
    await e.sim.waitFor(
      () => publishes(e, USERS.lead2).find((c) => JSON.stringify(c.args.view).includes(record.id)),
      10_000,
    );
    expect(publishes(e, USERS.lead2)).toHaveLength(3);
  });

  it("a burst of Refresh clicks is one publish of the latest view, however many come while the last one's window is open", async () => {
    const e = await bots.start();
    const record = await e.request('restart streaming-prod/orders --reason "burst"', USERS.alice);
    const first = await openHome(e, USERS.lead2);
    expect(first.json).toContain(record.id);
    const button = {
      actionId: 'flink_ops_home_refresh',
      blockId: 'home_refresh',
      value: 'refresh',
      buttonText: 'Refresh',
    };
    const refresh = () =>
      postSigned(
        e.bot.url as string,
        homeBlockActionsBody(
          WS,
          { user: { id: USERS.lead2, name: 'lead2' }, viewId: first.home.id, view: first.home.view, ...button },
          Date.now(),
        ),
        SECRET,
      );
    const acks = await Promise.all(Array.from({ length: 8 }, refresh));
    expect(acks.map((r) => r.status)).toEqual(acks.map(() => 200));
    await e.sim.waitFor(() => publishes(e, USERS.lead2).length > first.publishesBefore + 1, 10_000);
    // Someone else's Home is published after the burst was answered: everything the burst started has run by then.
    await openHome(e, USERS.lead1);
    const after = publishes(e, USERS.lead2).slice(first.publishesBefore);
    expect(after).toHaveLength(2);
    expect(after.every((c) => c.response.ok === true)).toBe(true);
    expect(JSON.stringify(after.at(-1)?.args.view)).toContain(record.id);
  });
});

describe('the sandbox page Home tab', () => {
  it('opening Home as a person publishes their view; its Approve button works; the page state carries each Home', async () => {
    // The page signs as the sandbox's workspace, this test's simulated Slack is another: the bot admits both
    // (docs/configuration.md#who-may-use-the-bot).
    const e = await bots.start({ env: { SLACK_ALLOWED_TEAMS: `T0SIM,${TEAM.teamId}` } });
    const record = await e.request('restart streaming-prod/orders --reason "page home"', USERS.alice);
    const backend = {
      slack: e.sim,
      cluster: bots.cluster,
      botEventsUrl: e.bot.url as string,
      signingSecret: SECRET,
      command: '/flink',
      policy: undefined,
      policyFile: 'policy.yaml',
    };
    const knobs = new KnobBoard(bots.cluster);
    const api = new PageApi(backend, knobs, { ephemeral: () => undefined, cluster: () => undefined });

    expect(await api.handle('/api/home', { user: USERS.lead2 })).toMatchObject({ ok: true, status: 200 });
    await e.sim.waitFor(() => e.sim.homeView(USERS.lead2), 10_000);
    const state = buildState({
      slack: e.sim,
      cluster: bots.cluster,
      knobs,
      policy: undefined,
      policyFile: 'policy.yaml',
      command: '/flink',
      acks: () => [],
    });
    expect(JSON.stringify(state.homes[USERS.lead2]?.view)).toContain(record.id);
    expect(state.homes[USERS.alice]?.view).toBeUndefined();

    const click = {
      user: USERS.lead2,
      actionId: ACTION_IDS.approve,
      blockId: approvalBlockId(record.plan?.digest ?? ''),
      value: record.id,
    };
    expect(await api.handle('/api/home-action', click)).toMatchObject({ ok: true, status: 200 });
    await e.cardIn(record, 'QUEUED');
    await expect(api.handle('/api/home-action', { ...click, user: USERS.bob })).rejects.toThrow(/no Home for U0BOB/);
  });
});
