// Approver DMs (reminders, escalation and break-glass notices too: docs/policy.md#reaching-approvers), delivered with
// the card and the thread under the operation's delivery lock: one DM per `<op>:<seq>:<user>`, paced per DM channel,
// each copy's
// `{channel, ts}` kept so that a decision anywhere updates every copy.
//
// At most once: a DM whose outcome is unknown (a timeout, or a crash between the call and its mark) is not sent
// again. Looking it up by its metadata, as thread replies are, would need the `im:history` scope, which the app
// does not ask for; a missed DM costs little (the card in the channel has the same buttons), a duplicate annoys.
import type { ApproverDirectory, ApproverList } from '../app/approvers.js';
import type { OperationRecord } from '../domain/engines/operation.js';
import {
  currentRound,
  dmRounds,
  ESCALATED_NOTE,
  MAX_APPROVER_DMS,
  NOT_MESSAGED_NOTE,
  votersOfCurrentPlan,
  type DmRound,
} from '../domain/engines/policy/approvers.js';
import type { Logger } from '../log.js';
import { renderApproverDm, renderClosedDm, type DmContext } from '../slack/blocks/dm.js';
import type { SlackMessage } from '../slack/blocks/message.js';
import { METADATA_EVENT_TYPE } from '../slack-client/client.js';
import type { DeliveryState, MarkRead, OperationStore } from '../app/ports/index.js';
import { dmField } from '../store/delivery.js';
import type { DmCopies, DmCopy } from '../store/dm-copies.js';
import type { PostPacer } from './pacer.js';
import { pacedMarkedPost, withOpId, type MarkedPost, type PostOutcome } from './posts.js';
import type { SlackCalls } from './slack-calls.js';

const BLOCK_ERRORS = new Set(['invalid_blocks', 'invalid_blocks_format', 'msg_blocks_too_long']);

export interface ApproverDmDeps {
  state: DeliveryState;
  copies: DmCopies;
  slack: SlackCalls;
  /** The channels' shared pace: a DM channel is a channel. */
  pacer: PostPacer;
  store: Pick<OperationStore, 'apply'>;
  directory: ApproverDirectory;
  consumer: string;
  /** Real time, for marks. */
  now: () => number;
  renderNow: () => number;
  command: string;
  /** Another consumer's pending DM: how long its call may still be in flight. */
  staleMs: number;
}

type Outcome = Exclude<PostOutcome, 'skipped' | 'failed'>;

export class ApproverDms {
  /** user → their DM channel with the bot (conversations.open always gives the same one). */
  private readonly channels = new Map<string, string>();

  constructor(private readonly deps: ApproverDmDeps) {}

  /** Updates the copies of decided rounds, then sends the DMs the record calls for; 'busy' = try again later. */
  async sync(record: OperationRecord, log: Logger, signal: AbortSignal): Promise<Outcome> {
    const { copies, settled } = await this.deps.copies.read(record.id);
    await this.closeDecided(record, copies, log, signal);
    const rounds = dmRounds(record).filter((r) => !settled.has(r.seq));
    if (rounds.length === 0) return 'done';
    const settings = await this.deps.directory.settings();
    if (settings === undefined) return 'done';
    if (settings.notify === 'dm') {
      const list = await this.deps.directory.approvers(record);
      if (list.notMessaged.length > 0 && rounds.some((r) => r.kind !== 'reminder'))
        await this.noteNotMessaged(record, list.notMessaged, log);
      const snapshot = await this.deps.state.read(record.id);
      for (const round of rounds) {
        for (const user of recipients(record, round, list)) {
          const read = snapshot.marks.get(dmField(round.seq, user)) ?? { raw: undefined, mark: undefined };
          if ((await this.sendOne(record, round, user, read, log, signal)) === 'busy') return 'busy';
        }
      }
    }
    // notify `channel` or `none`: these rounds are not DMed, now or later.
    for (const round of rounds) await this.deps.copies.settle(record.id, round.seq);
    return 'done';
  }

  private ctx(record: OperationRecord, permalink: string | undefined): DmContext {
    const escalated = record.history.findLast((e) => e.type === 'note' && e.name === ESCALATED_NOTE);
    const groups = Array.isArray(escalated?.detail.groups)
      ? escalated.detail.groups.filter((g): g is string => typeof g === 'string')
      : [];
    return { now: this.deps.renderNow(), command: this.deps.command, ...(permalink ? { permalink } : {}), groups };
  }

  private async sendOne(
    record: OperationRecord,
    round: DmRound,
    user: string,
    read: MarkRead,
    log: Logger,
    signal: AbortSignal,
  ): Promise<Outcome> {
    const { state, consumer, now, staleMs } = this.deps;
    const field = dmField(round.seq, user);
    const mark = read.mark;
    if (mark !== undefined && mark.state !== 'pending') return 'done';
    if (mark?.state === 'pending') {
      if (mark.by !== consumer && mark.at + staleMs > now()) return 'busy';
      await state.casMark(record.id, field, read.raw, { state: 'failed', error: 'unknown_outcome', at: now() });
      log.warn({ field, by: mark.by }, 'a DM of unknown outcome is not sent again (at most once)');
      return 'done';
    }
    const channel = await this.openDm(user, log, signal);
    if (channel === undefined) {
      await state.setMark(record.id, field, { state: 'failed', error: 'conversations.open refused', at: now() });
      return 'done';
    }
    const permalink = await this.permalink(record, log, signal);
    const message = withOpId(renderApproverDm(record, round.kind, this.ctx(record, permalink)), record.id);
    const copy: DmCopy = { user, channel, ts: '', seq: round.seq, kind: round.kind, round: round.round };
    return this.post(record, field, read.raw, copy, message, log, signal);
  }

  private async post(
    record: OperationRecord,
    field: string,
    raw: string | undefined,
    copy: DmCopy,
    message: SlackMessage,
    log: Logger,
    signal: AbortSignal,
  ): Promise<Outcome> {
    const { state, pacer, now } = this.deps;
    const post: MarkedPost = { opId: record.id, field, channel: copy.channel, mark: { raw, at: now() } };
    let textOnly = false;
    for (;;) {
      const result = await pacedMarkedPost(this.deps, post, dmArgs(record.id, copy, message, textOnly), signal);
      // 'carried' cannot come back: a DM is never left out for a later one.
      if (result === undefined || result === 'carried') return 'busy';
      if (result.ok) {
        const ts = String(result.data.ts);
        await this.deps.copies.sent(record.id, field, { state: 'done', ts }, { ...copy, ts });
        log.debug({ field, channel: copy.channel, ts }, 'approver DM sent');
        return 'done';
      }
      if (result.kind === 'ratelimited') {
        await pacer.holdFor(copy.channel, result.retryAfterSec * 1000);
        continue;
      }
      if (result.kind === 'refused' && BLOCK_ERRORS.has(result.error) && !textOnly) {
        textOnly = true;
        continue;
      }
      const error = result.kind === 'refused' ? result.error : `unknown_outcome: ${result.error}`;
      await state.setMark(record.id, field, { state: 'failed', error, at: now() });
      log.warn({ field, user: copy.user, error }, 'an approver DM was not sent; it is not tried again');
      return 'done';
    }
  }

  /** Every copy whose round is over (decided, expired, re-planned…) loses its buttons and shows the outcome. */
  private async closeDecided(
    record: OperationRecord,
    copies: DmCopy[],
    log: Logger,
    signal: AbortSignal,
  ): Promise<void> {
    const open = currentRound(record)?.seq;
    const stale = copies.filter((c) => c.kind !== 'notice' && c.closed !== true && c.round !== open);
    if (stale.length === 0) return;
    const permalink = await this.permalink(record, log, signal);
    for (const copy of stale) {
      const message = withOpId(renderClosedDm(record, copy.kind, copy.round, this.ctx(record, permalink)), record.id);
      await this.deps.slack.gates.wait('chat.update', signal);
      let result = await this.deps.slack.idempotent(
        'chat.update',
        { channel: copy.channel, ts: copy.ts, text: message.text, blocks: message.blocks },
        signal,
      );
      if (!result.ok && BLOCK_ERRORS.has(result.error)) {
        result = await this.deps.slack.idempotent(
          'chat.update',
          { channel: copy.channel, ts: copy.ts, text: message.text },
          signal,
        );
      }
      if (!result.ok)
        log.warn({ error: result.error, user: copy.user }, 'Slack refused to update an approver DM; leaving it');
      await this.deps.copies.closed(record.id, copy);
    }
  }

  private async openDm(user: string, log: Logger, signal: AbortSignal): Promise<string | undefined> {
    const known = this.channels.get(user);
    if (known !== undefined) return known;
    const result = await this.deps.slack.idempotent('conversations.open', { users: user }, signal);
    const id = result.ok ? (result.data.channel as { id?: unknown } | undefined)?.id : undefined;
    if (typeof id !== 'string') {
      log.warn(
        { user, error: result.ok ? 'no channel in the answer' : result.error },
        'could not open a DM with an approver',
      );
      return undefined;
    }
    this.channels.set(user, id);
    return id;
  }

  /** The card's permalink, shared with the incident digests (kept in the operation's delivery state). */
  private async permalink(record: OperationRecord, log: Logger, signal: AbortSignal): Promise<string | undefined> {
    const snapshot = await this.deps.state.read(record.id);
    if (snapshot.permalink !== undefined || record.card === undefined) return snapshot.permalink;
    const result = await this.deps.slack.idempotent(
      'chat.getPermalink',
      { channel: record.card.channel, message_ts: record.card.ts },
      signal,
    );
    if (!result.ok) {
      log.warn({ error: result.error }, 'no permalink for the card; DMs name its channel instead');
      return undefined;
    }
    const link = String(result.data.permalink);
    await this.deps.state.setPermalink(record.id, link);
    return link;
  }

  /** The card names who the cap left out (docs/policy.md#reaching-approvers): a note, once per set of people. */
  private async noteNotMessaged(record: OperationRecord, users: string[], log: Logger): Promise<void> {
    const result = await this.deps.store.apply(record.id, (current) => {
      const noted = new Set(
        current.history
          .filter((e) => e.type === 'note' && e.name === NOT_MESSAGED_NOTE)
          .flatMap((e) => (Array.isArray(e.detail.users) ? e.detail.users : [])),
      );
      if (users.every((u) => noted.has(u))) return { refuse: 'already noted' };
      return {
        entries: [{ type: 'note', name: NOT_MESSAGED_NOTE, actor: 'system', detail: { users, cap: MAX_APPROVER_DMS } }],
      };
    });
    if (result.ok)
      log.info({ notMessaged: users.length }, 'more eligible approvers than DMs allowed; the card names the others');
  }
}

/** Who gets the round's DM: approvers who have not voted (for an escalation, only those it added); a notice goes to all. */
function recipients(record: OperationRecord, round: DmRound, list: ApproverList): string[] {
  if (round.kind === 'notice') return list.messaged;
  const voted = votersOfCurrentPlan(record);
  const asked = round.kind === 'escalation' ? list.messaged.filter((u) => list.escalationOnly.has(u)) : list.messaged;
  return asked.filter((u) => !voted.has(u));
}

function dmArgs(opId: string, copy: DmCopy, message: SlackMessage, textOnly: boolean): Record<string, unknown> {
  return {
    channel: copy.channel,
    text: message.text,
    ...(textOnly ? {} : { blocks: message.blocks }),
    metadata: { event_type: METADATA_EVENT_TYPE, event_payload: { op: opId, seq: `dm:${copy.seq}` } },
    unfurl_links: false,
    unfurl_media: false,
  };
}
