// resources and config through the real worker against the simulated cluster: evidence, policy limits and keys,
// the suspended refusal, IGNORE-class keys without a redeploy, and undo of both (docs/lifecycle.md#per-kind,
// docs/policy.md#keys-limits-and-verification).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperationIntent } from '../../src/domain/kinds/index.js';
import type { OperationRecord } from '../../src/domain/engines/operation.js';
import type { Target } from '../../src/domain/model/target.js';
import type { WorkerEvidence } from '../../src/worker/context.js';
import { NS, WorkerEnv } from '../support/worker-env.js';

let env: WorkerEnv;
beforeAll(async () => {
  env = await WorkerEnv.start();
  await env.startWorker();
});
afterAll(async () => {
  await env?.close();
});

const target = (name: string): Target => ({ kind: 'FlinkDeployment', namespace: NS, name });
const common = { incidentChannels: [] };
type Spec = { taskManager: { resource: { memory: string; cpu: number } }; flinkConfiguration: Record<string, unknown> };

const evidenceOf = (record: OperationRecord) => record.evidence as WorkerEvidence;
const spec = (name: string) => env.cluster.store.get('flinkdeployments', NS, name)?.spec as unknown as Spec;
const criteria = (record: OperationRecord) =>
  Object.fromEntries((evidenceOf(record).criteria ?? []).map((c) => [c.name, c]));

/** SpecChanged events about one deployment (the operator emits none for an IGNORE-only diff). */
const specChangedOf = (name: string) =>
  env.cluster.store
    .list('events', NS)
    .filter(
      (e) =>
        (e as { reason?: string }).reason === 'SpecChanged' &&
        (e as { involvedObject?: { name?: string } }).involvedObject?.name === name,
    );

async function completed(intent: OperationIntent): Promise<OperationRecord> {
  const done = await env.waitTerminal((await env.request(intent)).id, 30_000);
  expect(done.state, JSON.stringify(evidenceOf(done).verdict)).toBe('COMPLETED');
  return done;
}

describe('resources', () => {
  it('raising TaskManager memory completes with the reconciled values as evidence; undo puts the old ones back', async () => {
    await env.deploy('res-up');
    const done = await completed({
      kind: 'resources',
      target: target('res-up'),
      taskManagerMemory: '4g',
      taskManagerCpu: 2,
      ...common,
    });
    expect(done.plan?.diff).toEqual([
      { path: 'spec.taskManager.resource.memory', before: '2048m', after: '4g' },
      { path: 'spec.taskManager.resource.cpu', before: 1, after: 2 },
    ]);
    const met = criteria(done);
    expect(met['spec-reconciled:spec.taskManager.resource.memory']).toMatchObject({ met: true, observed: '4g' });
    expect(met['spec-reconciled:spec.taskManager.resource.cpu']).toMatchObject({ met: true, observed: 2 });
    expect(met['job-running']?.met).toBe(true);
    // Where Flink REST answers (docs/deep-verification.md#what-it-proves), it proves the tasks run and, in savepoint
    // mode, the restore path.
    for (const name of ['rest:tasks-running', 'rest:restored-from'])
      if (met[name]) expect(met[name]?.met, name).toBe(true);
    expect(spec('res-up').taskManager.resource).toEqual({ memory: '4g', cpu: 2 });
    // The simulated operator classifies a resource change as UPGRADE, as the real one does
    // (docs/lifecycle.md#operator-traps).
    expect(specChangedOf('res-up').map((e) => (e as { message?: string }).message)).toEqual([
      expect.stringMatching(
        /^UPGRADE change\(s\) detected \(Diff: FlinkDeploymentSpec\[.*taskManager\.resource\.memory : 2048m -> 4g/,
      ),
    ]);

    const undo = await completed({ kind: 'undo', opId: done.id, ...common });
    expect(undo.plan?.judgedAs).toBe('resources');
    expect(criteria(undo)['spec-reconciled:spec.taskManager.resource.memory']).toMatchObject({
      met: true,
      observed: '2048m',
    });
    expect(spec('res-up').taskManager.resource).toEqual({ memory: '2048m', cpu: 1 });
  });

  it('above the policy limit → DENIED naming the limit', async () => {
    await env.deploy('res-limit');
    const accepted = await env.accept({
      kind: 'resources',
      target: target('res-limit'),
      taskManagerMemory: '32g',
      ...common,
    });
    expect(accepted.decision?.outcome).toBe('deny');
    expect(accepted.decision?.outcome === 'deny' && accepted.decision.reasons.join(' ')).toMatch(
      /TaskManager memory 32g is above the policy limit limits\.taskManagerMemory = 16g/,
    );
  });

  it('on a suspended job → refused before planning', async () => {
    await env.deploy('res-suspended', { state: 'suspended' });
    await expect(
      env.accept({ kind: 'resources', target: target('res-suspended'), taskManagerMemory: '4g', ...common }),
    ).rejects.toThrow(
      /res-suspended is suspended: the operator records the change but applies it only at resume; resume first/,
    );
  });
});

describe('config', () => {
  const key = 'execution.checkpointing.interval';

  it('a memory key the spec sets is refused: the operator writes it from spec.taskManager.resource over the configuration', async () => {
    await env.deploy('conf-memory');
    await expect(
      env.accept({
        kind: 'config',
        target: target('conf-memory'),
        action: 'set',
        entries: [{ key: 'taskmanager.memory.process.size', value: '8g' }],
        ...common,
      }),
    ).rejects.toThrow(
      /spec\.taskManager\.resource\.memory sets taskmanager\.memory\.process\.size, .* the change would do nothing; use resources/,
    );
  });

  it('set completes on the redeployed job; undo ("was unset") writes null and completes', async () => {
    await env.deploy('conf-set');
    const done = await completed({
      kind: 'config',
      target: target('conf-set'),
      action: 'set',
      entries: [{ key, value: '30s' }],
      ...common,
    });
    expect(done.plan?.diff).toEqual([{ path: `spec.flinkConfiguration.${key}`, before: null, after: '30s' }]);
    expect(criteria(done)[`spec-reconciled:spec.flinkConfiguration.${key}`]).toMatchObject({
      met: true,
      observed: '30s',
    });
    expect(spec('conf-set').flinkConfiguration[key]).toBe('30s');
    expect(specChangedOf('conf-set').length).toBeGreaterThan(0);

    const undo = await completed({ kind: 'undo', opId: done.id, ...common });
    expect(undo.plan?.change.type === 'patch' && undo.plan.change.patch).toMatchObject({
      spec: { flinkConfiguration: { [key]: null } },
    });
    expect(Object.hasOwn(spec('conf-set').flinkConfiguration, key)).toBe(false);
  });

  it('unset writes null and completes; undo sets the old value again', async () => {
    await env.deploy('conf-unset', { conf: { [key]: '60s' } });
    const done = await completed({
      kind: 'config',
      target: target('conf-unset'),
      action: 'unset',
      entries: [{ key }],
      ...common,
    });
    expect(done.plan?.change.type === 'patch' && done.plan.change.patch).toMatchObject({
      spec: { flinkConfiguration: { [key]: null } },
    });
    expect(done.plan?.diff).toEqual([{ path: `spec.flinkConfiguration.${key}`, before: '60s', after: null }]);
    expect(Object.hasOwn(spec('conf-unset').flinkConfiguration, key)).toBe(false);

    await completed({ kind: 'undo', opId: done.id, ...common });
    expect(spec('conf-unset').flinkConfiguration[key]).toBe('60s');
  });

  it('a key the policy does not allow → refused naming the key and the rule, nothing recorded', async () => {
    await env.deploy('conf-denied');
    await expect(
      env.accept({
        kind: 'config',
        target: target('conf-denied'),
        action: 'set',
        entries: [{ key: 'high-availability.type', value: 'NONE' }],
        ...common,
      }),
    ).rejects.toThrow(/high-availability\.type is denied by the policy's config\.deny "high-availability\*"/);
    await expect(
      env.accept({
        kind: 'config',
        target: target('conf-denied'),
        action: 'set',
        entries: [{ key: 'pipeline.name', value: 'x' }],
        ...common,
      }),
    ).rejects.toThrow(/pipeline\.name is not allowed: config\.allow is "execution\.checkpointing\.\*"/);
  });

  it('on a suspended job → refused before planning', async () => {
    await env.deploy('conf-suspended', { state: 'suspended' });
    await expect(
      env.accept({
        kind: 'config',
        target: target('conf-suspended'),
        action: 'set',
        entries: [{ key, value: '30s' }],
        ...common,
      }),
    ).rejects.toThrow(/is suspended/);
  });

  it('an IGNORE-class key completes without a redeploy and says so', async () => {
    const before = await env.deploy('conf-ignore');
    const jobId = (before.status as { jobStatus?: { jobId?: string } }).jobStatus?.jobId;
    const done = await completed({
      kind: 'config',
      target: target('conf-ignore'),
      action: 'set',
      entries: [{ key: 'job.autoscaler.enabled', value: 'false' }],
      ...common,
    });
    const verdict = evidenceOf(done).verdict;
    expect(verdict?.outcome === 'completed' && verdict.notes.join(' ')).toMatch(
      /classifies this change as IGNORE, so no redeploy happened/,
    );
    const names = Object.keys(criteria(done));
    expect(names).toContain('spec-holds:spec.flinkConfiguration.job.autoscaler.enabled');
    expect(names).not.toContain('job-running');
    const now = env.cluster.store.get('flinkdeployments', NS, 'conf-ignore');
    expect((now?.status as { jobStatus?: { jobId?: string } }).jobStatus?.jobId).toBe(jobId);
    expect(specChangedOf('conf-ignore')).toEqual([]);
    // As the real operator (docs/lifecycle.md#operator-traps): observedGeneration advances, lastReconciledSpec keeps
    // the old values.
    const status = now?.status as {
      observedGeneration?: number;
      reconciliationStatus?: { lastReconciledSpec?: string };
    };
    expect(status.observedGeneration).toBe(now?.metadata.generation);
    expect(status.reconciliationStatus?.lastReconciledSpec).not.toContain('job.autoscaler.enabled');
  });
});
