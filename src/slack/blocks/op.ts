// The `op <id>` answer: one operation in full — intent, plan, checks, approvals, evidence and its whole history.
import type { OperationRecord } from '../../domain/engines/operation.js';
import { formatTarget } from '../../domain/model/target.js';
import { historyLine } from './entries.js';
import { enforceLimits } from './limits.js';
import { runsLine } from './schedule.js';
import {
  approvalLines,
  checkLines,
  criteriaFromHistory,
  intentLine,
  planLines,
  planTitle,
  readEvidence,
  reasonLines,
  requirementLines,
} from './parts.js';
import { formatObserved } from '../../domain/kit/evidence/report.js';
import {
  channelRef,
  context,
  escapeOutside,
  escapeText,
  fields,
  header,
  listSection,
  moreLine,
  oneLine,
  section,
  slackDate,
  userText,
  who,
  type Block,
} from './text.js';
import type { RenderContext, SlackMessage } from './message.js';
import { breakGlassPrefix, breakGlassSection } from './break-glass.js';

/** Room for the history section; older entries give way first (the first one stays: it says when it began). */
const HISTORY_CHARS = 2900;

/** The first line, then as many of the latest as fit, with "…and N more" between them. */
export function keepEnds(lines: readonly string[], max: number): string[] {
  const total = lines.reduce((n, l) => n + l.length + 1, 0);
  if (total <= max || lines.length <= 2) return [...lines];
  const first = lines[0] ?? '';
  const tail: string[] = [];
  let used = first.length + 1 + moreLine(lines.length).length + 1;
  for (let i = lines.length - 1; i >= 1; i--) {
    const line = lines[i] ?? '';
    if (used + line.length + 1 > max) break;
    tail.unshift(line);
    used += line.length + 1;
  }
  return [first, moreLine(lines.length - 1 - tail.length), ...tail];
}

function decisionBlock(record: OperationRecord): Block | undefined {
  const d = record.decision;
  if (!d) return undefined;
  if (d.outcome === 'deny') return listSection('Not allowed by policy', reasonLines(d), '_no reason given_');
  if (d.outcome === 'allow') return section('*Approvals*\n_none needed_');
  const digest = record.plan?.digest ?? '';
  const waiting = record.state === 'AWAITING_APPROVAL';
  const lines = [
    ...requirementLines(d.requirements, record.approvals, digest, waiting),
    ...approvalLines(record.approvals, record.plan?.digest),
  ];
  if (record.expiresAt !== undefined) lines.push(`Approval window: until ${slackDate(record.expiresAt)}`);
  return section(`*Approvals*\n${lines.join('\n')}`);
}

function evidenceBlock(record: OperationRecord): Block | undefined {
  const ev = readEvidence(record.evidence);
  const criteria = ev.criteria.length > 0 ? ev.criteria : criteriaFromHistory(record);
  if (!ev.summary && criteria.length === 0) return undefined;
  const lines = ev.summary ? [escapeOutside(oneLine(ev.summary))] : [];
  for (const c of criteria) {
    const mark = c.met ? ':white_check_mark:' : ':hourglass:';
    lines.push(
      `${mark} \`${escapeText(c.name)}\`: ${escapeText(formatObserved(c.observed))} (${escapeText(c.source)}, ${slackDate(c.at)})`,
    );
  }
  if (ev.verdict?.outcome === 'completed') {
    lines.push(...ev.verdict.proof.notVerified.map((n) => `_Not verified:_ ${escapeText(n)}`));
  }
  if (ev.verdict?.outcome === 'failed') lines.push(...ev.verdict.evidence.map((e) => `• ${escapeText(oneLine(e))}`));
  lines.push(...ev.blocking.map((b) => `:warning: ${escapeText(oneLine(b))}`));
  return section(`*Evidence*\n${lines.join('\n')}`);
}

function planBlocks(record: OperationRecord): Block[] {
  const plan = record.plan;
  if (!plan) return [section('*Plan*\n_none recorded_')];
  return [
    section(`*${planTitle(plan)}*\n${planLines(plan).join('\n')}`),
    context(
      `digest \`${plan.digest.slice(0, 16)}\` · target uid \`${escapeText(plan.uid)}\` at generation ${plan.generation}`,
    ),
  ];
}

/** One operation in full, for `op <id>`: everything the card shows plus evidence criteria and every history entry. */
export function renderOp(record: OperationRecord, ctx: RenderContext): SlackMessage {
  const target = formatTarget(record.target);
  const history = keepEnds(
    record.history.map((e) => historyLine(record, e)),
    HISTORY_CHARS,
  );
  const blocks = [
    header(`${breakGlassPrefix(record)}${record.id} · ${record.kind} ${target}`),
    ...[breakGlassSection(record)].filter((b): b is Block => b !== undefined),
    fields([
      ['State', `*${record.state}*`],
      ['Requester', who(record.requester)],
      ['Operation', intentLine(record.intent, record.target)],
      ['Environment', record.decision?.environment ? escapeText(record.decision.environment) : '_not set_'],
      ['Requested', `${slackDate(record.createdAt)} in ${channelRef(record.channel)}`],
      [
        'Incident channels',
        record.incidentChannels.length > 0 ? record.incidentChannels.map(channelRef).join(', ') : '_none_',
      ],
    ]),
    ...(record.intent.reason ? [section(`*Reason:* ${userText(record.intent.reason, 1500)}`)] : []),
    ...(record.schedule === undefined ? [] : [section(`*Schedule:* ${runsLine(record.schedule, ctx.now)}`)]),
    ...planBlocks(record),
    ...(record.decision
      ? [listSection('Checks', checkLines(record.decision.checks), '_no checks apply_') as Block]
      : []),
    ...[decisionBlock(record), evidenceBlock(record)].filter((b): b is Block => b !== undefined),
    section(`*History* (${record.history.length} entries)\n${history.join('\n')}`),
  ];
  return enforceLimits({
    text: escapeText(`${breakGlassPrefix(record)}${record.id}: ${record.kind} ${target}, ${record.state}`),
    blocks,
  });
}
