// Posts an operation's card. A 429 is waited out and a post whose outcome is unknown (timeout, reset, 5xx) is
// looked up in the channel by its metadata before posting again: the card is posted once, and an operation is
// cancelled only when Slack really refuses it (not_in_channel, channel_not_found: docs/lifecycle.md#the-card). Every
// post is made holding the operation's card claim, which the sweep's recovery takes too (docs/lifecycle.md#the-sweep).
import type { webApi } from '@slack/bolt';
import type { CardPoster, PostOutcome } from '../app/ports/index.js';
import type { OperationRecord } from '../domain/engines/operation.js';
import { renderCard } from './blocks/index.js';
import { METADATA_EVENT_TYPE, slackErrorCode, type WebClient } from '../slack-client/client.js';
import type { CardClaim, CardsInFlight } from '../store/cards-in-flight.js';
import type { PostPacer } from '../store/pacing.js';

export interface CardPosterOptions {
  /** Attempts in all (default 5). */
  maxAttempts?: number;
  /**
   * The longest total time spent waiting out 429s (default 2 min: Slack's per-minute windows answer up to a minute's
   * Retry-After, and the card claim is kept meanwhile, so a slow card is never taken for a lost one).
   */
  maxWaitMs?: number;
  sleep?: (ms: number) => Promise<void>;
  /**
   * The channels' installation-wide post pace (docs/lifecycle.md#delivery-and-pacing), shared with the notifier: the
   * card is a post to the channel like the thread replies, so it takes the channel's turn too. Without it cards are not
   * paced.
   */
  pacer?: PostPacer;
  /** The card claims (docs/lifecycle.md#the-sweep): without them nothing stops another process posting the card too. */
  inFlight?: Pick<CardsInFlight, 'hold'>;
}

/** Where a card looked up in the channel stands. */
export type FoundCard = { type: 'found'; ts: string } | { type: 'absent' } | { type: 'unknown' };

/** Pages of `conversations.history` read looking for a card; a channel busier than that is "unknown". */
const LOOKUP_PAGES = 5;
/** Thrown inside the post when the claim is no longer ours: the card is someone else's to post now. */
class ClaimLost extends Error {}

const UNKNOWN_OUTCOME = /^(request_timeout|request_failed|http_error_5\d\d)$/;

export class SlackCardPoster implements CardPoster {
  private readonly maxAttempts: number;
  private readonly maxWaitMs: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly pacer: PostPacer | undefined;
  private readonly inFlight: Pick<CardsInFlight, 'hold'> | undefined;

  constructor(
    private readonly client: WebClient,
    private readonly command: string,
    private readonly now: () => number,
    opts: CardPosterOptions = {},
  ) {
    this.maxAttempts = opts.maxAttempts ?? 5;
    this.maxWaitMs = opts.maxWaitMs ?? 120_000;
    this.sleep = opts.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.pacer = opts.pacer;
    this.inFlight = opts.inFlight;
  }

  /**
   * The card carries `{op, seq}` metadata like every post about an operation (docs/lifecycle.md#delivery-and-pacing).
   * It is posted holding the operation's card claim; with the claim another's, nothing is posted (`leave`).
   */
  async postCard(record: OperationRecord, opts: { resuming?: boolean } = {}): Promise<PostOutcome> {
    const work = (claim?: CardClaim) => (opts.resuming ? this.resume(record, claim) : this.post(record, claim));
    if (this.inFlight === undefined) return work();
    let held;
    try {
      held = await this.inFlight.hold(record.id, work);
    } catch {
      // Without the claim a post could be a second card: the record stays ACCEPTED and the sweep finishes it.
      return { ok: false, error: 'card_claim_unavailable', leave: true };
    }
    return held.held ? held.value : { ok: false, error: 'card_in_flight', leave: true };
  }

  /**
   * Our card in the channel, by its metadata, posted since shortly before `since` (ms on the real clock); `unknown`
   * when the channel could not be read (or holds more since then than is read). A 429 is waited out within the 429
   * budget: under Slack's 2025 limits for apps outside the Marketplace a channel is read a page a minute.
   */
  async findPosted(record: OperationRecord, since: number): Promise<FoundCard> {
    let cursor: string | undefined;
    let waited = 0;
    for (let page = 0; page < LOOKUP_PAGES;) {
      let history: webApi.ConversationsHistoryResponse;
      try {
        history = await this.client.conversations.history({
          channel: record.channel,
          oldest: (Math.max(0, since - 60_000) / 1000).toFixed(6),
          include_all_metadata: true,
          limit: 200,
          ...(cursor === undefined ? {} : { cursor }),
        });
      } catch (error) {
        const ms = retryAfterMs(error);
        if (ms === undefined || waited + ms > this.maxWaitMs) return { type: 'unknown' };
        await this.sleep(ms);
        waited += ms;
        continue;
      }
      page += 1;
      const card = history.messages?.find((m) => {
        const metadata = (m as { metadata?: { event_type?: string; event_payload?: { op?: unknown } } }).metadata;
        return metadata?.event_type === METADATA_EVENT_TYPE && metadata.event_payload?.op === record.id;
      });
      if (card?.ts) return { type: 'found', ts: card.ts };
      cursor = history.response_metadata?.next_cursor;
      if (!history.has_more || !cursor) return { type: 'absent' };
    }
    return { type: 'unknown' };
  }

  /** The sweep's: a card its bot posted before it stopped is the outcome; else it is posted now. */
  private async resume(record: OperationRecord, claim: CardClaim | undefined): Promise<PostOutcome> {
    // The record's age on its own clock, from now on the real one (Slack's ts are real time).
    const since = Date.now() - Math.max(0, this.now() - record.createdAt);
    const found = await this.findPosted(record, since);
    if (found.type === 'found') return { ok: true, ts: found.ts };
    if (found.type === 'unknown') return { ok: false, error: 'card_lookup_failed', leave: true };
    return this.post(record, claim);
  }

  private async post(record: OperationRecord, claim: CardClaim | undefined): Promise<PostOutcome> {
    const message = renderCard(record, { now: this.now(), command: this.command });
    let waited = 0;
    for (let attempt = 1; ; attempt++) {
      const startedAt = Date.now();
      try {
        const post = async () => {
          // After the channel's turn and any Retry-After, the claim must still be ours (docs/lifecycle.md#the-sweep).
          if (claim && !(await claim.confirm())) throw new ClaimLost();
          return this.client.chat.postMessage({
            channel: record.channel,
            text: message.text,
            blocks: message.blocks as unknown as webApi.KnownBlock[],
            metadata: { event_type: METADATA_EVENT_TYPE, event_payload: { op: record.id, seq: record.history.length } },
            unfurl_links: false,
            unfurl_media: false,
          });
        };
        const result = await this.paced(record.channel, post);
        return result.ts ? { ok: true, ts: result.ts } : { ok: false, error: result.error ?? 'no_ts' };
      } catch (error) {
        if (error instanceof ClaimLost) return { ok: false, error: 'card_claim_lost', leave: true };
        const code = slackErrorCode(error);
        if (attempt >= this.maxAttempts) return { ok: false, error: code };
        const ms = retryAfterMs(error);
        if (ms !== undefined) {
          // Every replica's next post to the channel waits it out too.
          await this.pacer?.holdFor(record.channel, ms).catch(() => undefined);
          if (waited + ms > this.maxWaitMs) return { ok: false, error: code };
          await this.sleep(ms);
          waited += ms;
          continue;
        }
        if (!UNKNOWN_OUTCOME.test(code)) return { ok: false, error: code };
        const found = await this.findPosted(record, startedAt);
        if (found.type === 'found') return { ok: true, ts: found.ts };
        // Without a successful look-up a second post could duplicate the card: give up instead.
        if (found.type === 'unknown') return { ok: false, error: code };
      }
    }
  }

  /** The post in the channel's turn; if the pace itself fails (Redis), the card goes unpaced rather than not at all. */
  private async paced<T>(channel: string, post: () => Promise<T>): Promise<T> {
    if (this.pacer === undefined) return post();
    let called = false;
    try {
      return await this.pacer.run(channel, () => {
        called = true;
        return post();
      });
    } catch (error) {
      if (called) throw error;
      return post();
    }
  }
}

/** A 429's Retry-After in ms (at least a second), or undefined for any other failure. */
function retryAfterMs(error: unknown): number | undefined {
  if (slackErrorCode(error) !== 'ratelimited') return undefined;
  return Math.max(1, (error as { retryAfter?: number }).retryAfter ?? 1) * 1000;
}
