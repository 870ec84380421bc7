// One Redis connection and one key prefix per test; the keys are removed afterwards.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { inject } from 'vitest';

export function testRedisUrl(): string {
  return inject('redisUrl');
}

export interface TestRedis {
  redis: Redis;
  url: string;
  /** A prefix unique to this test; keys are `{prefix}:…`. */
  prefix: string;
  /** Deletes every key of this prefix and closes the connection. */
  cleanup(): Promise<void>;
}

export function uniquePrefix(label = 't'): string {
  return `${label}-${randomBytes(5).toString('hex')}`;
}

export async function redisForTest(label?: string): Promise<TestRedis> {
  const url = testRedisUrl();
  const redis = new Redis(url, { maxRetriesPerRequest: null });
  const prefix = uniquePrefix(label);
  return {
    redis,
    url,
    prefix,
    async cleanup() {
      await deleteKeys(redis, prefix);
      redis.disconnect();
    },
  };
}

export async function deleteKeys(redis: Redis, prefix: string): Promise<number> {
  let cursor = '0';
  let deleted = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `*{${prefix}}*`, 'COUNT', 500);
    cursor = next;
    if (keys.length > 0) deleted += await redis.del(...keys);
  } while (cursor !== '0');
  return deleted;
}
