// The delivery state conformance suite against Redis: the lock lapses on Redis' own clock, so expiry is observed.
import { DeliveryState } from '../../../src/store/delivery.js';
import { notifierKeys } from '../../../src/store/keys.js';
import { DEFAULT_RETENTION_MS } from '../../../src/store/operations.js';
import { describeDeliveryConformance } from '../../support/conformance/delivery.js';
import { eventually } from '../../support/poll.js';
import { redisForTest } from '../../support/redis.js';

describeDeliveryConformance('Redis', async () => {
  const t = await redisForTest('delivery-conf');
  return {
    state: new DeliveryState(t.redis, t.prefix, DEFAULT_RETENTION_MS),
    async lockExpired(opId) {
      // Redis announces no expiry: the lock key's remaining life is polled until Redis drops it.
      await eventually('the lock expired', async () => (await t.redis.pttl(notifierKeys(t.prefix).lock(opId))) === -2, {
        intervalMs: 5,
      });
    },
    cleanup: () => t.cleanup(),
  };
});
