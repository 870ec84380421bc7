// History entries in words: commands (lock, unlock, cancel), notes such as `stuck`, and one line per entry for `op`.
import type { HistoryEntry, OperationRecord } from '../../domain/engines/operation.js';
import { ESCALATED_NOTE, NOT_MESSAGED_NOTE, REMINDER_NOTE } from '../../domain/engines/policy/approvers.js';
import { detailText, entryCriteria, entryReason } from './parts.js';
import { isRevert, revertText } from './gitops.js';
import { postChangeText } from './post-change.js';
import { escapeKeepMentions, escapeText, oneLine, plural, slackDate, who } from './text.js';

const because = (entry: HistoryEntry): string => {
  const reason = entryReason(entry);
  return reason ? `: ${escapeKeepMentions(oneLine(reason))}` : '';
};

/** `lock` / `unlock` / `cancel` lines as the thread and the audit show them. */
export function describeCommand(entry: HistoryEntry): string {
  const name = entry.name.toLowerCase();
  if (['lock', 'frozen', 'freeze'].includes(name)) {
    return `Target frozen by ${who(entry.actor)}${because(entry)}. New operations on it are refused by policy until it is unlocked.`;
  }
  if (['unlock', 'unfrozen', 'unfreeze'].includes(name))
    return `Target unfrozen by ${who(entry.actor)}${because(entry)}.`;
  if (name === 'cancel') return `${who(entry.actor)} asked to cancel this operation${because(entry)}.`;
  if (name === 'reviewed') return `Break-glass reviewed by ${who(entry.actor)}.`;
  return `\`${escapeText(entry.name)}\` by ${who(entry.actor)}${because(entry)}`;
}

export function describeNote(record: OperationRecord, entry: HistoryEntry): string {
  if (entry.name === 'stuck') {
    const n =
      [entry.detail.reenqueues, entry.detail.count, entry.detail.times].find((v) => typeof v === 'number') ??
      record.reenqueues;
    return `Stuck: re-enqueued ${plural(Number(n), 'time')}; an operator should look.`;
  }
  const people = Array.isArray(entry.detail.users)
    ? entry.detail.users.filter((u): u is string => typeof u === 'string')
    : [];
  const groups = Array.isArray(entry.detail.groups)
    ? entry.detail.groups.filter((g): g is string => typeof g === 'string')
    : [];
  const after = typeof entry.detail.after === 'string' ? ` after ${escapeText(entry.detail.after)}` : '';
  if (entry.name === REMINDER_NOTE)
    return `:bell: Reminder${after}: \`${record.id}\` still waits for approval; approvers who have not voted were reminded.`;
  if (entry.name === ESCALATED_NOTE) {
    return `:arrow_double_up: Escalated${after} to ${groups.map((g) => `*${escapeText(g)}*`).join(', ') || '_nobody_'}: their approval now counts as the rules' groups' would.`;
  }
  if (entry.name === NOT_MESSAGED_NOTE)
    return `${plural(people.length, 'eligible approver')} not messaged (DMs are capped): ${people.map(who).join(', ')}`;
  if (isRevert(entry)) return revertText(entry);
  const afterChange = postChangeText(entry);
  if (afterChange !== undefined) return afterChange;
  // What the worker says while it waits: blocked (with when it turns FAILED), recovered, the operator retrying.
  const message = typeof entry.detail.message === 'string' ? entry.detail.message : undefined;
  if (
    ['blocked', 'cleared', 'retrying', 'unreachable', 'reachable', 'no-worker', 'review-due', 'gitops-paused'].includes(
      entry.name,
    ) &&
    message !== undefined
  ) {
    return escapeText(oneLine(`${message.charAt(0).toUpperCase()}${message.slice(1)}`));
  }
  return `${escapeText(entry.name)}${because(entry)}`;
}

function stateLine(entry: HistoryEntry): string {
  const from = typeof entry.detail.from === 'string' ? ` (from ${escapeText(entry.detail.from)})` : '';
  return `→ *${escapeText(entry.name)}*${from}${because(entry)}`;
}

function whatHappened(record: OperationRecord, entry: HistoryEntry): string {
  switch (entry.type) {
    case 'state':
      return stateLine(entry);
    case 'approval': {
      const rules = Array.isArray(entry.detail.countsFor)
        ? entry.detail.countsFor.filter((r) => typeof r === 'string')
        : [];
      const verb = /reject/i.test(entry.name) ? 'rejected' : 'approved';
      return `${verb}${rules.length > 0 ? ` (counts for ${rules.map((r) => escapeText(r)).join(', ')})` : ''}${because(entry)}`;
    }
    case 'waiting':
      return `waiting behind ${escapeText(detailText(entry, 'behind', 'opId', 'holder', 'waitingFor') ?? entry.name)}`;
    case 'replanned': {
      const after = detailText(entry, 'after', 'behind', 'opId');
      const revision = typeof entry.detail.revision === 'number' ? ` as revision ${entry.detail.revision}` : '';
      return `re-planned${after ? ` after ${escapeText(after)}` : ''}${revision}`;
    }
    case 'retry':
      return `submitting again${because(entry)}`;
    case 'evidence': {
      const met = entryCriteria(entry)
        .filter((c) => c.met)
        .map((c) => `\`${escapeText(c.name)}\``);
      return `evidence: ${met.length > 0 ? met.join(', ') : escapeText(entry.name)} met`;
    }
    case 'command':
      return describeCommand(entry);
    case 'note':
      return describeNote(record, entry);
  }
}

/** `#3 · <date> · <@U…> · → QUEUED (from AWAITING_APPROVAL)`: one history entry on one line. */
export function historyLine(record: OperationRecord, entry: HistoryEntry): string {
  return `#${entry.seq} · ${slackDate(entry.at)} · ${who(entry.actor)} · ${whatHappened(record, entry)}`;
}
