// The lock conformance suite (docs/lifecycle.md#queue-order-and-leases): the same lease tests for every LockStore
// implementation.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FreezeStore } from '../../../src/app/ports/freezes.js';
import type { Lease, LockStore } from '../../../src/app/ports/locks.js';
import type { OperationStore } from '../../../src/app/ports/operation-store.js';
import type { OperationIntent } from '../../../src/domain/kinds/index.js';
import type { EntryInput } from '../../../src/domain/engines/operation.js';
import type { Target } from '../../../src/domain/model/target.js';

/** What the suite needs around a lock implementation: the target's order and time, as the real system drives them. */
export interface LockHarness {
  locks: LockStore;
  freezes: FreezeStore;
  /** Makes `opId` a new operation that joins the back of the target's order (it becomes QUEUED). */
  enqueue(target: Target, opId: string): Promise<void>;
  /** Moves `opId` to a terminal state (out of its target's order). */
  finish(opId: string): Promise<void>;
  /** Resolves once the target's lease has expired in the backing store (by observing it, not by sleeping). */
  leaseExpired(target: Target): Promise<void>;
  cleanup(): Promise<void>;
}

const FINISH: Record<string, EntryInput> = {
  QUEUED: { type: 'state', name: 'ABORTED', actor: 'worker', role: 'worker' },
  SUBMITTING: { type: 'state', name: 'ABORTED', actor: 'worker', role: 'worker' },
  UNCERTAIN: { type: 'state', name: 'ABORTED', actor: 'worker', role: 'worker' },
  SUBMITTED: { type: 'state', name: 'COMPLETED', actor: 'worker', role: 'worker' },
};

/** `enqueue` and `finish` through an operation store, as the bot and the worker move operations in and out of the order. */
export function orderThrough(ops: OperationStore): Pick<LockHarness, 'enqueue' | 'finish'> {
  return {
    async enqueue(target, opId) {
      const intent: OperationIntent = { kind: 'restart', target, incidentChannels: [] };
      const created = await ops.create(
        { id: opId, kind: 'restart', intent, target, requester: 'U0REQ', channel: 'C0OPS', incidentChannels: [] },
        'U0REQ',
      );
      if (!created.ok) throw new Error(`${opId} exists`);
      const queued = await ops.transition(opId, { from: ['ACCEPTED'], to: 'QUEUED', actor: 'U0REQ', role: 'bot' });
      if (!queued.ok) throw new Error(queued.reason);
    },
    async finish(opId) {
      const result = await ops.apply(opId, (current) => {
        const entry = FINISH[current.state];
        return entry ? { entries: [entry] } : { refuse: `${opId} is ${current.state}` };
      });
      if (!result.ok) throw new Error(result.reason);
    },
  };
}

const target: Target = { kind: 'FlinkDeployment', namespace: 'streaming-prod', name: 'orders' };
const other: Target = { kind: 'FlinkSessionJob', namespace: 'streaming-prod', name: 'orders' };
const TTL = 10_000;
const SHORT_TTL = 150;

export function describeLockConformance(name: string, factory: () => Promise<LockHarness>): void {
  describe(`lock conformance: ${name}`, () => {
    let h: LockHarness;
    beforeEach(async () => {
      h = await factory();
    });
    afterEach(async () => h.cleanup());

    async function acquire(t: Target, opId: string, ttl = TTL): Promise<Lease> {
      const result = await h.locks.tryAcquire(t, opId, ttl);
      if (!result.acquired) throw new Error(`${opId} could not acquire: ${result.reason}`);
      return result.lease;
    }

    it('lets the head acquire, and reports the holder', async () => {
      await h.enqueue(target, 'op-lockaa');
      const lease = await acquire(target, 'op-lockaa');
      expect(lease).toMatchObject({ target, opId: 'op-lockaa' });
      expect(lease.token.length).toBeGreaterThanOrEqual(16);
      expect(await h.locks.holder(target)).toEqual({ opId: 'op-lockaa', since: lease.since });
      expect(await h.locks.holder(other)).toBeUndefined();
      expect(await h.locks.listLeases()).toEqual([
        { target, opId: 'op-lockaa', since: lease.since, ageMs: expect.any(Number) },
      ]);
    });

    it('reports contention: the holder to itself, the head and holder to a later operation', async () => {
      await h.enqueue(target, 'op-lockaa');
      await h.enqueue(target, 'op-lockbb');
      const lease = await acquire(target, 'op-lockaa');
      const holder = { opId: 'op-lockaa', since: lease.since };
      expect(await h.locks.tryAcquire(target, 'op-lockaa', TTL)).toEqual({
        acquired: false,
        reason: 'held',
        holder,
        head: 'op-lockaa',
      });
      expect(await h.locks.tryAcquire(target, 'op-lockbb', TTL)).toEqual({
        acquired: false,
        reason: 'not-head',
        holder,
        head: 'op-lockaa',
      });
    });

    it('runs a target strictly in FIFO order; other targets are independent', async () => {
      for (const id of ['op-lockaa', 'op-lockbb', 'op-lockcc']) await h.enqueue(target, id);
      await h.enqueue(other, 'op-lockdd');
      expect(await h.locks.tryAcquire(target, 'op-lockbb', TTL)).toEqual({
        acquired: false,
        reason: 'not-head',
        head: 'op-lockaa',
      });
      expect(await h.locks.tryAcquire(target, 'op-lockcc', TTL)).toMatchObject({ acquired: false, reason: 'not-head' });
      expect(await h.locks.tryAcquire(other, 'op-lockdd', TTL)).toMatchObject({ acquired: true });

      const a = await acquire(target, 'op-lockaa');
      await h.finish('op-lockaa');
      expect(await h.locks.release(a)).toBe(true);
      const b = await acquire(target, 'op-lockbb');
      expect(await h.locks.tryAcquire(target, 'op-lockcc', TTL)).toMatchObject({
        acquired: false,
        reason: 'not-head',
        head: 'op-lockbb',
      });

      // A holder that reached a terminal state without releasing (its worker died) blocks nobody.
      await h.finish('op-lockbb');
      const c = await acquire(target, 'op-lockcc');
      expect(await h.locks.release(b)).toBe(false);
      expect(await h.locks.extend(b, TTL)).toBe(false);
      expect(await h.locks.holder(target)).toEqual({ opId: 'op-lockcc', since: c.since });
    });

    it('after expiry lets the head re-acquire, never a later operation', async () => {
      await h.enqueue(target, 'op-lockaa');
      await h.enqueue(target, 'op-lockbb');
      const first = await acquire(target, 'op-lockaa', SHORT_TTL);
      await h.leaseExpired(target);
      expect(await h.locks.holder(target)).toBeUndefined();
      expect(await h.locks.tryAcquire(target, 'op-lockbb', TTL)).toEqual({
        acquired: false,
        reason: 'not-head',
        head: 'op-lockaa',
      });
      const again = await acquire(target, 'op-lockaa');
      expect(again.token).not.toBe(first.token);
      expect(await h.locks.extend(first, TTL)).toBe(false);
      expect(await h.locks.release(first)).toBe(false);
      expect(await h.locks.holder(target)).toMatchObject({ opId: 'op-lockaa' });
    });

    it('refuses to extend an expired lease and extends a live one', async () => {
      await h.enqueue(target, 'op-lockaa');
      const lease = await acquire(target, 'op-lockaa', SHORT_TTL);
      expect(await h.locks.extend(lease, SHORT_TTL)).toBe(true);
      await h.leaseExpired(target);
      expect(await h.locks.extend(lease, TTL)).toBe(false);
      expect(await h.locks.holder(target)).toBeUndefined();
    });

    it('refuses release by a non-owner; release then re-acquire works', async () => {
      await h.enqueue(target, 'op-lockaa');
      const lease = await acquire(target, 'op-lockaa');
      expect(await h.locks.release({ ...lease, token: 'not-the-token' })).toBe(false);
      expect(await h.locks.release({ ...lease, target: other })).toBe(false);
      expect(await h.locks.holder(target)).toMatchObject({ opId: 'op-lockaa' });
      expect(await h.locks.release(lease)).toBe(true);
      expect(await h.locks.release(lease)).toBe(false);
      expect(await h.locks.holder(target)).toBeUndefined();
      expect(await h.locks.listLeases()).toEqual([]);
      await acquire(target, 'op-lockaa');
    });

    it('lets no operation outside the order acquire, even on an idle target', async () => {
      await h.enqueue(target, 'op-lockaa');
      expect(await h.locks.tryAcquire(target, 'op-strange', TTL)).toEqual({
        acquired: false,
        reason: 'not-head',
        head: 'op-lockaa',
      });
      const idle: Target = { ...target, name: 'idle' };
      expect(await h.locks.tryAcquire(idle, 'op-lockaa', TTL)).toEqual({ acquired: false, reason: 'not-head' });
    });

    it('refuses a meaningless ttl with a clear message', async () => {
      await h.enqueue(target, 'op-lockaa');
      await expect(h.locks.tryAcquire(target, 'op-lockaa', 0)).rejects.toThrow(
        'lease ttl must be a positive whole number of ms, got 0',
      );
      await expect(h.locks.tryAcquire(target, 'op-lockaa', 1.5)).rejects.toThrow('got 1.5');
      const lease = await acquire(target, 'op-lockaa');
      await expect(h.locks.extend(lease, -1)).rejects.toThrow('got -1');
    });

    it('ignores freezes (policy denies frozen targets) while the freeze store reports and audits them', async () => {
      await h.enqueue(target, 'op-lockaa');
      expect(await h.freezes.freeze(target, { by: 'U0LEAD', reason: 'incident 42', at: 1_000 })).toEqual({ ok: true });
      expect(await h.freezes.get(target)).toEqual({ target, by: 'U0LEAD', reason: 'incident 42', at: 1_000 });
      expect(await h.locks.tryAcquire(target, 'op-lockaa', TTL)).toMatchObject({ acquired: true });
      expect(await h.freezes.auditLog(10)).toMatchObject([
        { what: 'freeze', target, by: 'U0LEAD', reason: 'incident 42', at: 1_000 },
      ]);
    });
  });
}
