// Who is asked to approve (docs/policy.md#reaching-approvers): the groups asked, the
// escalation that widens them, the DM rounds an operation's history calls for, and when reminders fall due.
import type { Requirement } from '../../model/decision.js';
import type { HistoryEntry, OperationRecord } from '../operation.js';

/** History `note` names: the reminder, the escalation, and the eligible approvers the DM cap left out. */
export const REMINDER_NOTE = 'reminder';
export const ESCALATED_NOTE = 'escalated';
export const NOT_MESSAGED_NOTE = 'approvers-not-messaged';
/** At most this many people are DMed about one operation (docs/policy.md#reaching-approvers). */
export const MAX_APPROVER_DMS = 20;

/**
 * `decision.breakGlass` (docs/policy.md#break-glass), read defensively: the field arrives with the break-glass work.
 */
interface BreakGlassDecision {
  skippedRequirements?: Requirement[];
}

export function isBreakGlass(record: Pick<OperationRecord, 'intent'>): boolean {
  return (record.intent as { breakGlass?: unknown }).breakGlass === true;
}

function skippedRequirements(record: Pick<OperationRecord, 'decision'>): Requirement[] {
  const breakGlass = (record.decision as { breakGlass?: BreakGlassDecision } | undefined)?.breakGlass;
  return Array.isArray(breakGlass?.skippedRequirements) ? breakGlass.skippedRequirements : [];
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);
const unique = (items: readonly string[]): string[] => [...new Set(items)];

/** The groups an escalation added (recorded on its entry, so a later policy edit does not change who counted). */
export function escalationGroups(history: readonly HistoryEntry[]): string[] {
  return unique(
    history.filter((e) => e.type === 'note' && e.name === ESCALATED_NOTE).flatMap((e) => strings(e.detail.groups)),
  );
}

/**
 * The requirements as approvals are counted: after an escalation, its groups approve as if they were in every
 * rule's groups (docs/policy.md#approvals), so they join each requirement's `from`.
 */
export function effectiveRequirements(record: Pick<OperationRecord, 'decision' | 'history'>): Requirement[] {
  const requirements = record.decision?.requirements ?? [];
  const extra = escalationGroups(record.history);
  if (extra.length === 0) return [...requirements];
  return requirements.map((r) => ({ ...r, from: unique([...r.from, ...extra]) }));
}

/** The groups whose members are asked: `base` first (the rules' groups, or for break-glass the skipped ones), then escalation's. */
export function askedGroups(record: Pick<OperationRecord, 'decision' | 'history' | 'intent'>): {
  base: string[];
  escalation: string[];
} {
  const requirements = isBreakGlass(record) ? skippedRequirements(record) : (record.decision?.requirements ?? []);
  const base = unique(requirements.flatMap((r) => r.from));
  return { base, escalation: escalationGroups(record.history).filter((g) => !base.includes(g)) };
}

/** The latest entry into AWAITING_APPROVAL while the record is still there: the current approval round. */
export function currentRound(record: Pick<OperationRecord, 'state' | 'history'>): HistoryEntry | undefined {
  if (record.state !== 'AWAITING_APPROVAL') return undefined;
  return record.history.findLast((e) => e.type === 'state' && e.name === 'AWAITING_APPROVAL');
}

/** What one DM round is: the approval request, a reminder, an escalation, or a break-glass notice (no buttons). */
export type DmKind = 'request' | 'reminder' | 'escalation' | 'notice';

export interface DmRound {
  /** The history entry that calls for it: its seq keys the round's DMs (`<op>:<seq>:<user>`). */
  seq: number;
  kind: DmKind;
  /** The AWAITING_APPROVAL entry whose plan the round's buttons approve (0 for a notice). */
  round: number;
}

/** The break-glass decision entry: the operation leaving ACCEPTED without approval (docs/policy.md#break-glass). */
function breakGlassEntry(record: OperationRecord): HistoryEntry | undefined {
  if (!isBreakGlass(record)) return undefined;
  return record.history.find(
    (e) => e.type === 'state' && e.detail.from === 'ACCEPTED' && ['QUEUED', 'SCHEDULED'].includes(e.name),
  );
}

/**
 * The DM rounds still worth sending: those of the current approval round (its request, then its reminder and
 * escalation, once each), and a break-glass operation's notice. Rounds of a decided or re-planned round are not.
 */
export function dmRounds(record: OperationRecord): DmRound[] {
  const rounds: DmRound[] = [];
  const notice = breakGlassEntry(record);
  if (notice) rounds.push({ seq: notice.seq, kind: 'notice', round: 0 });
  const current = currentRound(record);
  if (current === undefined) return rounds;
  rounds.push({ seq: current.seq, kind: 'request', round: current.seq });
  for (const entry of record.history) {
    if (entry.seq <= current.seq || entry.type !== 'note') continue;
    if (entry.name === REMINDER_NOTE) rounds.push({ seq: entry.seq, kind: 'reminder', round: current.seq });
    if (entry.name === ESCALATED_NOTE) rounds.push({ seq: entry.seq, kind: 'escalation', round: current.seq });
  }
  return rounds;
}

/** Users who voted for the current plan. */
export function votersOfCurrentPlan(record: Pick<OperationRecord, 'approvals' | 'plan'>): Set<string> {
  return new Set(record.approvals.filter((a) => a.planDigest === record.plan?.digest).map((a) => a.user));
}

export interface TimerSettings {
  remindAfterMs?: number;
  escalateAfterMs?: number;
  escalateTo: readonly string[];
}

export type ApprovalTimer =
  { name: typeof REMINDER_NOTE; dueAt: number } | { name: typeof ESCALATED_NOTE; dueAt: number; groups: string[] };

/**
 * The reminder and escalation due at `now`. Each happens once per operation (docs/policy.md#reaching-approvers),
 * counted from its first entry into AWAITING_APPROVAL: a re-plan sends the new plan to every approver anyway and does
 * not restart them.
 */
export function dueTimers(record: OperationRecord, settings: TimerSettings, now: number): ApprovalTimer[] {
  if (record.state !== 'AWAITING_APPROVAL') return [];
  const entered = record.history.find((e) => e.type === 'state' && e.name === 'AWAITING_APPROVAL')?.at;
  if (entered === undefined) return [];
  const done = new Set(record.history.filter((e) => e.type === 'note').map((e) => e.name));
  const due: ApprovalTimer[] = [];
  if (settings.remindAfterMs !== undefined && !done.has(REMINDER_NOTE) && entered + settings.remindAfterMs <= now) {
    due.push({ name: REMINDER_NOTE, dueAt: entered + settings.remindAfterMs });
  }
  const escalateAt = settings.escalateAfterMs === undefined ? undefined : entered + settings.escalateAfterMs;
  if (escalateAt !== undefined && settings.escalateTo.length > 0 && !done.has(ESCALATED_NOTE) && escalateAt <= now) {
    due.push({ name: ESCALATED_NOTE, dueAt: escalateAt, groups: [...settings.escalateTo] });
  }
  return due;
}
