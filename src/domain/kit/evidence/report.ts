// Evidence in words: the one-line summary of a verdict and what a TIMED_OUT operation records.
import type { Criterion, EvidenceVerdict } from './types.js';

const MAX_OBSERVED = 80;

/** An observed value as a short phrase: `UPGRADING`, `generation=8, observedGeneration=7`, `not seen`. */
export function formatObserved(value: unknown): string {
  if (value === null || value === undefined) return 'not seen';
  if (Array.isArray(value)) return value.length === 0 ? 'none' : value.map((v) => formatObserved(v)).join(' | ');
  let text: string;
  if (typeof value === 'object') {
    text = Object.entries(value)
      .filter(([, v]) => v !== undefined && v !== null)
      .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
      .join(', ');
    if (text === '') text = 'not seen';
  } else {
    text = typeof value === 'string' ? value : JSON.stringify(value);
  }
  return text.length > MAX_OBSERVED ? `${text.slice(0, MAX_OBSERVED - 1)}…` : text;
}

function unmetList(criteria: readonly Criterion[]): string {
  return criteria
    .filter((c) => !c.met && c.name !== 'no-blocking-warnings')
    .map((c) => `${c.name} (${formatObserved(c.observed)})`)
    .join(', ');
}

function counted(criteria: readonly Criterion[]): string {
  return `${criteria.filter((c) => c.met).length} of ${criteria.length} criteria met`;
}

function reasons(blocking: readonly string[]): string {
  // "Warning ValidationError at …: msg" → "ValidationError": the summary names them, the report quotes them.
  return blocking.map((b) => (b.startsWith('Warning ') ? (b.split(' ')[1] ?? b) : b)).join(', ');
}

/** One line for the thread and the card. */
export function summarize(v: EvidenceVerdict): string {
  switch (v.outcome) {
    case 'completed':
      return `${counted(v.criteria)}; proof depth: ${v.proof.verified.join('; ')}`;
    case 'failed':
      return `${v.rollback ? 'rolled back' : 'failed'}: ${v.reason}`;
    case 'pending': {
      const waiting = unmetList(v.criteria);
      const parts = [counted(v.criteria)];
      if (waiting !== '') parts.push(`waiting for ${waiting}`);
      const warnings = v.blocking.filter((b) => b.startsWith('Warning '));
      const other = v.blocking.filter((b) => !b.startsWith('Warning '));
      parts.push(...other);
      if (warnings.length > 0) parts.push(`blocked by Warning ${reasons(warnings)}`);
      return parts.join('; ');
    }
  }
}

/** What TIMED_OUT records: the unmet criteria of the last observation and the Warnings that blocked it. */
export function timedOutReport(last: EvidenceVerdict): { summary: string; unmet: Criterion[]; blocking: string[] } {
  const unmet = last.criteria.filter((c) => !c.met);
  const blocking = last.outcome === 'pending' ? [...last.blocking] : [];
  if (last.outcome !== 'pending') {
    return {
      summary: `evidence at the deadline was ${last.outcome}, not pending: ${summarize(last)}`,
      unmet,
      blocking,
    };
  }
  const parts = [`evidence incomplete at the deadline: ${counted(last.criteria)}`];
  const waiting = unmetList(last.criteria);
  if (waiting !== '') parts.push(`unmet: ${waiting}`);
  if (blocking.length > 0) parts.push(`blocking Warning events: ${blocking.join(' | ')}`);
  const alert = last.alerts?.at(-1)?.message;
  if (alert !== undefined) parts.push(`last: ${alert}`);
  return { summary: parts.join('; '), unmet, blocking };
}
