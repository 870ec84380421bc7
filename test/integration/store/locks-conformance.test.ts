// The lock conformance suite against Redis: leases expire on Redis' own clock, so expiry is observed, not advanced.
import type { Target } from '../../../src/domain/model/target.js';
import { FreezeStore } from '../../../src/store/freezes.js';
import { storeKeys } from '../../../src/store/keys.js';
import { LeaseStore } from '../../../src/store/locks.js';
import { OperationStore } from '../../../src/store/operations.js';
import { describeLockConformance, orderThrough, type LockHarness } from '../../support/conformance/locks.js';
import { eventually } from '../../support/poll.js';
import { redisForTest } from '../../support/redis.js';

async function redisHarness(): Promise<LockHarness> {
  const t = await redisForTest('locks');
  const keys = storeKeys(t.prefix);
  return {
    locks: new LeaseStore(t.redis, { prefix: t.prefix }),
    freezes: new FreezeStore(t.redis, { prefix: t.prefix }),
    ...orderThrough(new OperationStore(t.redis, { prefix: t.prefix })),
    async leaseExpired(target: Target) {
      // Redis announces no expiry: its key's remaining life is polled; Redis drops it when the PX deadline passes.
      await eventually('the lease expired', async () => (await t.redis.pttl(keys.lease(target))) === -2, {
        intervalMs: 5,
      });
    },
    cleanup: () => t.cleanup(),
  };
}

describeLockConformance('LeaseStore on Redis', redisHarness);
