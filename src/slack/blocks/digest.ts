// Incident digests (docs/lifecycle.md#incident-digests): the start and the end of an operation, mirrored into an
// incident channel.
import type { OperationRecord } from '../../domain/engines/operation.js';
import { formatTarget } from '../../domain/model/target.js';
import { enforceLimits } from './limits.js';
import { nextStep } from './next.js';
import { entryReason, intentLine, lastStateEntry, readEvidence } from './parts.js';
import {
  context,
  escapeKeepMentions,
  escapeOutside,
  escapeText,
  fields,
  header,
  oneLine,
  section,
  slackDate,
  userText,
  who,
} from './text.js';
import type { RenderContext, SlackMessage } from './message.js';
import { breakGlassPrefix, breakGlassSection } from './break-glass.js';

function approvers(record: OperationRecord): string {
  const digest = record.plan?.digest;
  const current = record.approvals.filter((a) => digest === undefined || a.planDigest === digest);
  if (current.length > 0) return current.map((a) => who(a.user)).join(', ');
  if (record.decision?.breakGlass) return '_skipped: break-glass (reviewed afterwards)_';
  return (record.decision?.requirements.length ?? 0) > 0 ? '_none yet_' : '_none needed_';
}

function threadLink(permalink: string | undefined): string {
  if (!permalink || !/^https?:\/\/[^\s|<>]+$/.test(permalink)) return '_not available_';
  return `<${escapeText(permalink)}|open the thread>`;
}

function outcomeLine(record: OperationRecord): string | undefined {
  const summary = readEvidence(record.evidence).summary;
  if (summary) return `*Evidence:* ${escapeOutside(oneLine(summary))}`;
  const reason = entryReason(lastStateEntry(record));
  return reason ? `*Why:* ${escapeKeepMentions(oneLine(reason))}` : undefined;
}

/** Target, operation, requester, approvers, current state, thread link and what happens next. */
export function renderIncidentDigest(
  record: OperationRecord,
  phase: 'start' | 'end',
  ctx: RenderContext & { threadPermalink?: string },
): SlackMessage {
  const target = formatTarget(record.target);
  const title = `${breakGlassPrefix(record)}${phase === 'start' ? 'Flink operation started' : 'Flink operation ended'}: ${record.id}`;
  const blocks = [
    header(title),
    fields([
      ['Target', `\`${target}\``],
      ['Operation', `\`${record.id}\` (${escapeText(record.kind)}): ${intentLine(record.intent, record.target)}`],
      ['Requester', who(record.requester)],
      ['Approvers', approvers(record)],
      ['State', `*${record.state}*`],
      ['Thread', threadLink(ctx.threadPermalink)],
    ]),
    section(`*Next:* ${nextStep(record)}`),
  ];
  const glass = breakGlassSection(record);
  const reason = record.intent.reason;
  if (glass) blocks.push(glass);
  else if (reason) blocks.push(section(`*Reason:* ${userText(reason, 300)}`));
  const outcome = phase === 'end' ? outcomeLine(record) : undefined;
  if (outcome) blocks.push(section(outcome));
  blocks.push(context(`digest of ${phase === 'start' ? 'the start' : 'the end'} · ${slackDate(ctx.now)}`));
  const text = `${breakGlassPrefix(record)}${record.id} (${record.kind} ${target}) ${phase === 'start' ? 'started' : 'ended'}: ${record.state}`;
  return enforceLimits({ text: escapeText(text), blocks });
}
