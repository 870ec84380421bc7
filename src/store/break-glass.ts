// The index of break-glass operations not yet reviewed (docs/policy.md#break-glass): what the sweep reminds, `/metrics`
// counts and App Home lists, without scanning every record. The record stays the truth; the index is only a worklist.
import type { BreakGlassIndex as BreakGlassIndexPort, IndexedOperation } from '../app/ports/break-glass.js';
import type { RedisConnection } from './connection.js';
import { storeKeys } from './keys.js';

export type { IndexedOperation };

export class BreakGlassIndex implements BreakGlassIndexPort {
  private readonly key: string;

  constructor(
    private readonly redis: RedisConnection,
    prefix: string,
  ) {
    this.key = storeKeys(prefix).breakGlassUnreviewed;
  }

  /**
   * Indexed before its record is created, so no break-glass record exists unindexed; an id whose record never
   * came (the request failed) is dropped by the sweep.
   */
  async add(id: string, at: number): Promise<void> {
    await this.redis.zadd(this.key, String(at), id);
  }

  /** Reviewed (or never needing a review): out of the worklist. */
  async remove(id: string): Promise<void> {
    await this.redis.zrem(this.key, id);
  }

  /** Oldest first. */
  async list(): Promise<IndexedOperation[]> {
    const flat = await this.redis.zrange(this.key, 0, -1, 'WITHSCORES');
    const out: IndexedOperation[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) out.push({ id: flat[i] as string, at: Number(flat[i + 1]) });
    return out;
  }
}
