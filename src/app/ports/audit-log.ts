// The audit log port (docs/audit.md): one hash chain of audit events per store, appended in order and read by seq,
// and the webhook's delivery position next to it. Redis in store/audit-log.ts, memory in store/memory/audit-log.ts.
import type { AuditDraft, AuditEvent, ChainLink } from '../../domain/kit/audit/event.js';
import type { HistoryEntry, OperationRecord } from '../../domain/engines/operation.js';

export interface AuditLog {
  /**
   * Seals the draft after the chain's head (seq + 1, prevHash = head hash) and appends it, atomically: two writers
   * never give out one seq, and no seq is skipped. Resolves with the sealed event.
   */
  append(draft: AuditDraft): Promise<AuditEvent>;
  /** The newest event's seq and hash; `{seq: 0, hash: GENESIS_HASH}` for a chain with no event yet. */
  head(): Promise<ChainLink>;
  /** Events with seq greater than `afterSeq`, oldest first, at most `limit`. */
  readAfter(afterSeq: number, limit: number): Promise<AuditEvent[]>;
  /** The events still held whose `at` lies in [since, until] (ms; either open), oldest first, in pages. */
  range(window: { since?: number; until?: number }, pageSize?: number): AsyncIterable<AuditEvent>;
}

/** Where the webhook delivery stands: the seq of the last event the receiver acknowledged (0: none yet). */
export interface AuditDeliveryPosition {
  get(): Promise<number>;
  /** Moves the position forward to `seq`; a lower seq than the stored one changes nothing. */
  advance(seq: number): Promise<void>;
}

/**
 * What an operation store needs to write a change's audit events in the same atomic commit as the change
 * (docs/audit.md#what-each-operation-writes): the drafts of its entries, and what to do with them once committed.
 */
export interface OperationAuditing {
  drafts(record: OperationRecord, entries: readonly HistoryEntry[]): AuditDraft[];
  /** After the commit, once per sealed event, in order: the stdout line (docs/audit.md#on-stdout). Never throws. */
  written(events: readonly AuditEvent[]): void;
}

/** An event of no operation change (a refused click, a freeze, a policy load): the recorder gives it id and time. */
export type AuditRecord = Omit<AuditDraft, 'id' | 'at'> & { at?: number };

/** Appends events that belong to no operation change (src/audit/trail.ts); a lost event is logged, never thrown. */
export interface AuditRecorder {
  recordQuietly(record: AuditRecord): Promise<void>;
}
