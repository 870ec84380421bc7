// The delivery state conformance suite: the same idempotency-mark, rendered-seq and lock tests for every DeliveryState
// implementation (docs/lifecycle.md#delivery-and-pacing; Redis in test/integration/store, memory in
// test/unit/store/memory).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeliveryState } from '../../../src/app/ports/delivery.js';
import { digestField, dmField, postField } from '../../../src/store/delivery.js';

export interface DeliveryHarness {
  state: DeliveryState;
  /** Resolves once the operation's lock has expired in the backing store (by observing it, not by sleeping). */
  lockExpired(opId: string): Promise<void>;
  cleanup(): Promise<void>;
}

const OP = 'op-deliver1';
const OTHER = 'op-deliver2';
const TTL = 10_000;
const SHORT_TTL = 150;

export function describeDeliveryConformance(name: string, factory: () => Promise<DeliveryHarness>): void {
  describe(`delivery state conformance: ${name}`, () => {
    let h: DeliveryHarness;
    let state: DeliveryState;
    beforeEach(async () => {
      h = await factory();
      state = h.state;
    });
    afterEach(async () => h.cleanup());

    it('reads an operation nothing was delivered for as empty', async () => {
      expect(await state.read(OP)).toEqual({ renderedSeq: 0, permalink: undefined, marks: new Map() });
      expect(await state.mark(OP, postField(2))).toEqual({ raw: undefined, mark: undefined });
      expect(await state.renderedSeq(OP)).toBe(0);
    });

    it('keeps marks per operation and field, and reads back only the marks among its fields', async () => {
      await state.setMark(OP, postField(2), { state: 'pending', at: 5, by: 'notifier-a' });
      await state.setMark(OP, digestField('start', 'C0INC'), { state: 'done', ts: '1.2' });
      await state.setMark(OP, dmField(3, 'U0LEAD'), { state: 'failed', error: 'cannot_dm_bot', at: 7 });
      await state.setPermalink(OP, 'https://slack.test/p1');
      await state.raiseRendered(OP, 4);
      await state.setMark(OTHER, postField(2), { state: 'skipped', why: 'nothing to say' });

      const snapshot = await state.read(OP);
      expect(snapshot.renderedSeq).toBe(4);
      expect(snapshot.permalink).toBe('https://slack.test/p1');
      expect([...snapshot.marks.keys()].sort()).toEqual(['digest:start:C0INC', 'dm:3:U0LEAD', 'post:2']);
      expect(snapshot.marks.get('post:2')).toEqual({
        raw: JSON.stringify({ state: 'pending', at: 5, by: 'notifier-a' }),
        mark: { state: 'pending', at: 5, by: 'notifier-a' },
      });
      expect((await state.mark(OTHER, postField(2))).mark).toEqual({ state: 'skipped', why: 'nothing to say' });
      expect((await state.read(OTHER)).permalink).toBeUndefined();
    });

    it('compare-and-sets a mark: only from what the caller read, so two replicas never overwrite each other', async () => {
      const field = postField(3);
      const pending = await state.casMark(OP, field, undefined, { state: 'pending', at: 1, by: 'a' });
      expect(pending).toEqual({ ok: true, raw: JSON.stringify({ state: 'pending', at: 1, by: 'a' }) });
      // The other replica read the field absent too: it lost.
      expect((await state.casMark(OP, field, undefined, { state: 'pending', at: 2, by: 'b' })).ok).toBe(false);
      expect(
        (await state.casMark(OP, field, '{"state":"pending","at":0,"by":"stale"}', { state: 'done', ts: 'x' })).ok,
      ).toBe(false);
      expect((await state.mark(OP, field)).mark).toEqual({ state: 'pending', at: 1, by: 'a' });
      const done = await state.casMark(OP, field, pending.raw, { state: 'done', ts: '9.9' });
      expect(done.ok).toBe(true);
      expect(await state.mark(OP, field)).toEqual({ raw: done.raw, mark: { state: 'done', ts: '9.9' } });
    });

    it('lets one of many racing compare-and-sets from the same read win', async () => {
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          state.casMark(OP, postField(5), undefined, { state: 'pending', at: i, by: `r${i}` }),
        ),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      const winner = results.find((r) => r.ok);
      expect((await state.mark(OP, postField(5))).raw).toBe(winner?.raw);
    });

    it('raises the rendered seq, never lowers it, and answers what it held before', async () => {
      expect(await state.raiseRendered(OP, 3)).toBe(0);
      expect(await state.raiseRendered(OP, 7)).toBe(3);
      expect(await state.raiseRendered(OP, 5)).toBe(7);
      expect(await state.renderedSeq(OP)).toBe(7);
      expect(await state.renderedSeq(OTHER)).toBe(0);
    });

    it('holds an operation for one token at a time; the holder renews, only the holder releases', async () => {
      expect(await state.tryLock(OP, 'notifier-a:1', TTL)).toBe(true);
      expect(await state.tryLock(OP, 'notifier-b:1', TTL)).toBe(false);
      // A take whose reply was lost is sent again by its own sender: it must not lock itself out.
      expect(await state.tryLock(OP, 'notifier-a:1', TTL)).toBe(true);
      expect(await state.extendLock(OP, 'notifier-b:1', TTL)).toBe(false);
      expect(await state.extendLock(OP, 'notifier-a:1', TTL)).toBe(true);
      expect(await state.tryLock(OTHER, 'notifier-b:1', TTL)).toBe(true);
      await state.releaseLock(OP, 'notifier-b:1');
      expect(await state.tryLock(OP, 'notifier-b:1', TTL)).toBe(false);
      await state.releaseLock(OP, 'notifier-a:1');
      expect(await state.extendLock(OP, 'notifier-a:1', TTL)).toBe(false);
      expect(await state.tryLock(OP, 'notifier-b:1', TTL)).toBe(true);
    });

    it('lets a lock whose holder stopped renewing lapse, then another takes it', async () => {
      expect(await state.tryLock(OP, 'notifier-a:1', SHORT_TTL)).toBe(true);
      await h.lockExpired(OP);
      expect(await state.extendLock(OP, 'notifier-a:1', TTL)).toBe(false);
      expect(await state.tryLock(OP, 'notifier-b:1', TTL)).toBe(true);
      expect(await state.tryLock(OP, 'notifier-a:1', TTL)).toBe(false);
    });
  });
}
