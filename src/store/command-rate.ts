// The per-user command count (docs/configuration.md#rate-limit): one counter per user and clock minute, shared by every
// bot replica, taken with one INCR right after the ack (the minute's first also sets the key's expiry).
import type { RedisConnection } from './connection.js';
import { storeKeys, type StoreKeys } from './keys.js';

const MINUTE_MS = 60_000;

/** How many commands the user sent in the minute `now` falls in, this one included, and when that minute ends. */
export interface CommandCount {
  count: number;
  resetsAt: number;
}

export class CommandRate {
  private readonly keys: StoreKeys;

  constructor(
    private readonly redis: RedisConnection,
    prefix: string,
  ) {
    this.keys = storeKeys(prefix);
  }

  /** Counts one command of `user` at `now` (ms). Rejects when Redis cannot be reached. */
  async take(user: string, now: number): Promise<CommandCount> {
    const minute = Math.floor(now / MINUTE_MS);
    const key = this.keys.commandRate(user, minute);
    const count = await this.redis.incr(key);
    // The first count of the minute sets the key's expiry, without waiting for it: it outlives its minute a little, so
    // a slow clock between replicas still finds it, then it goes by itself.
    if (count === 1) void this.redis.pexpire(key, 2 * MINUTE_MS).catch(() => undefined);
    return { count: Number(count), resetsAt: (minute + 1) * MINUTE_MS };
  }
}
