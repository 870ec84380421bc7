// A patch meets the installed CRD (docs/deployment.md#operator-versions), on a simulated cluster whose CRDs are 1.15's
// and so lack spec.taskManager.resources: refused before anything is written when the CRDs can be read; FAILED at once
// from the API server's strict refusal when they cannot; applied on 1.16 CRDs.
import { afterEach, describe, expect, it } from 'vitest';
import type { OperationIntent } from '../../src/domain/kinds/index.js';
import type { Plan } from '../../src/domain/model/plan.js';
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
  const withResources: Plan = { ...plan, change: { ...plan.change, patch: { ...plan.change.patch, spec } } };
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

describe('a field the installed CRD lacks', () => {
  it('is refused before anything is written when the CRDs can be read: ABORTED, no patch', async () => {
    env = await WorkerEnv.start({ crdVersion: '1.15' });
    await env.deploy('orders');
    await env.startWorker();
    const done = await env.waitTerminal(await queueWithResources(env));
    expect(done.state).toBe('ABORTED');
    expect(reasonOf(done)).toBe(
      'spec.taskManager.resources is not in the installed FlinkDeployment CRD (it came with operator 1.16): the API server would not take it, so nothing was written',
    );
    expect(patches(env)).toBe(0);
    expect(env.cluster.store.get('flinkdeployments', NS, 'orders')?.metadata.generation).toBe(1);
  });

  it('without the RBAC to read the CRDs: the strict patch is refused by the API server and the operation FAILS at once', async () => {
    env = await WorkerEnv.start({ crdVersion: '1.15' });
    await env.deploy('orders');
    env.cluster.server.faults.inject({ kind: 'error-403', resource: 'customresourcedefinitions', times: 100 });
    await env.startWorker();
    const done = await env.waitTerminal(await queueWithResources(env));
    expect(done.state).toBe('FAILED');
    expect(reasonOf(done)).toBe(
      'spec.taskManager.resources is not in the installed FlinkDeployment CRD (it came with operator 1.16): the API server refused the change (fieldValidation=Strict), nothing was changed',
    );
    expect(patches(env)).toBe(1);
    const live = env.cluster.store.get('flinkdeployments', NS, 'orders');
    expect(live?.metadata.generation).toBe(1);
    expect((live?.spec?.job as { parallelism?: number }).parallelism).toBe(2);
  });

  it('an API server that prunes without refusing (before 1.25) and no CRD reading: FAILED at once on the returned object, not TIMED_OUT', async () => {
    env = await WorkerEnv.start({ crdVersion: '1.15', fieldValidation: false });
    await env.deploy('orders');
    env.cluster.server.faults.inject({ kind: 'error-403', resource: 'customresourcedefinitions', times: 100 });
    await env.startWorker();
    const done = await env.waitTerminal(await queueWithResources(env, { taskManager: { resources: RESOURCES } }));
    expect(done.state).toBe('FAILED');
    expect(reasonOf(done)).toBe(
      'spec.taskManager.resources is not in the installed FlinkDeployment CRD (it came with operator 1.16): the API server dropped it (generation 2)',
    );
    expect(patches(env)).toBe(1);
  });

  it('a flinkVersion the installed CRD does not admit (v2_3 on 1.15) is refused from the CRD, not a list of the bot', async () => {
    env = await WorkerEnv.start({ crdVersion: '1.15' });
    await env.deploy('orders');
    await env.startWorker();
    const done = await env.waitTerminal(await queueWithResources(env, { flinkVersion: 'v2_3' }));
    expect(done.state).toBe('ABORTED');
    expect(reasonOf(done)).toBe(
      'spec.flinkVersion v2_3 is not a value the installed FlinkDeployment CRD admits (it came with operator 1.16): the API server would not take it, so nothing was written',
    );
    expect(patches(env)).toBe(0);
  });

  it('on 1.16 CRDs the same patch is written (the field is declared)', async () => {
    env = await WorkerEnv.start({ crdVersion: '1.16' });
    await env.deploy('orders');
    await env.startWorker();
    const id = await queueWithResources(env);
    await env.waitFor(id, (r) => r.state === 'SUBMITTED' || r.state === 'ABORTED' || r.state === 'FAILED', 'submitted');
    const live = env.cluster.store.get('flinkdeployments', NS, 'orders');
    expect(live?.spec?.taskManager).toMatchObject({ resources: RESOURCES });
    expect(live?.metadata.generation).toBe(2);
  });
});
