// Which cards a bot is posting right now (docs/lifecycle.md#delivery-and-pacing): the request path marks an operation's
// card while it waits for the channel's turn and posts, so the sweep does not take a slow card for a lost one and post
// it a second time.
import type { RedisConnection } from './connection.js';
import { notifierKeys, type NotifierKeys } from './keys.js';

/** The mark lives this long and is renewed every third of it while the post goes on (a dead bot's mark lapses). */
export const CARD_IN_FLIGHT_TTL_MS = 30_000;

export class CardsInFlight {
  private readonly keys: NotifierKeys;

  constructor(
    private readonly redis: RedisConnection,
    prefix: string,
    private readonly ttlMs = CARD_IN_FLIGHT_TTL_MS,
  ) {
    this.keys = notifierKeys(prefix);
  }

  /** Runs `post` with the operation's card marked in flight; the mark goes when it ends, however it ends. */
  async hold<T>(opId: string, post: () => Promise<T>): Promise<T> {
    const key = this.keys.cardInFlight(opId);
    const mark = () => this.redis.set(key, String(Date.now()), 'PX', this.ttlMs).catch(() => undefined);
    await mark();
    const timer = setInterval(() => void mark(), Math.max(1, Math.floor(this.ttlMs / 3)));
    try {
      return await post();
    } finally {
      clearInterval(timer);
      await this.redis.del(key).catch(() => undefined);
    }
  }

  async inFlight(opId: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.cardInFlight(opId))) === 1;
  }
}
