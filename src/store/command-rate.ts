// The per-user command count (docs/configuration.md#rate-limit): one counter per user and clock minute, shared by every
// bot replica, taken with one INCR and PEXPIRE in one round trip before the ack.
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
    // The key outlives its minute a little, so a slow clock between replicas still finds it; then it goes by itself.
    const results = await this.redis
      .multi()
      .incr(key)
      .pexpire(key, 2 * MINUTE_MS)
      .exec();
    const [error, count] = results?.[0] ?? [new Error('the command count was not answered'), undefined];
    if (error) throw error;
    return { count: Number(count), resetsAt: (minute + 1) * MINUTE_MS };
  }
}
