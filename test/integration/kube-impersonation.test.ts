// Kubernetes attribution (docs/deployment.md#kubernetes-attribution): a worker with KUBE_IMPERSONATE=slack makes its
// writes as the requester and its reads as itself; a role without `impersonate` fails the operation in words naming
// the missing rule, with nothing changed.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RequestInfo } from '@flink-chatops/sim/kube/server';
import type { OperationIntent } from '../../src/domain/kinds/index.js';
import { ANNOTATION_OPERATION_ID } from '../../src/domain/model/plan.js';
import type { Target } from '../../src/domain/model/target.js';
import { NS, WorkerEnv } from '../support/worker-env.js';

const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);
const orders: Target = { kind: 'FlinkDeployment', namespace: NS, name: 'orders' };
const scale: OperationIntent = { kind: 'scale', target: orders, parallelism: 5, incidentChannels: [] };

let env: WorkerEnv;
let seen: RequestInfo[];
beforeEach(async () => {
  env = await WorkerEnv.start();
  seen = [];
  env.cluster.server.onRequest((info) => seen.push(info));
});
afterEach(async () => {
  await env?.close();
});

function live() {
  const object = env.cluster.store.get('flinkdeployments', NS, 'orders');
  if (!object) throw new Error('orders is gone');
  return {
    generation: object.metadata.generation,
    parallelism: (object.spec?.job as { parallelism: number }).parallelism,
  };
}

describe('KUBE_IMPERSONATE=slack', () => {
  it('a scale for U0ALICE: every write carries slack:U0ALICE and the requesters group, no read carries any', async () => {
    await env.deploy('orders');
    await env.startWorker({ KUBE_IMPERSONATE: 'slack' });
    const done = await env.waitTerminal((await env.request(scale, { requester: 'U0ALICE' })).id);
    expect(done.state).toBe('COMPLETED');
    expect(live()).toEqual({ generation: 2, parallelism: 5 });
    const writes = seen.filter((i) => WRITE_VERBS.has(i.verb));
    const reads = seen.filter((i) => !WRITE_VERBS.has(i.verb));
    expect(writes.map((i) => `${i.verb} ${i.resource}/${i.name}`)).toEqual([`patch flinkdeployments/orders`]);
    for (const write of writes)
      expect(write.impersonate).toEqual({ user: 'slack:U0ALICE', groups: ['flink-chatops:requesters'] });
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.filter((i) => i.impersonate !== undefined)).toEqual([]);
  });

  it("without `impersonate` in the worker's role: FAILED, saying which rule is missing; nothing changed", async () => {
    await env.deploy('orders');
    const before = live();
    env.cluster.server.faults.forbidImpersonation();
    await env.startWorker({ KUBE_IMPERSONATE: 'slack' });
    const done = await env.waitTerminal((await env.request(scale, { requester: 'U0ALICE' })).id);
    expect(done.state).toBe('FAILED');
    const reason = String(done.history.find((e) => e.name === 'FAILED')?.detail.reason);
    expect(reason).toMatch(/^the worker's role lacks `impersonate` on users, which KUBE_IMPERSONATE=slack needs/);
    expect(reason).toContain('deploy/components/impersonation');
    expect(reason).toContain('users "slack:U0ALICE" is forbidden');
    expect(reason).not.toMatch(/^flinkdeployments.* is forbidden/);
    expect(live()).toEqual(before);
    const annotations = env.cluster.store.get('flinkdeployments', NS, 'orders')?.metadata.annotations ?? {};
    expect(annotations).not.toHaveProperty([ANNOTATION_OPERATION_ID]);
    expect(seen.filter((i) => i.verb === 'patch')).toEqual([]);
  });

  it('off (the default): the same scale carries no Impersonate-* header at all', async () => {
    await env.deploy('orders');
    await env.startWorker();
    const done = await env.waitTerminal((await env.request(scale, { requester: 'U0ALICE' })).id);
    expect(done.state).toBe('COMPLETED');
    expect(seen.some((i) => i.verb === 'patch')).toBe(true);
    expect(seen.filter((i) => i.impersonate !== undefined)).toEqual([]);
  });
});
