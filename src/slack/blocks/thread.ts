// Thread replies (docs/lifecycle.md#the-thread): one per milestone of an operation, each carrying the operation id.
// An uneventful operation gets two (submitted; the verdict with every criterion): approvals and the criteria met on the
// way show on the card, and the end of a quiet post-change watch is added to the verdict's reply, edited in place.
import { formatObserved } from '../../domain/kit/evidence/report.js';
import type { Criterion } from '../../domain/kit/evidence/types.js';
import type { HistoryEntry, OperationRecord } from '../../domain/engines/operation.js';
import type { OperationState } from '../../domain/model/lifecycle.js';
import type { FieldChange } from '../../domain/model/plan.js';
import { enforceLimits } from './limits.js';
import { describeCommand, describeNote } from './entries.js';
import { detailText, diffLines, entryReason, readEvidence, reasonLines, stillNeeded } from './parts.js';
import { context, escapeKeepMentions, escapeOutside, escapeText, oneLine, section, slackDate, who } from './text.js';
import type { RenderContext, SlackMessage } from './message.js';
import { runsLine, whenOf } from './schedule.js';
import { RESCHEDULED } from '../../domain/kit/schedule/resolve.js';
import { isRevert, revertText } from './gitops.js';
import { isHealthy, isRegression, postChangeReply, postChangeText, undoActions } from './post-change.js';

/** States whose entry is a milestone people want in the thread; the others show on the card only. */
const STATE_REPLIES: readonly OperationState[] = [
  'SCHEDULED',
  'SUBMITTED',
  'COMPLETED',
  'FAILED',
  'TIMED_OUT',
  'ABORTED',
  'REJECTED',
  'EXPIRED',
  'CANCELLED',
  'DENIED',
];

/** Which history entries get a thread reply (docs/lifecycle.md#the-thread, plus commands and notes such as `stuck`). */
export function threadReplyWanted(entry: HistoryEntry): boolean {
  switch (entry.type) {
    // On the card: who approved (the approvals section), and the criteria met so far (the evidence section).
    case 'approval':
    case 'evidence':
      return false;
    case 'note':
      return !isHealthy(entry);
    case 'state':
      // Back to approval from the queue is a re-plan the thread must show; the first request is on the card.
      if (entry.name === 'AWAITING_APPROVAL') return entry.detail.from === 'QUEUED';
      // A scheduled operation's time came (docs/policy.md#scheduled-operations): worth a line; an ordinary QUEUED is on
      // the card only.
      if (entry.name === 'QUEUED') return entry.detail.from === 'SCHEDULED';
      return (STATE_REPLIES as readonly string[]).includes(entry.name);
    case 'retry':
      return false;
    default:
      return true;
  }
}

function criterionLine(c: Criterion): string {
  const source = c.source ? ` (${escapeText(c.source)}${typeof c.at === 'number' ? `, ${slackDate(c.at)}` : ''})` : '';
  return `• \`${escapeText(c.name)}\`: ${escapeText(formatObserved(c.observed))}${source}`;
}

const isChange = (v: unknown): v is FieldChange =>
  typeof v === 'object' && v !== null && typeof (v as FieldChange).path === 'string';

function replanReply(record: OperationRecord, entry: HistoryEntry): string {
  const after =
    detailText(entry, 'after', 'behind', 'opId') ??
    (Array.isArray(entry.detail.after) ? entry.detail.after.join(', ') : undefined);
  const diff = Array.isArray(entry.detail.diff) ? entry.detail.diff.filter(isChange) : (record.plan?.diff ?? []);
  const revision = typeof entry.detail.revision === 'number' ? entry.detail.revision : record.plan?.revision;
  const head = `:arrows_counterclockwise: Re-planned${after ? ` after ${escapeText(after)}` : ''}${revision ? ` (revision ${revision})` : ''}`;
  return `${head}: the target was changed by earlier operations of this bot; the new diff:\n${diffLines(diff).join('\n') || '_no field changes_'}`;
}

function completedReply(record: OperationRecord, entry: HistoryEntry): string {
  const ev = readEvidence(record.evidence);
  const healthy = record.history.find((e) => e.seq > entry.seq && isHealthy(e));
  const after = healthy ? [`:white_check_mark: ${postChangeText(healthy) ?? 'Healthy after the change'}`] : [];
  if (ev.verdict?.outcome !== 'completed') {
    const head = `:white_check_mark: *COMPLETED*: ${escapeOutside(oneLine(ev.summary ?? 'every evidence criterion met'))}`;
    return [head, ...after].join('\n');
  }
  const n = ev.verdict.criteria.length;
  const lines = [`:white_check_mark: *COMPLETED*: ${n} of ${n} evidence criteria met on one observation.`];
  lines.push('*Criteria:*', ...ev.verdict.criteria.map(criterionLine));
  lines.push('*Proof depth, verified:*', ...ev.verdict.proof.verified.map((v) => `• ${escapeText(v)}`));
  lines.push('*Not verified:*', ...ev.verdict.proof.notVerified.map((v) => `• ${escapeText(v)}`));
  lines.push(...ev.verdict.notes.map((note) => `_Note:_ ${escapeText(note)}`));
  return [...lines, ...after].join('\n');
}

/**
 * The entry whose reply `entry` amends (edited in place, no reply of its own): a HEALTHY note amends the COMPLETED
 * reply before it. Undefined for every other entry.
 */
export function amendedEntry(record: OperationRecord, entry: HistoryEntry): HistoryEntry | undefined {
  if (!isHealthy(entry)) return undefined;
  return record.history.findLast((e) => e.seq < entry.seq && e.type === 'state' && e.name === 'COMPLETED');
}

function failedReply(record: OperationRecord, entry: HistoryEntry): string {
  const ev = readEvidence(record.evidence);
  if (ev.verdict?.outcome === 'failed') {
    const head = ev.verdict.rollback
      ? ':leftwards_arrow_with_hook: *FAILED*: the operator *rolled back* the change'
      : ':x: *FAILED*';
    const lines = [
      `${head}: ${escapeText(oneLine(ev.verdict.reason))}`,
      '*Evidence:*',
      ...ev.verdict.evidence.map((e) => `• ${escapeText(oneLine(e))}`),
    ];
    return lines.join('\n');
  }
  const reason = entryReason(entry) ?? ev.summary;
  return `:x: *FAILED*: ${reason ? escapeKeepMentions(oneLine(reason)) : 'no reason recorded'}`;
}

function timedOutReply(record: OperationRecord, entry: HistoryEntry): string {
  const ev = readEvidence(record.evidence);
  const lines = [
    `:hourglass: *TIMED_OUT*: ${escapeKeepMentions(oneLine(ev.summary ?? entryReason(entry) ?? 'evidence incomplete at the deadline'))}`,
  ];
  // The warnings are listed on their own below; their criterion would only repeat them.
  const unmet = ev.blocking.length > 0 ? ev.unmet.filter((c) => c.name !== 'no-blocking-warnings') : ev.unmet;
  if (unmet.length > 0) lines.push('*Unmet criteria (last seen):*', ...unmet.map(criterionLine));
  if (ev.blocking.length > 0)
    lines.push('*Blocking warnings:*', ...ev.blocking.map((b) => `• ${escapeText(oneLine(b))}`));
  lines.push('The change was submitted: check the job before retrying.');
  return lines.join('\n');
}

/**
 * When it was scheduled (docs/policy.md#scheduled-operations), re-scheduled for a window's next opening, or its time
 * came.
 */
function scheduleReply(entry: HistoryEntry, now: number): string {
  const when = whenOf(entry.detail);
  const reason = entryReason(entry);
  const line = when === undefined ? 'time not recorded' : runsLine(when, now);
  if (entry.type === 'note')
    return `:calendar: Re-scheduled: ${line}${reason ? ` (${escapeText(oneLine(reason))})` : ''}`;
  if (entry.name === 'QUEUED')
    return ":alarm_clock: Its scheduled time came: queued to run now, in the target's order.";
  return `:calendar: *SCHEDULED*: ${line}. It holds no lease and no place in the target's order until then${reason ? ` (${escapeKeepMentions(oneLine(reason))})` : ''}.`;
}

function submittedWhat(record: OperationRecord, entry: HistoryEntry): string {
  const gen = typeof entry.detail.generation === 'number' ? entry.detail.generation : record.submittedGeneration;
  return record.plan?.change.type === 'create-snapshot'
    ? 'the snapshot was created'
    : `the API accepted the change${typeof gen === 'number' ? `; generation ${gen}` : ''}`;
}

/**
 * Who approved, said where the submission is (docs/lifecycle.md#the-thread): the milestone "approval given" costs
 * no reply of its own. Empty when no approval was given.
 */
function approvedBy(record: OperationRecord): string {
  const users = [...new Set(record.approvals.map((a) => a.user))];
  return users.length === 0 ? '' : `Approved by ${users.map((u) => who(u)).join(', ')}; `;
}

/** The SUBMITTED entry an outcome follows, if the change was submitted. */
function submissionOf(record: OperationRecord, outcome: HistoryEntry): HistoryEntry | undefined {
  return record.history.findLast((e) => e.seq < outcome.seq && e.type === 'state' && e.name === 'SUBMITTED');
}

/** An outcome's reply says when and by whom the change was submitted too: the SUBMITTED reply may not be posted. */
function withSubmission(record: OperationRecord, outcome: HistoryEntry, text: string): string {
  const submitted = submissionOf(record, outcome);
  if (submitted === undefined) return text;
  const [head = '', ...rest] = text.split('\n');
  const by = approvedBy(record);
  const line = `_${by}${by ? 's' : 'S'}ubmitted by ${who(submitted.actor)} ${slackDate(submitted.at)}: ${submittedWhat(record, submitted)}._`;
  return [head, line, ...rest].join('\n');
}

const OUTCOMES: readonly string[] = ['COMPLETED', 'FAILED', 'TIMED_OUT'];

/**
 * The later entry whose reply says everything `entry`'s reply would (docs/lifecycle.md#the-thread): for a SUBMITTED
 * entry, the outcome when it is the next entry with a reply. A thread behind Slack's pace leaves such a reply out.
 */
export function carriedBy(record: OperationRecord, entry: HistoryEntry): HistoryEntry | undefined {
  if (entry.type !== 'state' || entry.name !== 'SUBMITTED') return undefined;
  const next = record.history.find((e) => e.seq > entry.seq && threadReplyWanted(e));
  return next?.type === 'state' && OUTCOMES.includes(next.name) ? next : undefined;
}

function stateReply(record: OperationRecord, entry: HistoryEntry): string {
  const reason = entryReason(entry);
  const why = reason ? `: ${escapeKeepMentions(oneLine(reason))}` : '';
  switch (entry.name as OperationState) {
    case 'AWAITING_APPROVAL':
      return `${replanReply(record, entry)}\nIt needs approval again: earlier approvals no longer count${stillNeeded(record) ? ` (needed: ${stillNeeded(record)})` : ''}.`;
    case 'SUBMITTED':
      return `:rocket: ${approvedBy(record)}*SUBMITTED* by ${who(entry.actor)}: ${submittedWhat(record, entry)}. Watching the operator for evidence.`;
    case 'COMPLETED':
      return withSubmission(record, entry, completedReply(record, entry));
    case 'FAILED':
      return withSubmission(record, entry, failedReply(record, entry));
    case 'TIMED_OUT':
      return withSubmission(record, entry, timedOutReply(record, entry));
    case 'DENIED':
      return [
        ':no_entry: *DENIED* by policy:',
        ...(reasonLines(record.decision).length ? reasonLines(record.decision) : [why || '• no reason recorded']),
      ].join('\n');
    case 'EXPIRED':
      return `:hourglass: *EXPIRED*: no decision before ${slackDate(entry.at)}${stillNeeded(record) ? ` (still needed: ${stillNeeded(record)})` : ''}. Request again if it is still wanted.`;
    case 'REJECTED':
      return `:no_entry_sign: *REJECTED* by ${who(entry.actor)}${why}`;
    case 'CANCELLED':
      return `:wastebasket: *CANCELLED* by ${who(entry.actor)}${why}`;
    case 'ABORTED':
      return `:no_entry: *ABORTED*${why || ': no reason recorded'}. Nothing was submitted by this operation.`;
    default:
      return `*${escapeText(entry.name)}*${why}`;
  }
}

function body(record: OperationRecord, entry: HistoryEntry): string {
  switch (entry.type) {
    case 'state':
      return stateReply(record, entry);
    case 'waiting': {
      const behind = detailText(entry, 'behind', 'opId', 'holder', 'waitingFor') ?? entry.name;
      return `:double_vertical_bar: Waiting behind ${escapeText(behind)}: operations on one target run one at a time, in order.`;
    }
    case 'replanned':
      return replanReply(record, entry);
    case 'command':
      return `:memo: ${describeCommand(entry)}`;
    case 'note':
      if (isRevert(entry)) return `:rewind: ${revertText(entry)}`;
      return postChangeReply(entry) ?? `:warning: ${describeNote(record, entry)}`;
    case 'approval':
    case 'evidence':
      // Shown on the card, not as replies (threadReplyWanted); named plainly should anything ask.
      return `${escapeText(entry.type)}: ${escapeText(entry.name)}`;
    case 'retry':
      return `:repeat: Submitting again${entryReason(entry) ? `: ${escapeText(oneLine(entryReason(entry) ?? ''))}` : ''}`;
  }
}

/** The reply for one history entry, or undefined when the entry gets none. */
export function renderThreadReply(
  record: OperationRecord,
  entry: HistoryEntry,
  ctx: RenderContext,
): SlackMessage | undefined {
  if (!threadReplyWanted(entry)) return undefined;
  const scheduling =
    (entry.type === 'state' && (entry.name === 'SCHEDULED' || entry.name === 'QUEUED')) ||
    (entry.type === 'note' && entry.name === RESCHEDULED);
  const text = scheduling ? scheduleReply(entry, ctx.now) : body(record, entry);
  const first = (text.split('\n')[0] ?? '').replace(/:[a-z_]+: /, '');
  // The id shows in the reply itself too (not only in the notification text), so a thread read later names it.
  // A regression's reply offers the undo (docs/lifecycle.md#after-completed).
  const undo = entry.type === 'note' && isRegression(entry) ? undoActions(record) : undefined;
  const blocks = [section(text), ...(undo ? [undo] : []), context(`\`${record.id}\``)];
  return enforceLimits({ text: `${record.id}: ${first}`, blocks });
}
