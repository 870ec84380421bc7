// The state machine (docs/lifecycle.md#transitions): every (from, to) pair, and who writes it.
import { describe, expect, it } from 'vitest';
import {
  ACTOR_ROLES,
  NEW_STATE,
  OPERATION_STATES,
  TERMINAL_STATES,
  canTransition,
  checkTransition,
  writerOf,
  writersOf,
  type ActorRole,
  type FromState,
} from '../../../../src/domain/model/lifecycle.js';

// The block of docs/lifecycle.md#transitions, transcribed line by line ("worker or sweep" means either may write it).
// QUEUED → SCHEDULED is a window operation that could not start before its window closed going back for the next
// opening.
const DOC_TRANSITIONS = `
(new) → ACCEPTED                                                   bot
ACCEPTED → DENIED | AWAITING_APPROVAL | SCHEDULED | QUEUED | CANCELLED   bot
AWAITING_APPROVAL → SCHEDULED | QUEUED | REJECTED | CANCELLED | ABORTED   bot
AWAITING_APPROVAL → EXPIRED                                         sweep
AWAITING_APPROVAL → AWAITING_APPROVAL                               bot
SCHEDULED → QUEUED | ABORTED | EXPIRED                              worker or sweep
SCHEDULED → CANCELLED                                               bot
QUEUED → SUBMITTING | ABORTED | AWAITING_APPROVAL                   worker
QUEUED → SCHEDULED                                                  worker
QUEUED → CANCELLED                                                  bot
SUBMITTING → SUBMITTED | UNCERTAIN | FAILED | ABORTED | SUBMITTING  worker
UNCERTAIN → SUBMITTING | SUBMITTED | ABORTED                        worker
SUBMITTED → COMPLETED | FAILED | TIMED_OUT                          worker
`;

function expectedTable(): Map<string, ActorRole[]> {
  const table = new Map<string, ActorRole[]>();
  for (const line of DOC_TRANSITIONS.trim().split('\n')) {
    const match = /^(\S+) → (.+?)\s+((?:bot|worker|sweep)(?: or (?:bot|worker|sweep))*)$/.exec(line.trim());
    if (!match) throw new Error(`cannot read line: ${line}`);
    const [, from, tos, roles] = match as unknown as [string, string, string, string];
    for (const to of tos.split('|').map((s) => s.trim()))
      table.set(`${from} → ${to}`, roles.split(' or ') as ActorRole[]);
  }
  return table;
}

const EXPECTED = expectedTable();
const FROM_STATES: FromState[] = [NEW_STATE, ...OPERATION_STATES];
const PAIRS = FROM_STATES.flatMap((from) =>
  OPERATION_STATES.map((to) => ({ from, to, writer: EXPECTED.get(`${from} → ${to}`) })),
);

describe('the transition table', () => {
  it('covers every state and (new): 16 × 15 pairs, 33 of them legal', () => {
    expect(PAIRS).toHaveLength(16 * 15);
    expect(PAIRS.filter((p) => p.writer !== undefined)).toHaveLength(EXPECTED.size);
    expect(EXPECTED.size).toBe(33);
  });

  it.each(PAIRS)('$from → $to: writer $writer', ({ from, to, writer }) => {
    expect(canTransition(from, to)).toBe(writer !== undefined);
    expect(writersOf(from, to)).toEqual(writer ?? []);
    expect(writerOf(from, to)).toBe(writer?.join(' or '));
    for (const role of ACTOR_ROLES) {
      const check = checkTransition(from, to, role);
      expect(check.ok).toBe(writer?.includes(role) ?? false);
      if (!check.ok) expect(check.reason).toContain(`${from} → ${to}`);
    }
  });

  it('has no way out of a terminal state, and every other state has one', () => {
    expect([...TERMINAL_STATES].sort()).toEqual([
      'ABORTED',
      'CANCELLED',
      'COMPLETED',
      'DENIED',
      'EXPIRED',
      'FAILED',
      'REJECTED',
      'TIMED_OUT',
    ]);
    for (const from of OPERATION_STATES) {
      const exits = OPERATION_STATES.filter((to) => canTransition(from, to));
      expect(exits.length === 0).toBe((TERMINAL_STATES as readonly string[]).includes(from));
    }
  });
});
