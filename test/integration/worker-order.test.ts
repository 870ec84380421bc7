// Per-target order and leases (docs/lifecycle.md#queue-order-and-leases): strict serialization, waiting entries,
// re-plans, parked jobs hold no slot.
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { HistoryEntry, OperationRecord } from '../../src/domain/engines/operation.js';
import type { Target } from '../../src/domain/model/target.js';
import { APPROVAL_NS, NS, WorkerEnv } from '../support/worker-env.js';

let env: WorkerEnv;
beforeEach(async () => {
  env = await WorkerEnv.start();
});
afterEach(async () => {
  await env?.close();
});

const common = { incidentChannels: [] };
const target = (name: string, namespace = NS): Target => ({ kind: 'FlinkDeployment', namespace, name });

function stateEntry(record: OperationRecord, state: string): HistoryEntry {
  const found = record.history.find((e) => e.type === 'state' && e.name === state);
  if (!found) throw new Error(`${record.id} never was ${state}: ${record.history.map((e) => e.name).join(' → ')}`);
  return found;
}

it('two operations on one target run strictly one after the other; the second waits, then re-plans', async () => {
  await env.deploy('orders');
  const first = await env.request({ kind: 'scale', target: target('orders'), parallelism: 3, ...common });
  const second = await env.request({ kind: 'restart', target: target('orders'), ...common });
  await env.startWorker();
  const [a, b] = await Promise.all([env.waitTerminal(first.id), env.waitTerminal(second.id)]);
  expect([a.state, b.state]).toEqual(['COMPLETED', 'COMPLETED']);
  // The second's API call (written SUBMITTING right before it) only after the first ended.
  expect(stateEntry(b, 'SUBMITTING').at).toBeGreaterThanOrEqual(stateEntry(a, 'COMPLETED').at);
  const waiting = b.history.filter((e) => e.type === 'waiting');
  expect(waiting.length).toBeGreaterThanOrEqual(1);
  expect(waiting.every((e) => e.detail.behind === first.id)).toBe(true);
  expect(waiting).toHaveLength(1);
  const replanned = b.history.find((e) => e.type === 'replanned');
  expect(replanned?.detail.message).toBe(`re-planned after ${first.id}`);
  expect(b.plan?.revision).toBe(2);
  expect(b.plan?.generation).toBe(a.submittedGeneration);
  expect(b.submittedGeneration).toBe((a.submittedGeneration ?? 0) + 1);
  expect(env.cluster.server.stats().requests['patch flinkdeployments']).toBe(2);
});

it('a re-plan that policy now wants approved goes back to AWAITING_APPROVAL with the new diff', async () => {
  await env.deploy('payments', { namespace: APPROVAL_NS });
  const upgrade = await env.request({
    kind: 'upgrade',
    target: target('payments', APPROVAL_NS),
    image: 'flink:1.20.1',
    mode: 'stateless',
    ...common,
  });
  const scale = await env.request({
    kind: 'scale',
    target: target('payments', APPROVAL_NS),
    parallelism: 5,
    ...common,
  });
  expect(scale.decision?.outcome).toBe('allow');
  await env.startWorker();
  expect((await env.waitTerminal(upgrade.id)).state).toBe('COMPLETED');
  const back = await env.waitForState(scale.id, 'AWAITING_APPROVAL');
  expect(back.decision?.outcome).toBe('needs-approval');
  expect(back.plan?.revision).toBe(2);
  expect(back.approvals).toEqual([]);
  expect(back.expiresAt).toBeGreaterThan(Date.now());
  expect(back.history.find((e) => e.type === 'replanned')?.detail.after).toEqual([upgrade.id]);
  expect(await env.store.orderOf(target('payments', APPROVAL_NS))).toEqual([]);
});

it('a waiting operation holds no worker slot: with two slots, another target runs while one target is busy', async () => {
  await env.deploy('busy');
  await env.deploy('other');
  env.cluster.operator.setScenario(NS, 'busy', 'slow-reconcile', { slowReconcileSeconds: 600 });
  const slow = await env.request({ kind: 'restart', target: target('busy'), ...common });
  const behind = await env.request({ kind: 'scale', target: target('busy'), parallelism: 4, ...common });
  await env.startWorker({ WORKER_CONCURRENCY: '2' });
  await env.waitFor(behind.id, (r) => r.history.some((e) => e.type === 'waiting'), 'the second to wait');
  const quick = await env.request({ kind: 'restart', target: target('other'), ...common });
  const done = await env.waitTerminal(quick.id);
  expect(done.state).toBe('COMPLETED');
  expect((await env.store.get(slow.id))?.state).toBe('SUBMITTED');
  env.cluster.operator.clearScenario(NS, 'busy');
  expect((await env.waitTerminal(behind.id)).state).toBe('COMPLETED');
});
