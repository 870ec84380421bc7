// Pieces several messages share: the intent in words, the diff, checks, approvals, evidence and why a state was reached.
import { tally } from '../../domain/kit/policy/approval.js';
import type { Approval, CheckOutcome, CheckResult, PolicyDecision, Requirement } from '../../domain/model/decision.js';
import { summarize } from '../../domain/kit/evidence/report.js';
import type { Criterion, EvidenceVerdict } from '../../domain/kit/evidence/types.js';
import { describeIntent, type OperationIntent } from '../../domain/kinds/index.js';
import type { HistoryEntry, OperationRecord } from '../../domain/engines/operation.js';
import type { FieldChange, Plan } from '../../domain/model/plan.js';
import { shownAt } from '../../domain/model/secret-config.js';
import { either, escapeKeepMentions, escapeText, formatValue, oneLine, plural, slackDate, who } from './text.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);

/** `scale streaming-prod/orders to parallelism 8`: what was asked, with its arguments, escaped. */
export function intentLine(intent: OperationIntent, target?: OperationRecord['target']): string {
  return escapeText(describeIntent(intent, target));
}

/**
 * `spec.job.parallelism: 4 → 8` per field, in code style so values read exactly; a secret configuration value as
 * `•••` (docs/policy.md#secret-values).
 */
export function diffLines(diff: readonly FieldChange[]): string[] {
  return diff.map((c) => {
    const line = `${c.path}: ${formatValue(shownAt(c.path, c.before))} → ${formatValue(shownAt(c.path, c.after))}`;
    return `\`${escapeText(line).replaceAll('`', "'")}\``;
  });
}

export function planLines(plan: Plan): string[] {
  const lines = diffLines(plan.diff);
  if (lines.length === 0) lines.push('_no field changes_');
  for (const note of plan.notes) lines.push(`_Note:_ ${escapeKeepMentions(oneLine(note))}`);
  return lines;
}

export function planTitle(plan: Plan): string {
  const bits = [
    plan.revision > 1 ? `revision ${plan.revision}` : '',
    plan.effectiveUpgradeMode ? `upgrade mode ${plan.effectiveUpgradeMode}` : '',
  ];
  const extra = bits.filter(Boolean).join(', ');
  return extra === '' ? 'Plan' : `Plan (${extra})`;
}

const MARK: Record<CheckOutcome, string> = { pass: ':white_check_mark:', warn: ':warning:', fail: ':x:' };

export function checkLines(checks: readonly CheckResult[]): string[] {
  return checks.map(
    (c) =>
      `${MARK[c.outcome] ?? '•'} *${c.outcome}* \`${escapeText(c.name)}\`: ${escapeKeepMentions(oneLine(c.message))}`,
  );
}

export function reasonLines(decision: PolicyDecision | undefined): string[] {
  if (decision?.outcome !== 'deny') return [];
  return decision.reasons.map((r) => `• ${escapeKeepMentions(oneLine(r))}`);
}

function groupsText(from: readonly string[]): string {
  return either(from.map((g) => `*${escapeText(g)}*`));
}

/** One line per rule: who must approve, and (while waiting) how many are still needed. */
export function requirementLines(
  requirements: readonly Requirement[],
  approvals: readonly Approval[],
  digest: string,
  waiting: boolean,
): string[] {
  const remaining = new Map(tally(requirements, approvals, digest).remaining.map((r) => [r.rule, r.needed]));
  return requirements.map((r) => {
    const needed = remaining.get(r.rule) ?? 0;
    const head = `• \`${escapeText(r.rule)}\`: ${plural(r.approvals, 'approval')} from ${groupsText(r.from)}`;
    if (needed === 0) return `${head} — met`;
    return waiting ? `${head} — *${needed} more needed*` : head;
  });
}

export function approvalLines(approvals: readonly Approval[], digest: string | undefined): string[] {
  return approvals.map((a) => {
    const stale = digest !== undefined && a.planDigest !== digest ? ' _(for an earlier plan; not counted)_' : '';
    const counts = a.countsFor.length > 0 ? ` for ${a.countsFor.map((r) => `\`${escapeText(r)}\``).join(', ')}` : '';
    return `• ${who(a.user)} approved ${slackDate(a.at)}${counts}${stale}`;
  });
}

/** "1 approval from leads": what a waiting operation still needs, or undefined when nothing is missing. */
export function stillNeeded(record: OperationRecord): string | undefined {
  const reqs = record.decision?.requirements ?? [];
  if (!record.plan || reqs.length === 0) return undefined;
  const { remaining } = tally(reqs, record.approvals, record.plan.digest);
  if (remaining.length === 0) return undefined;
  return remaining.map((r) => `${plural(r.needed, 'approval')} from ${either(r.from.map(escapeText))}`).join(' and ');
}

// ---- evidence, read defensively: the worker owns its shape ----

export interface EvidenceView {
  verdict?: EvidenceVerdict;
  summary?: string;
  criteria: Criterion[];
  unmet: Criterion[];
  blocking: string[];
}

export function isCriterion(v: unknown): v is Criterion {
  return isObj(v) && typeof v.name === 'string' && typeof v.met === 'boolean';
}

function isVerdict(v: unknown): v is EvidenceVerdict {
  return (
    isObj(v) &&
    ['pending', 'completed', 'failed'].includes(String(v.outcome)) &&
    Array.isArray(v.criteria) &&
    v.criteria.every(isCriterion)
  );
}

const strings = (v: unknown): string[] | undefined =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined;

export function readEvidence(raw: unknown): EvidenceView {
  const o = isObj(raw) ? raw : {};
  const verdict = isVerdict(o.verdict) ? o.verdict : isVerdict(o) ? o : undefined;
  const criteria = Array.isArray(o.criteria) ? o.criteria.filter(isCriterion) : (verdict?.criteria ?? []);
  const unmet = Array.isArray(o.unmet) ? o.unmet.filter(isCriterion) : criteria.filter((c) => !c.met);
  const blocking = strings(o.blocking) ?? (verdict?.outcome === 'pending' ? verdict.blocking : []);
  const summary = str(o.summary) ?? (verdict ? summarize(verdict) : undefined);
  return { ...(verdict ? { verdict } : {}), ...(summary ? { summary } : {}), criteria, unmet, blocking };
}

/** Criteria reported met by `evidence` history entries (detail.criteria), latest observation per name. */
export function criteriaFromHistory(record: OperationRecord): Criterion[] {
  const byName = new Map<string, Criterion>();
  for (const e of record.history) {
    if (e.type !== 'evidence') continue;
    for (const c of entryCriteria(e)) byName.set(c.name, c);
  }
  return [...byName.values()];
}

export function entryCriteria(entry: HistoryEntry): Criterion[] {
  const list = entry.detail.criteria;
  if (Array.isArray(list)) return list.filter(isCriterion);
  // One criterion per entry is allowed too: its name is the entry's name.
  if ('observed' in entry.detail || 'source' in entry.detail) {
    return [
      {
        name: entry.name,
        met: true,
        observed: entry.detail.observed,
        source: String(entry.detail.source ?? ''),
        at: entry.at,
      },
    ];
  }
  return [];
}

// ---- why a state was reached ----

export function lastStateEntry(record: OperationRecord): HistoryEntry | undefined {
  for (let i = record.history.length - 1; i >= 0; i--) {
    const e = record.history[i];
    if (e?.type === 'state' && e.name === record.state) return e;
  }
  return undefined;
}

/** The plain-words reason a writer put in an entry's detail (`reason`, `message`, `why` or `error`). */
export function entryReason(entry: HistoryEntry | undefined): string | undefined {
  const d = entry?.detail ?? {};
  return str(d.reason) ?? str(d.message) ?? str(d.why) ?? str(d.error);
}

/** A string field of an entry's detail, if present. */
export function detailText(entry: HistoryEntry, ...keys: string[]): string | undefined {
  for (const k of keys) {
    const v = str(entry.detail[k]);
    if (v) return v;
  }
  return undefined;
}
