// Reminders and escalation (docs/policy.md#reaching-approvers): with `remindAfter: 5s` and `escalateAfter: 10s`, one
// reminder (thread and DMs to approvers who have not voted) and one escalation (DMs to the escalation group, whose
// approval then counts), across a restart of the bot process in between; none once decided (real Bolt, Redis, notifier;
// simulated Slack).
import { afterEach, describe, expect, it } from 'vitest';
import { ApprovalTimers } from '../../src/app/approval-timers.js';
import type { HistoryEntry } from '../../src/domain/engines/operation.js';
import { createLogger } from '../../src/log.js';
import { startBot, type RunningBot } from '../../src/roles/bot.js';
import type { SimMessage } from '@flink-chatops/sim/slack-api';
import { clockFrom, testPolicy, USERS, useBotEnvs, WEDNESDAY, type BotEnv } from '../support/bot-env.js';

const bots = useBotEnvs();
const STATELESS_UPGRADE = 'upgrade streaming-prod/orders --image flink:1.20.1 --mode stateless --reason "hotfix"';
const MANAGER = USERS.bob;

function remindingPolicy(channel: string): Record<string, unknown> {
  const base = testPolicy(channel);
  return {
    ...base,
    groups: { ...(base.groups as object), managers: { users: [MANAGER] } },
    approval: { ...(base.approval as object), remindAfter: '5s', escalateAfter: '10s', escalateTo: ['managers'] },
  };
}

const replicas: RunningBot[] = [];
afterEach(async () => {
  for (const bot of replicas.splice(0)) await bot.close();
});

/** A bot replica of the env's installation: notifier and timers; the env's own bot only takes commands and clicks. */
async function replica(env: BotEnv, now: () => number, consumer: string): Promise<RunningBot> {
  const bot = await startBot(env.config, {
    logger: createLogger('silent'),
    now,
    consumer,
    sweep: false,
    approvalTimerPollMs: 200,
  });
  replicas.push(bot);
  return bot;
}

const notes = (history: HistoryEntry[], name: string) => history.filter((e) => e.type === 'note' && e.name === name);
const hasButtons = (m: SimMessage) => ((m.blocks ?? []) as { type?: string }[]).some((b) => b.type === 'actions');

describe('reminders and escalation', () => {
  it('reminds once, escalates once across a bot restart, and counts the escalation group', async () => {
    const now = clockFrom(WEDNESDAY);
    const env = await bots.start({
      now,
      policy: remindingPolicy,
      overrides: { notifier: false, approvalTimers: false },
    });
    const first = await replica(env, now, 'replica-a');
    const record = await env.request(STATELESS_UPGRADE, USERS.alice);
    expect(record.state).toBe('AWAITING_APPROVAL');
    const entered = record.history.find((e) => e.name === 'AWAITING_APPROVAL')?.at ?? 0;
    await env.sim.waitFor(() => env.sim.dms(USERS.lead1).length === 1 && env.sim.dms(USERS.lead2).length === 1, 10_000);
    // lead1 votes (the stateless rule needs two): only lead2 is reminded.
    expect((await (await env.click('approve', record, USERS.lead1)).reply()).text).toContain('still needed');

    const reminded = await env.waitFor(record.id, (r) => notes(r.history, 'reminder').length > 0, 'a reminder', 20_000);
    const reminder = notes(reminded.history, 'reminder')[0];
    expect((reminder?.at ?? 0) - entered).toBeGreaterThanOrEqual(5_000);
    expect((reminder?.at ?? 0) - entered).toBeLessThan(30_000);
    const [, again] = await env.sim.waitFor(
      () => (env.sim.dms(USERS.lead2).length === 2 ? env.sim.dms(USERS.lead2) : undefined),
      10_000,
    );
    expect(again?.text).toContain(`${record.id}: reminder`);
    expect(again && hasButtons(again)).toBe(true);
    expect(env.sim.dms(USERS.lead1)).toHaveLength(1);
    const thread = () => env.sim.replies(env.channel, record.card?.ts ?? '').slice(1);
    await env.sim.waitFor(() => thread().some((m) => m.text.includes('Reminder')), 10_000);

    // The process that reminded stops; another one escalates (the timer is the record, not a process's memory).
    await first.close();
    replicas.splice(replicas.indexOf(first), 1);
    await replica(env, now, 'replica-b');
    const escalated = await env.waitFor(
      record.id,
      (r) => notes(r.history, 'escalated').length > 0,
      'an escalation',
      20_000,
    );
    expect(notes(escalated.history, 'escalated')[0]?.detail).toMatchObject({ groups: ['managers'] });
    const [dm] = await env.sim.waitFor(
      () => (env.sim.dms(MANAGER).length > 0 ? env.sim.dms(MANAGER) : undefined),
      10_000,
    );
    expect(dm?.text).toContain(`${record.id}: escalated to you`);

    // The manager approves from the DM and their vote counts for both rules: the operation is queued.
    const channel = env.sim.dmChannel(MANAGER) ?? '';
    const click = await env.click('approve', record, MANAGER, { at: { channel, ts: dm?.ts ?? '' } });
    expect((await click.reply()).text).toContain('it has every approval it needs and is queued');
    const queued = await env.waitForState(record.id, ['QUEUED']);
    expect(queued.approvals.find((a) => a.user === MANAGER)?.countsFor).toEqual([
      'prod-needs-a-lead',
      'stateless-in-prod-needs-two',
    ]);
    for (const user of [USERS.lead1, USERS.lead2, MANAGER]) {
      await env.sim.waitFor(() => env.sim.dms(user).every((m) => !hasButtons(m)), 10_000);
    }

    // Once each, and nothing more once decided, however often and from wherever the timers are looked at.
    const later = new ApprovalTimers({
      store: env.bot.deps.store,
      policy: env.bot.deps.policy,
      logger: createLogger('silent'),
      now: () => now() + 3_600_000,
    });
    expect(await later.run()).toEqual({ reminded: [], escalated: [] });
    const final = await env.record(record.id);
    expect(notes(final.history, 'reminder')).toHaveLength(1);
    expect(notes(final.history, 'escalated')).toHaveLength(1);
    expect(env.sim.dms(USERS.lead2)).toHaveLength(2);
    expect(env.sim.dms(MANAGER)).toHaveLength(1);
    expect(env.sim.dms(USERS.alice)).toEqual([]);
    await env.sim.waitFor(() => thread().some((m) => m.text.includes('Escalated')), 10_000);
    expect(thread().filter((m) => m.text.includes('Reminder'))).toHaveLength(1);
  });

  it('neither reminds nor escalates an operation decided before its time', async () => {
    const now = clockFrom(WEDNESDAY);
    const env = await bots.start({ now, policy: remindingPolicy, overrides: { approvalTimers: false } });
    const record = await env.request(STATELESS_UPGRADE, USERS.alice);
    await (await env.click('reject', record, USERS.lead1)).reply();
    await env.waitForState(record.id, ['REJECTED']);
    const timers = new ApprovalTimers({
      store: env.bot.deps.store,
      policy: env.bot.deps.policy,
      logger: createLogger('silent'),
      now: () => now() + 60_000,
    });
    expect(await timers.run()).toEqual({ reminded: [], escalated: [] });
    const after = await env.record(record.id);
    expect(notes(after.history, 'reminder')).toEqual([]);
    expect(notes(after.history, 'escalated')).toEqual([]);
  });

  it('reminds an operation still waiting exactly once when replicas race', async () => {
    const now = clockFrom(WEDNESDAY);
    const env = await bots.start({ now, policy: remindingPolicy, overrides: { approvalTimers: false } });
    const record = await env.request(STATELESS_UPGRADE, USERS.alice);
    const deps = {
      store: env.bot.deps.store,
      policy: env.bot.deps.policy,
      logger: createLogger('silent'),
      now: () => now() + 6_000,
    };
    const reports = await Promise.all([1, 2, 3].map(() => new ApprovalTimers(deps).run()));
    expect(reports.flatMap((r) => r.reminded)).toEqual([record.id]);
    expect(reports.flatMap((r) => r.escalated)).toEqual([]);
    expect(notes((await env.record(record.id)).history, 'reminder')).toHaveLength(1);
  });
});
