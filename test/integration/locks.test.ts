// Target leases in Redis: the lock conformance suite, plus what is specific to the Redis implementation.
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { OperationIntent } from '../../src/domain/kinds/index.js';
import type { EntryInput } from '../../src/domain/model/operation.js';
import type { Target } from '../../src/domain/model/target.js';
import { FreezeStore } from '../../src/store/freezes.js';
import { storeKeys } from '../../src/store/keys.js';
import { LeaseStore } from '../../src/store/locks.js';
import { OperationStore } from '../../src/store/operations.js';
import { describeLockConformance, type LockHarness } from '../support/lock-conformance.js';
import { redisForTest, type TestRedis } from '../support/redis.js';

const FINISH: Record<string, EntryInput> = {
  QUEUED: { type: 'state', name: 'ABORTED', actor: 'worker', role: 'worker' },
  SUBMITTING: { type: 'state', name: 'ABORTED', actor: 'worker', role: 'worker' },
  UNCERTAIN: { type: 'state', name: 'ABORTED', actor: 'worker', role: 'worker' },
  SUBMITTED: { type: 'state', name: 'COMPLETED', actor: 'worker', role: 'worker' },
};

async function redisHarness(): Promise<LockHarness> {
  const t = await redisForTest('locks');
  const ops = new OperationStore(t.redis, { prefix: t.prefix });
  const keys = storeKeys(t.prefix);
  return {
    locks: new LeaseStore(t.redis, { prefix: t.prefix }),
    freezes: new FreezeStore(t.redis, { prefix: t.prefix }),
    async enqueue(target, opId) {
      const intent: OperationIntent = { kind: 'restart', target, incidentChannels: [] };
      const created = await ops.create({ id: opId, kind: 'restart', intent, target, requester: 'U0REQ', channel: 'C0OPS', incidentChannels: [] }, 'U0REQ');
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
    async leaseExpired(target: Target) {
      // Polls the key's remaining life; Redis drops it exactly when the PX deadline passes.
      for (let i = 0; i < 1000; i++) {
        if ((await t.redis.pttl(keys.lease(target))) === -2) return;
        await delay(5);
      }
      throw new Error('the lease never expired');
    },
    cleanup: () => t.cleanup(),
  };
}

describeLockConformance('LeaseStore on Redis', redisHarness);

describe('LeaseStore on Redis', () => {
  const target: Target = { kind: 'FlinkDeployment', namespace: 'streaming-dev', name: 'clicks' };
  let t: TestRedis;
  let clock: number;
  let ops: OperationStore;
  let leases: LeaseStore;

  beforeEach(async () => {
    t = await redisForTest('lease');
    clock = 1_000_000;
    ops = new OperationStore(t.redis, { prefix: t.prefix, now: () => clock });
    leases = new LeaseStore(t.redis, { prefix: t.prefix, now: () => clock });
    const intent: OperationIntent = { kind: 'restart', target, incidentChannels: [] };
    await ops.create({ id: 'op-leasea1', kind: 'restart', intent, target, requester: 'U0REQ', channel: 'C0OPS', incidentChannels: [] }, 'U0REQ');
    await ops.transition('op-leasea1', { from: ['ACCEPTED'], to: 'QUEUED', actor: 'U0REQ', role: 'bot' });
  });
  afterEach(async () => t.cleanup());

  it('stores the lease under the hash tag with a PX deadline, and lists its age from the injected clock', async () => {
    const result = await leases.tryAcquire(target, 'op-leasea1', 30_000);
    expect(result.acquired).toBe(true);
    const key = storeKeys(t.prefix).lease(target);
    expect(key.startsWith(`{${t.prefix}}:`)).toBe(true);
    const pttl = await t.redis.pttl(key);
    expect(pttl).toBeGreaterThan(29_000);
    expect(pttl).toBeLessThanOrEqual(30_000);
    clock += 4_200;
    expect(await leases.listLeases()).toEqual([{ target, opId: 'op-leasea1', since: 1_000_000, ageMs: 4_200 }]);
  });

  it('extends the deadline only for the owner', async () => {
    const result = await leases.tryAcquire(target, 'op-leasea1', 1_000);
    if (!result.acquired) throw new Error(result.reason);
    expect(await leases.extend(result.lease, 60_000)).toBe(true);
    expect(await t.redis.pttl(storeKeys(t.prefix).lease(target))).toBeGreaterThan(59_000);
    expect(await leases.extend({ ...result.lease, token: 'x' }, 1)).toBe(false);
    expect(await t.redis.pttl(storeKeys(t.prefix).lease(target))).toBeGreaterThan(59_000);
  });

  it('refuses a meaningless ttl with a clear message', async () => {
    await expect(leases.tryAcquire(target, 'op-leasea1', 0)).rejects.toThrow('lease ttl must be a positive whole number of ms, got 0');
    await expect(leases.tryAcquire(target, 'op-leasea1', 1.5)).rejects.toThrow('got 1.5');
  });

  it('lets no operation outside the order acquire, even on an idle target', async () => {
    expect(await leases.tryAcquire(target, 'op-strange', 1_000)).toEqual({ acquired: false, reason: 'not-head', head: 'op-leasea1' });
    const idle: Target = { ...target, name: 'idle' };
    expect(await leases.tryAcquire(idle, 'op-leasea1', 1_000)).toEqual({ acquired: false, reason: 'not-head' });
  });
});
