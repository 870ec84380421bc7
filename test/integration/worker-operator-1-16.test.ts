// The real worker against a simulated operator 1.16: `resources` (docs/lifecycle.md#resources-on-operator-116) —
// where the object's `resources` holds requests or limits the operator ignores `resource`, so the bot patches
// `resources`, and COMPLETED means the memory in effect moved — and snapshot retries
// (docs/lifecycle.md#snapshot-retries): -1 or no backoffLimit is retried without end, so the bot always sets one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperationIntent } from '../../src/domain/kinds/index.js';
import type { OperationRecord } from '../../src/domain/engines/operation.js';
import type { Target } from '../../src/domain/model/target.js';
import type { WorkerEvidence } from '../../src/worker/context.js';
import { NS, WorkerEnv } from '../support/worker-env.js';

let env: WorkerEnv;
beforeAll(async () => {
  // A savepoint retried without end is given up on after 3 s (TIMED_OUT), not the 30 s the other kinds get.
  env = await WorkerEnv.start({ operatorVersion: '1.16', env: { VERIFY_TIMEOUT_SAVEPOINT: '3s' } });
  await env.startWorker();
});
afterAll(async () => {
  await env?.close();
});

const GIB = 1024 ** 3;
const target = (name: string): Target => ({ kind: 'FlinkDeployment', namespace: NS, name });
const evidenceOf = (record: OperationRecord) => record.evidence as WorkerEvidence;
const criteria = (record: OperationRecord) =>
  Object.fromEntries((evidenceOf(record).criteria ?? []).map((c) => [c.name, c]));
type Tm = {
  resource: { memory: string };
  resources: { requests: Record<string, string>; limits?: Record<string, string> };
};
const live = (name: string) => env.cluster.store.get('flinkdeployments', NS, name);
const taskManager = (name: string) => (live(name)?.spec as { taskManager: Tm }).taskManager;
const totalMemory = (name: string) =>
  (live(name)?.status as { clusterInfo?: Record<string, string> } | undefined)?.clusterInfo?.['total-memory'];

async function finished(intent: OperationIntent): Promise<OperationRecord> {
  return env.waitTerminal((await env.request(intent)).id, 30_000);
}

describe('resources on operator 1.16', () => {
  it('on an object that uses resources, patches resources.requests and COMPLETES with the effective memory moved', async () => {
    await env.deploy('res16-up', { ha: false, taskManagerResources: { requests: { memory: '2Gi' } } });
    const before = totalMemory('res16-up');
    const done = await finished({
      kind: 'resources',
      target: target('res16-up'),
      taskManagerMemory: '4g',
      incidentChannels: [],
    });
    expect(done.plan?.diff).toEqual([
      { path: 'spec.taskManager.resources.requests.memory', before: '2Gi', after: '4Gi' },
    ]);
    expect(done.state, JSON.stringify(evidenceOf(done).verdict)).toBe('COMPLETED');
    expect(criteria(done)['effective:taskManager.memory']).toMatchObject({ met: true });
    // The deprecated field is left as it was; what the TaskManager gets moved by 2 GiB (one TaskManager).
    expect(taskManager('res16-up').resource.memory).toBe('2048m');
    expect(Number(totalMemory('res16-up')) - Number(before)).toBe(2 * GIB);
  });

  it('raises a limit the new request would exceed, so the operator accepts the spec', async () => {
    await env.deploy('res16-limit', {
      ha: false,
      taskManagerResources: { requests: { memory: '2Gi' }, limits: { memory: '3Gi' } },
    });
    const done = await finished({
      kind: 'resources',
      target: target('res16-limit'),
      taskManagerMemory: '4g',
      incidentChannels: [],
    });
    expect(done.state, JSON.stringify(evidenceOf(done).verdict)).toBe('COMPLETED');
    expect(taskManager('res16-limit').resources).toEqual({ requests: { memory: '4Gi' }, limits: { memory: '4Gi' } });

    // Undo puts back both the request and the limit, and is judged on the memory in effect as well.
    const undo = await finished({ kind: 'undo', opId: done.id, incidentChannels: [] });
    expect(undo.state, JSON.stringify(evidenceOf(undo).verdict)).toBe('COMPLETED');
    expect(criteria(undo)['effective:taskManager.memory']).toMatchObject({ met: true });
    expect(taskManager('res16-limit').resources).toEqual({ requests: { memory: '2Gi' }, limits: { memory: '3Gi' } });
  });
});

describe('validation rules operator 1.16 added', () => {
  it('an object the operator already refuses fails a restart, saying the change did not touch the refused part', async () => {
    await env.deploy('val16', { ha: false });
    // Valid on 1.15, refused by 1.16: an autoscaler memory threshold outside [0, 1] (AutoscalerValidator).
    const { store } = env.cluster;
    store.update('flinkdeployments', NS, 'val16', (current) => {
      const spec = structuredClone(current.spec ?? {}) as { flinkConfiguration: Record<string, string> };
      spec.flinkConfiguration['job.autoscaler.enabled'] = 'true';
      spec.flinkConfiguration['job.autoscaler.memory.gc-pressure.threshold'] = '1.5';
      return { ...current, spec };
    });
    const done = await finished({ kind: 'restart', target: target('val16'), incidentChannels: [] });
    expect(done.state).toBe('FAILED');
    expect(String(done.history.at(-1)?.detail.reason)).toMatch(
      /ValidationError\): The AutoScalerOption job\.autoscaler\.memory\.gc-pressure\.threshold is invalid.*This change did not touch spec\.flinkConfiguration\.job\.autoscaler\.memory\.gc-pressure\.threshold/,
    );
  });
});

describe('savepoints on operator 1.16', () => {
  const snapshotOf = (record: OperationRecord) =>
    env.cluster.store.get('flinkstatesnapshots', NS, evidenceOf(record).snapshot?.name ?? '');

  it("the bot's snapshot carries backoffLimit 2, so a failing savepoint still ends FAILED after three attempts", async () => {
    await env.deploy('sp16-failing', { ha: false });
    env.cluster.operator.setScenario(NS, 'sp16-failing', 'savepoint-failure');
    const done = await finished({ kind: 'savepoint', target: target('sp16-failing'), incidentChannels: [] });
    expect(done.state).toBe('FAILED');
    expect(snapshotOf(done)?.spec?.backoffLimit).toBe(2);
    expect(snapshotOf(done)?.status).toMatchObject({ state: 'FAILED', failures: 3 });
  });

  it('a snapshot whose backoffLimit was taken away is "retrying (N failures)", never FAILED', async () => {
    await env.deploy('sp16-stripped', { ha: false });
    env.cluster.operator.setScenario(NS, 'sp16-stripped', 'savepoint-failure');
    // Something between the bot and the operator (a mutating webhook, a GitOps tool) drops the field as it arrives.
    const { store } = env.cluster;
    const unsubscribe = store.subscribe((change) => {
      const { name } = change.object.metadata;
      if (change.type !== 'ADDED' || change.resource !== 'flinkstatesnapshots' || !name.startsWith('sp16-stripped'))
        return;
      queueMicrotask(() =>
        store.update('flinkstatesnapshots', NS, name, (current) => {
          const spec = { ...current.spec };
          delete spec.backoffLimit;
          return { ...current, spec };
        }),
      );
    });
    const done = await finished({ kind: 'savepoint', target: target('sp16-stripped'), incidentChannels: [] });
    unsubscribe();
    expect(done.state).toBe('TIMED_OUT');
    const snapshot = snapshotOf(done);
    expect(snapshot?.spec).not.toHaveProperty('backoffLimit');
    expect(snapshot?.status).toMatchObject({ state: expect.stringMatching(/^(TRIGGER_PENDING|IN_PROGRESS)$/) });
    const verdict = evidenceOf(done).verdict;
    expect(verdict?.outcome === 'pending' && verdict.notes.join('\n')).toMatch(/^retrying \(\d+ failures?\): /m);
  });
});

describe('resources on an operator before 1.16 (a 1.16 CRD kept the field, operator 1.15 never reads it)', () => {
  let old: WorkerEnv;
  beforeAll(async () => {
    old = await WorkerEnv.start({ operatorVersion: '1.15', crdVersion: '1.16', env: { VERIFY_TIMEOUT: '5s' } });
    await old.startWorker();
  });
  afterAll(async () => {
    await old?.close();
  });

  it('patches resource, which that operator uses, and COMPLETES with the effective memory moved', async () => {
    await old.deploy('res15', { ha: false, taskManagerResources: { requests: { memory: '2Gi' } } });
    const info = () =>
      (old.cluster.store.get('flinkdeployments', NS, 'res15')?.status as { clusterInfo?: Record<string, string> })
        .clusterInfo?.['total-memory'];
    const before = Number(info());
    const done = await old.waitTerminal(
      (
        await old.request({
          kind: 'resources',
          target: target('res15'),
          taskManagerMemory: '4g',
          incidentChannels: [],
        })
      ).id,
      30_000,
    );
    expect(done.plan?.diff).toEqual([{ path: 'spec.taskManager.resource.memory', before: '2048m', after: '4g' }]);
    expect(done.plan?.notes.join('\n')).toMatch(/an operator before 1\.16 reads only spec\.taskManager\.resource/);
    expect(done.state, JSON.stringify(evidenceOf(done).verdict)).toBe('COMPLETED');
    expect(Number(info()) - before).toBe(2 * GIB);
  });
});
