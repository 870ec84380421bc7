// The post-change watch on the memory twins (docs/lifecycle.md#after-completed): the baseline read at COMPLETED, a
// regression seen through the shared watches recorded once (however many replicas see it), the quiet end said once,
// nothing where the policy says 0 or the job is not running.
import { describe, expect, it } from 'vitest';
import { staticPolicy } from '../../../src/app/policy-source.js';
import { HEALTHY_NOTE, REGRESSED_NOTE } from '../../../src/domain/kit/evidence/regression.js';
import type { OperationRecord } from '../../../src/domain/engines/operation.js';
import { validatePolicy } from '../../../src/domain/engines/policy/validate.js';
import type { KubeEvent, KubeObject } from '../../../src/kube/flink-client.js';
import type { FlinkRest, RestResult } from '../../../src/kube/flink-rest.js';
import type { WatchListener } from '../../../src/kube/watch-hub.js';
import { createLogger } from '../../../src/log.js';
import { memoryStores } from '../../../src/store/memory/index.js';
import { AfterCompletedWatcher, watchOf } from '../../../src/worker/after-completed.js';
import { OP_ID } from '../../support/records.js';
import { completedInStore } from '../../support/store-records.js';
import { eventually } from '../../support/poll.js';

const T0 = Date.UTC(2030, 2, 1, 12, 0, 0);
const JOB = 'a'.repeat(32);

/** Feeds objects and events to every subscriber, as the namespace watches would. */
class Feed {
  readonly listeners = new Map<string, Set<WatchListener>>();
  async subscribe(kind: string, _ns: string, listener: WatchListener): Promise<() => void> {
    const set = this.listeners.get(kind) ?? new Set();
    this.listeners.set(kind, set.add(listener));
    return () => set.delete(listener);
  }
  send(kind: string, object: KubeObject): void {
    for (const l of this.listeners.get(kind) ?? []) l('MODIFIED', object);
  }
}

function target(jobState = 'RUNNING', jobManager = 'READY'): KubeObject {
  return {
    metadata: {
      name: 'orders-enricher',
      namespace: 'streaming-prod',
      uid: 'uid-1',
      annotations: { 'flink-chatops/operation-id': OP_ID },
    },
    spec: { job: { parallelism: 8 } },
    status: { jobManagerDeploymentStatus: jobManager, jobStatus: { state: jobState, jobId: JOB } },
  };
}

function failover(name: string, count: number): KubeEvent {
  return {
    metadata: { name, namespace: 'streaming-prod' },
    reason: 'JobException',
    type: 'Warning',
    count,
    involvedObject: { kind: 'FlinkDeployment', name: 'orders-enricher', namespace: 'streaming-prod', uid: 'uid-1' },
  };
}

/** A JobManager REST answering with `numRestarts` (null: unreachable). */
function restOf(numRestarts: () => number | null): FlinkRest & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    async get(_ns, _cluster, path): Promise<RestResult> {
      calls.push(path);
      const n = numRestarts();
      if (n === null) return { ok: false, reason: 'unavailable', message: '503' };
      if (path.includes('/metrics')) return { ok: true, value: [{ id: 'numRestarts', value: String(n) }] };
      if (path.endsWith('/checkpoints')) return { ok: true, value: { counts: { failed: 0 }, latest: {} } };
      return { ok: true, value: { state: 'RUNNING' } };
    },
  };
}

function policy(watchAfter: string) {
  const result = validatePolicy({
    version: 1,
    namespaces: [{ name: 'streaming-prod', environment: 'production' }],
    verify: { production: { watchAfter } },
  });
  if (!result.ok) throw new Error(result.errors.join('\n'));
  return staticPolicy(result.policy);
}

async function setUp(opts: { watchAfter?: string; object?: KubeObject; numRestarts?: () => number | null } = {}) {
  let now = T0;
  const stores = memoryStores({ now: () => now });
  const feed = new Feed();
  const rest = restOf(opts.numRestarts ?? (() => 0));
  const regressions: unknown[] = [];
  const replica = (own: FlinkRest = rest) =>
    new AfterCompletedWatcher({
      store: stores.store,
      watches: stores.afterCompleted,
      hub: feed,
      cluster: 'eu',
      logger: createLogger('silent'),
      now: () => now,
      actor: 'worker',
      kube: { get: async () => opts.object ?? target(), listEvents: async () => [failover('ev-old', 2)] },
      rest: own,
      readings: stores.sharedReadings,
      policy: policy(opts.watchAfter ?? '10m'),
      failureGraceMs: 120_000,
      restEveryMs: 30_000,
      refreshMs: 60_000,
      onRegression: (r) => regressions.push(r),
    });
  const watcher = replica();
  const record = await completedInStore(stores.store);
  const start = watchOf(record, 'eu', now);
  if (!start) throw new Error('expected a watch');
  await watcher.begin(start);
  return { stores, feed, watcher, replica, rest, regressions, tick: (ms: number) => (now += ms) };
}

const named = (record: OperationRecord | undefined, name: string) =>
  (record?.history ?? []).filter((e) => e.type === 'note' && e.name === name);

describe('the post-change watch', () => {
  it('a change without GitOps gets a health-only watch with the baseline read at COMPLETED', async () => {
    const { stores, watcher, rest } = await setUp();
    const [watch] = await stores.afterCompleted.list('eu');
    expect(watch).toMatchObject({ fields: [], until: T0, health: { until: T0 + 600_000, watchAfter: '10m' } });
    expect(watch?.health?.baseline).toEqual({
      at: T0,
      jobId: JOB,
      clusterId: 'orders-enricher',
      rest: { jobState: 'RUNNING', numRestarts: 0, failedCheckpoints: 0 },
      exceptionEvents: { 'ev-old': 2 },
    });
    expect(rest.calls).toContain(`/jobs/${JOB}/metrics?get=numRestarts`);
    watcher.close();
  });

  it('nothing to watch where watchAfter is 0, or when the job is not RUNNING at COMPLETED (a suspend)', async () => {
    const off = await setUp({ watchAfter: '0' });
    expect(await off.stores.afterCompleted.list('eu')).toEqual([]);
    off.watcher.close();
    const stopped = await setUp({ object: target('FINISHED') });
    expect(await stopped.stores.afterCompleted.list('eu')).toEqual([]);
    stopped.watcher.close();
  });

  it('once REST stops answering, three failovers in JobException events are one REGRESSED note, however often seen', async () => {
    let restarts: number | null = 0;
    const { stores, feed, watcher, replica, regressions, tick } = await setUp({ numRestarts: () => restarts });
    const other = replica();
    await other.start();
    restarts = null;
    tick(30_000);
    await other.start();
    feed.send('FlinkDeployment', target());
    feed.send('Event', failover('ev-old', 3));
    feed.send('Event', failover('ev-new', 1));
    expect(named(await stores.store.get(OP_ID), REGRESSED_NOTE)).toEqual([]);
    feed.send('Event', failover('ev-new', 2));
    await eventually(
      'the regression recorded',
      async () => named(await stores.store.get(OP_ID), REGRESSED_NOTE).length > 0,
    );
    feed.send('Event', failover('ev-new', 3));
    const record = await stores.store.get(OP_ID);
    expect(record?.state).toBe('COMPLETED');
    expect(named(record, REGRESSED_NOTE).map((e) => e.detail)).toEqual([
      expect.objectContaining({ kind: 'restarts', source: 'JobException events', what: '3 restarts in 30 s' }),
    ]);
    expect(regressions).toEqual([{ cluster: 'eu', kind: 'restarts' }]);
    watcher.close();
    other.close();
  });

  it('REST numRestarts is read at most once per interval, and its growth is the regression', async () => {
    let restarts = 0;
    const { stores, watcher, rest, tick } = await setUp({ numRestarts: () => restarts });
    const reads = () => rest.calls.filter((c) => c.includes('/metrics')).length;
    restarts = 3;
    tick(10_000);
    await watcher.start();
    expect(reads()).toBe(1);
    tick(20_000);
    await watcher.start();
    await eventually(
      'the regression recorded',
      async () => named(await stores.store.get(OP_ID), REGRESSED_NOTE).length > 0,
    );
    expect(reads()).toBe(2);
    expect(named(await stores.store.get(OP_ID), REGRESSED_NOTE)[0]?.detail).toMatchObject({
      numbers: 'numRestarts 0 → 3',
      source: 'Flink REST',
    });
    watcher.close();
  });

  it('replicas share one REST read per interval: the one with the turn reads, the others judge by its reading', async () => {
    const { stores, watcher, replica, tick } = await setUp();
    watcher.close();
    const down = restOf(() => null);
    const up = restOf(() => 3);
    const metrics = (r: { calls: string[] }) => r.calls.filter((c) => c.includes('/metrics')).length;
    const [a, b] = [replica(down), replica(up)];
    tick(30_000);
    // a takes the turn, and its JobManager does not answer: b judges by that reading, never reading its own.
    await a.start();
    await eventually('a’s reading shared', () => metrics(down) === 1);
    await b.start();
    expect(metrics(up)).toBe(0);
    expect(named(await stores.store.get(OP_ID), REGRESSED_NOTE)).toEqual([]);
    // The next interval b asks first: one read, its growth the regression.
    tick(30_000);
    await b.start();
    await a.start();
    await eventually(
      'the regression recorded',
      async () => named(await stores.store.get(OP_ID), REGRESSED_NOTE).length > 0,
    );
    expect([metrics(down), metrics(up)]).toEqual([1, 1]);
    a.close();
    b.close();
  });

  it('a quiet watch ends with one HEALTHY note however many replicas reach its end', async () => {
    const { stores, watcher, replica, tick } = await setUp();
    watcher.close();
    tick(600_000);
    const [a, b] = [replica(), replica()];
    await Promise.all([a.start(), b.start()]);
    const record = await stores.store.get(OP_ID);
    expect(named(record, HEALTHY_NOTE).map((e) => e.detail)).toEqual([
      { watchAfter: '10m', watchAfterMs: 600_000, sources: ['Flink REST', 'operator status', 'JobException events'] },
    ]);
    expect(named(record, REGRESSED_NOTE)).toEqual([]);
    expect(await stores.afterCompleted.list('eu')).toEqual([]);
    a.close();
    b.close();
  });
});
