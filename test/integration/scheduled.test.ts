// Scheduled operations end to end (docs/policy.md#scheduled-operations): `--at` and `--window` through the real Bolt
// app, the notifier, the queue, a worker and the simulated cluster, on one injected clock. SCHEDULED holds no lease and
// no place in the order; at its time it runs like any QUEUED operation (drift re-checked); a window that closes first
// moves it to the next opening. The tests wait on real time (up to 12 s each) and run side by side, each with a
// simulated cluster, a Redis prefix and a simulated Slack of its own.
import { describe, expect, it, type TestContext } from 'vitest';
import type { OperationRecord } from '../../src/domain/engines/operation.js';
import type { Target } from '../../src/domain/model/target.js';
import type { KubeObject } from '@flink-chatops/sim/kube/store';
import type { SimCluster } from '@flink-chatops/sim/kube/cluster';
import { createLogger } from '../../src/log.js';
import { startWorker, type RunningWorker } from '../../src/roles/worker.js';
import { storeKeys } from '../../src/store/keys.js';
import { LeaseStore } from '../../src/store/locks.js';
import { Sweep } from '../../src/app/sweep.js';
import { scheduledJobIdOf } from '../../src/queue/queue.js';
import { ACTION_IDS } from '../../src/slack/blocks/index.js';
import {
  USERS,
  WEDNESDAY,
  clockFrom,
  startBotEnv,
  startTestCluster,
  testPolicy,
  type BotEnv,
} from '../support/bot-env.js';
import { expectAttributedWrites } from '../support/attribution.js';
import { eventually, holds } from '../support/poll.js';

const ENDED = ['COMPLETED', 'FAILED', 'TIMED_OUT', 'ABORTED', 'CANCELLED', 'EXPIRED'] as const;
const prod = (name: string): Target => ({ kind: 'FlinkDeployment', namespace: 'streaming-prod', name });

/** The test policy with scale allowed without approval, restart needing a lead, and two windows (minute granularity). */
function policy(channel: string): Record<string, unknown> {
  const base = testPolicy(channel);
  return {
    ...base,
    rules: [
      {
        name: 'restart-needs-a-lead',
        when: { namespaces: ['streaming-prod'], operations: ['restart'] },
        require: { approvals: 1, from: ['leads'] },
      },
      {
        name: 'no-night-savepoints',
        when: {
          namespaces: ['streaming-prod'],
          operations: ['savepoint'],
          schedule: { days: ['wed'], from: '02:00', to: '02:04', timezone: 'UTC' },
        },
        deny: 'No savepoints during the nightly batch',
      },
    ],
    approval: { ttl: '30m', allowSelfApproval: false, requireReason: [] },
    timezone: 'Europe/Berlin',
    windows: {
      soon: { days: ['wed'], from: '02:00', to: '02:05', timezone: 'UTC' },
      brief: { days: ['wed'], from: '02:00', to: '02:00', timezone: 'UTC' },
    },
  };
}

async function startWorkerAt(env: BotEnv, now: () => number): Promise<RunningWorker> {
  return startWorker(env.config, { logger: createLogger('silent'), now, sweepIntervalMs: 60_000 });
}

interface Started {
  cluster: SimCluster;
  env: BotEnv;
  now: () => number;
}

/**
 * The test's own demo cluster and bot env on a clock from `base` (started once the cluster is up), closed when the
 * test ends; every write to that cluster named its field manager.
 */
async function own(ctx: TestContext, base: number): Promise<Started> {
  const cluster = await startTestCluster();
  const opened: { env?: BotEnv } = {};
  // The env first (as useBotEnvs closes a test's envs before the file's cluster), then the cluster.
  ctx.onTestFinished(async () => {
    await opened.env?.close();
    await cluster.close();
    expectAttributedWrites(cluster);
  });
  const now = clockFrom(base);
  const env = await startBotEnv(cluster, { now, policy, env: { LEASE_TTL: '5s', VERIFY_TIMEOUT: '60s' } });
  opened.env = env;
  return { cluster, env, now };
}

async function start(ctx: TestContext, base: number): Promise<Started & { worker: RunningWorker }> {
  const started = await own(ctx, base);
  return { ...started, worker: await startWorkerAt(started.env, started.now) };
}

function leases(env: BotEnv): LeaseStore {
  return new LeaseStore(env.redis.redis, { prefix: env.config.redis.prefix });
}

const stateEntry = (record: OperationRecord, name: string) =>
  record.history.find((e) => e.type === 'state' && e.name === name);

async function threadReply(env: BotEnv, record: OperationRecord, pattern: RegExp): Promise<string> {
  const found = await env.sim.waitFor(
    () =>
      env.sim
        .replies(env.channel, record.card?.ts ?? '')
        .slice(1)
        .find((r) => pattern.test(r.text)),
    10_000,
  );
  return found.text;
}

describe.concurrent('--at', () => {
  it('12 s ahead: SCHEDULED without lease or place in the order; another operation runs meanwhile; at its time it re-plans and completes', async (ctx) => {
    const { env, worker, now } = await start(ctx, WEDNESDAY);
    try {
      const at = new Date(now() + 12_000).toISOString();
      const scheduled = await env.request(`scale streaming-prod/orders 5 --at ${at}`, USERS.alice);
      expect(scheduled.state).toBe('SCHEDULED');
      expect(scheduled.schedule).toMatchObject({ runAt: Date.parse(at), zone: 'Europe/Berlin' });
      expect(await leases(env).holder(prod('orders'))).toBeUndefined();
      expect(await env.bot.deps.store.head(prod('orders'))).toBeUndefined();
      const card = await env.cardIn(scheduled, 'SCHEDULED');
      expect(JSON.stringify(card.blocks)).toMatch(/State: SCHEDULED\* — runs at \d\d:\d\d Europe\/Berlin/);
      expect(JSON.stringify(card.blocks)).toContain(ACTION_IDS.cancel);
      expect(await threadReply(env, scheduled, /SCHEDULED/)).toContain(scheduled.id);

      const other = await env.request('scale streaming-prod/orders 3', USERS.alice);
      expect(other.state).toBe('QUEUED');
      const otherDone = await env.waitForState(other.id, [...ENDED], 20_000);
      expect(otherDone.state).toBe('COMPLETED');
      expect(now()).toBeLessThan(Date.parse(at));
      expect((await env.record(scheduled.id)).state).toBe('SCHEDULED');

      const done = await env.waitForState(scheduled.id, [...ENDED], 60_000);
      expect(done.state).toBe('COMPLETED');
      const queuedAt = stateEntry(done, 'QUEUED')?.at ?? 0;
      expect(queuedAt).toBeGreaterThanOrEqual(Date.parse(at));
      expect(queuedAt - Date.parse(at)).toBeLessThan(30_000);
      // The other operation ran while this one was scheduled: it counts as ahead, so this one re-planned
      // (docs/lifecycle.md#drift).
      expect(done.history.find((e) => e.type === 'replanned')?.detail.after).toEqual([other.id]);
    } finally {
      await worker.close();
    }
  }, 90_000);

  it('refuses a time in the past, more than 7 days out, an unknown window, and both flags; nothing is recorded', async (ctx) => {
    const { env, worker, now } = await start(ctx, WEDNESDAY);
    try {
      const cases: [string, RegExp][] = [
        [`scale streaming-prod/orders 5 --at ${new Date(now() - 60_000).toISOString()}`, /is in the past/],
        [
          `scale streaming-prod/orders 5 --at ${new Date(now() + 8 * 86_400_000).toISOString()}`,
          /more than 7 days ahead/,
        ],
        [
          'scale streaming-prod/orders 5 --window weekly',
          /unknown window "weekly"; the policy's windows are soon, brief/,
        ],
        ['scale streaming-prod/orders 5 --at 02:00 --window soon', /give either --at or --window, not both/],
      ];
      for (const [text, message] of cases)
        expect((await (await env.command(text, USERS.alice)).reply()).text).toMatch(message);
      expect(await env.operationCount()).toBe(0);
    } finally {
      await worker.close();
    }
  }, 30_000);

  it('may be cancelled while SCHEDULED by an approver of its rules, not by anyone else', async (ctx) => {
    const { env, worker } = await start(ctx, WEDNESDAY);
    try {
      const requested = await env.request('restart streaming-prod/payments --at 23:00', USERS.alice);
      expect(requested.state).toBe('AWAITING_APPROVAL');
      await (await env.click('approve', requested, USERS.lead1)).reply();
      const scheduled = await env.waitForState(requested.id, ['SCHEDULED']);
      // 23:00 in the policy's zone (Europe/Berlin, UTC+1 in November) on the Wednesday.
      expect(scheduled.schedule?.runAt).toBe(Date.parse('2026-11-25T22:00:00Z'));
      expect((await (await env.command(`cancel ${requested.id}`, USERS.bob)).reply()).text).toMatch(
        /or an approver of its rules can cancel it/,
      );
      expect((await (await env.command(`cancel ${requested.id}`, USERS.lead1)).reply()).text).toMatch(/is cancelled/);
      const cancelled = await env.waitForState(requested.id, ['CANCELLED']);
      expect(stateEntry(cancelled, 'CANCELLED')?.actor).toBe(USERS.lead1);
      await env.cardIn(cancelled, 'CANCELLED');
    } finally {
      await worker.close();
    }
  }, 30_000);
});

describe.concurrent('--window', () => {
  it('opening in 12 s: SCHEDULED until it opens; a change by someone else, or a deny rule in force then, aborts it at its time', async (ctx) => {
    const opensAt = Date.parse('2026-11-25T02:00:00Z');
    const { cluster, env, worker, now } = await start(ctx, opensAt - 12_000);
    try {
      const scheduled = await env.request('scale streaming-prod/fraud-detection 9 --window soon', USERS.alice);
      // Allowed now (01:59:48); at 02:00 the night rule denies it.
      const savepoint = await env.request('savepoint streaming-prod/orders --window soon', USERS.alice);
      expect(savepoint.state).toBe('SCHEDULED');
      expect(scheduled.state).toBe('SCHEDULED');
      expect(scheduled.schedule).toMatchObject({
        runAt: opensAt,
        window: 'soon',
        zone: 'UTC',
        closesAt: opensAt + 6 * 60_000,
      });
      const card = await env.cardIn(scheduled, 'SCHEDULED');
      expect(JSON.stringify(card.blocks)).toContain('runs in window soon (next opening 02:00 UTC)');
      expect(await leases(env).holder(prod('fraud-detection'))).toBeUndefined();
      // Someone else edits the spec (as kubectl would) before the window opens.
      cluster.store.update('flinkdeployments', 'streaming-prod', 'fraud-detection', (d: KubeObject) => ({
        ...d,
        spec: { ...d.spec, job: { ...(d.spec?.job as Record<string, unknown>), parallelism: 7 } },
      }));
      const ended = await env.waitForState(scheduled.id, [...ENDED], 40_000);
      expect(ended.state).toBe('ABORTED');
      expect(String(stateEntry(ended, 'ABORTED')?.detail.reason)).toContain('target changed since the plan');
      expect(stateEntry(ended, 'QUEUED')?.at ?? 0).toBeGreaterThanOrEqual(opensAt);
      expect(now()).toBeGreaterThanOrEqual(opensAt);
      const denied = await env.waitForState(savepoint.id, [...ENDED], 20_000);
      expect(denied.state).toBe('ABORTED');
      expect(String(stateEntry(denied, 'ABORTED')?.detail.reason)).toBe(
        'at its time, No savepoints during the nightly batch (rule no-night-savepoints)',
      );
    } finally {
      await worker.close();
    }
  }, 60_000);

  it('a window that closes before the operation could start moves it to the next opening', async (ctx) => {
    // brief is Wednesdays 02:00–02:00:59 UTC: open now, closing in 8 s, while another run holds the target's lease.
    const { env, worker } = await start(ctx, Date.parse('2026-11-25T02:00:52Z'));
    // Another run heads the target's order and holds its lease (as a long verification would).
    const order = storeKeys(env.config.redis.prefix).order(prod('fraud-detection'));
    await env.redis.redis.zadd(order, 0, 'op-blocker1');
    const blocker = await leases(env).tryAcquire(prod('fraud-detection'), 'op-blocker1', 60_000);
    expect(blocker.acquired).toBe(true);
    try {
      const scheduled = await env.request('scale streaming-prod/fraud-detection 5 --window brief', USERS.alice);
      expect(scheduled.state).toBe('SCHEDULED');
      await env.waitFor(
        scheduled.id,
        (r) => r.history.some((e) => e.type === 'waiting'),
        'waiting behind the blocker',
        8_000,
      );
      const moved = await env.waitFor(
        scheduled.id,
        (r) => r.state !== 'QUEUED' && r.history.filter((e) => e.name === 'SCHEDULED').length === 2,
        'back to SCHEDULED',
        20_000,
      );
      expect(moved.state).toBe('SCHEDULED');
      expect(moved.history.findLast((e) => e.name === 'SCHEDULED')?.detail.from).toBe('QUEUED');
      expect(moved.schedule).toMatchObject({
        runAt: Date.parse('2026-12-02T02:00:00Z'),
        closesAt: Date.parse('2026-12-02T02:01:00Z'),
      });
      expect(await env.redis.redis.zscore(order, scheduled.id)).toBeNull();
      expect(await threadReply(env, moved, /moved to its next opening/)).toMatch(
        /runs in window brief \(next opening Wed 2 Dec 2026 02:00 UTC\)/,
      );
    } finally {
      if (blocker.acquired) await leases(env).release(blocker.lease);
      await env.redis.redis.zrem(order, 'op-blocker1');
      await worker.close();
    }
  }, 60_000);
});

describe.concurrent('the sweep', () => {
  it('re-creates the wake-up job of a SCHEDULED operation past its time that lost it; the operation then runs', async (ctx) => {
    const { env, now } = await own(ctx, WEDNESDAY);
    const runAt = now() + 60_000;
    const scheduled = await env.request(
      `scale streaming-prod/fraud-detection 6 --at ${new Date(runAt).toISOString()}`,
      USERS.alice,
    );
    expect(scheduled.state).toBe('SCHEDULED');
    const jobId = scheduledJobIdOf(scheduled.id, 1, runAt);
    // Enqueued right after the SCHEDULED commit.
    await eventually(
      'the delayed wake-up job',
      holds(async () => expect(await env.queue.jobState(jobId)).toBe('delayed')),
      { timeoutMs: 5_000, intervalMs: 50 },
    );
    await env.queue.queue.remove(jobId);
    // A minute later by the sweep's clock: past its time, no job.
    const later = runAt + 10_000;
    const sweep = new Sweep({
      store: env.bot.deps.store,
      queues: { clusters: [env.queue.cluster], of: () => env.queue },
      leases: leases(env),
      logger: createLogger('silent'),
      now: () => later,
    });
    expect((await sweep.run()).reenqueued).toEqual([scheduled.id]);
    expect(await env.queue.jobState(jobId)).toBe('waiting');
    expect((await sweep.run()).reenqueued).toEqual([]);
    const worker = await startWorkerAt(env, clockFrom(later));
    try {
      const done = await env.waitForState(scheduled.id, [...ENDED], 40_000);
      expect(done.state).toBe('COMPLETED');
    } finally {
      await worker.close();
    }
  }, 60_000);
});
