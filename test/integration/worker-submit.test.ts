// Submission outcomes (docs/lifecycle.md#submission): lost responses, 5xx, timeouts, 409s, concurrent writers, other
// 4xx, freezes.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CHANGED_REASON } from '../../src/domain/kit/planning/drift.js';
import type { OperationRecord } from '../../src/domain/engines/operation.js';
import { ANNOTATION_OPERATION_ID } from '../../src/domain/model/plan.js';
import type { OperationIntent } from '../../src/domain/kinds/index.js';
import type { Target } from '../../src/domain/model/target.js';
import { editSpec } from '@flink-chatops/sim/testing/sim';
import { NS, WorkerEnv } from '../support/worker-env.js';

let env: WorkerEnv;
beforeEach(async () => {
  env = await WorkerEnv.start();
});
afterEach(async () => {
  await env?.close();
});

const orders: Target = { kind: 'FlinkDeployment', namespace: NS, name: 'orders' };
const scale = (parallelism: number): OperationIntent => ({
  kind: 'scale',
  target: orders,
  parallelism,
  incidentChannels: [],
});

function requests(what: string): number {
  return env.cluster.server.stats().requests[what] ?? 0;
}

function live() {
  const object = env.cluster.store.get('flinkdeployments', NS, 'orders');
  if (!object) throw new Error('orders is gone');
  return {
    generation: object.metadata.generation,
    parallelism: (object.spec?.job as { parallelism: number }).parallelism,
    opId: object.metadata.annotations?.[ANNOTATION_OPERATION_ID],
  };
}

function states(record: OperationRecord): string[] {
  return record.history.filter((e) => e.type === 'state').map((e) => e.name);
}

describe('outcome unknown: the target is read before anything is resubmitted', () => {
  it('a lost response → UNCERTAIN → our annotation is there → SUBMITTED; exactly one patch', async () => {
    await env.deploy('orders');
    env.cluster.server.faults.inject({
      kind: 'lose-response',
      verb: 'patch',
      resource: 'flinkdeployments',
      name: 'orders',
    });
    await env.startWorker();
    const done = await env.waitTerminal((await env.request(scale(7))).id);
    expect(states(done)).toEqual(['ACCEPTED', 'QUEUED', 'SUBMITTING', 'UNCERTAIN', 'SUBMITTED', 'COMPLETED']);
    expect(done.history.find((e) => e.name === 'SUBMITTED')?.detail.how).toBe('read');
    expect(requests('patch flinkdeployments')).toBe(1);
    expect(live()).toMatchObject({ generation: 2, parallelism: 7, opId: done.id });
    expect(done.submittedGeneration).toBe(2);
  });

  it('a 500 → UNCERTAIN → not applied, nothing else changed → resubmitted once; applied once', async () => {
    await env.deploy('orders');
    env.cluster.server.faults.inject({
      kind: 'error-500',
      verb: 'patch',
      resource: 'flinkdeployments',
      name: 'orders',
    });
    await env.startWorker();
    const done = await env.waitTerminal((await env.request(scale(3))).id);
    expect(states(done)).toEqual([
      'ACCEPTED',
      'QUEUED',
      'SUBMITTING',
      'UNCERTAIN',
      'SUBMITTING',
      'SUBMITTED',
      'COMPLETED',
    ]);
    expect(done.history.filter((e) => e.type === 'retry')).toHaveLength(1);
    expect(requests('patch flinkdeployments')).toBe(2);
    expect(live()).toMatchObject({ generation: 2, parallelism: 3, opId: done.id });
  });

  it('a timeout while the request is still on its way: resubmitted with the fresh resourceVersion; the late one is refused', async () => {
    await env.deploy('orders');
    env.cluster.server.faults.inject({
      kind: 'delay',
      verb: 'patch',
      resource: 'flinkdeployments',
      name: 'orders',
      ms: 1500,
    });
    await env.startWorker({}, { settings: { kubeTimeoutMs: 400 } });
    const done = await env.waitTerminal((await env.request(scale(5))).id);
    expect(done.state).toBe('COMPLETED');
    expect(states(done)).toContain('UNCERTAIN');
    expect(live()).toMatchObject({ generation: 2, parallelism: 5, opId: done.id });
  });

  it('a savepoint whose create response is lost: the snapshot is found by name and not created twice', async () => {
    await env.deploy('orders');
    env.cluster.server.faults.inject({ kind: 'lose-response', verb: 'create', resource: 'flinkstatesnapshots' });
    await env.startWorker();
    const done = await env.waitTerminal(
      (await env.request({ kind: 'savepoint', target: orders, incidentChannels: [] })).id,
    );
    expect(done.state).toBe('COMPLETED');
    expect(states(done)).toContain('UNCERTAIN');
    expect(requests('create flinkstatesnapshots')).toBe(1);
    expect(env.cluster.store.list('flinkstatesnapshots', NS)).toHaveLength(1);
  });
});

describe('someone else changed the target', () => {
  it('between plan and submit (a spec change) → ABORTED; nothing patched', async () => {
    await env.deploy('orders');
    const op = await env.request(scale(6));
    editSpec(env.cluster.store, 'flinkdeployments', NS, 'orders', (spec) => (spec.image = 'flink:1.20.2'));
    await env.startWorker();
    const done = await env.waitTerminal(op.id);
    expect(done.state).toBe('ABORTED');
    expect(done.history.at(-1)?.detail.reason).toBe(CHANGED_REASON);
    expect(requests('patch flinkdeployments')).toBe(0);
    expect(live().parallelism).toBe(2);
  });

  it('during the call (409 after a spec change) → ABORTED; nothing applied by us', async () => {
    await env.deploy('orders');
    env.cluster.server.faults.inject({
      kind: 'delay',
      verb: 'patch',
      resource: 'flinkdeployments',
      name: 'orders',
      ms: 600,
    });
    await env.startWorker();
    const op = await env.request(scale(6));
    await env.waitForState(op.id, 'SUBMITTING');
    editSpec(env.cluster.store, 'flinkdeployments', NS, 'orders', (spec) => (spec.image = 'flink:1.20.2'));
    const done = await env.waitTerminal(op.id);
    expect(states(done)).toEqual(['ACCEPTED', 'QUEUED', 'SUBMITTING', 'ABORTED']);
    expect(done.history.at(-1)?.detail.reason).toBe(CHANGED_REASON);
    expect(live()).toMatchObject({ parallelism: 2, generation: 2 });
    expect(live().opId).toBeUndefined();
  });

  it('during the call (409 after a status-only write) → not drift: resubmitted with the fresh resourceVersion', async () => {
    await env.deploy('orders');
    env.cluster.server.faults.inject({
      kind: 'delay',
      verb: 'patch',
      resource: 'flinkdeployments',
      name: 'orders',
      ms: 600,
    });
    await env.startWorker();
    const op = await env.request(scale(6));
    await env.waitForState(op.id, 'SUBMITTING');
    env.cluster.store.update(
      'flinkdeployments',
      NS,
      'orders',
      (o) => ({ ...o, status: { ...o.status, clusterInfo: { touched: 'yes' } } }),
      { subresource: 'status' },
    );
    const done = await env.waitTerminal(op.id);
    expect(states(done)).toEqual(['ACCEPTED', 'QUEUED', 'SUBMITTING', 'SUBMITTING', 'SUBMITTED', 'COMPLETED']);
    expect(requests('patch flinkdeployments')).toBe(2);
    expect(live()).toMatchObject({ parallelism: 6, generation: 2, opId: done.id });
  });

  it('already in the desired state → ABORTED', async () => {
    await env.deploy('orders');
    const op = await env.request(scale(4));
    editSpec(env.cluster.store, 'flinkdeployments', NS, 'orders', (spec) => (spec.job.parallelism = 4));
    await env.startWorker();
    const done = await env.waitTerminal(op.id);
    expect(done.state).toBe('ABORTED');
    expect(done.history.at(-1)?.detail.reason).toBe('already in the desired state');
  });
});

describe('refusals', () => {
  it('another 4xx (403) → FAILED with the API message', async () => {
    await env.deploy('orders');
    env.cluster.server.faults.inject({
      kind: 'error-403',
      verb: 'patch',
      resource: 'flinkdeployments',
      name: 'orders',
    });
    await env.startWorker();
    const done = await env.waitTerminal((await env.request(scale(6))).id);
    expect(done.state).toBe('FAILED');
    expect(String(done.history.at(-1)?.detail.reason)).toMatch(/forbidden|cannot patch/i);
    expect(live().parallelism).toBe(2);
  });

  it('a frozen target → ABORTED naming who froze it', async () => {
    await env.deploy('orders');
    const op = await env.request(scale(6));
    await env.freezes.freeze(orders, { by: 'U0LEAD1', reason: 'incident 42', at: Date.now() });
    await env.startWorker();
    const done = await env.waitTerminal(op.id);
    expect(done.state).toBe('ABORTED');
    expect(done.history.at(-1)?.detail.reason).toBe('target frozen by <@U0LEAD1>: incident 42');
    expect(requests('patch flinkdeployments')).toBe(0);
  });

  it('a target deleted before the run → ABORTED', async () => {
    await env.deploy('orders');
    const op = await env.request(scale(6));
    env.cluster.store.delete('flinkdeployments', NS, 'orders');
    await env.startWorker();
    const done = await env.waitTerminal(op.id);
    expect(done.state).toBe('ABORTED');
    expect(done.history.at(-1)?.detail.reason).toBe('the target no longer exists');
  });
});
