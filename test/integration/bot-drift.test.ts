// The drift rule at approval time (docs/lifecycle.md#drift): someone else's change aborts; our own earlier operation
// re-plans.
import { describe, expect, it } from 'vitest';
import type { OperationRecord } from '../../src/domain/engines/operation.js';
import { ClientNodeFlinkClient, loadKubeConfig } from '../../src/kube/client-node.js';
import type { KubeObject } from '@flink-chatops/sim/kube/store';
import { USERS, type BotEnv, useBotEnvs } from '../support/bot-env.js';

const bots = useBotEnvs();
let env: BotEnv | undefined;

type Job = Record<string, unknown>;

/** Someone else edits the spec directly (as kubectl would): a new generation nobody of ours recorded. */
function editJob(name: string, edit: (job: Job) => Job): void {
  bots.cluster.store.update('flinkdeployments', 'streaming-prod', name, (d: KubeObject) => ({
    ...d,
    spec: { ...d.spec, job: edit({ ...(d.spec?.job as Job) }) },
  }));
}

describe('approval after someone else changed the target', () => {
  it.each([
    [
      'a different spec change',
      'fraud-detection',
      (job: Job) => ({ ...job, parallelism: 9 }),
      'target changed since the plan; request again',
    ],
    [
      'the very change the operation wanted',
      'payments',
      (job: Job) => ({ ...job, state: 'suspended' }),
      'already in the desired state',
    ],
  ])('aborts on %s, without counting the approval', async (_name, target, edit, reason) => {
    env = await bots.start();
    const verb = target === 'payments' ? 'suspend' : 'scale';
    const text =
      verb === 'suspend'
        ? `suspend streaming-prod/${target} --reason "drift"`
        : `scale streaming-prod/${target} 10 --reason "drift"`;
    const record = await env.request(text, USERS.alice);
    expect(record.state).toBe('AWAITING_APPROVAL');
    editJob(target, edit);
    const reply = await (await env.click('approve', record, USERS.lead1)).reply();
    expect(reply.text).toContain(`${record.id} was not approved and is aborted: ${reason}`);
    const after = await env.record(record.id);
    expect(after.state).toBe('ABORTED');
    expect(after.approvals).toEqual([]);
    expect(after.history.at(-1)).toMatchObject({
      type: 'state',
      name: 'ABORTED',
      detail: { reason, from: 'AWAITING_APPROVAL' },
    });
  });
});

describe("approval after this bot's own earlier operation changed the target", () => {
  /** Plays the worker for `op`: SUBMITTING, the patch through the real client, SUBMITTED with its generation. */
  async function submitAsWorker(e: BotEnv, op: OperationRecord): Promise<number> {
    const { store } = e.bot.deps;
    const kube = new ClientNodeFlinkClient(loadKubeConfig(bots.cluster.kubeconfigPath));
    expect(
      (await store.transition(op.id, { from: ['QUEUED'], to: 'SUBMITTING', actor: 'worker', role: 'worker' })).ok,
    ).toBe(true);
    const live = await kube.get('FlinkDeployment', op.target.namespace, op.target.name);
    if (op.plan?.change.type !== 'patch' || !live?.metadata.resourceVersion)
      throw new Error('expected a patch plan and a live target');
    const patched = await kube.mergePatch(op.target, op.plan.change.patch, live.metadata.resourceVersion);
    const generation = patched.metadata.generation as number;
    const submitted = await store.transition(op.id, {
      from: ['SUBMITTING'],
      to: 'SUBMITTED',
      actor: 'worker',
      role: 'worker',
      set: { submittedGeneration: generation },
    });
    expect(submitted.ok).toBe(true);
    return generation;
  }

  type Status = { observedGeneration?: number; lifecycleState?: string } | undefined;

  /** Resolves once the operator has reconciled `generation` and `lifecycle` is what the resource shows. */
  function reached(name: string, generation: number, lifecycle: string): Promise<void> {
    const done = (o: KubeObject | undefined): boolean => {
      const status = o?.status as Status;
      return (status?.observedGeneration ?? 0) >= generation && status?.lifecycleState === lifecycle;
    };
    return new Promise((resolve) => {
      const stop = bots.cluster.store.subscribe((change) => {
        if (change.object.metadata.name !== name || !done(change.object)) return;
        stop();
        resolve();
      });
      if (done(bots.cluster.store.get('flinkdeployments', 'streaming-prod', name))) {
        stop();
        resolve();
      }
    });
  }

  it('re-plans back to AWAITING_APPROVAL with a new digest; the click is not counted; approving the new plan queues it', async () => {
    env = await bots.start();
    const e = env;
    const waiting = await e.request('scale streaming-prod/orders 6 --reason "more throughput"', USERS.alice);
    const ahead = await e.request('restart streaming-prod/orders --reason "stuck checkpoints"', USERS.alice);
    await (await e.click('approve', ahead, USERS.lead1)).reply();
    const generation = await submitAsWorker(e, await e.record(ahead.id));
    expect(generation).toBe((waiting.plan?.generation ?? 0) + 1);
    // The operator is UPGRADING for a moment after the restart; a click then re-plans and is denied (operator busy).
    await reached('orders', generation, 'STABLE');

    const reply = await (await e.click('approve', waiting, USERS.lead1)).reply();
    expect(reply.text).toContain(
      `${waiting.id} was re-planned after ${ahead.id} changed the target; your click was not counted`,
    );
    const replanned = await e.record(waiting.id);
    expect(replanned.state).toBe('AWAITING_APPROVAL');
    expect(replanned.approvals).toEqual([]);
    expect(replanned.plan).toMatchObject({ revision: 2, generation });
    expect(replanned.plan?.digest).not.toBe(waiting.plan?.digest);
    const tail = replanned.history.slice(-2);
    expect(tail[0]).toMatchObject({
      type: 'replanned',
      detail: { after: [ahead.id], revision: 2, digest: replanned.plan?.digest },
    });
    expect(tail[1]).toMatchObject({ type: 'state', name: 'AWAITING_APPROVAL', detail: { from: 'AWAITING_APPROVAL' } });

    const stale = await (await e.click('approve', waiting, USERS.lead1)).reply();
    expect(stale.text).toContain('the plan changed; review the updated card');
    await (await e.click('approve', replanned, USERS.lead1)).reply();
    expect((await e.record(waiting.id)).state).toBe('QUEUED');
    expect(await e.waitForJob(waiting.id, 2)).toBe('waiting');
  });

  it('aborts when the re-planned change meets an operator still busy with the earlier one', async () => {
    env = await bots.start();
    const e = env;
    const waiting = await e.request('scale streaming-prod/fraud-detection 6 --reason "more throughput"', USERS.alice);
    const ahead = await e.request('restart streaming-prod/fraud-detection --reason "stuck checkpoints"', USERS.alice);
    await (await e.click('approve', ahead, USERS.lead1)).reply();
    bots.cluster.operator.setScenario('streaming-prod', 'fraud-detection', 'slow-reconcile', {
      slowReconcileSeconds: 600,
    });
    try {
      const generation = await submitAsWorker(e, await e.record(ahead.id));
      await reached('fraud-detection', generation, 'UPGRADING');
      const reply = await (await e.click('approve', waiting, USERS.lead1)).reply();
      expect(reply.text).toContain(
        `${waiting.id} was not approved and is aborted: re-planned after ${ahead.id}, policy now denies it: ` +
          'the operator is busy: reconciliation state is UPGRADING',
      );
      const after = await e.record(waiting.id);
      expect(after.state).toBe('ABORTED');
      expect(after.approvals).toEqual([]);
    } finally {
      bots.cluster.operator.clearScenario('streaming-prod', 'fraud-detection');
    }
  });
});
