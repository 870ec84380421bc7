// The after-COMPLETED watches conformance suite: the same tests for every AfterCompletedWatches implementation (Redis in
// test/integration/store, memory in test/unit/store/memory).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AfterCompletedWatch, AfterCompletedWatches } from '../../../src/app/ports/after-completed.js';
import type { Target } from '../../../src/domain/model/target.js';

export interface AfterCompletedHarness {
  watches: AfterCompletedWatches;
  /** `n` stores over the same data that race each other for real (on Redis: one connection each). */
  racers(n: number): AfterCompletedWatches[];
  cleanup(): Promise<void>;
}

const T0 = Date.UTC(2030, 2, 1, 12, 0, 0);
const orders: Target = { kind: 'FlinkDeployment', namespace: 'streaming-prod', name: 'orders', cluster: 'eu' };
const clicks: Target = { kind: 'FlinkSessionJob', namespace: 'streaming-prod', name: 'clicks', cluster: 'eu' };

function watch(opId: string, target: Target, startedAt = T0, cluster = 'eu'): AfterCompletedWatch {
  return {
    opId,
    kind: 'scale',
    cluster,
    target,
    startedAt,
    until: startedAt + 15 * 60_000,
    fields: [{ path: ['spec', 'job', 'parallelism'], value: 8 }],
    gitopsOwner: 'Argo CD application team-a_orders',
  };
}

/** A health part: the job as REST and the events showed it at COMPLETED. */
function health(until = T0 + 10 * 60_000): NonNullable<AfterCompletedWatch['health']> {
  return {
    until,
    watchAfter: '10m',
    baseline: {
      at: T0,
      jobId: 'a1b2c3d4e5f60718293a4b5c6d7e8f90',
      clusterId: 'orders',
      rest: { jobState: 'RUNNING', numRestarts: 2, failedCheckpoints: 1, lastCompletedCheckpointId: 41 },
      exceptionEvents: { 'orders.17f1': 2 },
    },
  };
}

export function describeAfterCompletedConformance(name: string, factory: () => Promise<AfterCompletedHarness>): void {
  describe(`after-COMPLETED watches conformance: ${name}`, () => {
    let h: AfterCompletedHarness;
    beforeEach(async () => {
      h = await factory();
    });
    afterEach(async () => {
      await h.cleanup();
    });

    it('keeps one watch per target: a later start replaces the earlier one; lists them per cluster, oldest first', async () => {
      await h.watches.start(watch('op-aaaaaaaaaa', orders, T0 + 2));
      await h.watches.start(watch('op-bbbbbbbbbb', clicks, T0 + 1));
      await h.watches.start(watch('op-cccccccccc', orders, T0 + 3));
      expect((await h.watches.list('eu')).map((w) => w.opId)).toEqual(['op-bbbbbbbbbb', 'op-cccccccccc']);
      expect(await h.watches.list('us')).toEqual([]);
      expect((await h.watches.list('eu'))[1]).toEqual(watch('op-cccccccccc', orders, T0 + 3));
    });

    it('ends a watch only as its own operation (time ran out) or as another one (a later operation started)', async () => {
      await h.watches.start(watch('op-aaaaaaaaaa', orders));
      expect(await h.watches.endOthers('eu', orders, 'op-aaaaaaaaaa')).toBeUndefined();
      expect(await h.watches.end('eu', orders, 'op-bbbbbbbbbb')).toBe(false);
      expect(await h.watches.list('eu')).toHaveLength(1);
      expect((await h.watches.endOthers('eu', orders, 'op-bbbbbbbbbb'))?.opId).toBe('op-aaaaaaaaaa');
      expect(await h.watches.list('eu')).toEqual([]);
      await h.watches.start(watch('op-cccccccccc', orders));
      expect(await h.watches.end('eu', orders, 'op-cccccccccc')).toBe(true);
      expect(await h.watches.end('eu', orders, 'op-cccccccccc')).toBe(false);
    });

    it("keeps each cluster's watches apart, a bare target's under its resolved cluster", async () => {
      const bare: Target = { kind: 'FlinkDeployment', namespace: 'streaming-prod', name: 'orders' };
      await h.watches.start(watch('op-aaaaaaaaaa', bare, T0, 'us'));
      await h.watches.start(watch('op-bbbbbbbbbb', orders));
      expect((await h.watches.list('us')).map((w) => w.opId)).toEqual(['op-aaaaaaaaaa']);
      expect((await h.watches.list('eu')).map((w) => w.opId)).toEqual(['op-bbbbbbbbbb']);
      expect(await h.watches.end('eu', bare, 'op-aaaaaaaaaa')).toBe(false);
      expect(await h.watches.end('us', bare, 'op-aaaaaaaaaa')).toBe(true);
    });

    it('ends a racing pair exactly once', async () => {
      await h.watches.start(watch('op-aaaaaaaaaa', orders));
      const results = await Promise.all(h.racers(4).map((w) => w.end('eu', orders, 'op-aaaaaaaaaa')));
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    it('keeps a health-only watch (a change without GitOps) with its baseline, and a watch with both parts', async () => {
      const healthOnly = { ...watch('op-aaaaaaaaaa', orders), fields: [], until: T0, health: health() };
      delete healthOnly.gitopsOwner;
      await h.watches.start(healthOnly);
      const both = { ...watch('op-bbbbbbbbbb', clicks, T0 + 1), health: health(T0 + 60_000) };
      await h.watches.start(both);
      expect(await h.watches.list('eu')).toEqual([healthOnly, both]);
      expect((await h.watches.endOthers('eu', orders, 'op-cccccccccc'))?.health?.baseline.rest?.numRestarts).toBe(2);
    });

    it('refuses a health part that ends before it starts or names no job, storing nothing', async () => {
      const bare = { ...watch('op-aaaaaaaaaa', orders), fields: [], until: T0 };
      await expect(h.watches.start({ ...bare, health: health(T0) })).rejects.toThrow('ends before it starts');
      const noJob = health();
      noJob.baseline.jobId = ' ';
      await expect(h.watches.start({ ...bare, health: noJob })).rejects.toThrow('names no job');
      await expect(h.watches.start({ ...bare, until: T0 + 1 })).rejects.toThrow('no field');
      expect(await h.watches.list('eu')).toEqual([]);
    });

    it('refuses a watch without fields or that ends before it starts, storing nothing', async () => {
      await expect(h.watches.start({ ...watch('op-aaaaaaaaaa', orders), fields: [] })).rejects.toThrow('no field');
      await expect(h.watches.start({ ...watch('op-aaaaaaaaaa', orders), until: T0 })).rejects.toThrow('ends before');
      expect(await h.watches.list('eu')).toEqual([]);
    });
  });
}
