// Scheduled operations on the in-memory stores (docs/policy.md#scheduled-operations): entering SCHEDULED with its
// wake-up job, never running early, the policy re-checked at its time, a closed window moving on, the sweep's backstop.
import { describe, expect, it } from 'vitest';
import {
  fireScheduled,
  sweepScheduled,
  SCHEDULE_SWEEP_GRACE_MS,
  type ScheduledDeps,
} from '../../../src/app/scheduling.js';
import { staticPolicy } from '../../../src/app/policy-source.js';
import { scheduledJobIdOf } from '../../../src/queue/queue.js';
import { createLogger } from '../../../src/log.js';
import type { Policy } from '../../../src/domain/engines/policy/schema.js';
import { FakeQueue } from '../../support/fake-queue.js';
import {
  DEV,
  memoryBot,
  recorded,
  UNIT_POLICY,
  unitPolicy,
  WEDNESDAY,
  type MemoryBot,
} from '../../support/memory-bot.js';

const HOUR = 3_600_000;
const logger = createLogger('silent');

function fireDeps(bot: MemoryBot, queue: FakeQueue, policy?: Policy): ScheduledDeps {
  return {
    store: bot.stores.store,
    queue,
    policy: policy ? staticPolicy(policy) : bot.deps.policy,
    now: bot.now,
    actor: 'worker',
    role: 'worker',
    log: logger,
  };
}

describe('entering SCHEDULED', () => {
  it('records the time it runs at and asks the queue for its wake-up job', async () => {
    const bot = memoryBot();
    const record = await recorded(bot, { kind: 'restart', target: DEV, at: { kind: 'instant', ms: WEDNESDAY + HOUR } });
    expect(record).toMatchObject({
      state: 'SCHEDULED',
      schedule: { runAt: WEDNESDAY + HOUR, firstRunAt: WEDNESDAY + HOUR },
    });
    expect(bot.enqueued).toEqual([{ opId: record.id, revision: 1, cluster: undefined, runAt: WEDNESDAY + HOUR }]);
    expect(await bot.stores.store.head(DEV)).toBeUndefined();
  });
});

describe('fireScheduled', () => {
  it('never moves it before its time, then queues it and enqueues its run job', async () => {
    const bot = memoryBot();
    const queue = new FakeQueue();
    const record = await recorded(bot, { kind: 'restart', target: DEV, at: { kind: 'instant', ms: WEDNESDAY + HOUR } });
    bot.advance(HOUR - 1_000);
    expect(await fireScheduled(fireDeps(bot, queue), record.id)).toEqual({ type: 'early', delayMs: 1_000 });
    bot.advance(1_000);
    expect(await fireScheduled(fireDeps(bot, queue), record.id)).toEqual({ type: 'moved', state: 'QUEUED' });
    expect(queue.ids('enqueue')).toEqual([`${record.id}.1`]);
    expect(await bot.stores.store.head(DEV)).toBe(record.id);
    expect(await fireScheduled(fireDeps(bot, queue), record.id)).toEqual({
      type: 'gone',
      why: 'QUEUED: not scheduled',
    });
  });

  it('aborts it when a deny rule is in force at its time', async () => {
    const bot = memoryBot();
    const queue = new FakeQueue();
    const record = await recorded(bot, { kind: 'restart', target: DEV, at: { kind: 'instant', ms: WEDNESDAY + HOUR } });
    const freezeAtEleven = unitPolicy({
      ...UNIT_POLICY,
      rules: [
        ...UNIT_POLICY.rules,
        {
          name: 'no-dev-at-eleven',
          when: {
            namespaces: ['streaming-dev'],
            schedule: { days: ['wed'], from: '11:00', to: '11:59', timezone: 'UTC' },
          },
          deny: 'dev is closed at eleven',
        },
      ],
    });
    bot.advance(HOUR);
    expect(await fireScheduled(fireDeps(bot, queue, freezeAtEleven), record.id)).toEqual({
      type: 'moved',
      state: 'ABORTED',
    });
    expect((await bot.stores.store.get(record.id))?.history.at(-1)).toMatchObject({
      name: 'ABORTED',
      detail: { reason: expect.stringContaining('at its time, dev is closed at eleven') },
    });
    expect(queue.calls).toEqual([]);
  });

  it('moves a window operation whose window closed to the next opening, with a new wake-up job', async () => {
    const nightly = unitPolicy({
      ...UNIT_POLICY,
      windows: { nightly: { days: ['mon', 'tue', 'wed', 'thu'], from: '02:00', to: '04:00', timezone: 'UTC' } },
    });
    const bot = memoryBot({ policy: nightly });
    const queue = new FakeQueue();
    const record = await recorded(bot, { kind: 'restart', target: DEV, window: 'nightly' });
    const thursdayTwo = Date.parse('2026-11-26T02:00:00Z');
    expect(record.schedule).toMatchObject({ runAt: thursdayTwo, window: 'nightly' });
    bot.advance(thursdayTwo + 3 * HOUR - WEDNESDAY);
    expect(await fireScheduled(fireDeps(bot, queue), record.id)).toEqual({ type: 'moved', state: 'SCHEDULED' });
    const mondayTwo = Date.parse('2026-11-30T02:00:00Z');
    expect((await bot.stores.store.get(record.id))?.schedule?.runAt).toBe(mondayTwo);
    expect(queue.ids('enqueueAt')).toEqual([scheduledJobIdOf(record.id, 1, mondayTwo)]);
  });
});

describe('sweepScheduled', () => {
  it('gives a SCHEDULED record past its time without a live wake-up job a new one, and leaves one that has it', async () => {
    const bot = memoryBot();
    const queue = new FakeQueue();
    const record = await recorded(bot, { kind: 'restart', target: DEV, at: { kind: 'instant', ms: WEDNESDAY + HOUR } });
    const deps = { queues: { clusters: ['default'], of: () => queue }, logger };
    const late = WEDNESDAY + HOUR + SCHEDULE_SWEEP_GRACE_MS;
    const stored = async () => [(await bot.stores.store.get(record.id))!];
    expect(await sweepScheduled(deps, await stored(), late - 1)).toEqual([]);
    expect(await sweepScheduled(deps, await stored(), late)).toEqual([record.id]);
    expect(await sweepScheduled(deps, await stored(), late + 1)).toEqual([]);
    expect(queue.ids('enqueueAt')).toEqual([scheduledJobIdOf(record.id, 1, WEDNESDAY + HOUR)]);
  });
});
