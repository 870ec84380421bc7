// The alert store conformance suite against Redis: each test its own key prefix, racers on their own connections,
// the stream read back as the notifier reads it.
import { Redis } from 'ioredis';
import { RedisAlertStore } from '../../../src/store/alerts.js';
import { storeKeys } from '../../../src/store/keys.js';
import { describeAlertStoreConformance } from '../../support/conformance/alerts.js';
import { redisForTest } from '../../support/redis.js';

const RETENTION_MS = 3_600_000;

describeAlertStoreConformance('Redis', async () => {
  const t = await redisForTest('alerts-conf');
  const connections: Redis[] = [];
  return {
    alerts: new RedisAlertStore(t.redis, t.prefix, { retentionMs: RETENTION_MS }),
    racers: (n) =>
      Array.from({ length: n }, () => {
        const connection = new Redis(t.url, { maxRetriesPerRequest: null });
        connections.push(connection);
        return new RedisAlertStore(connection, t.prefix, { retentionMs: RETENTION_MS });
      }),
    async events() {
      const entries = await t.redis.xrange(storeKeys(t.prefix).alertEvents, '-', '+');
      return entries.map(([, fields]) => {
        const f = Object.fromEntries(fields.flatMap((_, i) => (i % 2 === 0 ? [[fields[i], fields[i + 1]]] : [])));
        return { incident: f.incident, version: Number(f.version), cluster: f.cluster, target: f.target };
      });
    },
    retentionMs: RETENTION_MS,
    async cleanup() {
      for (const c of connections) c.disconnect();
      await t.cleanup();
    },
  };
});
