// The in-memory leases: the lock conformance suite on a clock the test moves, so expiry takes no waiting.
import type { Target } from '../../../../src/domain/model/target.js';
import { memoryStores } from '../../../../src/store/memory/index.js';
import { describeLockConformance, orderThrough, type LockHarness } from '../../../support/conformance/locks.js';

async function memoryHarness(): Promise<LockHarness> {
  let clock = 1_000_000;
  const stores = memoryStores({ now: () => clock });
  return {
    locks: stores.leases,
    freezes: stores.freezes,
    ...orderThrough(stores.store),
    async leaseExpired(target: Target) {
      // The suite's short leases last 150 ms; a minute on the clock outlives any of them.
      clock += 60_000;
      if ((await stores.leases.holder(target)) !== undefined) throw new Error('the lease outlived its deadline');
    },
    cleanup: async () => undefined,
  };
}

describeLockConformance('MemoryLeaseStore', memoryHarness);
