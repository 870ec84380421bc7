// The compare-and-set loop both operation stores share (Redis and memory): read, decide, check the transitions,
// commit only if the version did not move, else read and decide again; so both keep exactly the same semantics.
import { applyChange, type HistoryEntry, type OperationRecord, type OrderMove } from '../domain/engines/operation.js';
import type { ApplyResult, Decide, TransitionRequest } from '../app/ports/operation-store.js';

/** Commit attempts before a change that keeps losing the race is given up (it is then refused, not thrown). */
export const MAX_ATTEMPTS = 20;

/** `['ok', ticket]`: the order ticket when the change joined the target's order, else -1. */
export type CommitReply = ['ok', number] | ['exists'] | ['missing'] | ['conflict'];

/** What a store provides to the loop: reads, the atomic commit, and what to do after one. */
export interface CommitSide {
  get(id: string): Promise<OperationRecord | undefined>;
  now(): number;
  /** Writes `next` only if the stored record is still `current` (by version); `current` undefined: must not exist. */
  commit(
    current: OperationRecord | undefined,
    next: OperationRecord,
    entries: HistoryEntry[],
    order: OrderMove,
  ): Promise<CommitReply>;
  /** The record with its MAC as it is to be written (docs/lifecycle.md#record-integrity). */
  seal(current: OperationRecord | undefined, next: OperationRecord): OperationRecord;
  /** After a successful commit (replica waits, observers); never undoes it. */
  committed(record: OperationRecord, entries: readonly HistoryEntry[]): Promise<void>;
}

export async function applyWithRetries(side: CommitSide, id: string, decide: Decide): Promise<ApplyResult> {
  for (let attempt = 1; ; attempt++) {
    const current = await side.get(id);
    if (current === undefined) return { ok: false, reason: `${id} not found` };
    const decided = decide(current);
    if ('refuse' in decided) return { ok: false, reason: decided.refuse, record: current };
    const outcome = applyChange(current, decided, side.now());
    if (!outcome.ok) return { ok: false, reason: outcome.reason, record: current };
    const next = side.seal(current, outcome.record);
    const reply = await side.commit(current, next, outcome.entries, outcome.order);
    if (reply[0] === 'ok') {
      const record = outcome.order === 'join' ? { ...next, firstQueuedSeq: reply[1] } : next;
      await side.committed(record, outcome.entries);
      return { ok: true, record, entries: outcome.entries };
    }
    if (reply[0] === 'missing') return { ok: false, reason: `${id} not found` };
    if (attempt >= MAX_ATTEMPTS) {
      return {
        ok: false,
        reason: `${id} kept changing while this change was decided (${attempt} attempts); try again`,
        record: current,
      };
    }
    await backoff(attempt);
  }
}

/** The `decide` of one state transition, refused unless the record is currently in one of `request.from`. */
export function transitionDecide(id: string, request: TransitionRequest): Decide {
  return (current) => {
    if (!request.from.includes(current.state)) {
      return {
        refuse: `${id} is ${current.state} now; ${request.from.join(' or ')} → ${request.to} no longer applies`,
      };
    }
    const entry = {
      type: 'state',
      name: request.to,
      actor: request.actor,
      role: request.role,
      detail: request.detail,
    } as const;
    return { set: request.set, entries: [entry] };
  };
}

/** Observers (metrics) never fail a commit that already happened. */
export function observe(
  onCommitted: ((record: OperationRecord, entries: readonly HistoryEntry[]) => void) | undefined,
  record: OperationRecord,
  entries: readonly HistoryEntry[],
): void {
  try {
    onCommitted?.(record, entries);
  } catch {
    // A broken observer loses a count, never an operation.
  }
}

export function checkLimit(limit: number): number {
  if (!Number.isInteger(limit) || limit < 1) throw new Error(`limit must be a positive integer, got ${limit}`);
  return limit;
}

/** Jittered, so racing replicas do not retry in lockstep (every compare-and-set retry of the stores). */
export async function backoff(attempt: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(attempt, 10)));
}
