// The sweep (docs/lifecycle.md#the-sweep): expiry, re-enqueueing operations whose job is lost, `stuck` after 5,
// idempotent across processes.
import { DEFAULT_CLUSTER } from '../../src/config.js';
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { jobIdOf, queueName } from '../../src/queue/queue.js';
import { bullmqPrefix } from '../../src/store/keys.js';
import { Sweep } from '../../src/app/sweep.js';
import type { OperationIntent } from '../../src/domain/kinds/index.js';
import type { Target } from '../../src/domain/model/target.js';
import { NS, WorkerEnv } from '../support/worker-env.js';

let env: WorkerEnv;
beforeEach(async () => {
  env = await WorkerEnv.start();
  await env.deploy('orders');
});
afterEach(async () => {
  await env?.close();
});

const orders: Target = { kind: 'FlinkDeployment', namespace: NS, name: 'orders' };
const restart: OperationIntent = { kind: 'restart', target: orders, incidentChannels: [] };

function sweep(): Sweep {
  return new Sweep({
    store: env.store,
    queues: env.queues,
    leases: env.leases,
    logger: createLogger('silent'),
    graceMs: 0,
    backoffBaseMs: 10,
  });
}

describe('approvals', () => {
  it('AWAITING_APPROVAL past expiresAt → EXPIRED by the sweep; one not yet due stays', async () => {
    const due = await env.accept(restart);
    const later = await env.accept(restart);
    await env.store.transition(due.id, {
      from: ['ACCEPTED'],
      to: 'AWAITING_APPROVAL',
      actor: 'U0REQUEST',
      role: 'bot',
      set: { expiresAt: Date.now() - 1 },
    });
    await env.store.transition(later.id, {
      from: ['ACCEPTED'],
      to: 'AWAITING_APPROVAL',
      actor: 'U0REQUEST',
      role: 'bot',
      set: { expiresAt: Date.now() + 60_000 },
    });
    const report = await sweep().run();
    expect(report.expired).toEqual([due.id]);
    const expired = await env.store.get(due.id);
    expect(expired?.state).toBe('EXPIRED');
    expect(expired?.history.at(-1)?.actor).toBe('sweep');
    expect((await env.store.get(later.id))?.state).toBe('AWAITING_APPROVAL');
    expect((await sweep().run()).expired).toEqual([]);
  });
});

describe('operations whose job was lost', () => {
  it('a QUEUED operation with no job is enqueued again and then runs', async () => {
    const op = await env.request(restart, { enqueue: false });
    const first = await sweep().run();
    expect(first.reenqueued).toEqual([op.id]);
    expect((await env.store.get(op.id))?.reenqueues).toBe(1);
    // Its job is live now: the next sweep leaves it alone.
    expect((await sweep().run()).reenqueued).toEqual([]);
    await env.startWorker();
    expect((await env.waitTerminal(op.id)).state).toBe('COMPLETED');
  });

  it('a finished job still holding the id is removed first, so the new one runs', async () => {
    const op = await env.request(restart);
    // A job that ended without ending its operation (as after a BullMQ failure).
    const connection = new Redis(env.redis.url, { maxRetriesPerRequest: null });
    const manual = new Worker(queueName(DEFAULT_CLUSTER), null, { connection, prefix: bullmqPrefix(env.prefix) });
    const job = await manual.getNextJob('manual-token');
    await job?.moveToFailed(new Error('lost'), 'manual-token');
    await manual.close();
    connection.disconnect();
    expect(await env.queue.jobState(jobIdOf(op.id, 1))).toBe('failed');
    expect((await sweep().run()).reenqueued).toEqual([op.id]);
    await env.startWorker();
    expect((await env.waitTerminal(op.id)).state).toBe('COMPLETED');
  });

  it('after 5 re-enqueues the operation keeps its state and is reported stuck once', async () => {
    const op = await env.request(restart, { enqueue: false });
    const s = sweep();
    const stuck: string[][] = [];
    for (let i = 0; i < 7; i++) {
      stuck.push((await s.run()).stuck);
      await env.queue.queue.remove(jobIdOf(op.id, 1));
    }
    const record = await env.store.get(op.id);
    expect(record?.state).toBe('QUEUED');
    expect(record?.reenqueues).toBe(7);
    expect(stuck.map((ids) => ids.length)).toEqual([0, 0, 0, 0, 1, 0, 0]);
    const notes = record?.history.filter((e) => e.type === 'note' && e.name === 'stuck') ?? [];
    expect(notes).toHaveLength(1);
    expect(notes[0]?.detail.reenqueues).toBe(5);
  });

  it('two processes sweeping at once count one re-enqueue', async () => {
    const op = await env.request(restart, { enqueue: false });
    const reports = await Promise.all([sweep().run(), sweep().run(), sweep().run()]);
    expect(reports.flatMap((r) => r.reenqueued)).toEqual([op.id]);
    expect((await env.store.get(op.id))?.reenqueues).toBe(1);
  });

  it('an operation whose run holds the lease is left alone', async () => {
    const op = await env.request(restart, { enqueue: false });
    const held = await env.leases.tryAcquire(orders, op.id, 5000);
    expect(held.acquired).toBe(true);
    expect((await sweep().run()).reenqueued).toEqual([]);
  });
});
