// Thread replies edited in place (docs/lifecycle.md#the-thread): an entry that amends an earlier reply (the end of a
// quiet post-change watch amends the verdict) gets no reply of its own; the earlier reply is re-rendered with it and
// edited once, marked `edit:<seq>` so no replica edits it again.
import type { HistoryEntry, OperationRecord } from '../domain/engines/operation.js';
import type { DeliveryState } from '../app/ports/index.js';
import type { Logger } from '../log.js';
import type { RenderContext, SlackMessage } from '../slack/blocks/message.js';
import { editField, postField } from '../store/delivery.js';
import { withOpId } from './posts.js';
import type { SlackCalls } from './slack-calls.js';

export interface AmendmentDeps {
  state: DeliveryState;
  slack: SlackCalls;
  now: () => number;
  amendedEntry(record: OperationRecord, entry: HistoryEntry): HistoryEntry | undefined;
  renderThreadReply(record: OperationRecord, entry: HistoryEntry, ctx: RenderContext): SlackMessage | undefined;
}

/**
 * Edits each amended reply that is posted and not yet edited for its amending entry (an edit is idempotent: a 429 is
 * waited out, a repeat after a crash is harmless); a refusal is marked failed and logged, never retried.
 */
export async function syncAmendments(
  deps: AmendmentDeps,
  record: OperationRecord,
  ctx: RenderContext,
  log: Logger,
  signal: AbortSignal,
): Promise<void> {
  const card = record.card;
  const pending = record.history.flatMap((entry) => {
    const amended = deps.amendedEntry(record, entry);
    return amended ? [{ entry, amended }] : [];
  });
  if (card === undefined || pending.length === 0) return;
  // Read now, not with the snapshot of this round: the amended reply may have been posted just before.
  const marks = (await deps.state.read(record.id)).marks;
  for (const { entry, amended } of pending) {
    const field = editField(entry.seq);
    const read = marks.get(field);
    if (read?.mark !== undefined) continue;
    const posted = marks.get(postField(amended.seq))?.mark;
    if (posted?.state !== 'done') continue;
    const message = deps.renderThreadReply(record, amended, ctx);
    if (message === undefined) continue;
    const shown = withOpId(message, record.id);
    const args = { channel: card.channel, ts: posted.ts, text: shown.text, blocks: shown.blocks };
    const result = await deps.slack.idempotent('chat.update', args, signal);
    if (!result.ok) {
      log.error({ error: result.error, seq: amended.seq }, 'Slack refused to edit a thread reply; it stays as it was');
      await deps.state.casMark(record.id, field, undefined, { state: 'failed', error: result.error, at: deps.now() });
      continue;
    }
    await deps.state.casMark(record.id, field, undefined, { state: 'done', ts: posted.ts });
  }
}
