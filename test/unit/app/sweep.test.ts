// The sweep on the in-memory stores (docs/lifecycle.md#the-sweep): approvals past their time expire, an operation
// in the order that lost its job is enqueued again with a growing delay and reported stuck once, a live one is left.
import { describe, expect, it } from 'vitest';
import { STUCK_AFTER, Sweep } from '../../../src/app/sweep.js';
import { createLogger } from '../../../src/log.js';
import { jobIdOf } from '../../../src/queue/queue.js';
import { FakeQueue } from '../../support/fake-queue.js';
import { DEV, memoryBot, PROD, recorded, type MemoryBot } from '../../support/memory-bot.js';

function sweepOf(bot: MemoryBot, queue: FakeQueue): Sweep {
  return new Sweep({
    store: bot.stores.store,
    queues: { clusters: ['default'], of: () => queue },
    leases: bot.stores.leases,
    logger: createLogger('silent'),
    now: bot.now,
    graceMs: 5_000,
  });
}

describe('Sweep', () => {
  it('expires an approval past its deadline, once, whichever sweep gets there', async () => {
    const bot = memoryBot();
    const record = await recorded(bot, { kind: 'scale', target: PROD, parallelism: 8, reason: 'backlog' });
    const queue = new FakeQueue();
    expect((await sweepOf(bot, queue).run()).expired).toEqual([]);
    bot.advance(30 * 60_000);
    const [first, second] = await Promise.all([sweepOf(bot, queue).run(), sweepOf(bot, queue).run()]);
    expect([...first.expired, ...second.expired]).toEqual([record.id]);
    expect((await bot.stores.store.get(record.id))?.history.at(-1)).toMatchObject({
      name: 'EXPIRED',
      actor: 'sweep',
      detail: { expiresAt: record.expiresAt },
    });
  });

  it('enqueues a QUEUED operation with no job again, with a growing delay, and reports it stuck once', async () => {
    const bot = memoryBot();
    const record = await recorded(bot, { kind: 'restart', target: DEV });
    const queue = new FakeQueue();
    const sweep = sweepOf(bot, queue);
    expect((await sweep.run()).reenqueued).toEqual([]);
    const delays: number[] = [];
    for (let i = 1; i <= STUCK_AFTER; i++) {
      bot.advance(10_000);
      const report = await sweep.run();
      expect(report.reenqueued).toEqual([record.id]);
      expect(report.stuck).toEqual(i === STUCK_AFTER ? [record.id] : []);
      delays.push(queue.calls.at(-1)?.delayMs ?? -1);
      queue.jobs.set(jobIdOf(record.id, 1), 'completed');
    }
    expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 16_000]);
    const stored = await bot.stores.store.get(record.id);
    expect(stored).toMatchObject({ state: 'QUEUED', reenqueues: STUCK_AFTER });
    expect(stored?.history.filter((e) => e.name === 'stuck')).toHaveLength(1);
  });

  it('leaves alone an operation whose job is alive, whose lease it holds, or that changed a moment ago', async () => {
    const bot = memoryBot();
    const record = await recorded(bot, { kind: 'restart', target: DEV });
    const queue = new FakeQueue();
    expect((await sweepOf(bot, queue).run()).reenqueued).toEqual([]);
    bot.advance(10_000);
    queue.jobs.set(jobIdOf(record.id, 1), 'delayed');
    expect((await sweepOf(bot, queue).run()).reenqueued).toEqual([]);
    queue.jobs.clear();
    const lease = await bot.stores.leases.tryAcquire(DEV, record.id, 60_000);
    expect(lease.acquired).toBe(true);
    expect((await sweepOf(bot, queue).run()).reenqueued).toEqual([]);
    expect(queue.ids('enqueue')).toEqual([]);
  });
});
