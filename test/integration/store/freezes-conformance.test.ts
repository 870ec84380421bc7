// The freeze store conformance suite against Redis: each test its own key prefix, racers on their own connections.
import { Redis } from 'ioredis';
import { FreezeStore } from '../../../src/store/freezes.js';
import { describeFreezeConformance } from '../../support/conformance/freezes.js';
import { redisForTest } from '../../support/redis.js';

describeFreezeConformance('Redis', async (now) => {
  const t = await redisForTest('freeze-conf');
  const connections: Redis[] = [];
  return {
    freezes: new FreezeStore(t.redis, { prefix: t.prefix, now }),
    racers: (n) =>
      Array.from({ length: n }, () => {
        const connection = new Redis(t.url, { maxRetriesPerRequest: null });
        connections.push(connection);
        return new FreezeStore(connection, { prefix: t.prefix, now });
      }),
    async cleanup() {
      for (const c of connections) c.disconnect();
      await t.cleanup();
    },
  };
});
