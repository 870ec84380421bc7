// The after-COMPLETED watches conformance suite against Redis: each test its own key prefix, racers on their own
// connections.
import { Redis } from 'ioredis';
import { AfterCompletedWatches } from '../../../src/store/after-completed.js';
import { describeAfterCompletedConformance } from '../../support/conformance/after-completed.js';
import { redisForTest } from '../../support/redis.js';

describeAfterCompletedConformance('Redis', async () => {
  const t = await redisForTest('after-conf');
  const connections: Redis[] = [];
  return {
    watches: new AfterCompletedWatches(t.redis, t.prefix),
    racers: (n) =>
      Array.from({ length: n }, () => {
        const connection = new Redis(t.url, { maxRetriesPerRequest: null });
        connections.push(connection);
        return new AfterCompletedWatches(connection, t.prefix);
      }),
    async cleanup() {
      for (const c of connections) c.disconnect();
      await t.cleanup();
    },
  };
});
