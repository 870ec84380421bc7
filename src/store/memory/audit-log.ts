// The in-memory twin of the audit log and its webhook position (store/audit-log.ts, lua/appendAudit.lua): each append
// seals and commits in one synchronous step, entries carry the stream time Redis files them under, and trimming by
// age never passes the position (docs/audit.md#where-the-chain-is-kept).
import type { AuditDeliveryPosition, AuditLog } from '../../app/ports/audit-log.js';
import {
  GENESIS_HASH,
  sealEvent,
  type AuditDraft,
  type AuditEvent,
  type ChainLink,
} from '../../domain/kit/audit/event.js';
import { checkLimit } from '../apply-loop.js';
import { checkedAfterSeq, checkedPageSize, checkedWindow, streamMs } from '../audit-log.js';
import { checkedRetention } from '../retention.js';
import { viaJson } from './sorted.js';

export interface MemoryAuditLogOptions {
  now?: () => number;
  /** How long events are held (trimmed by age at each append); at least 30 days, default 35. */
  retentionMs?: number;
  /** The webhook's position: when given, no event after it is ever trimmed. */
  position?: MemoryAuditPosition;
}

/** One stream entry: the ms of its id (`<ms>-<seq>`) and the sealed event. */
interface Held {
  ms: number;
  event: AuditEvent;
}

export class MemoryAuditLog implements AuditLog {
  private readonly now: () => number;
  private readonly retentionMs: number;
  private readonly position: MemoryAuditPosition | undefined;
  /** Oldest first, as the stream holds them. */
  private readonly held: Held[] = [];
  private last: ChainLink = { seq: 0, hash: GENESIS_HASH };
  /** The ms of the last entry id ever given (kept when the entry is trimmed, as Redis keeps last-generated-id). */
  private lastMs = 0;

  constructor(opts: MemoryAuditLogOptions = {}) {
    this.now = opts.now ?? Date.now;
    this.retentionMs = checkedRetention(opts.retentionMs);
    this.position = opts.position;
  }

  async append(draft: AuditDraft): Promise<AuditEvent> {
    return this.appendNow(draft);
  }

  /** `append` in one synchronous step, for the memory operation store's commit (as in one Lua script). */
  appendNow(draft: AuditDraft): AuditEvent {
    const event = sealEvent(draft, this.last.seq === 0 ? undefined : this.last);
    const ms = streamMs(event, this.lastMs);
    this.trim();
    this.held.push({ ms, event: viaJson(event) });
    this.last = { seq: event.seq, hash: event.hash };
    this.lastMs = ms;
    return viaJson(event);
  }

  async head(): Promise<ChainLink> {
    return { ...this.last };
  }

  async readAfter(afterSeq: number, limit: number): Promise<AuditEvent[]> {
    checkedAfterSeq(afterSeq);
    checkLimit(limit);
    return this.held
      .filter((h) => h.event.seq > afterSeq)
      .slice(0, limit)
      .map((h) => viaJson(h.event));
  }

  async *range(window: { since?: number; until?: number }, pageSize = 100): AsyncIterable<AuditEvent> {
    const { since, until } = checkedWindow(window);
    checkedPageSize(pageSize);
    // Filed by stream time as Redis pages them, then kept when `at` lies in the window.
    for (const h of [...this.held]) {
      if (h.ms < since) continue;
      if (h.ms > until) return;
      const at = Date.parse(h.event.at);
      if (at >= since && at <= until) yield viaJson(h.event);
    }
  }

  /** Drops the events older than the retention, but none after the webhook's position (exact; Redis' is approximate). */
  private trim(): void {
    const cutoff = this.now() - this.retentionMs;
    const kept = this.position?.current;
    let drop = 0;
    for (const h of this.held) {
      if (h.ms >= cutoff || (kept !== undefined && h.event.seq > kept)) break;
      drop++;
    }
    this.held.splice(0, drop);
  }
}

export class MemoryAuditPosition implements AuditDeliveryPosition {
  private seq: number | undefined;

  /** The stored position, undefined while none was ever stored (then trimming goes by age only). */
  get current(): number | undefined {
    return this.seq;
  }

  async get(): Promise<number> {
    return this.seq ?? 0;
  }

  async advance(seq: number): Promise<void> {
    checkedAfterSeq(seq);
    if (this.seq === undefined || seq > this.seq) this.seq = seq;
  }
}
