// The post-change watch end to end (docs/lifecycle.md#after-completed): the real Bolt app, a worker, real Redis and the
// simulated cluster through client-node. A production change followed by restarts gets one regression reply with an
// Undo button and a card line; the Undo click files an undo as the clicker; a quiet watch ends with one healthy line;
// a later operation on the target ends the earlier watch.
import { describe, expect, it } from 'vitest';
import { HEALTHY_NOTE, REGRESSED_NOTE } from '../../src/domain/kit/evidence/regression.js';
import type { OperationRecord } from '../../src/domain/engines/operation.js';
import { createLogger } from '../../src/log.js';
import { startWorker, type RunningWorker } from '../../src/roles/worker.js';
import { AfterCompletedWatches } from '../../src/store/after-completed.js';
import { testPolicy, USERS, useBotEnvs, type BotEnv } from '../support/bot-env.js';
import { eventually } from '../support/poll.js';
import { runningDeployment } from '../support/running-job.js';

const bots = useBotEnvs();
const ENDED = ['COMPLETED', 'FAILED', 'TIMED_OUT', 'ABORTED', 'DENIED'] as const;

const fresh = (namespace: string, name: string) => runningDeployment(bots.cluster, namespace, name);

/**
 * Production watched for 20 s with production's own health gate (`fail`), streaming-dev (its namespace entry) for
 * 2 s. An undo only gets a warning from the gate (docs/deep-verification.md#the-health-gate).
 */
function watchPolicy(channel: string) {
  const policy = testPolicy(channel);
  policy.verify = { production: { watchAfter: '20s' } };
  const namespaces = policy.namespaces as Record<string, unknown>[];
  policy.namespaces = namespaces.map((n) => (n.name === 'streaming-dev' ? { ...n, verify: { watchAfter: '2s' } } : n));
  return policy;
}

async function withWorker<T>(env: BotEnv, run: (worker: RunningWorker, kinds: string[]) => Promise<T>): Promise<T> {
  const kinds: string[] = [];
  const worker = await startWorker(env.config, {
    logger: createLogger('silent'),
    sweepIntervalMs: 60_000,
    afterCompletedRefreshMs: 200,
    postChangeRestMs: 500,
    onRegression: (r) => kinds.push(r.kind),
  });
  try {
    return await run(worker, kinds);
  } finally {
    await worker.close();
  }
}

const notes = (r: OperationRecord, name: string) => r.history.filter((e) => e.type === 'note' && e.name === name);

/** The stored after-COMPLETED watch of `opId`, if any. */
async function watchOf(env: BotEnv, opId: string) {
  const watches = new AfterCompletedWatches(env.redis.redis, env.config.redis.prefix);
  return (await watches.list('default')).find((w) => w.opId === opId);
}

/** Resolves once the target's watch of `opId` carries its health part (its baseline was read at COMPLETED). */
async function healthWatched(env: BotEnv, opId: string): Promise<void> {
  await eventually(`${opId}'s health watch`, async () => (await watchOf(env, opId))?.health !== undefined);
}

/** Approves as lead1 when policy asks, and waits for the end. */
async function completed(env: BotEnv, text: string, user: string): Promise<OperationRecord> {
  const requested = await env.request(text, user);
  if (requested.state === 'AWAITING_APPROVAL') await (await env.click('approve', requested, USERS.lead1)).reply();
  const done = await env.waitForState(requested.id, [...ENDED], 30_000);
  expect(done.state).toBe('COMPLETED');
  return done;
}

describe('the post-change watch', () => {
  it('restarts after a production change: one regression reply with Undo, a card line, and the Undo click files an undo that completes', async () => {
    const env = await bots.start({ policy: watchPolicy });
    const target = await fresh('streaming-prod', 'pc-regress');
    await withWorker(env, async (_worker, kinds) => {
      const done = await completed(env, 'scale streaming-prod/pc-regress 3 --reason "load"', USERS.alice);
      await healthWatched(env, done.id);
      bots.cluster.operator.setScenario(target.namespace, target.name, 'job-exceptions=3');
      const regressed = await env.waitFor(done.id, (r) => notes(r, REGRESSED_NOTE).length > 0, 'REGRESSED', 15_000);
      bots.cluster.operator.clearScenario(target.namespace, target.name);
      expect(regressed.state).toBe('COMPLETED');
      expect(notes(regressed, REGRESSED_NOTE)[0]?.detail).toMatchObject({ kind: 'restarts', source: 'Flink REST' });
      expect(kinds).toEqual(['restarts']);
      const ts = done.card?.ts ?? '';
      const isRegression = (text: string) => text.includes('Regressed after the change');
      // Thread replies are paced per channel (docs/lifecycle.md#delivery-and-pacing): the regression comes after the rest.
      const reply = await env.sim.waitFor(
        () => env.sim.replies(env.channel, ts).find((m) => isRegression(m.text)),
        30_000,
      );
      expect(reply.text).toMatch(
        /Regressed after the change: 3 restarts in \d+ s \(numRestarts \d+ → \d+, Flink REST\)/,
      );
      expect(JSON.stringify(reply.blocks)).toContain('"action_id":"flink_ops_undo"');
      await env.sim.waitFor(
        () =>
          env.sim
            .messages(env.channel)
            .find((m) => m.ts === ts && JSON.stringify(m.blocks).includes('Regressed after the change')),
        30_000,
      );

      const answer = await (
        await env.click('undo', done, USERS.lead1, { at: { channel: env.channel, ts: reply.ts } })
      ).reply();
      const undoId = /op-[a-z0-9]{6,12}/.exec(answer.text)?.[0];
      expect(answer.text).toContain(`undo of ${done.id} filed as you`);
      const undo = await env.record(undoId ?? 'none');
      expect(undo).toMatchObject({ kind: 'undo', requester: USERS.lead1, state: 'AWAITING_APPROVAL' });
      // The job that just restarted fails production's health gate for a change, but an undo is only warned.
      expect(undo.decision?.checks.find((c) => c.name === 'health-gate')).toMatchObject({
        outcome: 'warn',
        message: expect.stringMatching(/failed over \d+ time\(s\).*an undo only warns/),
      });
      // Self-approval is off: another lead approves, as for a typed undo.
      await (await env.click('approve', undo, USERS.lead2)).reply();
      const undone = await env.waitForState(undo.id, [...ENDED], 30_000);
      expect(undone.state).toBe('COMPLETED');
      const spec = bots.cluster.store.get('flinkdeployments', target.namespace, target.name)?.spec as {
        job: { parallelism: number };
      };
      expect(spec.job.parallelism).toBe(2);
      // Once, however many REST reads and refreshes the watch had since, until the undo replaced it.
      expect(notes(await env.record(done.id), REGRESSED_NOTE)).toHaveLength(1);
      expect(env.sim.replies(env.channel, ts).filter((m) => isRegression(m.text))).toHaveLength(1);
    });
  }, 120_000);

  it('a quiet watch ends with exactly one healthy line, at the end of the verdict', async () => {
    const env = await bots.start({ policy: watchPolicy });
    await fresh('streaming-dev', 'pc-quiet');
    await withWorker(env, async (_worker, kinds) => {
      const done = await completed(env, 'scale streaming-dev/pc-quiet 3', USERS.bob);
      const healthy = await env.waitFor(done.id, (r) => notes(r, HEALTHY_NOTE).length > 0, 'HEALTHY', 15_000);
      expect(healthy.state).toBe('COMPLETED');
      const ts = done.card?.ts ?? '';
      const lines = () =>
        env.sim
          .replies(env.channel, ts)
          .slice(1)
          .filter((m) => JSON.stringify(m.blocks).includes('Healthy for 2 s after the change'));
      // No reply of its own: the verdict's reply is edited to end with the line (docs/lifecycle.md#the-thread), many
      // watch refreshes after the note; none of them edited or wrote a second one.
      const [amended] = await env.sim.waitFor(() => (lines().length > 0 ? lines() : undefined), 30_000);
      expect(lines()).toHaveLength(1);
      expect(JSON.stringify(amended?.blocks)).toContain('*COMPLETED*');
      expect(env.sim.replies(env.channel, ts).slice(1)).toHaveLength(2);
      expect(notes(await env.record(done.id), HEALTHY_NOTE)).toHaveLength(1);
      expect(notes(await env.record(done.id), REGRESSED_NOTE)).toEqual([]);
      expect(kinds).toEqual([]);
    });
  }, 60_000);

  it('a later operation on the target ends the earlier watch: restarts while it runs are not the earlier change’s', async () => {
    const env = await bots.start({ policy: watchPolicy });
    const target = await fresh('streaming-prod', 'pc-later');
    const failovers = () =>
      bots.cluster.store
        .list('events', target.namespace)
        .filter((e) => e.reason === 'JobException' && (e.involvedObject as { name?: string }).name === target.name)
        .length;
    await withWorker(env, async () => {
      const first = await completed(env, 'scale streaming-prod/pc-later 3 --reason "first"', USERS.alice);
      await healthWatched(env, first.id);
      const second = await env.request('scale streaming-prod/pc-later 4 --reason "second"', USERS.alice);
      await (await env.click('approve', second, USERS.lead1)).reply();
      await env.waitForState(second.id, ['SUBMITTED', 'COMPLETED'], 30_000);
      // The job fails over three times while (or right after) the later change runs.
      bots.cluster.operator.setScenario(target.namespace, target.name, 'job-exceptions=3');
      await eventually('three failovers', () => failovers() >= 3);
      expect((await env.waitForState(second.id, [...ENDED], 30_000)).state).toBe('COMPLETED');
      bots.cluster.operator.clearScenario(target.namespace, target.name);
      // The later change's own watch replaced the earlier one, which said nothing.
      await healthWatched(env, second.id);
      expect(await watchOf(env, first.id)).toBeUndefined();
      const earlier = await env.record(first.id);
      expect(notes(earlier, REGRESSED_NOTE)).toEqual([]);
      expect(notes(earlier, HEALTHY_NOTE)).toEqual([]);
    });
  }, 120_000);
});
