// A SCHEDULED operation at its time, against the real Redis store (docs/policy.md#scheduled-operations): never early, a
// closed window moves to its next opening (or EXPIRED past 7 days), a deny rule in force aborts it, else QUEUED with
// its run job enqueued.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fireScheduled, moveToNextOpening, type ScheduledDeps } from '../../src/app/scheduling.js';
import type { Target } from '../../src/domain/model/target.js';
import type { OperationSchedule } from '../../src/domain/kit/schedule/resolve.js';
import type { Policy } from '../../src/domain/engines/policy/schema.js';
import { validatePolicy } from '../../src/domain/engines/policy/validate.js';
import { createLogger } from '../../src/log.js';
import { OperationStore } from '../../src/store/operations.js';
import { redisForTest, type TestRedis } from '../support/redis.js';

const orders: Target = { kind: 'FlinkDeployment', namespace: 'streaming-prod', name: 'orders' };
/** Wednesday 2026-11-25 02:00 UTC: the `nightly` window (Wednesdays 02:00–02:30 UTC) opens. */
const OPENS = Date.parse('2026-11-25T02:00:00Z');
const CLOSES = OPENS + 31 * 60_000;
const PLAN = {
  target: orders,
  uid: 'u1',
  generation: 1,
  revision: 1,
  digest: 'a'.repeat(64),
  change: { type: 'patch', patch: {} },
  diff: [],
};

function policy(extra: Record<string, unknown> = {}): Policy {
  const result = validatePolicy({
    version: 1,
    namespaces: [{ name: 'streaming-prod' }],
    windows: { nightly: { days: ['wed'], from: '02:00', to: '02:30', timezone: 'UTC' } },
    ...extra,
  });
  if (!result.ok) throw new Error(result.errors.join('\n'));
  return result.policy;
}

let t: TestRedis;
let store: OperationStore;
let clock: number;
let calls: string[];

beforeEach(async () => {
  t = await redisForTest('sched');
  clock = OPENS - 60_000;
  store = new OperationStore(t.redis, { prefix: t.prefix, now: () => clock });
  calls = [];
});
afterEach(async () => t.cleanup());

function deps(p: Policy = policy()): ScheduledDeps {
  return {
    store,
    queue: {
      enqueueAt: async (opId, revision, runAt) => {
        calls.push(`enqueueAt ${opId}.${revision} ${new Date(runAt).toISOString()}`);
        return { jobId: `${opId}.${revision}.at${runAt}` };
      },
      enqueue: async (opId, revision) => {
        calls.push(`enqueue ${opId}.${revision}`);
        return { jobId: `${opId}.${revision}` };
      },
      removeFinished: async (jobId) => {
        calls.push(`removeFinished ${jobId}`);
        return false;
      },
      jobState: async () => 'unknown',
    },
    policy: { current: async () => ({ ok: true, policy: p }) },
    now: () => clock,
    actor: 'worker',
    role: 'worker',
    log: createLogger('silent'),
  };
}

async function scheduled(id: string, schedule: OperationSchedule, to: 'SCHEDULED' | 'QUEUED' = 'SCHEDULED') {
  const created = await store.create(
    {
      id,
      kind: 'restart',
      intent: { kind: 'restart', target: orders, incidentChannels: [] },
      target: orders,
      requester: 'U0REQ',
      channel: 'C0OPS',
      incidentChannels: [],
      plan: PLAN as never,
      schedule,
    },
    'U0REQ',
  );
  if (!created.ok) throw new Error('exists');
  const entries = [{ type: 'state', name: 'SCHEDULED', actor: 'U0REQ', role: 'bot' } as const];
  if (to === 'QUEUED') entries.push({ type: 'state', name: 'QUEUED', actor: 'worker', role: 'worker' } as never);
  const moved = await store.apply(id, () => ({ entries }));
  if (!moved.ok) throw new Error(moved.reason);
  return moved.record;
}

const window = (firstRunAt = OPENS): OperationSchedule => ({
  runAt: OPENS,
  zone: 'UTC',
  window: 'nightly',
  closesAt: CLOSES,
  firstRunAt,
});

describe('fireScheduled', () => {
  it('before its time only says how long to wait', async () => {
    await scheduled('op-early1', window());
    expect(await fireScheduled(deps(), 'op-early1')).toEqual({ type: 'early', delayMs: 60_000 });
    expect((await store.get('op-early1'))?.state).toBe('SCHEDULED');
    expect(calls).toEqual([]);
  });

  it('at its time: QUEUED (joining the order) and its run job enqueued afresh', async () => {
    await scheduled('op-ontime1', window());
    clock = OPENS;
    expect(await fireScheduled(deps(), 'op-ontime1')).toEqual({ type: 'moved', state: 'QUEUED' });
    expect(await store.head(orders)).toBe('op-ontime1');
    expect(calls).toEqual(['removeFinished op-ontime1.1', 'enqueue op-ontime1.1']);
    expect(await fireScheduled(deps(), 'op-ontime1')).toMatchObject({ type: 'gone' });
  });

  it('a deny rule in force at its time aborts it with the reason', async () => {
    await scheduled('op-denied1', window());
    clock = OPENS + 1000;
    const p = policy({
      rules: [
        {
          name: 'batch',
          when: { schedule: { days: ['wed'], from: '01:00', to: '03:00', timezone: 'UTC' } },
          deny: 'batch runs',
        },
      ],
    });
    expect(await fireScheduled(deps(p), 'op-denied1')).toEqual({ type: 'moved', state: 'ABORTED' });
    const record = await store.get('op-denied1');
    expect(record?.history.at(-1)?.detail.reason).toBe('at its time, batch runs (rule batch)');
    expect(calls).toEqual([]);
  });

  it('fired after its window closed: stays SCHEDULED for the next opening, with a note and a new wake-up', async () => {
    await scheduled('op-lately1', window());
    clock = CLOSES + 1000;
    expect(await fireScheduled(deps(), 'op-lately1')).toEqual({ type: 'moved', state: 'SCHEDULED' });
    const record = await store.get('op-lately1');
    expect(record?.schedule).toEqual({
      runAt: OPENS + 7 * 86_400_000,
      zone: 'UTC',
      window: 'nightly',
      closesAt: CLOSES + 7 * 86_400_000,
      firstRunAt: OPENS,
    });
    expect(record?.history.at(-1)).toMatchObject({ type: 'note', name: 'rescheduled' });
    expect(calls).toEqual(['enqueueAt op-lately1.1 2026-12-02T02:00:00.000Z']);
  });

  it('EXPIRED when the next opening is more than 7 days after it was first scheduled', async () => {
    await scheduled('op-stale1', window(OPENS - 60_000));
    clock = CLOSES + 1000;
    expect(await fireScheduled(deps(), 'op-stale1')).toEqual({ type: 'moved', state: 'EXPIRED' });
    expect(calls).toEqual([]);
  });
});

describe('moveToNextOpening from QUEUED', () => {
  it('leaves the order for SCHEDULED at the next opening, or goes through SCHEDULED to EXPIRED', async () => {
    const queued = await scheduled('op-waited1', window(), 'QUEUED');
    expect(await store.head(orders)).toBe('op-waited1');
    clock = CLOSES;
    expect(await moveToNextOpening(deps(), queued, policy(), clock)).toEqual({ type: 'moved', state: 'SCHEDULED' });
    expect(await store.head(orders)).toBeUndefined();
    const stale = await scheduled('op-waited2', window(OPENS - 60_000), 'QUEUED');
    expect(await moveToNextOpening(deps(), stale, policy(), clock)).toEqual({ type: 'moved', state: 'EXPIRED' });
    expect((await store.get('op-waited2'))?.history.slice(-2).map((e) => `${e.name} ${String(e.detail.from)}`)).toEqual(
      ['SCHEDULED QUEUED', 'EXPIRED SCHEDULED'],
    );
  });
});
