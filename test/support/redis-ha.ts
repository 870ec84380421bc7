// Highly available Redis for tests (docs/configuration.md#redis-modes): a primary + replica watched by 3 sentinels
// (redis-ha-sentinel.ts), or a 3-primary Cluster with one replica each (redis-ha-cluster.ts), all real `redis-server`
// processes on free loopback ports. Nothing is kept on disk but the sentinel and cluster config files, in a temp dir
// removed at stop. The primary is killed with SIGKILL and the promotion of its replica awaited the way clients see it
// (Sentinel's master address, the Cluster's slot owner).
import type { Redis } from 'ioredis';
import { startClusterRedis } from './redis-ha-cluster.js';
import { startSentinelRedis } from './redis-ha-sentinel.js';
import type { HaRedis } from './redis-process.js';

export type { HaRedis, Promotion, RedisProcess } from './redis-process.js';

export function startHaRedis(kind: 'sentinel' | 'cluster'): Promise<HaRedis> {
  return kind === 'sentinel' ? startSentinelRedis() : startClusterRedis();
}

/**
 * Every live lease of `prefix` (`{prefix}:lease:*`, found through the `{prefix}:leases` set, so it works on a
 * Cluster too) with its remaining time to live in ms (-1: no expiry, which would be a stuck lease).
 */
export async function leasesWithTtl(
  redis: Redis,
  prefix: string,
): Promise<{ key: string; pttl: number; value: string }[]> {
  const keys = await redis.smembers(`{${prefix}}:leases`);
  const out: { key: string; pttl: number; value: string }[] = [];
  for (const key of keys) {
    const [pttl, value] = await Promise.all([redis.pttl(key), redis.get(key)]);
    if (pttl === -2 || value === null) continue;
    out.push({ key, pttl, value });
  }
  return out;
}
