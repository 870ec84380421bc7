// The worker's Runner on the in-memory stores and a fake cluster at the Kubernetes boundary: a queued operation is
// leased, re-checked, submitted and judged; a later one waits in its target's order; a frozen target is aborted; a
// submission whose outcome is unknown is read back before it is ever sent again (docs/lifecycle.md#submission).
import { afterEach, describe, expect, it } from 'vitest';
import { staticPolicy } from '../../../src/app/policy-source.js';
import { KubeError } from '../../../src/kube/errors.js';
import { createLogger } from '../../../src/log.js';
import type { PolicyDecision } from '../../../src/domain/model/decision.js';
import type { OperationRecord } from '../../../src/domain/engines/operation.js';
import { jobIdOf } from '../../../src/queue/queue.js';
import { memoryStores, type MemoryStores } from '../../../src/store/memory/index.js';
import { DEFAULT_SETTINGS, type RunnerDeps } from '../../../src/worker/context.js';
import { Runner, type RunOutcome } from '../../../src/worker/runner.js';
import { DEP, settled } from '../../support/evidence-fixtures.js';
import { FakeCluster } from '../../support/fake-cluster.js';
import { FakeQueue } from '../../support/fake-queue.js';
import { flinkDeployment, planFor } from '../../support/fixtures.js';
import { ALICE, intent, LEAD, unitPolicy } from '../../support/memory-bot.js';
import { RULE } from '../../support/records.js';

const T0 = Date.parse('2026-11-25T10:00:00Z');

interface Harness {
  runner: Runner;
  stores: MemoryStores;
  cluster: FakeCluster;
  queue: FakeQueue;
  run(opId: string): Promise<RunOutcome>;
  /** A QUEUED scale of the target to `parallelism`, planned against what the cluster holds now. */
  queued(id: string, parallelism?: number): Promise<OperationRecord>;
}

const aborts: AbortController[] = [];
afterEach(() => {
  for (const a of aborts.splice(0)) a.abort();
});

function harness(): Harness {
  const now = () => T0;
  const stores = memoryStores({ now });
  const cluster = new FakeCluster();
  cluster.put(flinkDeployment());
  // The operator reconciles our change: generation 4 observed, the new spec deployed, the job RUNNING again.
  cluster.operator = (patched) => settled(flinkDeployment, (patched.spec ?? {}) as Record<string, unknown>);
  const queue = new FakeQueue();
  const deps: RunnerDeps = {
    store: stores.store,
    leases: stores.leases,
    freezes: stores.freezes,
    cluster: 'default',
    kube: cluster,
    watches: cluster.watches,
    queue,
    policy: staticPolicy(unitPolicy()),
    logger: createLogger('silent'),
    // A short verification deadline: a verdict still pending shows as TIMED_OUT within seconds, not a hung test.
    settings: {
      ...DEFAULT_SETTINGS,
      leaseTtlMs: 30_000,
      verifyTimeoutMs: 3_000,
      verifyTimeoutSavepointMs: 3_000,
      maxReadAttempts: 2,
    },
    now,
    nonce: () => 42,
  };
  const runner = new Runner(deps);
  return {
    runner,
    stores,
    cluster,
    queue,
    run(opId) {
      const abort = new AbortController();
      aborts.push(abort);
      return runner.run({ opId, signal: abort.signal, attempt: 1 });
    },
    async queued(id, parallelism = 8) {
      const raw = { kind: 'scale', target: DEP, parallelism };
      const plan = planFor(raw, cluster.object('FlinkDeployment', DEP.namespace, DEP.name), {
        opId: id,
        requester: ALICE,
        nonce: 7,
      });
      // streaming-prod needs a lead's approval: the record holds the one the bot counted (the worker judges it again).
      const decision: PolicyDecision = { outcome: 'needs-approval', checks: [], requirements: [RULE] };
      const approvals = [{ user: LEAD, at: T0, planDigest: plan.digest, countsFor: [RULE.rule] }];
      const created = await stores.store.create(
        {
          id,
          kind: 'scale',
          intent: intent(raw),
          target: DEP,
          requester: ALICE,
          channel: 'C0OPS',
          incidentChannels: [],
          plan,
          decision,
          approvals,
        },
        ALICE,
      );
      if (!created.ok) throw new Error(`${id} exists`);
      const result = await stores.store.transition(id, { from: ['ACCEPTED'], to: 'QUEUED', actor: ALICE, role: 'bot' });
      if (!result.ok) throw new Error(result.reason);
      return result.record;
    },
  };
}

const states = (record: OperationRecord | undefined) =>
  (record?.history ?? []).filter((e) => e.type === 'state').map((e) => e.name);

describe('Runner', () => {
  it('leases a queued operation, submits its plan once and completes it on the evidence, then lets the lease go', async () => {
    const h = harness();
    const record = await h.queued('op-runner01');
    expect(await h.run(record.id)).toEqual({ type: 'done', why: 'ended' });
    const done = await h.stores.store.get(record.id);
    expect(states(done)).toEqual(['ACCEPTED', 'QUEUED', 'SUBMITTING', 'SUBMITTED', 'COMPLETED']);
    expect(done).toMatchObject({
      submittedGeneration: 4,
      evidence: { verdict: { outcome: 'completed' }, oldParallelism: 4 },
    });
    expect(done?.history.find((e) => e.name === 'SUBMITTING')?.detail).toMatchObject({
      revision: 1,
      resourceVersion: flinkDeployment().metadata.resourceVersion,
    });
    expect(h.cluster.patches()).toEqual([
      expect.objectContaining({
        method: 'mergePatch',
        patch: record.plan?.change.type === 'patch' ? record.plan.change.patch : undefined,
      }),
    ]);
    expect(h.cluster.object('FlinkDeployment', DEP.namespace, DEP.name)?.spec?.job).toMatchObject({ parallelism: 8 });
    expect(await h.stores.leases.holder(DEP)).toBeUndefined();
    expect(await h.stores.store.head(DEP)).toBeUndefined();
    expect(await h.run(record.id)).toEqual({ type: 'done', why: 'already COMPLETED' });
  });

  it('parks a later operation behind the head with one waiting entry, and wakes the next head when the lease goes', async () => {
    const h = harness();
    const first = await h.queued('op-runner0a');
    const second = await h.queued('op-runner0b', 6);
    const parked = await h.run(second.id);
    expect(parked).toMatchObject({ type: 'park', why: `waiting behind ${first.id}`, target: DEP });
    expect(await h.run(second.id)).toMatchObject({ type: 'park' });
    const waiting = (await h.stores.store.get(second.id))?.history.filter((e) => e.type === 'waiting');
    expect(waiting).toEqual([
      expect.objectContaining({ detail: { behind: first.id, reason: `${first.id} is ahead in the target's order` } }),
    ]);
    expect(h.cluster.patches()).toEqual([]);

    await h.stores.freezes.freeze(DEP, { by: LEAD, reason: 'incident 42', at: T0 });
    expect(await h.run(first.id)).toEqual({ type: 'done', why: 'ended' });
    expect(h.queue.ids('promote')).toEqual([jobIdOf(second.id, 1)]);
  });

  it('aborts an operation on a target frozen since it was queued, sending nothing', async () => {
    const h = harness();
    const record = await h.queued('op-runner02');
    await h.stores.freezes.freeze(DEP, { by: LEAD, reason: 'incident 42', at: T0 });
    expect(await h.run(record.id)).toEqual({ type: 'done', why: 'ended' });
    const aborted = await h.stores.store.get(record.id);
    expect(states(aborted).at(-1)).toBe('ABORTED');
    expect(aborted?.history.at(-1)?.detail).toMatchObject({ reason: `target frozen by <@${LEAD}>: incident 42` });
    expect(h.cluster.patches()).toEqual([]);
    expect(await h.stores.leases.holder(DEP)).toBeUndefined();
  });

  it('reads the target back after a call whose outcome is unknown, and sends again only when its change is not there', async () => {
    const h = harness();
    const record = await h.queued('op-runner03');
    h.cluster.failNextPatch = new KubeError('timeout', 'the request timed out');
    expect(await h.run(record.id)).toEqual({ type: 'done', why: 'ended' });
    const done = await h.stores.store.get(record.id);
    expect(states(done)).toEqual([
      'ACCEPTED',
      'QUEUED',
      'SUBMITTING',
      'UNCERTAIN',
      'SUBMITTING',
      'SUBMITTED',
      'COMPLETED',
    ]);
    expect(done?.history.find((e) => e.type === 'retry')).toMatchObject({ name: 'resubmit', detail: { attempt: 2 } });
    const calls = h.cluster.calls.map((c) => c.method);
    const [firstPatch, secondPatch] = calls.flatMap((m, i) => (m === 'mergePatch' ? [i] : []));
    expect(calls.slice((firstPatch as number) + 1, secondPatch)).toContain('get');
  });

  it("fails an operation the API refuses for good, with the API's reason", async () => {
    const h = harness();
    const record = await h.queued('op-runner04');
    h.cluster.failNextPatch = new KubeError('invalid', 'spec.job.parallelism: Invalid value', 422);
    expect(await h.run(record.id)).toEqual({ type: 'done', why: 'ended' });
    const failed = await h.stores.store.get(record.id);
    expect(states(failed).slice(-2)).toEqual(['SUBMITTING', 'FAILED']);
    expect(failed?.history.at(-1)?.detail).toMatchObject({
      reason: 'spec.job.parallelism: Invalid value',
      status: 422,
    });
  });

  it('after parking, wakes its own job at once when it heads the order and the lease is free (no lost wake-up)', async () => {
    const h = harness();
    const record = await h.queued('op-runner05');
    await h.runner.afterPark(record.id, DEP, jobIdOf(record.id, 1));
    expect(h.queue.ids('promote')).toEqual([jobIdOf(record.id, 1)]);
    const lease = await h.stores.leases.tryAcquire(DEP, record.id, 30_000);
    expect(lease.acquired).toBe(true);
    await h.runner.afterPark(record.id, DEP, jobIdOf(record.id, 1));
    expect(h.queue.ids('promote')).toHaveLength(1);
  });
});
