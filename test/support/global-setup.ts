// Vitest global setup: makes sure a Redis answers for the whole run and tells every test file where it is.
import { randomBytes } from 'node:crypto';
import type { TestProject } from 'vitest/node';
import { redisAnswers, startPrivateRedis, type PrivateRedis } from './redis-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
  }
}

let privateRedis: PrivateRedis | undefined;

export async function setup(project: TestProject): Promise<void> {
  let url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  if (!(await redisAnswers(url))) {
    try {
      privateRedis = await startPrivateRedis();
    } catch (error) {
      throw new Error(
        `No Redis answers at ${url} and redis-server could not be started (${(error as Error).message}). ` +
          'Install it (apt-get install -y redis-server) or set REDIS_URL.',
        { cause: error },
      );
    }
    url = privateRedis.url;
  }
  process.env.REDIS_URL = url;
  // One record signing key for the run: the test files' own stores and the `serve` processes they spawn agree on it
  // (record-key-setup.ts; docs/deployment.md#record-signing).
  process.env.RECORD_SIGNING_KEY ??= randomBytes(32).toString('hex');
  project.provide('redisUrl', url);
}

export async function teardown(): Promise<void> {
  await privateRedis?.stop();
}
