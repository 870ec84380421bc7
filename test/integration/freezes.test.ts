// What is particular to the Redis freezes: their two keys, apart from the leases' (the shared behaviour is in
// test/integration/store/freezes-conformance.test.ts).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Target } from '../../src/domain/model/target.js';
import { FreezeStore } from '../../src/store/freezes.js';
import { LeaseStore } from '../../src/store/locks.js';
import { redisForTest, type TestRedis } from '../support/redis.js';

const T0 = Date.UTC(2030, 2, 1, 12, 0, 0);
const orders: Target = { kind: 'FlinkDeployment', namespace: 'streaming-prod', name: 'orders' };

let t: TestRedis;
let clock: number;
let freezes: FreezeStore;

beforeEach(async () => {
  t = await redisForTest('freeze');
  clock = T0;
  freezes = new FreezeStore(t.redis, { prefix: t.prefix, now: () => clock });
});
afterEach(async () => t.cleanup());

describe('FreezeStore', () => {
  it('is kept apart from leases: a freeze takes no lease, and releasing a lease lifts no freeze', async () => {
    await freezes.freeze(orders, { by: 'U0LEAD', reason: 'incident', at: T0 });
    const leases = new LeaseStore(t.redis, { prefix: t.prefix });
    expect(await leases.holder(orders)).toBeUndefined();
    expect(await leases.listLeases()).toEqual([]);
    expect((await t.redis.keys(`*${t.prefix}*`)).sort()).toEqual([`{${t.prefix}}:audit`, `{${t.prefix}}:freezes`]);
  });
});
