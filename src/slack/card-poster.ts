// Posts an operation's card. A 429 is waited out and a post whose outcome is unknown (timeout, reset, 5xx) is
// looked up in the channel by its metadata before posting again: the card is posted once, and an operation is
// cancelled only when Slack really refuses it (not_in_channel, channel_not_found: docs/lifecycle.md#the-card).
import type { webApi } from '@slack/bolt';
import type { CardPoster, PostOutcome } from '../app/ports/index.js';
import type { OperationRecord } from '../domain/engines/operation.js';
import { renderCard } from './blocks/index.js';
import { METADATA_EVENT_TYPE, slackErrorCode, type WebClient } from '../slack-client/client.js';
import type { CardsInFlight } from '../store/cards-in-flight.js';
import type { PostPacer } from '../store/pacing.js';

export interface CardPosterOptions {
  /** Attempts in all (default 5). */
  maxAttempts?: number;
  /** The longest total time spent waiting out 429s (default 30 s). */
  maxWaitMs?: number;
  sleep?: (ms: number) => Promise<void>;
  /**
   * The channels' installation-wide post pace (docs/lifecycle.md#delivery-and-pacing), shared with the notifier: the
   * card is a post to the channel like the thread replies, so it takes the channel's turn too. Without it cards are not
   * paced.
   */
  pacer?: PostPacer;
  /** Marks the card as being posted while this poster works on it, so the sweep does not post it again. */
  inFlight?: Pick<CardsInFlight, 'hold'>;
}

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
    this.maxWaitMs = opts.maxWaitMs ?? 30_000;
    this.sleep = opts.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.pacer = opts.pacer;
    this.inFlight = opts.inFlight;
  }

  /**
   * The card carries `{op, seq}` metadata like every post about an operation (docs/lifecycle.md#delivery-and-pacing).
   */
  async postCard(record: OperationRecord): Promise<PostOutcome> {
    return this.inFlight ? this.inFlight.hold(record.id, () => this.post(record)) : this.post(record);
  }

  private async post(record: OperationRecord): Promise<PostOutcome> {
    const message = renderCard(record, { now: this.now(), command: this.command });
    let waited = 0;
    for (let attempt = 1; ; attempt++) {
      const startedAt = Date.now();
      try {
        const post = () =>
          this.client.chat.postMessage({
            channel: record.channel,
            text: message.text,
            blocks: message.blocks as unknown as webApi.KnownBlock[],
            metadata: { event_type: METADATA_EVENT_TYPE, event_payload: { op: record.id, seq: record.history.length } },
            unfurl_links: false,
            unfurl_media: false,
          });
        const result = await this.paced(record.channel, post);
        return result.ts ? { ok: true, ts: result.ts } : { ok: false, error: result.error ?? 'no_ts' };
      } catch (error) {
        const code = slackErrorCode(error);
        if (attempt >= this.maxAttempts) return { ok: false, error: code };
        if (code === 'ratelimited') {
          const ms = Math.max(1, (error as { retryAfter?: number }).retryAfter ?? 1) * 1000;
          // Every replica's next post to the channel waits it out too.
          await this.pacer?.holdFor(record.channel, ms).catch(() => undefined);
          if (waited + ms > this.maxWaitMs) return { ok: false, error: code };
          await this.sleep(ms);
          waited += ms;
          continue;
        }
        if (!UNKNOWN_OUTCOME.test(code)) return { ok: false, error: code };
        const found = await this.findCard(record, startedAt);
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

  /** Our card in the channel, by its metadata, posted since shortly before the attempt. */
  private async findCard(
    record: OperationRecord,
    since: number,
  ): Promise<{ type: 'found'; ts: string } | { type: 'absent' } | { type: 'unknown' }> {
    try {
      const history = await this.client.conversations.history({
        channel: record.channel,
        oldest: (Math.max(0, since - 60_000) / 1000).toFixed(6),
        include_all_metadata: true,
        limit: 200,
      });
      const card = history.messages?.find((m) => {
        const metadata = (m as { metadata?: { event_type?: string; event_payload?: { op?: unknown } } }).metadata;
        return metadata?.event_type === METADATA_EVENT_TYPE && metadata.event_payload?.op === record.id;
      });
      return card?.ts ? { type: 'found', ts: card.ts } : { type: 'absent' };
    } catch {
      return { type: 'unknown' };
    }
  }
}
