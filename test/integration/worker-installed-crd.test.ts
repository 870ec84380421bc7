// A patch with fields its kind's planner does not write (spec.taskManager.resources or spec.flinkVersion on a scale), as a
// bot planning against other CRDs might record it, on a simulated cluster whose CRDs are 1.15's or 1.16's: the worker
// submits only the plan it rebuilds from the intent (docs/lifecycle.md#record-integrity), so such a change never reaches
// the API server, whatever its CRDs (docs/deployment.md#operator-versions).
import { afterEach, describe, expect, it } from 'vitest';
import type { OperationIntent } from '../../src/domain/kinds/index.js';
import type { Plan } from '../../src/domain/model/plan.js';
import { planDigest } from '../../src/domain/engines/planning/planner.js';
import type { Target } from '../../src/domain/model/target.js';
import { NS, WorkerEnv } from '../support/worker-env.js';

let env: WorkerEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

const orders: Target = { kind: 'FlinkDeployment', namespace: NS, name: 'orders' };
const scale: OperationIntent = { kind: 'scale', target: orders, parallelism: 3, incidentChannels: [] };
const RESOURCES = { requests: { memory: '4Gi' } };

/**
 * A scale whose patch also sets spec.taskManager.resources (what the `resources` kind writes on objects that use it),
 * or other spec fields, queued through the worker path as the bot queues it.
 */
async function queueWithResources(
  sim: WorkerEnv,
  extra: Record<string, unknown> = { taskManager: { resources: RESOURCES } },
): Promise<string> {
  const accepted = await sim.accept(scale);
  const plan = accepted.plan as Plan;
  if (plan.change.type !== 'patch') throw new Error('a scale patches');
  const spec = { ...(plan.change.patch.spec as Record<string, unknown>), ...extra };
  const change = { ...plan.change, patch: { ...plan.change.patch, spec } };
  // Recorded through the store, which seals it: the record itself is intact, only its plan is not the intent's.
  const digest = planDigest({ target: plan.target, uid: plan.uid, generation: plan.generation, change });
  const withResources: Plan = { ...plan, change, digest };
  const queued = await sim.store.transition(accepted.id, {
    from: ['ACCEPTED'],
    to: 'QUEUED',
    actor: accepted.requester,
    role: 'bot',
    set: { plan: withResources },
  });
  if (!queued.ok) throw new Error(queued.reason);
  await sim.queue.enqueue(accepted.id, plan.revision);
  return accepted.id;
}

const patches = (sim: WorkerEnv) => sim.cluster.server.stats().requests['patch flinkdeployments'] ?? 0;
const reasonOf = (record: { history: { type: string; detail: Record<string, unknown> }[] }) =>
  String(record.history.findLast((e) => e.type === 'state')?.detail.reason ?? '');

const NOT_REBUILT =
  'record integrity: the plan rebuilt from the intent against the live resource does not match the approved plan';

async function expectNeverSent(sim: WorkerEnv, id: string): Promise<void> {
  const done = await sim.waitTerminal(id);
  expect(done.state).toBe('ABORTED');
  expect(reasonOf(done)).toBe(NOT_REBUILT);
  expect(patches(sim)).toBe(0);
  const live = sim.cluster.store.get('flinkdeployments', NS, 'orders');
  expect(live?.metadata.generation).toBe(1);
  expect((live?.spec?.job as { parallelism?: number }).parallelism).toBe(2);
  expect(live?.spec?.taskManager).not.toHaveProperty('resources');
}

describe('a field the planner does not write never reaches the API server', () => {
  it('on 1.15 CRDs that can be read: ABORTED before the CRD check, no patch', async () => {
    env = await WorkerEnv.start({ crdVersion: '1.15' });
    await env.deploy('orders');
    await env.startWorker();
    await expectNeverSent(env, await queueWithResources(env));
  });

  it('without the RBAC to read the CRDs: no strict refusal is needed, nothing is sent', async () => {
    env = await WorkerEnv.start({ crdVersion: '1.15' });
    await env.deploy('orders');
    env.cluster.server.faults.inject({ kind: 'error-403', resource: 'customresourcedefinitions', times: 100 });
    await env.startWorker();
    await expectNeverSent(env, await queueWithResources(env));
  });

  it('an API server that prunes without refusing (before 1.25): nothing is sent to be pruned', async () => {
    env = await WorkerEnv.start({ crdVersion: '1.15', fieldValidation: false });
    await env.deploy('orders');
    env.cluster.server.faults.inject({ kind: 'error-403', resource: 'customresourcedefinitions', times: 100 });
    await env.startWorker();
    await expectNeverSent(env, await queueWithResources(env, { taskManager: { resources: RESOURCES } }));
  });

  it('a flinkVersion on a scale (v2_3 on 1.15) is never sent', async () => {
    env = await WorkerEnv.start({ crdVersion: '1.15' });
    await env.deploy('orders');
    await env.startWorker();
    await expectNeverSent(env, await queueWithResources(env, { flinkVersion: 'v2_3' }));
  });

  it('on 1.16 CRDs, where the field is declared, it is not written either', async () => {
    env = await WorkerEnv.start({ crdVersion: '1.16' });
    await env.deploy('orders');
    await env.startWorker();
    await expectNeverSent(env, await queueWithResources(env));
  });
});
