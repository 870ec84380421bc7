// Approver DMs (docs/policy.md#reaching-approvers): the request, reminder and escalation copies of the card with the
// same buttons, the break-glass notice, and a copy updated once the round is decided (buttons gone, outcome shown).
import type { HistoryEntry, OperationRecord } from '../../domain/engines/operation.js';
import { formatTarget } from '../../domain/model/target.js';
import type { DmKind } from '../../domain/engines/policy/approvers.js';
import { ACTION_IDS, approvalBlockId } from './card.js';
import { enforceLimits } from './limits.js';
import { entryReason, intentLine, planLines, planTitle, stillNeeded } from './parts.js';
import {
  button,
  context,
  escapeKeepMentions,
  escapeText,
  fields,
  header,
  oneLine,
  relative,
  section,
  slackDate,
  userText,
  who,
  type Block,
} from './text.js';
import type { RenderContext, SlackMessage } from './message.js';
import { onceApprovedLine } from './schedule.js';

export interface DmContext extends RenderContext {
  /** The card's permalink; without it the DM names the channel. */
  permalink?: string;
  /** Escalation: the groups now asked. */
  groups?: readonly string[];
}

const REASON_CHARS = 500;

function cardLink(record: OperationRecord, permalink: string | undefined): string {
  if (permalink && /^https?:\/\/[^\s|<>]+$/.test(permalink)) return `<${escapeText(permalink)}|Open the card>`;
  return `The card is in <#${record.channel}>`;
}

const HEADS: Record<DmKind, (record: OperationRecord, ctx: DmContext) => string> = {
  request: (r) => `:raising_hand: ${who(r.requester)} asks for your approval of \`${r.id}\``,
  reminder: (r, ctx) =>
    `:bell: Reminder: \`${r.id}\` has waited ${relative(firstAsked(r), ctx.now).replace(/ ago$/, '')} for approval`,
  escalation: (r, ctx) =>
    `:arrow_double_up: Escalated to you${ctx.groups?.length ? ` (${ctx.groups.map((g) => `*${escapeText(g)}*`).join(', ')})` : ''}: \`${r.id}\` still needs approval; your approval counts as the rules' groups' would`,
  notice: (r) => `:rotating_light: *BREAK-GLASS*: ${who(r.requester)} ran \`${r.id}\` without approval`,
};

function firstAsked(record: OperationRecord): number {
  return record.history.find((e) => e.type === 'state' && e.name === 'AWAITING_APPROVAL')?.at ?? record.createdAt;
}

function body(record: OperationRecord, kind: DmKind, ctx: DmContext): Block[] {
  const blocks: Block[] = [section(HEADS[kind](record, ctx))];
  blocks.push(
    fields([
      ['Operation', intentLine(record.intent, record.target)],
      ['Target', `\`${formatTarget(record.target)}\``],
      ['Requester', who(record.requester)],
      ['Environment', record.decision?.environment ? escapeKeepMentions(record.decision.environment) : '_not set_'],
    ]),
  );
  const reason = record.intent.reason;
  if (reason) blocks.push(section(`*Reason:* ${userText(reason, REASON_CHARS)}`));
  if (record.plan) blocks.push(section(`*${planTitle(record.plan)}*\n${planLines(record.plan).join('\n')}`));
  if (kind === 'notice') {
    blocks.push(
      section(':memo: A review is due after it ends: press *Reviewed* on the card once you have looked at it.'),
    );
  } else {
    const needed = stillNeeded(record);
    const expiry =
      record.expiresAt === undefined
        ? ''
        : `; the approval window closes ${slackDate(record.expiresAt)} (${relative(record.expiresAt, ctx.now)})`;
    if (needed) blocks.push(section(`*Still needed:* ${needed}${expiry}`));
    const when = onceApprovedLine(record, ctx.now);
    if (when !== undefined) blocks.push(section(`:calendar: It ${when}.`));
  }
  return blocks;
}

function fallback(record: OperationRecord, kind: DmKind): string {
  const what = `${record.kind} ${formatTarget(record.target)}`;
  switch (kind) {
    case 'request':
      return `${record.id}: your approval is requested for ${what}`;
    case 'reminder':
      return `${record.id}: reminder, ${what} still waits for your approval`;
    case 'escalation':
      return `${record.id}: escalated to you, ${what} still needs approval`;
    case 'notice':
      return `${record.id}: BREAK-GLASS ${what} by <@${record.requester}>, without approval; a review is due after it ends`;
  }
}

/** A DM to one approver: the plan, a link to the card and (but for a notice) the card's Approve and Reject buttons. */
export function renderApproverDm(record: OperationRecord, kind: DmKind, ctx: DmContext): SlackMessage {
  const blocks = [
    header(`${record.id} · ${kind === 'notice' ? 'break-glass' : 'approval'}`),
    ...body(record, kind, ctx),
  ];
  blocks.push(context(`${cardLink(record, ctx.permalink)} · \`${record.id}\``));
  if (kind !== 'notice' && record.plan) {
    blocks.push({
      type: 'actions',
      block_id: approvalBlockId(record.plan.digest),
      elements: [
        button('Approve', ACTION_IDS.approve, record.id, 'primary'),
        button('Reject', ACTION_IDS.reject, record.id, 'danger'),
      ],
    });
  }
  return enforceLimits({ text: fallback(record, kind), blocks });
}

/** The entry that ended the approval round starting at `round`: the next state entry after it. */
function endOf(record: OperationRecord, round: number): HistoryEntry | undefined {
  return record.history.find((e) => e.seq > round && e.type === 'state');
}

/** What became of the round, in words (the state names are the record's). */
export function roundOutcome(record: OperationRecord, round: number): string {
  const end = endOf(record, round);
  if (end === undefined) return `decided: ${record.state}`;
  const by = who(end.actor);
  const reason = entryReason(end);
  const because = reason ? `: ${escapeKeepMentions(oneLine(reason))}` : '';
  switch (end.name) {
    case 'QUEUED':
    case 'SCHEDULED': {
      const approvers = Array.isArray(end.detail.approvedBy)
        ? end.detail.approvedBy.filter((u): u is string => typeof u === 'string')
        : [];
      return `:white_check_mark: Approved${approvers.length ? ` by ${approvers.map(who).join(', ')}` : ''}; now ${end.name}`;
    }
    case 'AWAITING_APPROVAL':
      return ':arrows_counterclockwise: Re-planned: this plan is void; the new plan was sent for approval';
    case 'REJECTED':
      return `:no_entry_sign: REJECTED by ${by}`;
    case 'EXPIRED':
      return ':hourglass: EXPIRED: the approval window closed';
    case 'CANCELLED':
      return `:wastebasket: CANCELLED by ${by}${because}`;
    default:
      return `${escapeText(end.name)} (${by})${because}`;
  }
}

/** The DM once its round is decided: the same message without buttons, the outcome on top. */
export function renderClosedDm(record: OperationRecord, kind: DmKind, round: number, ctx: DmContext): SlackMessage {
  const outcome = roundOutcome(record, round);
  const open = renderApproverDm(record, kind, ctx);
  const blocks = open.blocks.filter((b) => b.type !== 'actions');
  blocks.splice(1, 0, section(`*Decided:* ${outcome}`));
  return enforceLimits({ text: `${record.id}: decided: ${oneLine(outcome.replace(/:[a-z_]+: /g, ''))}`, blocks });
}
