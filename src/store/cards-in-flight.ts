// The card claim (docs/lifecycle.md#the-sweep): whoever posts an operation's card, the request path or the sweep, holds
// the operation's claim in Redis first (SET NX with a TTL and a token of its own), keeps it while it waits for the
// channel's turn or a Retry-After, and confirms it just before the post; so at most one poster is ever between its
// claim and its post, and the sweep never posts a card a live bot is still about to post.
import { randomUUID } from 'node:crypto';
import type { RedisConnection } from './connection.js';
import { notifierKeys, type NotifierKeys } from './keys.js';
import { runScript } from './scripts.js';

/** The claim lives this long and is renewed every third of it while its holder works (a dead holder's lapses). */
export const CARD_IN_FLIGHT_TTL_MS = 30_000;

/** The claim as its holder sees it while it works. */
export interface CardClaim {
  /**
   * Renews the claim and tells whether it is still this holder's: false once it lapsed (its holder stalled past the
   * TTL, or Redis could not be reached) and so may be another's. Called right before the post.
   */
  confirm(): Promise<boolean>;
}

/** What `hold` gives back: `held: false` when another poster holds the claim (nothing was run). */
export type Held<T> = { held: true; value: T } | { held: false };

export class CardsInFlight {
  private readonly keys: NotifierKeys;

  constructor(
    private readonly redis: RedisConnection,
    prefix: string,
    private readonly ttlMs = CARD_IN_FLIGHT_TTL_MS,
  ) {
    this.keys = notifierKeys(prefix);
  }

  /**
   * Takes the operation's claim and runs `post` holding it, renewed until `post` ends, then gives it up; when another
   * holds it, runs nothing. Rejects when the claim cannot be taken (Redis unreachable): then nobody may post.
   */
  async hold<T>(opId: string, post: (claim: CardClaim) => Promise<T>): Promise<Held<T>> {
    const key = this.keys.cardInFlight(opId);
    const token = randomUUID();
    if ((await this.redis.set(key, token, 'PX', this.ttlMs, 'NX')) !== 'OK') return { held: false };
    let lost = false;
    const renew = async (): Promise<boolean> => {
      if (lost) return false;
      const renewed =
        Number(await runScript(this.redis, 'extendDeliveryLock', [key], [token, String(this.ttlMs)])) === 1;
      lost = !renewed;
      return renewed;
    };
    // A renewal that fails to reach Redis is not a loss yet: `confirm` before the post decides.
    const timer = setInterval(() => void renew().catch(() => undefined), Math.max(1, Math.floor(this.ttlMs / 3)));
    const claim: CardClaim = { confirm: () => renew().catch(() => false) };
    try {
      return { held: true, value: await post(claim) };
    } finally {
      clearInterval(timer);
      await runScript(this.redis, 'releaseDeliveryLock', [key], [token]).catch(() => undefined);
    }
  }

  /** Whether some poster holds the operation's claim right now. */
  async inFlight(opId: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.cardInFlight(opId))) === 1;
  }
}
