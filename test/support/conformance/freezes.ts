// The freeze store conformance suite: the same `lock`/`unlock` tests for every FreezeStore implementation (Redis in
// test/integration/store, memory in test/unit/store/memory).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditEntry, FreezeStore } from '../../../src/app/ports/freezes.js';
import type { Target } from '../../../src/domain/model/target.js';

export interface FreezeHarness {
  /** A store on `now`, the clock the suite moves, keeping the audit the default 35 days. */
  freezes: FreezeStore;
  /** `n` stores over the same data that race each other for real (on Redis: one connection each). */
  racers(n: number): FreezeStore[];
  cleanup(): Promise<void>;
}

const DAY = 24 * 60 * 60 * 1000;
const T0 = Date.UTC(2030, 2, 1, 12, 0, 0);
const orders: Target = { kind: 'FlinkDeployment', namespace: 'streaming-prod', name: 'orders' };
const clicks: Target = { kind: 'FlinkSessionJob', namespace: 'streaming-prod', name: 'clicks' };

/** Stream ids (`<ms>-<seq>`) compared as the stream orders them. */
function newerFirst(log: readonly AuditEntry[]): boolean {
  const key = (id: string) => id.split('-').map(Number) as [number, number];
  return log.every((entry, i) => {
    const next = log[i + 1];
    if (next === undefined) return true;
    const [a, b] = [key(entry.id), key(next.id)];
    return a[0] > b[0] || (a[0] === b[0] && a[1] > b[1]);
  });
}

export function describeFreezeConformance(name: string, factory: (now: () => number) => Promise<FreezeHarness>): void {
  describe(`freeze store conformance: ${name}`, () => {
    let h: FreezeHarness;
    let freezes: FreezeStore;
    let clock: number;
    beforeEach(async () => {
      clock = T0;
      h = await factory(() => clock);
      freezes = h.freezes;
    });
    afterEach(async () => h.cleanup());

    it('freezes, reports, lists and unfreezes, auditing who did what', async () => {
      expect(await freezes.freeze(orders, { by: 'U0LEAD', reason: 'incident 7', at: T0 })).toEqual({ ok: true });
      expect(await freezes.freeze(clicks, { by: 'U0ONCALL', reason: 'migration', at: T0 - 5 })).toEqual({ ok: true });
      expect(await freezes.get(orders)).toEqual({ target: orders, by: 'U0LEAD', reason: 'incident 7', at: T0 });
      expect((await freezes.list()).map((f) => f.target)).toEqual([clicks, orders]);

      clock = T0 + 60_000;
      expect(await freezes.unfreeze(orders, 'U0OTHERLEAD')).toEqual({
        ok: true,
        was: { target: orders, by: 'U0LEAD', reason: 'incident 7', at: T0 },
      });
      expect(await freezes.get(orders)).toBeUndefined();
      expect(await freezes.unfreeze(orders, 'U0OTHERLEAD')).toEqual({ ok: false, reason: 'not-frozen' });
      expect(await freezes.auditLog(10)).toMatchObject([
        { what: 'unfreeze', target: orders, by: 'U0OTHERLEAD', reason: 'incident 7', at: T0 + 60_000 },
        { what: 'freeze', target: clicks, by: 'U0ONCALL', reason: 'migration', at: T0 - 5 },
        { what: 'freeze', target: orders, by: 'U0LEAD', reason: 'incident 7', at: T0 },
      ]);
      expect(await freezes.auditLog(1)).toHaveLength(1);
      expect(await freezes.list()).toEqual([{ target: clicks, by: 'U0ONCALL', reason: 'migration', at: T0 - 5 }]);
    });

    it('keeps the first freeze when a second one comes, and does not audit the refused one', async () => {
      await freezes.freeze(orders, { by: 'U0LEAD', reason: 'first', at: T0 });
      expect(await freezes.freeze(orders, { by: 'U0ONCALL', reason: 'second', at: T0 + 1 })).toEqual({
        ok: false,
        existing: { target: orders, by: 'U0LEAD', reason: 'first', at: T0 },
      });
      expect(await freezes.auditLog(10)).toHaveLength(1);
    });

    it('ends a freeze with an `until` by itself: not reported, listed nor unfrozen after it, and replaced by a new one', async () => {
      const until = T0 + 2 * 60 * 60 * 1000;
      expect(await freezes.freeze(orders, { by: 'U0LEAD', reason: 'load test', at: T0, until })).toEqual({ ok: true });
      clock = until - 1;
      expect(await freezes.get(orders)).toEqual({ target: orders, by: 'U0LEAD', reason: 'load test', at: T0, until });
      expect(await freezes.freeze(orders, { by: 'U0OTHER', reason: 'mine', at: clock })).toMatchObject({ ok: false });
      clock = until;
      expect(await freezes.get(orders)).toBeUndefined();
      expect(await freezes.list()).toEqual([]);
      expect(await freezes.unfreeze(orders, 'U0LEAD')).toEqual({ ok: false, reason: 'not-frozen' });
      expect(await freezes.freeze(orders, { by: 'U0OTHER', reason: 'next', at: clock })).toEqual({ ok: true });
      expect(await freezes.get(orders)).toEqual({ target: orders, by: 'U0OTHER', reason: 'next', at: until });
      clock = until + 10 * DAY;
      expect(await freezes.get(orders)).toMatchObject({ reason: 'next' });
    });

    it('tells targets apart by cluster too', async () => {
      const elsewhere: Target = { ...orders, cluster: 'eu-west' };
      await freezes.freeze(elsewhere, { by: 'U0LEAD', reason: 'eu only', at: T0 });
      expect(await freezes.get(orders)).toBeUndefined();
      expect(await freezes.get(elsewhere)).toMatchObject({ target: elsewhere, reason: 'eu only' });
    });

    it('lets exactly one of 20 concurrent freezes win', async () => {
      const results = await Promise.all(
        h.racers(20).map((racer, i) => racer.freeze(orders, { by: `U${i}`, reason: `r${i}`, at: T0 + i })),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      const winner = await freezes.get(orders);
      for (const r of results) if (!r.ok) expect(r.existing).toEqual(winner);
      expect(await freezes.auditLog(100)).toMatchObject([{ what: 'freeze', by: winner?.by }]);
    });

    it('gives newer audit entries greater ids, even when the clock steps back', async () => {
      await freezes.freeze(orders, { by: 'U0LEAD', reason: 'a', at: T0 });
      await freezes.unfreeze(orders, 'U0LEAD');
      clock = T0 - 10_000;
      await freezes.freeze(orders, { by: 'U0LEAD', reason: 'b', at: clock });
      const log = await freezes.auditLog(10);
      expect(log.map((e) => e.reason)).toEqual(['b', 'a', 'a']);
      expect(newerFirst(log)).toBe(true);
    });

    it('trims the audit history by age (the retention), not by count', async () => {
      for (let i = 0; i < 150; i++) {
        await freezes.freeze(orders, { by: 'U0LEAD', reason: `r${i}`, at: clock });
        await freezes.unfreeze(orders, 'U0LEAD');
      }
      expect(await freezes.auditLog(1000)).toHaveLength(300);
      clock = T0 + 36 * DAY;
      await freezes.freeze(clicks, { by: 'U0LEAD', reason: 'later', at: clock });
      const log = await freezes.auditLog(1000);
      expect(log[0]).toMatchObject({ target: clicks, reason: 'later' });
      // Redis' MINID ~ drops whole stream nodes (≤ 100 entries): at most one partial node of old entries stays.
      expect(log.length - 1).toBeLessThanOrEqual(100);
    });

    it.each([
      {
        name: 'an empty reason',
        call: (f: FreezeStore) => f.freeze(orders, { by: 'U0LEAD', reason: ' ', at: T0 }),
        message: 'a freeze needs a reason',
      },
      {
        name: 'no requester',
        call: (f: FreezeStore) => f.freeze(orders, { by: '', reason: 'x', at: T0 }),
        message: 'a freeze needs who asked for it',
      },
      {
        name: 'no unfreezer',
        call: (f: FreezeStore) => f.unfreeze(orders, ''),
        message: 'an unfreeze needs who asked for it',
      },
      { name: 'a bad limit', call: (f: FreezeStore) => f.auditLog(0), message: 'limit must be a positive integer' },
    ])('refuses $name with a clear message', async ({ call, message }) => {
      await expect(call(freezes)).rejects.toThrow(message);
      expect(await freezes.list()).toEqual([]);
    });
  });
}
