// One operation's Slack effects, brought up to date with its record: the card edit (coalesced, never regressed),
// the thread replies in seq order, and the incident digests at start and end; under a per-operation lock.
import { randomUUID } from 'node:crypto';
import type { HistoryEntry, OperationRecord } from '../domain/engines/operation.js';
import { isTerminal } from '../domain/model/lifecycle.js';
import { forOperation, type Logger } from '../log.js';
import type { DeliverySnapshot, OperationStore } from '../app/ports/index.js';
import type { RenderContext, SlackMessage } from '../slack/blocks/message.js';
import { digestField, postField } from '../store/delivery.js';
import { SlackUnavailable } from './slack-calls.js';
import { Poster, withOpId, type PostOutcome, type PosterDeps } from './posts.js';
import { sleep, type PostPacer } from './pacer.js';
import type { CallResult } from './slack-calls.js';
import type { ApproverDms } from './approver-dms.js';
import { syncAmendments } from './amendments.js';

/** The renderers the notifier calls (src/slack/blocks); a parameter so the notifier is not tied to one module. */
export interface NotifierRenderers {
  renderCard(record: OperationRecord, ctx: RenderContext): SlackMessage;
  renderThreadReply(record: OperationRecord, entry: HistoryEntry, ctx: RenderContext): SlackMessage | undefined;
  threadReplyWanted(entry: HistoryEntry): boolean;
  /** The later entry whose reply says all `entry`'s would (docs/lifecycle.md#the-thread); else undefined. */
  carriedBy(record: OperationRecord, entry: HistoryEntry): HistoryEntry | undefined;
  /** The earlier entry whose reply `entry` amends (edited in place, docs/lifecycle.md#the-thread); else undefined. */
  amendedEntry(record: OperationRecord, entry: HistoryEntry): HistoryEntry | undefined;
  renderIncidentDigest(
    record: OperationRecord,
    phase: 'start' | 'end',
    ctx: RenderContext & { threadPermalink?: string },
  ): SlackMessage;
}

export type SyncOutcome = { kind: 'done'; note?: string } | { kind: 'defer'; reason: string; delayMs: number };

export interface DeliveryDeps extends PosterDeps {
  store: Pick<OperationStore, 'get'>;
  render: NotifierRenderers;
  command: string;
  /** The clock messages show (RenderContext.now); `now` (real time) times marks and waits. */
  renderNow: () => number;
  logger: Logger;
  /** How soon to look again at an operation whose card is not posted yet, or that another replica holds. */
  holdMs: number;
  lockTtlMs: number;
  /** Edits of one card, installation-wide: one at a time, a coalescing window apart (keyed by operation id). */
  cardEdits: PostPacer;
  /** Approver DMs (approver-dms.ts); absent: none. */
  dms?: Pick<ApproverDms, 'sync'>;
}

type CardTurn =
  | { kind: 'stop' }
  | {
      kind: 'sent';
      record: OperationRecord & { card: NonNullable<OperationRecord['card']> };
      seq: number;
      result: CallResult;
    };

/** Card edits Slack refuses for our blocks are retried as text alone; other refusals are logged and given up. */
const CARD_BLOCK_ERRORS = new Set(['invalid_blocks', 'invalid_blocks_format', 'msg_blocks_too_long']);
const MAX_ROUNDS = 5;
const MAX_CARD_UNKNOWN = 5;
/** A lost digest is looked for in channel history from this long before its attempt (clock skew with Slack). */
const HISTORY_LOOKBACK_MS = 10 * 60_000;

export class OperationDelivery {
  private readonly poster: Poster;

  /** This instance's lock token: the same on every attempt, so a lock it took but never heard back about is still its own. */
  private readonly token = randomUUID();

  constructor(private readonly deps: DeliveryDeps) {
    this.poster = new Poster(deps);
  }

  private ctx(): RenderContext {
    return { now: this.deps.renderNow(), command: this.deps.command };
  }

  /** Brings the operation's card, thread and digests up to date with its record, or says when to try again. */
  async sync(opId: string, signal: AbortSignal): Promise<SyncOutcome> {
    const { store, state, consumer, lockTtlMs, holdMs } = this.deps;
    const record = await store.get(opId);
    if (record === undefined) return { kind: 'done', note: 'the record is gone' };
    if (record.card === undefined) {
      if (isTerminal(record.state)) return { kind: 'done', note: `${record.state} without a card: nothing to show` };
      return { kind: 'defer', reason: 'the card is not posted yet', delayMs: holdMs };
    }
    const token = `${consumer}:${this.token}`;
    if (!(await state.tryLock(opId, token, lockTtlMs)))
      return { kind: 'defer', reason: 'another notifier is delivering it', delayMs: holdMs };
    const lost = new AbortController();
    const renew = setInterval(() => {
      state.extendLock(opId, token, lockTtlMs).then(
        (held) => held || lost.abort(),
        () => lost.abort(),
      );
    }, lockTtlMs / 3);
    try {
      return await this.deliver(opId, AbortSignal.any([signal, lost.signal]));
    } finally {
      clearInterval(renew);
      await state.releaseLock(opId, token);
    }
  }

  private async deliver(opId: string, signal: AbortSignal): Promise<SyncOutcome> {
    const log = forOperation(this.deps.logger, opId);
    for (let round = 1; round <= MAX_ROUNDS; round++) {
      const record = await this.deps.store.get(opId);
      if (record?.card === undefined) return { kind: 'done', note: 'the record is gone' };
      // Side by side: a 429 storm on the card must not hold the thread back, nor thread pacing the card.
      const [card, posts, dms] = await Promise.allSettled([
        this.editCard(opId, log, signal),
        this.posts(record, log, signal),
        this.deps.dms?.sync(record, log, signal) ?? 'done',
      ]);
      if (card.status === 'rejected') throw card.reason;
      if (posts.status === 'rejected') throw posts.reason;
      if (dms.status === 'rejected') throw dms.reason;
      if (posts.value === 'busy' || dms.value === 'busy') return this.busy();
      const latest = await this.deps.store.get(opId);
      const rendered = await this.deps.state.renderedSeq(opId);
      if (latest === undefined || (latest.version === record.version && rendered >= latest.history.length))
        return { kind: 'done' };
    }
    // Still moving: its newer entries wake us again.
    return { kind: 'done', note: 'the record kept changing; newer entries follow' };
  }

  /** The start digests, the thread replies, then (once terminal) the end digests; stops at the first busy one. */
  private async posts(record: OperationRecord, log: Logger, signal: AbortSignal): Promise<PostOutcome> {
    const snapshot = await this.deps.state.read(record.id);
    if ((await this.digests(record, 'start', snapshot, log, signal)) === 'busy') return 'busy';
    if ((await this.replies(record, snapshot, log, signal)) === 'busy') return 'busy';
    await syncAmendments({ ...this.deps, ...this.deps.render }, record, this.ctx(), log, signal);
    if (isTerminal(record.state)) return this.digests(record, 'end', snapshot, log, signal);
    return 'done';
  }

  private busy(): SyncOutcome {
    return {
      kind: 'defer',
      reason: 'a post of unknown outcome may still be in flight elsewhere',
      delayMs: this.deps.holdMs,
    };
  }

  /**
   * Edits the card to the record as it is at send time, unless a seq at least as new was already rendered. Edits of
   * one card are coalesced installation-wide: each takes the card's shared turn, at most one per window (counted
   * from the end of the previous edit, whichever replica made it), and reads the record only once it has the turn,
   * so an edit that waited out the window renders every entry of the burst. On a 429 it waits Retry-After and
   * renders again, so the last edit always shows the latest state.
   */
  private async editCard(opId: string, log: Logger, signal: AbortSignal): Promise<void> {
    const { store, state, slack, cardEdits } = this.deps;
    let force = false;
    let textOnly = false;
    for (let unknown = 0; ;) {
      await slack.gates.wait('chat.update', signal);
      // Nothing to do costs no turn (and no window).
      const current = await store.get(opId);
      if (current?.card === undefined) return;
      if (!force && (await state.renderedSeq(opId)) >= current.history.length) return;
      const turn = await cardEdits.turn<CardTurn>(
        opId,
        async () => {
          // Read after any wait, so what is sent is the record as it is at send time.
          await slack.gates.wait('chat.update', signal);
          const record = await store.get(opId);
          if (record?.card === undefined) return { value: { kind: 'stop' }, called: false };
          const seq = record.history.length;
          if (!force && (await state.renderedSeq(opId)) >= seq) return { value: { kind: 'stop' }, called: false };
          const message = this.renderCard(record, log);
          if (message === undefined) {
            await state.raiseRendered(opId, seq);
            return { value: { kind: 'stop' }, called: false };
          }
          const args = {
            channel: record.card.channel,
            ts: record.card.ts,
            text: message.text,
            ...(textOnly ? {} : { blocks: message.blocks }),
          };
          const result = await slack.once('chat.update', args, signal);
          return { value: { kind: 'sent', record: { ...record, card: record.card }, seq, result }, called: true };
        },
        signal,
      );
      if (turn.kind === 'stop') return;
      const { record, seq, result } = turn;
      if (result.ok) {
        const before = await state.raiseRendered(opId, seq);
        // Someone rendered a later seq before our edit landed: ours may have put the card back; render again.
        force = before > seq;
        if (!force) return;
        log.info({ seq, newer: before }, 'a newer card edit raced ours; editing again');
        continue;
      }
      if (result.kind === 'ratelimited') continue;
      if (result.kind === 'refused') {
        if (CARD_BLOCK_ERRORS.has(result.error) && !textOnly) {
          textOnly = true;
          continue;
        }
        log.error({ error: result.error, card: record.card }, 'Slack refused the card edit; giving up on this version');
        await state.raiseRendered(opId, seq);
        return;
      }
      if (++unknown >= MAX_CARD_UNKNOWN) throw new SlackUnavailable('chat.update', result.error);
      await sleep(Math.min(250 * 2 ** unknown, 5000), signal);
    }
  }

  private renderCard(record: OperationRecord, log: Logger): SlackMessage | undefined {
    try {
      return withOpId(this.deps.render.renderCard(record, this.ctx()), record.id);
    } catch (error) {
      log.error({ err: error, seq: record.history.length }, 'rendering the card failed; this version is not shown');
      return undefined;
    }
  }

  /** One reply per wanted entry, in seq order: a later one is never posted before an earlier one is settled. */
  private async replies(
    record: OperationRecord,
    snapshot: DeliverySnapshot,
    log: Logger,
    signal: AbortSignal,
  ): Promise<PostOutcome> {
    const card = record.card;
    if (card === undefined) return 'done';
    for (const entry of record.history) {
      if (!this.deps.render.threadReplyWanted(entry)) continue;
      const field = postField(entry.seq);
      const outcome = await this.poster.ensure(
        {
          opId: record.id,
          field,
          read: snapshot.marks.get(field) ?? { raw: undefined, mark: undefined },
          channel: card.channel,
          threadTs: card.ts,
          payload: { op: record.id, seq: entry.seq },
          place: () => ({ thread: card }),
          build: async () => this.deps.render.renderThreadReply(record, entry, this.ctx()),
          // Behind the channel's pace, a reply whose news a later one carries (SUBMITTED, once the outcome is in) is
          // left out: the record is read again in the turn, since the outcome may have come while this one waited.
          carried: async () => {
            const latest = await this.deps.store.get(record.id);
            const by = latest && this.deps.render.carriedBy(latest, entry);
            return by ? `behind the channel: the reply to entry ${by.seq} says it all` : undefined;
          },
        },
        log,
        signal,
      );
      if (outcome === 'busy') return 'busy';
    }
    return 'done';
  }

  private async digests(
    record: OperationRecord,
    phase: 'start' | 'end',
    snapshot: DeliverySnapshot,
    log: Logger,
    signal: AbortSignal,
  ): Promise<PostOutcome> {
    for (const channel of new Set(record.incidentChannels)) {
      const field = digestField(phase, channel);
      const outcome = await this.poster.ensure(
        {
          opId: record.id,
          field,
          read: snapshot.marks.get(field) ?? { raw: undefined, mark: undefined },
          channel,
          payload: { op: record.id, seq: `digest-${phase}` },
          place: (attemptAt) => ({ channel, oldestMs: attemptAt - HISTORY_LOOKBACK_MS }),
          build: async () => {
            const threadPermalink = await this.permalink(record, snapshot, log, signal);
            return this.deps.render.renderIncidentDigest(record, phase, {
              ...this.ctx(),
              ...(threadPermalink ? { threadPermalink } : {}),
            });
          },
        },
        log,
        signal,
      );
      if (outcome === 'busy') return 'busy';
    }
    return 'done';
  }

  /** The card thread's permalink, asked once and kept with the operation's delivery state. */
  private async permalink(
    record: OperationRecord,
    snapshot: DeliverySnapshot,
    log: Logger,
    signal: AbortSignal,
  ): Promise<string | undefined> {
    if (snapshot.permalink !== undefined || record.card === undefined) return snapshot.permalink;
    const result = await this.deps.slack.idempotent(
      'chat.getPermalink',
      { channel: record.card.channel, message_ts: record.card.ts },
      signal,
    );
    if (!result.ok) {
      log.warn({ error: result.error }, 'no permalink for the card; the digest goes without the link');
      return undefined;
    }
    const link = String(result.data.permalink);
    snapshot.permalink = link;
    await this.deps.state.setPermalink(record.id, link);
    return link;
  }
}
