// The operation store conformance suite against Redis: each test its own key prefix, racers on their own connections.
import { Redis } from 'ioredis';
import { OperationStore } from '../../../src/store/operations.js';
import { describeOperationStoreConformance } from '../../support/conformance/operation-store.js';
import { describeOperationAuditConformance } from '../../support/conformance/operation-audit.js';
import { RedisAuditLog } from '../../../src/store/audit-log.js';
import { redisForTest } from '../../support/redis.js';

describeOperationStoreConformance('Redis', async (now) => {
  const t = await redisForTest('ops-conf');
  const connections: Redis[] = [];
  const make = (opts: ConstructorParameters<typeof OperationStore>[1] | object = {}) =>
    new OperationStore(t.redis, { prefix: t.prefix, now, ...opts });
  return {
    store: make(),
    make,
    racers: (n) =>
      Array.from({ length: n }, () => {
        const connection = new Redis(t.url, { maxRetriesPerRequest: null });
        connections.push(connection);
        return new OperationStore(connection, { prefix: t.prefix, now });
      }),
    async cleanup() {
      for (const c of connections) c.disconnect();
      await t.cleanup();
    },
  };
});

describeOperationAuditConformance('Redis', async (now) => {
  const t = await redisForTest('ops-audit');
  const connections: Redis[] = [];
  return {
    stores: (n, audit) =>
      Array.from({ length: n }, () => {
        const connection = new Redis(t.url, { maxRetriesPerRequest: null });
        connections.push(connection);
        return new OperationStore(connection, { prefix: t.prefix, now, audit });
      }),
    log: new RedisAuditLog(t.redis, { prefix: t.prefix, now }),
    async cleanup() {
      for (const c of connections) c.disconnect();
      await t.cleanup();
    },
  };
});
