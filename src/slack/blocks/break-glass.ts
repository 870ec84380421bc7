// Break-glass on the card, `op`, digests and App Home (docs/policy.md#break-glass): BREAK-GLASS, why, what it skipped,
// and its review.
import type { BreakGlassUse } from '../../domain/model/decision.js';
import type { OperationRecord } from '../../domain/engines/operation.js';
import { isTerminal } from '../../domain/model/lifecycle.js';
import { awaitsReview, breakGlassOf, reviewOf, wentAhead } from '../../domain/engines/policy/break-glass.js';
import {
  button,
  either,
  escapeKeepMentions,
  escapeText,
  oneLine,
  plural,
  section,
  slackDate,
  userText,
  who,
  type Block,
} from './text.js';

/** The Reviewed button's action id; its value is the operation id. */
export const REVIEW_ACTION_ID = 'flink_ops_review';
export const REVIEW_BLOCK_ID = 'break-glass-review';
export const BREAK_GLASS = 'BREAK-GLASS';

/** Room for the reason on the break-glass section (the card shows it in full further down too). */
const REASON_CHARS = 300;

export const isBreakGlass = (record: OperationRecord): boolean => breakGlassOf(record) !== undefined;

/** `BREAK-GLASS · ` for titles and notification texts; empty for other operations. */
export function breakGlassPrefix(record: OperationRecord): string {
  return isBreakGlass(record) ? `${BREAK_GLASS} · ` : '';
}

/** What it skipped, one line each: the rules whose approvals were not asked for, the time-window denies. */
export function skippedLines(record: OperationRecord): string[] {
  const use = breakGlassOf(record);
  return use ? skippedUseLines(use) : [];
}

/** The lines of `skippedLines` from the decision's record of the skip (also for `explain`). */
export function skippedUseLines(use: BreakGlassUse): string[] {
  const lines = use.skippedRequirements.map(
    (r) =>
      `• approval skipped: \`${escapeText(r.rule)}\` (${plural(r.approvals, 'approval')} from ${either(r.from.map((g) => `*${escapeText(g)}*`))})`,
  );
  lines.push(...use.skippedDenies.map((d) => `• deny rule skipped: ${escapeKeepMentions(oneLine(d))}`));
  if (lines.length === 0) lines.push('• _nothing needed skipping: no approval rule or time-window deny rule applied_');
  return lines;
}

/** Reviewed by whom, or what is still owed. */
export function reviewLine(record: OperationRecord): string {
  const review = reviewOf(record);
  if (review) return `:white_check_mark: Reviewed by ${who(review.actor)} ${slackDate(review.at)}`;
  if (awaitsReview(record))
    return ':eyes: *Review due*: an approver of the skipped rules clicks Reviewed (not the requester)';
  if (isTerminal(record.state) && !wentAhead(record)) return '_It never went ahead, so no review is owed._';
  return '_Approvers review it after it ends._';
}

/** The section at the top of the card: BREAK-GLASS, by whom and why, what was skipped, the review. */
export function breakGlassSection(record: OperationRecord, reasonChars = REASON_CHARS): Block | undefined {
  if (!isBreakGlass(record)) return undefined;
  const reason = record.intent.reason ? userText(record.intent.reason, reasonChars) : '_no reason recorded_';
  const by = isTerminal(record.state) && !wentAhead(record) ? 'requested by' : 'by';
  const head = `:rotating_light: *${BREAK_GLASS}* ${by} ${who(record.requester)}: ${reason}`;
  return section([head, ...skippedLines(record), reviewLine(record)].join('\n'));
}

/** The Reviewed button, while a review is due. */
export function reviewActions(record: OperationRecord): Block | undefined {
  if (!awaitsReview(record)) return undefined;
  return {
    type: 'actions',
    block_id: REVIEW_BLOCK_ID,
    elements: [button('Reviewed', REVIEW_ACTION_ID, record.id, 'primary')],
  };
}
