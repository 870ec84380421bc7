// The Redis HA end-to-end tests (docs/configuration.md#redis-modes, issue 15), run once through Sentinel and once
// through Cluster: a dev operation, an approved prod operation, two serialized operations on one target, and a failover
// under load.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { HistoryEntry, OperationRecord } from '../../src/domain/engines/operation.js';
import { isTerminal } from '../../src/domain/model/lifecycle.js';
import { ANNOTATION_OPERATION_ID } from '../../src/domain/model/plan.js';
import type { SimCluster } from '@flink-chatops/sim/kube/cluster';
import type { SimMessage } from '@flink-chatops/sim/slack-api';
import { threadReplyWanted } from '../../src/slack/blocks/index.js';
import { parseEvent } from '../../src/store/events.js';
import { startTestCluster, USERS } from './bot-env.js';
import { expectedReplySeqs } from './notifier-records.js';
import { eventually } from './poll.js';
import { leasesWithTtl, startHaRedis, type HaRedis } from './redis-ha.js';
import { LEASE_TTL_MS, startHaEnv, type HaEnv } from './redis-ha-env.js';
import { waitStable } from '@flink-chatops/sim/testing/sim';
import { deployment } from '@flink-chatops/sim/testing/sim-resources';

const DEV = 'streaming-dev';
const LOAD = 20;

function stateEntry(record: OperationRecord, state: string): HistoryEntry {
  const found = record.history.find((e) => e.type === 'state' && e.name === state);
  if (!found) throw new Error(`${record.id} never was ${state}: ${record.history.map((e) => e.name).join(' → ')}`);
  return found;
}

const t0 = Date.now();
const step = (what: string) => process.env.HA_TEST_STEPS && console.log(`[${Date.now() - t0} ms] ${what}`);

const states = (r: OperationRecord) => r.history.filter((e) => e.type === 'state').map((e) => e.name);

export function redisHaSuite(kind: 'sentinel' | 'cluster'): void {
  let ha: HaRedis;
  let cluster: SimCluster;
  const open: HaEnv[] = [];

  beforeAll(async () => {
    [ha, cluster] = await Promise.all([startHaRedis(kind), startTestCluster()]);
  });
  afterAll(async () => {
    await cluster?.close();
    await ha?.stop();
  });
  afterEach(async () => {
    for (const env of open.splice(0)) await env.close();
  });

  const start = async (label: string): Promise<HaEnv> => {
    const env = await startHaEnv(ha, cluster, label);
    open.push(env);
    return env;
  };

  /** A fresh running FlinkDeployment in streaming-dev, so each test has targets of its own. */
  const deploy = async (name: string) => {
    cluster.store.create('flinkdeployments', deployment(name, DEV, { state: 'running' }));
    await waitStable(cluster.store, DEV, name);
  };

  it(`${kind}: a dev operation, needing no approval, completes`, async () => {
    const env = await start('ha-dev');
    await env.startWorker();
    await deploy(`dev-${kind}`);
    const queued = await env.request(`restart ${DEV}/dev-${kind}`);
    expect(states(queued)).toContain('QUEUED');
    const done = await env.waitTerminal(queued.id);
    expect(states(done)).toEqual(['ACCEPTED', 'QUEUED', 'SUBMITTING', 'SUBMITTED', 'COMPLETED']);
    await env.cardIn(done, 'COMPLETED');
  });

  it(`${kind}: a prod operation approved by a lead completes`, async () => {
    const env = await start('ha-prod');
    await env.startWorker();
    const requested = await env.request('scale streaming-prod/fraud-detection 5 --reason "redis ha test"', USERS.alice);
    expect(requested.state).toBe('AWAITING_APPROVAL');
    await env.approve(requested, USERS.lead1);
    const done = await env.waitTerminal(requested.id);
    expect(done.state).toBe('COMPLETED');
    expect(done.approvals.map((a) => a.user)).toEqual([USERS.lead1]);
    await env.cardIn(done, 'COMPLETED');
  });

  it(`${kind}: two operations on one target run one after the other`, async () => {
    const env = await start('ha-serial');
    const name = `serial-${kind}`;
    await deploy(name);
    // The first takes its time in the operator, so the second is queued while the first holds the lease.
    cluster.operator.setScenario(DEV, name, 'slow-reconcile', { slowReconcileSeconds: 100 });
    const first = await env.request(`scale ${DEV}/${name} 3`);
    const second = await env.request(`restart ${DEV}/${name}`);
    expect([first.state, second.state]).toEqual(['QUEUED', 'QUEUED']);
    await env.startWorker();
    const [a, b] = await Promise.all([env.waitTerminal(first.id, 30_000), env.waitTerminal(second.id, 30_000)]);
    expect([a.state, b.state]).toEqual(['COMPLETED', 'COMPLETED']);
    expect(stateEntry(b, 'SUBMITTING').at).toBeGreaterThanOrEqual(stateEntry(a, 'COMPLETED').at);
    const waiting = b.history.filter((e) => e.type === 'waiting');
    expect(waiting.length).toBeGreaterThanOrEqual(1);
    expect(waiting.every((e) => e.detail.behind === first.id)).toBe(true);
    expect(b.submittedGeneration).toBe((a.submittedGeneration ?? 0) + 1);
    cluster.operator.clearScenario(DEV, name);
  });

  it(`${kind}: the primary SIGKILLed with ${LOAD} operations in flight: each ends once, none applied twice, no lease stuck, no reply twice`, async () => {
    const env = await start('ha-load');
    const names = Array.from({ length: LOAD }, (_, i) => `load-${kind}-${String(i).padStart(2, '0')}`);
    step('load test starts');
    await Promise.all(names.map((n) => deploy(n)));
    step('deployed');
    // Every operator reconcile takes 2–5 s, so at the kill the operations are spread over QUEUED (no slot free),
    // SUBMITTING and SUBMITTED (verifying).
    names.forEach((n, i) =>
      cluster.operator.setScenario(DEV, n, 'slow-reconcile', { slowReconcileSeconds: 200 + (i % 4) * 100 }),
    );

    // What the simulated API server applied: spec changes (generation moves) and PATCH requests per target.
    const specChanges = new Map<string, number>();
    const generations = new Map(
      names.map((n) => [n, cluster.store.get('flinkdeployments', DEV, n)?.metadata.generation ?? 0]),
    );
    const unsubscribe = cluster.store.subscribe((change) => {
      const o = change.object;
      const name = o.metadata.name ?? '';
      if (o.kind !== 'FlinkDeployment' || o.metadata.namespace !== DEV || !generations.has(name)) return;
      const generation = o.metadata.generation ?? 0;
      if (generation > (generations.get(name) ?? generation)) specChanges.set(name, (specChanges.get(name) ?? 0) + 1);
      generations.set(name, generation);
    });
    const patches = new Map<string, number>();
    const stopCounting = cluster.server.onRequest((info) => {
      if (
        info.resource === 'flinkdeployments' &&
        info.namespace === DEV &&
        info.name &&
        generations.has(info.name) &&
        ['patch', 'update', 'create'].includes(info.verb)
      ) {
        patches.set(info.name, (patches.get(info.name) ?? 0) + 1);
      }
    });

    try {
      // Two workers of 6 slots each: an in-process one and a real `serve --role worker` process.
      await env.startWorker({ WORKER_CONCURRENCY: '6' });
      await env.spawnWorker({ WORKER_CONCURRENCY: '6' });
      const ops: OperationRecord[] = [];
      step('workers started');
      for (const n of names) {
        ops.push(await env.request(`restart ${DEV}/${n}`));
      }
      step('all requested');
      expect(ops.every((o) => states(o).includes('QUEUED'))).toBe(true);
      // Kill once most slots run verification: at least 8 operations SUBMITTED.
      const submitted = async () =>
        (await Promise.all(ops.map((o) => env.store.get(o.id)))).filter((r) => r?.state === 'SUBMITTED').length;
      await Promise.all(ops.slice(0, 8).map((o) => env.waitForState(o.id, ['SUBMITTED', 'COMPLETED'], 20_000)));
      const before = await Promise.all(ops.map(async (o) => (await env.store.get(o.id))?.state));
      step('killing');
      const primary = await ha.primaryFor(env.prefix);
      const promotion = await ha.killPrimary(env.prefix);
      expect(promotion.killed).toBe(primary);
      step('promoted');
      const atPromotion = await leasesWithTtl(env.redis, env.prefix);
      // A lease always expires: none lives longer than LEASE_TTL from the promotion on, however it was left.
      for (const l of atPromotion) {
        expect(l.pttl, `${l.key} has no expiry`).toBeGreaterThan(0);
        expect(l.pttl).toBeLessThanOrEqual(LEASE_TTL_MS);
      }
      const timeline = `${kind}: killed ${promotion.killed.name} (${promotion.killed.address}) with states ${JSON.stringify(countBy(before))} (${await submitted()} SUBMITTED now); ${promotion.promoted.name} promoted after ${promotion.promotedAt - promotion.killedAt} ms; ${atPromotion.length} leases at promotion`;

      const done = await Promise.all(ops.map((o) => env.waitTerminal(o.id, 60_000))).catch((error: unknown) => {
        const child = env.children[0];
        throw new Error(`${timeline}\n${String(error)}\nworker process said:\n${child?.lines.slice(-15).join('\n')}`);
      });
      const endedAt = Date.now();
      step('all terminal');
      step(`${timeline}; all terminal ${endedAt - promotion.promotedAt} ms after the promotion`);

      // Every operation ends once: one terminal state in its history and one in the event stream.
      for (const r of done) {
        const terminal = r.history.filter((e) => e.type === 'state' && isTerminal(e.name as never));
        expect(
          terminal.map((e) => e.name),
          `${r.id}: ${states(r).join(' → ')}`,
        ).toEqual(['COMPLETED']);
      }
      const stream = (await env.redis.xrange(`{${env.prefix}}:events`, '-', '+')).map((entry) =>
        parseEvent(entry as never),
      );
      for (const r of done) {
        const ends = stream.filter((e) => e.op === r.id && e.type === 'state' && isTerminal(e.name as never));
        expect(ends.length, `${r.id} terminal events`).toBe(1);
      }
      // None applied twice: each target's spec changed once, by its operation.
      for (const [i, n] of names.entries()) {
        const live = cluster.store.get('flinkdeployments', DEV, n);
        expect(specChanges.get(n) ?? 0, `spec changes of ${n}`).toBe(1);
        expect(live?.metadata.annotations?.[ANNOTATION_OPERATION_ID]).toBe(ops[i]?.id);
        expect(done[i]?.submittedGeneration).toBe(live?.metadata.generation);
      }
      const patchCounts = names.map((n) => patches.get(n) ?? 0);
      expect(
        patchCounts.every((c) => c >= 1),
        JSON.stringify(Object.fromEntries(patches)),
      ).toBe(true);
      // No lease stuck: a run releases its lease just after writing its terminal state (once its after-COMPLETED
      // watch has started), so every lease is gone within LEASE_TTL of the last ending; none is still active.
      await eventually(
        'every lease released after the operations ended',
        async () => (await leasesWithTtl(env.redis, env.prefix)).length === 0,
        { timeoutMs: LEASE_TTL_MS },
      );
      expect(await env.redis.hlen(`{${env.prefix}}:ops:active`)).toBe(0);

      // No Slack reply twice: once every wanted thread reply is there, each (op, seq) was posted exactly once.
      const threadOf = (r: OperationRecord): SimMessage[] => env.sim.replies(env.channel, r.card?.ts ?? '').slice(1);
      // A reply left out on purpose (behind the channel, its news in the verdict: docs/lifecycle.md#the-thread) is
      // not missing: a failover's pause can put a thread that far behind. Its marks are read on each look.
      const expected = new Map<string, number[]>();
      const missing = (r: OperationRecord): HistoryEntry[] => {
        const seqs = threadOf(r).map((m) => Number(m.metadata?.event_payload.seq));
        const want = expected.get(r.id);
        return r.history.filter((e) => (want ? want.includes(e.seq) : threadReplyWanted(e)) && !seqs.includes(e.seq));
      };
      // Within a minute: a blocking read the failover cut is replaced after its deadline, and entries another
      // consumer held are claimed once idle (docs/configuration.md#redis-modes); what this asserts is that every
      // reply arrives exactly once, not how soon.
      await eventually(
        'every thread reply posted',
        async () => {
          for (const r of done) expected.set(r.id, await expectedReplySeqs(env.redis, env.prefix, r));
          return done.every((r) => missing(r).length === 0);
        },
        { timeoutMs: 60_000, intervalMs: 100 },
      ).catch(async () => {
        const notifierState = async (r: OperationRecord) => {
          const tag = `{${env.prefix}}:notifier`;
          const [delivery, lock, lockTtl, card] = await Promise.all([
            env.redis.hgetall(`${tag}:op:${r.id}`),
            env.redis.get(`${tag}:lock:${r.id}`),
            env.redis.pttl(`${tag}:lock:${r.id}`),
            env.redis.get(`${tag}:card:${r.id}`),
          ]);
          return JSON.stringify({ delivery, lock, lockTtl, cardInFlight: card });
        };
        const lines = await Promise.all(
          done
            .filter((r) => missing(r).length > 0)
            .map(
              async (r) =>
                `${r.id} (${r.target.name}) misses ${missing(r)
                  .map(
                    (e) =>
                      `#${e.seq} ${e.type}:${e.name} at promotion${e.at - promotion.promotedAt >= 0 ? '+' : ''}${e.at - promotion.promotedAt} ms`,
                  )
                  .join(', ')}; has ${threadOf(r)
                  .map((m) => String(m.metadata?.event_payload.seq))
                  .join(',')}; notifier keys: ${await notifierState(r)}`,
            ),
        );
        throw new Error(`${timeline}\nthread replies missing 60 s after every operation ended:\n${lines.join('\n')}`);
      });
      for (const r of done) await env.cardIn(r, 'COMPLETED');
      const posted = new Map<string, number>();
      for (const m of env.sim.messages(env.channel)) {
        const p = m.metadata?.event_payload;
        if (p) posted.set(`card ${String(p.op)}`, (posted.get(`card ${String(p.op)}`) ?? 0) + 1);
        for (const reply of env.sim.replies(env.channel, m.ts).slice(1)) {
          const key = JSON.stringify(reply.metadata?.event_payload ?? reply.text);
          posted.set(key, (posted.get(key) ?? 0) + 1);
        }
      }
      expect(
        [...posted].filter(([, n]) => n > 1),
        'posted more than once',
      ).toEqual([]);
      expect([...posted.keys()].filter((k) => k.startsWith('card ')).length).toBe(LOAD);
    } finally {
      unsubscribe();
      stopCounting();
      for (const n of names) cluster.operator.clearScenario(DEV, n);
    }
  }, 180_000);
}

function countBy(values: readonly (string | undefined)[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[String(v)] = (out[String(v)] ?? 0) + 1;
  return out;
}
