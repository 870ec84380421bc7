// Graceful shutdown, a lost lease and stale jobs: operations are handed back as recorded and finished elsewhere.
import { DEFAULT_CLUSTER } from '../../src/config.js';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { OperationIntent } from '../../src/domain/kinds/index.js';
import type { Target } from '../../src/domain/model/target.js';
import { jobIdOf, queueName } from '../../src/queue/queue.js';
import { bullmqPrefix, storeKeys } from '../../src/store/keys.js';
import { recordLogs } from '../support/log-lines.js';
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

it('closing a worker mid-verification hands the operation back: lease released, state kept, another worker finishes', async () => {
  env.cluster.operator.setScenario(NS, 'orders', 'slow-reconcile', { slowReconcileSeconds: 600 });
  const first = await env.startWorker();
  const op = await env.request(restart);
  await env.waitForState(op.id, 'SUBMITTED');
  await first.close();
  expect(await env.leases.holder(orders)).toBeUndefined();
  expect((await env.store.get(op.id))?.state).toBe('SUBMITTED');
  env.cluster.operator.clearScenario(NS, 'orders');
  await env.startWorker();
  const done = await env.waitTerminal(op.id);
  expect(done.state).toBe('COMPLETED');
  expect(done.history.filter((e) => e.type === 'state' && e.name === 'SUBMITTED')).toHaveLength(1);
  expect(env.cluster.server.stats().requests['patch flinkdeployments']).toBe(1);
});

it('a lost lease aborts the run without throwing; the operation is resumed under a new lease', async () => {
  // Slow enough that the operation cannot finish before the keeper's next renewal (a third of LEASE_TTL).
  env.cluster.operator.setScenario(NS, 'orders', 'slow-reconcile', { slowReconcileSeconds: 1000 });
  const { lines, logger, logged } = recordLogs();
  await env.startWorker({}, { logger });
  const op = await env.request(restart);
  await env.waitForState(op.id, 'SUBMITTED');
  // Someone (an expiry during a long pause) took the lease away: the keeper notices on its next renewal.
  await env.redis.redis.del(storeKeys(env.prefix).lease(orders));
  await logged(
    'the lost lease',
    (l) => l.msg === 'lease lost; the run stops and the operation is handed back' && l.opId === op.id,
  );
  env.cluster.operator.clearScenario(NS, 'orders');
  const done = await env.waitTerminal(op.id);
  expect(done.state).toBe('COMPLETED');
  expect(lines.filter((l) => l.level === 'error')).toEqual([]);
  expect(env.cluster.server.stats().requests['patch flinkdeployments']).toBe(1);
});

it('a job lock BullMQ cannot renew cancels the run (lockRenewalFailed); the operation is finished once, all the same', async () => {
  env.cluster.operator.setScenario(NS, 'orders', 'slow-reconcile', { slowReconcileSeconds: 1000 });
  const { lines, logger, logged } = recordLogs();
  await env.startWorker({}, { logger });
  const op = await env.request(restart);
  await env.waitForState(op.id, 'SUBMITTED');
  // The job's BullMQ lock vanished (a Redis failover, an expiry during a pause): its next renewal fails.
  await env.redis.redis.del(`${bullmqPrefix(env.prefix)}:${queueName(DEFAULT_CLUSTER)}:${jobIdOf(op.id, 1)}:lock`);
  await logged(
    'the failed job-lock renewal',
    (l) => l.msg === 'job lock renewal failed; cancelling its run' && l.jobId === jobIdOf(op.id, 1),
  );
  env.cluster.operator.clearScenario(NS, 'orders');
  const done = await env.waitTerminal(op.id);
  expect(done.state).toBe('COMPLETED');
  expect(done.history.filter((e) => e.type === 'state' && e.name === 'SUBMITTED')).toHaveLength(1);
  // BullMQ reports the lost lock itself (renewal, then finishing the cancelled job); nothing else went wrong.
  const errors = lines.filter((l) => l.level === 'error').map((l) => JSON.stringify(l));
  expect(errors.every((e) => e.includes(`lock for job ${jobIdOf(op.id, 1)}`))).toBe(true);
  expect(env.cluster.server.stats().requests['patch flinkdeployments']).toBe(1);
});

it('every log line about an operation carries its opId', async () => {
  const { lines, logger } = recordLogs();
  await env.startWorker({}, { logger });
  const op = await env.request(restart);
  await env.waitTerminal(op.id);
  const about = lines.filter((l) => JSON.stringify(l).includes(op.id));
  expect(about.length).toBeGreaterThan(0);
  expect(about.every((l) => l.opId === op.id)).toBe(true);
});

it('jobs of operations that ended or went back to approval are dropped without touching them', async () => {
  const cancelled = await env.request(restart, { enqueue: false });
  await env.store.transition(cancelled.id, { from: ['QUEUED'], to: 'CANCELLED', actor: 'U0REQUEST', role: 'bot' });
  const waiting = await env.accept(restart);
  await env.store.transition(waiting.id, {
    from: ['ACCEPTED'],
    to: 'AWAITING_APPROVAL',
    actor: 'U0REQUEST',
    role: 'bot',
    set: { expiresAt: Date.now() + 60_000 },
  });
  const worker = await env.startWorker();
  expect(await worker.runner.run({ opId: cancelled.id, signal: new AbortController().signal, attempt: 1 })).toEqual({
    type: 'done',
    why: 'already CANCELLED',
  });
  expect(await worker.runner.run({ opId: waiting.id, signal: new AbortController().signal, attempt: 1 })).toMatchObject(
    { type: 'done' },
  );
  expect(
    await worker.runner.run({ opId: 'op-missing00', signal: new AbortController().signal, attempt: 1 }),
  ).toMatchObject({ type: 'done' });
  expect((await env.store.get(waiting.id))?.history).toHaveLength(2);
  expect(env.cluster.server.stats().requests['patch flinkdeployments'] ?? 0).toBe(0);
});
