// resources through the real worker against a simulated operator 1.16 (docs/lifecycle.md#resources-on-operator-116):
// where the object's `resources` holds requests or limits the operator ignores `resource`, so the bot patches
// `resources`, and COMPLETED means the memory in effect moved.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperationIntent } from '../../src/domain/kinds/index.js';
import type { OperationRecord } from '../../src/domain/engines/operation.js';
import type { Target } from '../../src/domain/model/target.js';
import type { WorkerEvidence } from '../../src/worker/context.js';
import { NS, WorkerEnv } from '../support/worker-env.js';

let env: WorkerEnv;
beforeAll(async () => {
  env = await WorkerEnv.start({ operatorVersion: '1.16' });
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
  });
});
