// The audit log conformance suite: the same chain tests for every AuditLog and AuditDeliveryPosition (Redis in
// test/integration/store, memory in test/unit/store/memory).
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditDeliveryPosition, AuditLog } from '../../../src/app/ports/audit-log.js';
import {
  GENESIS_HASH,
  newAuditId,
  type AuditAction,
  type AuditDraft,
  type AuditEvent,
} from '../../../src/domain/kit/audit/event.js';
import { verifyChain } from '../../../src/domain/kit/audit/verify.js';

export interface AuditLogHarness {
  /** A log on `now`, the clock the suite moves, holding events the default 35 days, trimming up to `position`. */
  log: AuditLog;
  position: AuditDeliveryPosition;
  /** `n` logs over the same chain that race each other for real (on Redis: one connection each). */
  racers(n: number): AuditLog[];
  cleanup(): Promise<void>;
}

const DAY = 24 * 60 * 60 * 1000;
const T0 = Date.UTC(2030, 2, 1, 12, 0, 0);

function draft(at: number, action: AuditAction = 'requested'): AuditDraft {
  return {
    id: newAuditId((size) => randomBytes(size)),
    at: new Date(at).toISOString(),
    actor: { user: 'U0LEAD', team: 'T0TEAM' },
    action,
    op: { id: 'op-1', kind: 'FlinkDeployment', cluster: 'prod', namespace: 'streaming-prod', name: 'orders' },
  };
}

async function collect(events: AsyncIterable<AuditEvent>): Promise<AuditEvent[]> {
  const out: AuditEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

const seqs = (events: readonly AuditEvent[]) => events.map((e) => e.seq);
const upTo = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const lines = (events: readonly AuditEvent[]) => events.map((e) => JSON.stringify(e));

export function describeAuditLogConformance(name: string, factory: (now: () => number) => Promise<AuditLogHarness>) {
  describe(`audit log conformance: ${name}`, () => {
    let h: AuditLogHarness;
    let log: AuditLog;
    let clock: number;
    beforeEach(async () => {
      clock = T0;
      h = await factory(() => clock);
      log = h.log;
    });
    afterEach(async () => h.cleanup());

    it('gives seq from 1, links each prevHash to the hash before it, and the chain verifies', async () => {
      expect(await log.head()).toEqual({ seq: 0, hash: GENESIS_HASH });
      const appended = [];
      for (let i = 0; i < 3; i++) appended.push(await log.append(draft(T0 + i, i === 2 ? 'approved' : 'requested')));
      expect(seqs(appended)).toEqual([1, 2, 3]);
      expect(appended[0]?.prevHash).toBe(GENESIS_HASH);
      expect(appended[1]?.prevHash).toBe(appended[0]?.hash);
      expect(appended[2]?.prevHash).toBe(appended[1]?.hash);
      expect(await log.head()).toEqual({ seq: 3, hash: appended[2]?.hash });
      const held = await log.readAfter(0, 10);
      expect(held).toEqual(appended);
      expect(verifyChain(lines(held))).toEqual({ ok: true, count: 3, first: 1, last: 3 });
    });

    it('gives 50 concurrent appends from two writers seq 1..50 without gap or duplicate, in one valid chain', async () => {
      const racers = h.racers(2);
      const drafts = Array.from({ length: 50 }, (_, i) => draft(T0 + (i % 7)));
      const appended = await Promise.all(drafts.map((d, i) => (racers[i % 2] as AuditLog).append(d)));
      expect(seqs(appended).sort((a, b) => a - b)).toEqual(upTo(1, 50));
      const held = await log.readAfter(0, 100);
      expect(seqs(held)).toEqual(upTo(1, 50));
      expect(held.map((e) => e.id).sort()).toEqual(drafts.map((d) => d.id).sort());
      expect(verifyChain(lines(held))).toMatchObject({ ok: true, count: 50 });
      expect(await log.head()).toEqual({ seq: 50, hash: held[49]?.hash });
    });

    it("lands 150 appends of one writer made at once, none losing the race for the head to the writer's own", async () => {
      const drafts = Array.from({ length: 150 }, (_, i) => draft(T0 + (i % 11)));
      const appended = await Promise.all(drafts.map((d) => log.append(d)));
      expect(seqs(appended).sort((a, b) => a - b)).toEqual(upTo(1, 150));
      const held = await log.readAfter(0, 200);
      expect(held.map((e) => e.id).sort()).toEqual(drafts.map((d) => d.id).sort());
      expect(verifyChain(lines(held))).toMatchObject({ ok: true, count: 150 });
    });

    it('reads after any seq in pages, also when the clock stood still or went back', async () => {
      const times = [T0, T0, T0 - 5_000, T0 + 10, T0 + 10, T0 - 1, T0 + 3_000, T0 + 3_000, T0 + 2_999, T0 + 9_000];
      for (const at of times) await log.append(draft(at));
      for (let after = 0; after <= times.length; after++) {
        expect(seqs(await log.readAfter(after, 3))).toEqual(upTo(after + 1, Math.min(after + 3, times.length)));
      }
      expect(await log.readAfter(100, 3)).toEqual([]);
      expect(verifyChain(lines(await log.readAfter(0, 100)))).toMatchObject({ ok: true, count: times.length });
    });

    it('finds the seq to read after among many events spread over days', async () => {
      let at = T0;
      for (let i = 0; i < 120; i++) {
        at += ((i * 7919) % 13) * 3_600_000 - 20 * 60_000;
        await log.append(draft(at));
      }
      for (const after of [0, 1, 2, 17, 59, 60, 61, 99, 118, 119]) {
        expect(seqs(await log.readAfter(after, 2))).toEqual(upTo(after + 1, Math.min(after + 2, 120)));
      }
      expect(await log.readAfter(120, 2)).toEqual([]);
    });

    it('pages the events of a time window, ends open or closed', async () => {
      for (let i = 0; i < 5; i++) await log.append(draft(T0 + i * 60_000));
      expect(seqs(await collect(log.range({ since: T0 + 60_000, until: T0 + 180_000 })))).toEqual([2, 3, 4]);
      expect(seqs(await collect(log.range({ since: T0 + 60_000, until: T0 + 180_000 }, 1)))).toEqual([2, 3, 4]);
      expect(seqs(await collect(log.range({ since: T0 + 180_001 }, 2)))).toEqual([5]);
      expect(seqs(await collect(log.range({ until: T0 + 59_999 })))).toEqual([1]);
      expect(seqs(await collect(log.range({}, 2)))).toEqual([1, 2, 3, 4, 5]);
      expect(await collect(log.range({ since: T0 + 10 * DAY }))).toEqual([]);
    });

    it('moves the delivery position only forward', async () => {
      expect(await h.position.get()).toBe(0);
      await h.position.advance(5);
      expect(await h.position.get()).toBe(5);
      await h.position.advance(3);
      expect(await h.position.get()).toBe(5);
      await h.position.advance(7);
      expect(await h.position.get()).toBe(7);
      await expect(h.position.advance(-1)).rejects.toThrow('seq must be a whole number');
      await expect(h.position.advance(8.5)).rejects.toThrow('seq must be a whole number');
      expect(await h.position.get()).toBe(7);
    });

    it('trims by age but keeps every event after the position, and the chain goes on from its head', async () => {
      for (let i = 0; i < 250; i++) await log.append(draft(T0));
      await h.position.advance(120);
      clock = T0 + 10 * DAY;
      await log.append(draft(clock));
      expect(await log.readAfter(0, 1000)).toHaveLength(251);
      clock = T0 + 36 * DAY;
      const next = await log.append(draft(clock));
      const held = await log.readAfter(0, 1000);
      const first = held[0]?.seq ?? 0;
      // Everything after the position stays; Redis' MINID ~ drops whole stream nodes, so some older ones may too.
      expect(first).toBeGreaterThan(1);
      expect(first).toBeLessThanOrEqual(121);
      expect(seqs(held)).toEqual(upTo(first, 252));
      expect(next).toMatchObject({ seq: 252, prevHash: held[251 - first]?.hash });
      const after = await log.append(draft(clock + 1));
      expect(after).toMatchObject({ seq: 253, prevHash: next.hash });
    });

    it('trims by age only while no position is stored', async () => {
      for (let i = 0; i < 250; i++) await log.append(draft(T0));
      clock = T0 + 36 * DAY;
      await log.append(draft(clock));
      const held = await log.readAfter(0, 1000);
      expect(held.length).toBeLessThan(150);
      expect(seqs(held)).toEqual(upTo(251 - held.length + 1, 251));
      expect(await log.head()).toEqual({ seq: 251, hash: held.at(-1)?.hash });
    });

    it.each([
      {
        name: 'a draft that is not an event',
        call: (l: AuditLog) => l.append({ ...draft(T0), id: 'x' }),
        message: 'id',
      },
      { name: 'a negative seq', call: (l: AuditLog) => l.readAfter(-1, 10), message: 'seq must be a whole number' },
      { name: 'a zero limit', call: (l: AuditLog) => l.readAfter(0, 0), message: 'limit must be a positive integer' },
      {
        name: 'a window that ends before it starts',
        call: (l: AuditLog) => collect(l.range({ since: T0 + 1, until: T0 })),
        message: 'is after until',
      },
      { name: 'a zero page size', call: (l: AuditLog) => collect(l.range({}, 0)), message: 'pageSize must be' },
    ])('refuses $name with a clear message and changes nothing', async ({ call, message }) => {
      await log.append(draft(T0));
      await expect(call(log)).rejects.toThrow(message);
      expect((await log.head()).seq).toBe(1);
      expect(seqs(await log.readAfter(0, 10))).toEqual([1]);
    });
  });
}
