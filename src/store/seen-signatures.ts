// The signatures of the HTTP requests already admitted (docs/deployment.md#request-limits), shared by every replica
// behind the load balancer: the first SET NX of a signature wins, a replay of it finds the key until it expires.
import type { Redis } from 'ioredis';
import { notifierKeys, type NotifierKeys } from './keys.js';

export interface SeenRequests {
  /** true the first time `key` is offered, false for every later offer until `ttlSeconds` have passed. */
  first(key: string, ttlSeconds: number): Promise<boolean>;
}

export class SeenSignatures implements SeenRequests {
  private readonly keys: NotifierKeys;

  constructor(
    private readonly redis: Pick<Redis, 'set'>,
    prefix: string,
  ) {
    this.keys = notifierKeys(prefix);
  }

  async first(key: string, ttlSeconds: number): Promise<boolean> {
    return (await this.redis.set(this.keys.seenSignature(key), '1', 'EX', ttlSeconds, 'NX')) === 'OK';
  }
}
