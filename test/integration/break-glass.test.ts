// Break-glass (docs/policy.md#break-glass) end to end through the real Bolt app, notifier, worker and sweep, with real
// Redis and the simulated Slack and cluster: what it skips and what it never skips, who may use it, the Reviewed
// button, reminders.
import { describe, expect, it } from 'vitest';
import { DEFAULT_CLUSTER } from '../../src/config.js';
import { countOverdueReviews, ORPHAN_AFTER_MS, remindDueReviews } from '../../src/app/break-glass-due.js';
import { Sweep } from '../../src/app/sweep.js';
import type { OperationRecord } from '../../src/domain/engines/operation.js';
import { createLogger } from '../../src/log.js';
import { startWorker } from '../../src/roles/worker.js';
import { validateBlocks } from '@flink-chatops/sim/slack-api';
import { REVIEW_ACTION_ID, REVIEW_BLOCK_ID } from '../../src/slack/blocks/break-glass.js';
import { BreakGlassIndex } from '../../src/store/break-glass.js';
import { OperationStore } from '../../src/store/operations.js';
import { redisForTest } from '../support/redis.js';
import {
  clockFrom,
  FRIDAY_AFTERNOON,
  GUEST,
  INCIDENTS,
  SECRET,
  testPolicy,
  USERS,
  type BotEnv,
  useBotEnvs,
} from '../support/bot-env.js';

const bots = useBotEnvs();
const HOUR = 3_600_000;
const TERMINAL = ['COMPLETED', 'FAILED', 'TIMED_OUT', 'ABORTED'] as const;

/** The test policy (a lead rule and a Friday-afternoon deny rule in streaming-prod) with break-glass for on-call. */
const policy = (channel: string) => ({
  ...testPolicy(channel),
  breakGlass: { groups: ['oncall'], environments: ['production'], reviewWithin: '1h' },
  windows: { nightly: { days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], from: '01:00', to: '04:00' } },
});

/** Friday afternoon in Berlin, without the bot's own sweep (the test runs sweeps at chosen times). */
const startFriday = () => bots.start({ policy, now: clockFrom(FRIDAY_AFTERNOON), overrides: { sweep: false } });

function sweepAt(env: BotEnv, now: number): Sweep {
  const { store, leases, policy: provider } = env.bot.deps;
  const logger = createLogger('silent');
  const index = new BreakGlassIndex(env.redis.redis, env.redis.prefix);
  return new Sweep({
    store,
    leases,
    logger,
    now: () => now,
    queues: { clusters: [DEFAULT_CLUSTER], of: () => env.queue },
    breakGlass: { store, index, policy: provider, logger },
  });
}

const overdue = (env: BotEnv, now: number) =>
  countOverdueReviews(
    {
      store: env.bot.deps.store,
      index: new BreakGlassIndex(env.redis.redis, env.redis.prefix),
      policy: env.bot.deps.policy,
    },
    now,
  );

const endedAt = (r: OperationRecord) => r.history.findLast((e) => e.type === 'state')?.at ?? 0;
const replies = (env: BotEnv, r: OperationRecord) => env.sim.replies(env.channel, r.card?.ts ?? '');
const cardOf = (env: BotEnv, r: OperationRecord) => env.sim.messages(env.channel).find((m) => m.ts === r.card?.ts);
const review = (env: BotEnv, r: OperationRecord, user: string) =>
  env.click('review', r, user, { blockId: REVIEW_BLOCK_ID });

describe('Break-glass', () => {
  it('an on-call member skips a lead rule and a Friday-afternoon deny rule; Reviewed by a lead clears it; the requester cannot review their own', async () => {
    const env = await startFriday();
    let worker: Awaited<ReturnType<typeof startWorker>> | undefined;
    try {
      // Without break-glass, Friday afternoon denies it.
      expect((await env.request('scale streaming-prod/orders 6 --reason "backlog"')).state).toBe('DENIED');

      const queued = await env.request(
        'scale streaming-prod/orders 6 --break-glass --reason "INC-7: consumer lag"',
        USERS.alice,
      );
      expect(queued.state).toBe('QUEUED');
      expect(queued.decision).toMatchObject({ outcome: 'allow', requirements: [] });
      expect(queued.decision?.breakGlass).toEqual({
        skippedRequirements: [{ rule: 'prod-needs-a-lead', approvals: 1, from: ['leads'] }],
        skippedDenies: ['No production changes on Friday afternoons (rule friday-freeze)'],
      });
      const queuedCard = JSON.stringify((await env.cardIn(queued, 'QUEUED')).blocks);
      expect(queuedCard).toContain('BREAK-GLASS');
      expect(queuedCard).toContain('INC-7: consumer lag');
      expect(queuedCard).toContain('prod-needs-a-lead');
      expect(queuedCard).not.toContain(REVIEW_ACTION_ID);
      // A click before it ended is answered, not acted on.
      expect((await (await review(env, queued, USERS.lead1)).reply()).text).toContain(`${queued.id} is`);
      worker = await startWorker(env.config, {
        logger: createLogger('silent'),
        sweepIntervalMs: 600_000,
        now: clockFrom(FRIDAY_AFTERNOON),
      });

      const done = await env.waitForState(queued.id, [...TERMINAL], 60_000);
      expect(done.state).toBe('COMPLETED');
      const digest = await env.sim.waitFor(
        () => env.sim.messages(INCIDENTS).find((m) => m.text.includes(done.id) && m.text.includes('ended')),
        20_000,
      );
      expect(digest.text).toContain('BREAK-GLASS');
      const ended = await env.sim.waitFor(
        () => (JSON.stringify(cardOf(env, done)?.blocks).includes(REVIEW_ACTION_ID) ? cardOf(env, done) : undefined),
        20_000,
      );
      expect(validateBlocks(ended.blocks ?? [], 'message')).toEqual({ ok: true });

      // Past reviewWithin: one reminder a day, whichever process sweeps, and the gauge counts it.
      const due = endedAt(done) + HOUR + 1;
      expect(await overdue(env, due - 2)).toBe(0);
      expect(await overdue(env, due)).toBe(1);
      await Promise.all([sweepAt(env, due).run(), sweepAt(env, due).run(), sweepAt(env, due + HOUR).run()]);
      const reminded = await env.record(done.id);
      expect(reminded.history.filter((e) => e.name === 'review-due')).toHaveLength(1);
      await env.sim.waitFor(() => replies(env, done).find((r) => r.text.includes('review due')), 20_000);
      await sweepAt(env, due + 25 * HOUR).run();
      expect((await env.record(done.id)).history.filter((e) => e.name === 'review-due')).toHaveLength(2);

      // Only an approver of the skipped rule, never the requester nor someone of another workspace; nothing changes.
      const before = await env.record(done.id);
      expect((await (await review(env, before, USERS.alice)).reply()).text).toContain(
        'one of its approvers reviews it, not you',
      );
      expect((await (await review(env, before, USERS.bob)).reply()).text).toContain('only members of leads');
      const guest = await env.click('review', before, GUEST.id, { blockId: REVIEW_BLOCK_ID, teamId: GUEST.team });
      expect((await guest.reply()).text).toMatch(/this bot serves only its own Slack workspace/);
      expect((await env.record(done.id)).version).toBe(before.version);

      const [first, second] = await Promise.all([review(env, before, USERS.lead2), review(env, before, USERS.lead2)]);
      const texts = [(await first.reply()).text, (await second.reply()).text];
      expect(texts.filter((t) => t.includes(`${done.id}: break-glass reviewed by <@${USERS.lead2}>`))).toHaveLength(1);
      expect(texts.filter((t) => t.includes('already reviewed'))).toHaveLength(1);
      const reviewed = await env.record(done.id);
      expect(reviewed.history.filter((e) => e.name === 'reviewed')).toEqual([
        expect.objectContaining({ type: 'command', actor: USERS.lead2 }),
      ]);
      expect(reviewed.state).toBe('COMPLETED');
      await env.sim.waitFor(() => replies(env, done).find((r) => r.text.includes('Break-glass reviewed by')), 20_000);
      const after = await env.sim.waitFor(
        () => (JSON.stringify(cardOf(env, done)?.blocks).includes('Reviewed by') ? cardOf(env, done) : undefined),
        20_000,
      );
      expect(JSON.stringify(after.blocks)).not.toContain(REVIEW_ACTION_ID);
      expect(await overdue(env, due + 30 * HOUR)).toBe(0);
      expect(await new BreakGlassIndex(env.redis.redis, env.redis.prefix).list()).toEqual([]);
      await sweepAt(env, due + 50 * HOUR).run();
      expect((await env.record(done.id)).history.filter((e) => e.name === 'review-due')).toHaveLength(2);
    } finally {
      await worker?.close();
    }
  }, 120_000);

  it('does not skip a lock freeze or a failed built-in check: DENIED, with no review owed', async () => {
    const env = await startFriday();
    const lock = await env.command('lock streaming-prod/payments --reason "quarter-end"', USERS.lead1);
    expect((await lock.reply()).text).toContain('payments');
    const frozen = await env.request('restart streaming-prod/payments --break-glass --reason "INC-8"', USERS.alice);
    expect(frozen.state).toBe('DENIED');
    expect(frozen.decision?.outcome === 'deny' ? frozen.decision.reasons.join(' ') : '').toContain('quarter-end');
    expect(frozen.decision?.outcome === 'deny' ? frozen.decision.reasons.join(' ') : '').not.toContain('Friday');

    const tooBig = await env.request('scale streaming-prod/orders 600 --break-glass --reason "INC-9"', USERS.alice);
    expect(tooBig.state).toBe('DENIED');
    expect(tooBig.decision?.checks.some((c) => c.outcome === 'fail')).toBe(true);
    const card = JSON.stringify((await env.cardIn(tooBig, 'DENIED')).blocks);
    expect(card).toContain('BREAK-GLASS');
    expect(card).not.toContain(REVIEW_ACTION_ID);
    expect(await new BreakGlassIndex(env.redis.redis, env.redis.prefix).list()).toEqual([]);
  }, 60_000);

  it.each([
    [
      'a lead, who is not in breakGlass.groups',
      'scale streaming-prod/orders 6 --break-glass --reason "x"',
      USERS.lead1,
      `<@${USERS.lead1}> is not allowed to use --break-glass here: only members of oncall may use it`,
    ],
    [
      'a namespace whose environment is not listed',
      'scale streaming-dev/orders 4 --break-glass --reason "x"',
      USERS.alice,
      'is not allowed to use --break-glass here',
    ],
    ['no --reason', 'scale streaming-prod/orders 6 --break-glass', USERS.alice, 'reason'],
    [
      'a break-glass change planted for later with --at',
      'scale streaming-prod/orders 6 --break-glass --reason "INC-11" --at 2026-12-02T02:00Z',
      USERS.alice,
      '--break-glass runs now or not at all: it cannot be combined with --at or --window',
    ],
    [
      'a break-glass change planted for a --window',
      'restart streaming-prod/orders --break-glass --reason "INC-12" --window nightly',
      USERS.alice,
      '--break-glass runs now or not at all',
    ],
  ])(
    'refuses %s privately and records nothing',
    async (_what, text, user, message) => {
      const env = await startFriday();
      const sent = await env.command(text, user);
      const reply = await sent.reply();
      expect(reply.text).toContain(message);
      expect(reply.body).toMatchObject({ response_type: 'ephemeral' });
      expect(await env.operationCount()).toBe(0);
      expect(env.sim.messages(env.channel)).toEqual([]);
    },
    30_000,
  );

  it('App Home lists the reviews due for an approver, with the Reviewed button', async () => {
    const env = await startFriday();
    const queued = await env.request('scale streaming-prod/orders 3 --break-glass --reason "INC-10"', USERS.alice);
    const worker = await startWorker(env.config, {
      logger: createLogger('silent'),
      sweepIntervalMs: 600_000,
      now: clockFrom(FRIDAY_AFTERNOON),
    });
    try {
      await env.waitForState(queued.id, [...TERMINAL], 60_000);
      const home = async (user: string) => {
        const publishes = () =>
          env.sim.calls.filter((c) => c.method === 'views.publish' && c.args.user_id === user).length;
        const before = publishes();
        await env.sim.openHome(user, { url: env.bot.url as string, signingSecret: SECRET });
        await env.sim.waitFor(() => publishes() > before, 10_000);
        return JSON.stringify(env.sim.homeView(user)?.view);
      };
      const lead = await home(USERS.lead1);
      expect(lead).toContain('Break-glass reviews due');
      expect(lead).toContain(queued.id);
      expect(lead).toContain(REVIEW_ACTION_ID);
      const own = await home(USERS.alice);
      expect(own).toContain('Break-glass reviews due');
      expect(own).not.toContain(REVIEW_ACTION_ID);
    } finally {
      await worker.close();
    }
  }, 90_000);

  it('drops an index entry whose request never became a record, once it is old enough to be sure', async () => {
    const t = await redisForTest('break-glass-index');
    try {
      const index = new BreakGlassIndex(t.redis, t.prefix);
      const now = 1_000_000_000;
      await index.add('op-neverrecorded', now - ORPHAN_AFTER_MS - 1);
      await index.add('op-beingrecorded', now - 1_000);
      const policy = { current: async () => ({ ok: false as const, message: 'no policy' }) };
      const deps = {
        store: new OperationStore(t.redis, { prefix: t.prefix }),
        index,
        policy,
        logger: createLogger('silent'),
      };
      expect(await remindDueReviews(deps, now)).toEqual([]);
      expect((await index.list()).map((i) => i.id)).toEqual(['op-beingrecorded']);
    } finally {
      await t.cleanup();
    }
  });
});
