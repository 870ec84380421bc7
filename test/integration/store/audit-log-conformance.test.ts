// The audit log conformance suite against Redis: each test its own key prefix, racers on their own connections.
import { Redis } from 'ioredis';
import { RedisAuditLog, RedisAuditPosition } from '../../../src/store/audit-log.js';
import { describeAuditLogConformance } from '../../support/conformance/audit-log.js';
import { redisForTest } from '../../support/redis.js';

describeAuditLogConformance('Redis', async (now) => {
  const t = await redisForTest('audit-conf');
  const connections: Redis[] = [];
  return {
    log: new RedisAuditLog(t.redis, { prefix: t.prefix, now }),
    position: new RedisAuditPosition(t.redis, t.prefix),
    racers: (n) =>
      Array.from({ length: n }, () => {
        const connection = new Redis(t.url, { maxRetriesPerRequest: null });
        connections.push(connection);
        return new RedisAuditLog(connection, { prefix: t.prefix, now });
      }),
    async cleanup() {
      for (const c of connections) c.disconnect();
      await t.cleanup();
    },
  };
});
