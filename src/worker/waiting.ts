// What the thread hears while an operation waits for evidence: a failure the operator may still recover from (when
// first seen, with the time it turns FAILED, and when it clears), and retried stops; timed from the worker's clock.
import type { EvidenceVerdict } from '../domain/kit/evidence/types.js';
import type { EntryInput, HistoryEntry } from '../domain/engines/operation.js';
import { entry, type Run } from './context.js';

/** `blocked`/`cleared`/`retrying` notes: the names the thread renders and the history keeps. */
export const WAITING_NOTE = { blocked: 'blocked', cleared: 'cleared', retrying: 'retrying' } as const;

export interface WaitingState {
  /** Transient failure key → ms (worker clock) it was first seen in its current episode. */
  since: Record<string, number>;
  /** What a previous verdict said about each key (for the `cleared` line). */
  what: Record<string, string>;
  /** Alert keys already said in the thread. */
  said: Set<string>;
}

/** Rebuilt from the history, so a worker that takes over keeps the first sighting and says nothing twice. */
export function waitingStateOf(history: readonly HistoryEntry[]): WaitingState {
  const state: WaitingState = { since: {}, what: {}, said: new Set() };
  for (const e of history) {
    if (e.type !== 'note') continue;
    const key = typeof e.detail.key === 'string' ? e.detail.key : undefined;
    if (key === undefined) continue;
    if (e.name === WAITING_NOTE.blocked) {
      state.since[key] = typeof e.detail.since === 'number' ? e.detail.since : e.at;
      state.what[key] = typeof e.detail.what === 'string' ? e.detail.what : key;
    } else if (e.name === WAITING_NOTE.cleared) {
      delete state.since[key];
    } else if (e.name === WAITING_NOTE.retrying) {
      state.said.add(key);
    }
  }
  return state;
}

function clock(ms: number): string {
  return `${new Date(ms).toISOString().slice(11, 19)} UTC`;
}

/** The notes this verdict adds, updating `state` as if they were committed. */
export function waitingNotes(run: Run, verdict: EvidenceVerdict, state: WaitingState): EntryInput[] {
  const notes: EntryInput[] = [];
  const current = verdict.outcome === 'pending' ? (verdict.transient ?? []) : [];
  for (const t of current) {
    if (Object.hasOwn(state.since, t.key)) continue;
    state.since[t.key] = t.since;
    state.what[t.key] = t.what;
    const message = `blocked by ${t.what}; the operator may still recover it — FAILED if it persists until ${clock(t.until)}`;
    notes.push(
      entry(run, 'note', WAITING_NOTE.blocked, { key: t.key, what: t.what, since: t.since, until: t.until, message }),
    );
  }
  if (verdict.outcome !== 'failed') {
    for (const key of Object.keys(state.since)) {
      if (current.some((t) => t.key === key)) continue;
      delete state.since[key];
      notes.push(
        entry(run, 'note', WAITING_NOTE.cleared, {
          key,
          message: `recovered: ${state.what[key] ?? key} no longer holds`,
        }),
      );
    }
  }
  const alerts = verdict.outcome === 'pending' ? (verdict.alerts ?? []) : [];
  for (const alert of alerts) {
    if (state.said.has(alert.key)) continue;
    state.said.add(alert.key);
    notes.push(entry(run, 'note', WAITING_NOTE.retrying, { key: alert.key, message: alert.message }));
  }
  return notes;
}

/** When the next transient failure turns FAILED if nothing changes (so the wait wakes up for it). */
export function nextGraceEnd(verdict: EvidenceVerdict): number | undefined {
  if (verdict.outcome !== 'pending' || verdict.transient === undefined || verdict.transient.length === 0)
    return undefined;
  return Math.min(...verdict.transient.map((t) => t.until));
}
