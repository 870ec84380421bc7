// The operation card (docs/lifecycle.md#the-card): one message per operation, edited in place, naming its state exactly
// once.
import type { OperationRecord } from '../../domain/engines/operation.js';
import type { CheckResult } from '../../domain/model/decision.js';
import { isTerminal, type OperationState } from '../../domain/model/lifecycle.js';
import { formatTarget } from '../../domain/model/target.js';
import { GITOPS_CHECK } from '../../domain/engines/planning/gitops.js';
import { enforceLimits } from './limits.js';
import { nextStep } from './next.js';
import {
  approvalLines,
  checkLines,
  criteriaFromHistory,
  entryReason,
  intentLine,
  lastStateEntry,
  planLines,
  planTitle,
  readEvidence,
  reasonLines,
  requirementLines,
} from './parts.js';
import {
  button,
  context,
  escapeKeepMentions,
  escapeOutside,
  escapeText,
  fields,
  header,
  listSection,
  moreLine,
  oneLine,
  plural,
  relative,
  section,
  slackDate,
  userText,
  who,
  withoutStateNames,
  type Block,
} from './text.js';
import type { RenderContext, SlackMessage } from './message.js';
import { NOT_MESSAGED_NOTE } from '../../domain/engines/policy/approvers.js';
import { onceApprovedLine, scheduleLine } from './schedule.js';
import { gitopsSection } from './gitops.js';
import { breakGlassPrefix, breakGlassSection, REVIEW_ACTION_ID, reviewActions } from './break-glass.js';
import { postChangeSection, UNDO_ACTION_ID, undoActions } from './post-change.js';

export const ACTION_IDS = {
  approve: 'flink_ops_approve',
  reject: 'flink_ops_reject',
  cancel: 'flink_ops_cancel',
  review: REVIEW_ACTION_ID,
  undo: UNDO_ACTION_ID,
} as const;

/** A reason is context, not the point of the card: the rest is in `op <id>`. */
const REASON_CHARS = 500;
/** Caveats under the verdict: a few, each short enough that the card stays within Slack's limits. */
const MAX_CAVEATS = 5;
const CAVEAT_CHARS = 300;
const BLOCK_ID_PREFIX = 'approval:';
const DIGEST_PREFIX = /^[0-9a-f]{16}/;

/** `approval:<first 16 hex of the plan digest>`: a click carries the plan it was made on. */
export function approvalBlockId(planDigest: string): string {
  const hex = planDigest.trim().toLowerCase();
  if (!DIGEST_PREFIX.test(hex))
    throw new Error(`approvalBlockId: "${planDigest}" is not a plan digest (64 hex characters)`);
  return `${BLOCK_ID_PREFIX}${hex.slice(0, 16)}`;
}

/** The 16 hex of the digest a clicked actions block was rendered for; undefined for any other block id. */
export function digestPrefixFromBlockId(blockId: string): string | undefined {
  if (typeof blockId !== 'string' || !blockId.startsWith(BLOCK_ID_PREFIX)) return undefined;
  const rest = blockId.slice(BLOCK_ID_PREFIX.length);
  return /^[0-9a-f]{16}$/.test(rest) ? rest : undefined;
}

/** Only the buttons that still make sense: approval while waiting for it, cancel until submitted. */
const BUTTONS: Partial<Record<OperationState, readonly (keyof typeof ACTION_IDS)[]>> = {
  AWAITING_APPROVAL: ['approve', 'reject', 'cancel'],
  ACCEPTED: ['cancel'],
  SCHEDULED: ['cancel'],
  QUEUED: ['cancel'],
};
const LABEL = { approve: 'Approve', reject: 'Reject', cancel: 'Cancel', review: 'Reviewed', undo: 'Undo' } as const;
const STYLE = { approve: 'primary', reject: 'danger', cancel: undefined, review: 'primary', undo: 'danger' } as const;

function actionsBlock(record: OperationRecord): Block | undefined {
  const buttons = BUTTONS[record.state];
  if (!buttons) return undefined;
  const elements = buttons.map((b) => button(LABEL[b], ACTION_IDS[b], record.id, STYLE[b]));
  return { type: 'actions', ...(record.plan ? { block_id: approvalBlockId(record.plan.digest) } : {}), elements };
}

function summaryFields(record: OperationRecord): Block {
  const env = record.decision?.environment;
  return fields([
    ['Requester', who(record.requester)],
    ['Target', `\`${formatTarget(record.target)}\``],
    ['Environment', env ? escapeKeepMentions(env) : '_not set_'],
    ['Operation', intentLine(record.intent, record.target)],
  ]);
}

function approvalSection(record: OperationRecord, ctx: RenderContext): Block | undefined {
  const decision = record.decision;
  if (!decision || decision.outcome === 'deny') return undefined;
  if (decision.outcome === 'allow')
    return section(
      `*Approvals*\n${decision.breakGlass ? '_skipped: break-glass (reviewed afterwards)_' : '_none needed: policy allows it as requested_'}`,
    );
  const waiting = record.state === 'AWAITING_APPROVAL';
  const lines = requirementLines(decision.requirements, record.approvals, record.plan?.digest ?? '', waiting);
  lines.push(...approvalLines(record.approvals, record.plan?.digest));
  const notMessaged = record.history
    .filter((e) => e.type === 'note' && e.name === NOT_MESSAGED_NOTE)
    .flatMap((e) => (Array.isArray(e.detail.users) ? e.detail.users : []));
  if (waiting && notMessaged.length > 0)
    lines.push(
      `:envelope: Not messaged (DMs are capped): ${[...new Set(notMessaged.map(String))].map(who).join(', ')}`,
    );
  if (waiting && record.expiresAt !== undefined) {
    const verb = record.expiresAt > ctx.now ? 'closes' : 'closed';
    lines.push(
      `:hourglass_flowing_sand: Approval window ${verb} ${slackDate(record.expiresAt)} (${relative(record.expiresAt, ctx.now)})`,
    );
  }
  return section(`*Approvals*\n${lines.join('\n')}`);
}

/** Criteria named on the card while verifying; the rest are counted. */
const MAX_PROGRESS_NAMES = 8;

/** A count and ONE summary line once decided (the criteria with their values go to the verdict's reply). */
function evidenceSection(record: OperationRecord): Block | undefined {
  const ev = readEvidence(record.evidence);
  const seen = criteriaFromHistory(record);
  if (ev.summary !== undefined) {
    const count =
      ev.criteria.length > 0 ? ` (${plural(ev.criteria.length, 'criterion', 'criteria')}; each in the thread)` : '';
    return section(`*Evidence*${count}\n${escapeOutside(oneLine(ev.summary))}`);
  }
  if (seen.length > 0) {
    // Progress lives here, edited in place, not as a reply per observation (docs/lifecycle.md#the-thread).
    const names = seen.slice(0, MAX_PROGRESS_NAMES).map((c) => `\`${escapeText(c.name)}\``);
    const more = seen.length > MAX_PROGRESS_NAMES ? ` and ${seen.length - MAX_PROGRESS_NAMES} more` : '';
    return section(
      `*Evidence*\n${plural(seen.length, 'criterion', 'criteria')} met so far: ${names.join(', ')}${more}; still watching (the verdict in the thread gives each value)`,
    );
  }
  return undefined;
}

function outcomeSection(record: OperationRecord): Block | undefined {
  if (!isTerminal(record.state) && record.state !== 'UNCERTAIN') return undefined;
  if (record.state === 'DENIED') {
    return listSection('Not allowed', reasonLines(record.decision), '_policy gave no reason_');
  }
  const entry = lastStateEntry(record);
  const reason = entryReason(entry);
  // Without a written reason, the evidence line already says how COMPLETED, FAILED and TIMED_OUT came about.
  const evidenceSays =
    ['COMPLETED', 'FAILED', 'TIMED_OUT'].includes(record.state) && readEvidence(record.evidence).summary !== undefined;
  if (!entry || (!reason && (evidenceSays || record.state === 'COMPLETED'))) return undefined;
  const by = `${who(entry.actor)}, ${slackDate(entry.at)}`;
  return section(`*Why:* ${reason ? escapeKeepMentions(oneLine(reason)) : '_not recorded_'} (${by})`);
}

/**
 * What changes the meaning of COMPLETED (no savepoint was taken, vertices kept their own parallelism, …), as the
 * worker recorded it on the COMPLETED entry: on the card right under the verdict, not only in the paced thread.
 */
function caveatsSection(record: OperationRecord): Block | undefined {
  if (record.state !== 'COMPLETED') return undefined;
  const raw = lastStateEntry(record)?.detail?.caveats;
  const caveats = (Array.isArray(raw) ? raw : []).filter(
    (c): c is string => typeof c === 'string' && c.trim().length > 0,
  );
  if (caveats.length === 0) return undefined;
  const shown = caveats.slice(0, MAX_CAVEATS).map((c) => `:warning: ${userText(c, CAVEAT_CHARS)}`);
  if (caveats.length > MAX_CAVEATS) shown.push(`_${moreLine(caveats.length - MAX_CAVEATS)}: each in the thread_`);
  return section(`*What this means*\n${shown.join('\n')}`);
}

/**
 * Checks that need a look (warn, fail) are listed, and so is the GitOps check, passed or not: whether Git puts the
 * change back is what the change means (docs/policy.md#gitops-managed-targets); the other passed ones fold into one line below them
 * (docs/lifecycle.md#the-card).
 */
function checkBlocks(checks: readonly CheckResult[]): Block[] {
  if (checks.length === 0) return [section('*Checks*\n_no checks apply_')];
  const listed = (c: CheckResult): boolean => c.outcome !== 'pass' || c.name === GITOPS_CHECK;
  const open = checks.filter(listed);
  const passed = checks.filter((c) => !listed(c));
  const names = passed.map((c) => `\`${escapeText(c.name)}\``).join(', ');
  return [
    ...(open.length > 0 ? [section(`*Checks*\n${checkLines(open).join('\n')}`)] : []),
    ...(passed.length > 0 ? [context(`:white_check_mark: ${plural(passed.length, 'check')} passed: ${names}`)] : []),
  ];
}

/** The diff in one line for the card's top, when the plan changes one thing and it fits. */
function changeLine(record: OperationRecord): string {
  const lines = record.plan ? planLines(record.plan) : [];
  const only = lines.length === 1 ? lines[0] : undefined;
  return only !== undefined && only.length <= 150 ? `\nChange: ${only}` : '';
}

function bodyBlocks(record: OperationRecord, ctx: RenderContext): Block[] {
  const blocks: (Block | undefined)[] = [summaryFields(record)];
  const reason = record.intent.reason;
  if (reason) blocks.push(section(`*Reason:* ${userText(reason, REASON_CHARS)}`));
  if (record.plan) blocks.push(section(`*${planTitle(record.plan)}*\n${planLines(record.plan).join('\n')}`));
  blocks.push(gitopsSection(record, ctx.command));
  if (record.decision) blocks.push(...checkBlocks(record.decision.checks));
  blocks.push(approvalSection(record, ctx), outcomeSection(record), evidenceSection(record));
  blocks.push(
    context(`\`${record.id}\` · requested ${slackDate(record.createdAt)} · updated ${slackDate(record.updatedAt)}`),
  );
  return blocks.filter((b): b is Block => b !== undefined);
}

/** Every string of the blocks with state names lowercased: the card's one state name is added afterwards. */
function neutralise(v: unknown): unknown {
  if (typeof v === 'string') return withoutStateNames(v);
  if (Array.isArray(v)) return v.map(neutralise);
  if (typeof v === 'object' && v !== null)
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, k === 'type' ? x : neutralise(x)]));
  return v;
}

/** The card: operation id, `State: <STATE>` exactly once, who/what/where, diff, checks, approvals, evidence, buttons. */
export function renderCard(record: OperationRecord, ctx: RenderContext): SlackMessage {
  const title = header(`${breakGlassPrefix(record)}${record.id} · ${record.kind} ${formatTarget(record.target)}`);
  const glass = breakGlassSection(record);
  const body = neutralise(bodyBlocks(record, ctx)) as Block[];
  const next = withoutStateNames(nextStep(record));
  const when = record.state === 'SCHEDULED' ? scheduleLine(record, ctx.now) : onceApprovedLine(record, ctx.now);
  const state = section(
    `*State: ${record.state}*${when === undefined ? '' : ` — ${withoutStateNames(when)}`}${withoutStateNames(changeLine(record))}\nNext: ${next}`,
  );
  const actions = [actionsBlock(record), reviewActions(record), undoActions(record)].filter(
    (b): b is Block => b !== undefined,
  );
  const text = withoutStateNames(
    `${breakGlassPrefix(record)}${record.id}: ${intentLine(record.intent, record.target)}, requested by ${who(record.requester)}`,
  );
  const top = [neutralise(title) as Block, ...(glass ? [neutralise(glass) as Block] : [])];
  const after = [caveatsSection(record), postChangeSection(record)].flatMap((b) => (b ? [neutralise(b) as Block] : []));
  const message = { text, blocks: [...top, state, ...after, ...body, ...actions] };
  return enforceLimits(message);
}
