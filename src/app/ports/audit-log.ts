// The audit log port (docs/audit.md): one hash chain of audit events per store, appended in order and read by seq,
// and the webhook's delivery position next to it. Redis in store/audit-log.ts, memory in store/memory/audit-log.ts.
import type { AuditDraft, AuditEvent, ChainLink } from '../../domain/kit/audit/event.js';

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
