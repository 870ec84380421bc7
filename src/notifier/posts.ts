// Exactly-once posting: a post is marked pending (with its attempt time) before the call and done (with its ts)
// after; a post whose outcome is unknown is looked up in Slack by its metadata before anything is posted again.
import type { Logger } from '../log.js';
import type { SlackMessage } from '../slack/blocks/message.js';
import type { DeliveryMark, DeliveryState, MarkRead } from '../app/ports/index.js';
import { METADATA_EVENT_TYPE } from '../slack-client/client.js';
import { postScope, SlackUnavailable, type CallResult, type PostPlace, type SlackCalls } from './slack-calls.js';
import { sleep, WaitAborted, type PostPacer } from './pacer.js';

/** Slack refusals caused by our blocks: the post is tried once more as plain text rather than lost. */
const BLOCK_ERRORS = new Set(['invalid_blocks', 'invalid_blocks_format', 'msg_blocks_too_long', 'invalid_attachments']);
const FALLBACK_TEXT_CHARS = 3000;
const MAX_UNKNOWN_ATTEMPTS = 5;
/** PosterDeps.behindMs unless set. */
export const DEFAULT_BEHIND_MS = 5_000;

export type PostOutcome = 'done' | 'skipped' | 'failed' | 'busy';

export interface PostRequest {
  opId: string;
  /** The mark's field: `post:<seq>` or `digest:<phase>:<channel>`. */
  field: string;
  /** The mark as read with the rest of the operation's state. */
  read: MarkRead;
  channel: string;
  threadTs?: string;
  /** What identifies the message in Slack: metadata `{op, seq}`. */
  payload: { op: string; seq: number | string };
  /** Where to look for it when its outcome is unknown; `attemptAt` is when it was last tried. */
  place(attemptAt: number): PostPlace;
  /** The message as it should be posted now; undefined = nothing to post. */
  build(): Promise<SlackMessage | undefined>;
  /**
   * Asked in the channel's turn once the post has waited `behindMs` for it: why a later post already says all this
   * one would (docs/lifecycle.md#the-thread), so it is left out; undefined = post it.
   */
  carried?(): Promise<string | undefined>;
}

export interface PosterDeps {
  state: DeliveryState;
  slack: SlackCalls;
  /** Posts to one channel, installation-wide (shared through Redis across replicas). */
  pacer: PostPacer;
  consumer: string;
  now: () => number;
  /** After our own unknown outcome: how long Slack may still take to apply it before we look. */
  settleMs: number;
  /** Another consumer's pending mark: how long it may still be in flight (its timeout + settle). */
  staleMs: number;
  /** A post that waited this long for its channel's turn is behind: one a later post carries is left out. */
  behindMs?: number;
}

/**
 * Every message about an operation carries its id in its text (docs/lifecycle.md#the-card), whatever the renderer did.
 */
export function withOpId(message: SlackMessage, opId: string): SlackMessage {
  return message.text.includes(opId) ? message : { ...message, text: `${opId}: ${message.text}` };
}

/** Where a marked post goes, and the mark as last written (`raw`, for the next compare-and-set; `at`, its time). */
export interface MarkedPost {
  opId: string;
  field: string;
  channel: string;
  mark: { raw: string | undefined; at: number };
}

/**
 * One `chat.postMessage` in the channel's shared turn, marked pending (a compare-and-set on the mark) inside the turn
 * right before the call, so a stop while waiting leaves no pending mark. Undefined: another consumer's mark won.
 * 'carried': `carried` gave a reason in the turn; the mark says the post was left out, and no call was made.
 */
export async function pacedMarkedPost(
  deps: Pick<PosterDeps, 'state' | 'slack' | 'pacer' | 'consumer' | 'now'>,
  post: MarkedPost,
  args: Record<string, unknown>,
  signal: AbortSignal,
  carried?: () => Promise<string | undefined>,
): Promise<CallResult | 'carried' | undefined> {
  const { state, slack, pacer, consumer, now } = deps;
  await slack.gates.wait(postScope(post.channel), signal);
  return pacer.turn<CallResult | 'carried' | undefined>(
    post.channel,
    async () => {
      const why = await carried?.();
      if (why !== undefined) {
        const cas = await state.casMark(post.opId, post.field, post.mark.raw, { state: 'skipped', why });
        return { value: cas.ok ? 'carried' : undefined, called: false };
      }
      post.mark.at = now();
      const cas = await state.casMark(post.opId, post.field, post.mark.raw, {
        state: 'pending',
        at: post.mark.at,
        by: consumer,
      });
      if (!cas.ok) return { value: undefined, called: false };
      post.mark.raw = cas.raw;
      return { value: await slack.once('chat.postMessage', args, signal), called: true };
    },
    signal,
  );
}

export class Poster {
  constructor(private readonly deps: PosterDeps) {}

  async ensure(req: PostRequest, log: Logger, signal: AbortSignal): Promise<PostOutcome> {
    const { mark } = req.read;
    if (mark !== undefined && mark.state !== 'pending') return mark.state;
    if (mark?.state === 'pending') {
      const resolved = await this.resolvePending(req, mark, log, signal);
      if (resolved !== undefined) return resolved;
    }
    let message: SlackMessage | undefined;
    try {
      message = await req.build();
    } catch (error) {
      // A renderer fault must not hold every later reply back for ever: logged loudly, this one is given up.
      if (error instanceof WaitAborted) throw error;
      log.error({ err: error, field: req.field }, 'rendering the message failed; it will not be posted');
      await this.deps.state.setMark(req.opId, req.field, {
        state: 'failed',
        error: 'render_error',
        at: this.deps.now(),
      });
      return 'failed';
    }
    if (message === undefined) {
      const cas = await this.deps.state.casMark(req.opId, req.field, req.read.raw, {
        state: 'skipped',
        why: 'the renderer has no message for it',
      });
      return cas.ok ? 'skipped' : 'busy';
    }
    return this.post(req, withOpId(message, req.opId), log, signal);
  }

  /** 'done' when found in Slack, 'busy' while another consumer may still be posting it, undefined = post it. */
  private async resolvePending(
    req: PostRequest,
    mark: Extract<DeliveryMark, { state: 'pending' }>,
    log: Logger,
    signal: AbortSignal,
  ): Promise<PostOutcome | undefined> {
    const { consumer, now, settleMs, staleMs } = this.deps;
    const resolveAt = mark.at + (mark.by === consumer ? settleMs : staleMs);
    if (resolveAt > now()) {
      if (mark.by !== consumer) return 'busy';
      await sleep(resolveAt - now(), signal);
    }
    const ts = await this.deps.slack.findPosted(req.place(mark.at), req.payload, signal);
    if (ts === undefined) {
      log.info({ field: req.field, by: mark.by }, 'a post of unknown outcome is not in Slack; posting it');
      return undefined;
    }
    const cas = await this.deps.state.casMark(req.opId, req.field, req.read.raw, { state: 'done', ts });
    log.info(
      { field: req.field, ts, by: mark.by },
      'a post of unknown outcome was found in Slack; not posting it again',
    );
    return cas.ok ? 'done' : 'busy';
  }

  private async post(req: PostRequest, message: SlackMessage, log: Logger, signal: AbortSignal): Promise<PostOutcome> {
    const { state, slack, pacer, now } = this.deps;
    const post: MarkedPost = {
      opId: req.opId,
      field: req.field,
      channel: req.channel,
      mark: { raw: req.read.raw, at: now() },
    };
    let textOnly = false;
    const queued = now();
    const carried =
      req.carried &&
      (async () => (now() - queued >= (this.deps.behindMs ?? DEFAULT_BEHIND_MS) ? req.carried?.() : undefined));
    for (let unknown = 0; ;) {
      const result = await pacedMarkedPost(this.deps, post, postArgs(req, message, textOnly), signal, carried);
      const attemptAt = post.mark.at;
      if (result === undefined) return 'busy';
      if (result === 'carried') {
        log.info(
          { field: req.field, channel: req.channel },
          'behind the channel, and a later post says it all: left out',
        );
        return 'skipped';
      }
      if (result.ok) {
        const ts = String(result.data.ts);
        await state.setMark(req.opId, req.field, { state: 'done', ts });
        log.debug({ field: req.field, ts, channel: req.channel }, 'posted');
        return 'done';
      }
      if (result.kind === 'ratelimited') {
        await pacer.holdFor(req.channel, result.retryAfterSec * 1000);
        continue;
      }
      if (result.kind === 'refused') {
        if (BLOCK_ERRORS.has(result.error) && !textOnly) {
          log.warn({ field: req.field, error: result.error }, 'Slack refused the blocks; posting the text alone');
          textOnly = true;
          continue;
        }
        await state.setMark(req.opId, req.field, { state: 'failed', error: result.error, at: now() });
        log.error(
          { field: req.field, channel: req.channel, error: result.error },
          'Slack refused the post; it will not be retried',
        );
        return 'failed';
      }
      log.warn(
        { field: req.field, error: result.error },
        'the outcome of a post is unknown; looking for it before posting again',
      );
      await sleep(this.deps.settleMs, signal);
      // A failed read throws: posting again without knowing could post twice.
      const ts = await slack.findPosted(req.place(attemptAt), req.payload, signal);
      if (ts !== undefined) {
        await state.setMark(req.opId, req.field, { state: 'done', ts });
        log.info({ field: req.field, ts }, 'the post had been applied; not posting it again');
        return 'done';
      }
      if (++unknown >= MAX_UNKNOWN_ATTEMPTS) throw new SlackUnavailable('chat.postMessage', result.error);
    }
  }
}

function postArgs(req: PostRequest, message: SlackMessage, textOnly: boolean): Record<string, unknown> {
  return {
    channel: req.channel,
    ...(req.threadTs === undefined ? {} : { thread_ts: req.threadTs }),
    text: textOnly ? message.text.slice(0, FALLBACK_TEXT_CHARS) : message.text,
    ...(textOnly ? {} : { blocks: message.blocks }),
    metadata: { event_type: METADATA_EVENT_TYPE, event_payload: req.payload },
    unfurl_links: false,
    unfurl_media: false,
  };
}
