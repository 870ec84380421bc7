// The cluster's clock is not the worker's (docs/lifecycle.md#evidence): with the simulated cluster 30 s ahead or
// behind, a refused change is still FAILED at once, and a restore and an upgrade still complete.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperationRecord } from '../../src/domain/engines/operation.js';
import type { Target } from '../../src/domain/model/target.js';
import type { WorkerEvidence } from '../../src/worker/context.js';
import { NS, WorkerEnv } from '../support/worker-env.js';

const common = { incidentChannels: [] };
const dep = (name: string): Target => ({ kind: 'FlinkDeployment', namespace: NS, name });
const verdictOf = (r: OperationRecord) => JSON.stringify((r.evidence as WorkerEvidence).verdict);

describe.each([
  ['30 s ahead', 30_000],
  ['30 s behind', -30_000],
])('the cluster clock %s of the worker', (_, offset) => {
  let env: WorkerEnv;
  beforeAll(async () => {
    env = await WorkerEnv.start({ clockOffsetMs: offset });
    await env.startWorker();
  });
  afterAll(async () => {
    await env?.close();
  });

  it('the API server and the events speak the cluster clock', async () => {
    const created = await env.deploy('clock-probe');
    const skew = Date.parse(String(created.metadata.creationTimestamp)) - Date.now();
    expect(Math.abs(skew - offset)).toBeLessThan(5_000);
  });

  it('a change the operator refuses (ValidationError) is FAILED, not TIMED_OUT', async () => {
    await env.deploy('clock-refused');
    env.cluster.operator.setScenario(NS, 'clock-refused', 'validation-error');
    const done = await env.waitTerminal(
      (await env.request({ kind: 'scale', target: dep('clock-refused'), parallelism: 3, ...common })).id,
    );
    expect(done.state, verdictOf(done)).toBe('FAILED');
    expect(String(done.history.at(-1)?.detail.reason)).toMatch(/ValidationError/);
  });

  it('an upgrade is COMPLETED', async () => {
    await env.deploy('clock-upgrade');
    const done = await env.waitTerminal(
      (await env.request({ kind: 'upgrade', target: dep('clock-upgrade'), image: 'flink:1.20.1', ...common })).id,
    );
    expect(done.state, verdictOf(done)).toBe('COMPLETED');
  });

  it("a restore is COMPLETED (its Submit event is seen although its time reads before or after the worker's)", async () => {
    await env.deploy('clock-restore');
    const from = `s3://flink-state/${NS}/clock-restore/savepoints/savepoint-0a1b2c`;
    const done = await env.waitTerminal(
      (
        await env.request({
          kind: 'restore',
          target: dep('clock-restore'),
          from,
          allowNonRestoredState: false,
          ...common,
        })
      ).id,
    );
    expect(done.state, verdictOf(done)).toBe('COMPLETED');
  });
});
