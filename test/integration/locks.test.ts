// What is particular to the Redis leases (keys, PX deadlines, the injected clock); the shared behaviour is in
// test/integration/store/locks-conformance.test.ts.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { OperationIntent } from '../../src/domain/kinds/index.js';
import type { Target } from '../../src/domain/model/target.js';
import { storeKeys } from '../../src/store/keys.js';
import { LeaseStore } from '../../src/store/locks.js';
import { OperationStore } from '../../src/store/operations.js';
import { redisForTest, type TestRedis } from '../support/redis.js';

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
    await ops.create(
      { id: 'op-leasea1', kind: 'restart', intent, target, requester: 'U0REQ', channel: 'C0OPS', incidentChannels: [] },
      'U0REQ',
    );
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
});
