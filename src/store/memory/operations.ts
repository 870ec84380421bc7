// The in-memory twin of the operation store (store/operations.ts): the same compare-and-set commits, indexes, FIFO
// order and retention as lua/commitOperation.lua, on an injected clock; for unit tests of the services and the worker.
import { type HistoryEntry, type OperationRecord, type OrderMove } from '../../domain/engines/operation.js';
import { isTerminal, type ActiveState } from '../../domain/model/lifecycle.js';
import { targetKey, type Target } from '../../domain/model/target.js';
import type {
  ApplyResult,
  CreateResult,
  Decide,
  NewOperation,
  OperationStore,
  TransitionRequest,
} from '../../app/ports/operation-store.js';
import { applyWithRetries, checkLimit, observe, transitionDecide, type CommitReply } from '../apply-loop.js';
import { checkedRetention } from '../retention.js';
import { processRecordKey, type RecordKey } from '../../config/record-key.js';
import { resealed, sealedInitialRecord } from '../../domain/engines/record-seal.js';
import { alive, SortedSet } from './sorted.js';
import type { OperationAuditing } from '../../app/ports/audit-log.js';
import type { MemoryAuditLog } from './audit-log.js';

export interface MemoryOperationStoreOptions {
  /**
   * The key records are sealed with (docs/lifecycle.md#record-integrity); default the process's own
   * (config/record-key.ts).
   */
  recordKey?: RecordKey;
  now?: () => number;
  /** How long terminal records and index entries are kept; at least 30 days (default 35), as on Redis. */
  retentionMs?: number;
  onCommitted?: (record: OperationRecord, entries: readonly HistoryEntry[]) => void;
  /** The change's audit events, appended to `log` in the same synchronous step as the commit. */
  audit?: { auditing: OperationAuditing; log: MemoryAuditLog };
}

interface Stored {
  /** The record as Redis would hold it: JSON, so every read hands out a fresh copy. */
  json: string;
  version: number;
  expiresAt: number | undefined;
}

/** What one Redis would hold for the store: several stores (replicas) may share it. */
interface OperationData {
  records: Map<string, Stored>;
  recent: SortedSet;
  byTarget: Map<string, { set: SortedSet; expiresAt: number }>;
  /** Non-terminal operations only, id → state (insertion order, like a small Redis hash). */
  active: Map<string, ActiveState>;
  expiry: SortedSet;
  namespaces: SortedSet;
  orders: Map<string, SortedSet>;
  tickets: { last: number };
}

function emptyData(): OperationData {
  return {
    records: new Map(),
    recent: new SortedSet(),
    byTarget: new Map(),
    active: new Map(),
    expiry: new SortedSet(),
    namespaces: new SortedSet(),
    orders: new Map(),
    tickets: { last: 0 },
  };
}

export class MemoryOperationStore implements OperationStore {
  private readonly now: () => number;
  private readonly retentionMs: number;
  private readonly onCommitted: MemoryOperationStoreOptions['onCommitted'];
  private readonly audit: MemoryOperationStoreOptions['audit'];
  private readonly recordKey: RecordKey;

  constructor(
    opts: MemoryOperationStoreOptions = {},
    private readonly data: OperationData = emptyData(),
  ) {
    this.now = opts.now ?? Date.now;
    this.retentionMs = checkedRetention(opts.retentionMs);
    this.onCommitted = opts.onCommitted;
    this.audit = opts.audit;
    this.recordKey = opts.recordKey ?? processRecordKey();
  }

  /** Another store over the same data with its own options: another process on the same Redis. */
  replica(opts: MemoryOperationStoreOptions = {}): MemoryOperationStore {
    return new MemoryOperationStore(opts, this.data);
  }

  async create(fields: NewOperation, actor: string): Promise<CreateResult> {
    const record = sealedInitialRecord(
      { ...fields, approvals: fields.approvals ?? [], reenqueues: fields.reenqueues ?? 0 },
      actor,
      this.now(),
      this.recordKey,
    );
    const reply = this.commitNow(undefined, record, record.history, 'stay');
    if (reply[0] === 'exists') return { ok: false, reason: 'exists' };
    return { ok: true, record };
  }

  async get(id: string): Promise<OperationRecord | undefined> {
    const stored = this.live(id);
    return stored === undefined ? undefined : (JSON.parse(stored.json) as OperationRecord);
  }

  async getMany(ids: readonly string[]): Promise<OperationRecord[]> {
    return ids.flatMap((id) => {
      const stored = this.live(id);
      return stored === undefined ? [] : [JSON.parse(stored.json) as OperationRecord];
    });
  }

  async apply(id: string, decide: Decide): Promise<ApplyResult> {
    return applyWithRetries(
      {
        get: (opId) => this.get(opId),
        now: this.now,
        seal: (current, next) => resealed(current, next, this.recordKey),
        commit: async (current, next, entries, order) => this.commitNow(current, next, entries, order),
        committed: async (record, entries) => observe(this.onCommitted, record, entries),
      },
      id,
      decide,
    );
  }

  async transition(id: string, request: TransitionRequest): Promise<ApplyResult> {
    return this.apply(id, transitionDecide(id, request));
  }

  async recent(limit: number): Promise<OperationRecord[]> {
    return this.getMany(
      this.data.recent
        .descending()
        .slice(0, checkLimit(limit))
        .map(([id]) => id),
    );
  }

  async recentForTarget(target: Target, limit: number): Promise<OperationRecord[]> {
    checkLimit(limit);
    const index = this.data.byTarget.get(targetKey(target));
    if (index === undefined || !alive(index.expiresAt, this.now())) return [];
    return this.getMany(
      index.set
        .descending()
        .slice(0, limit)
        .map(([id]) => id),
    );
  }

  async activeIds(): Promise<string[]> {
    return [...this.data.active.keys()];
  }

  async byState(state: ActiveState): Promise<string[]> {
    if (isTerminal(state)) throw new Error(`byState covers non-terminal states only, not ${state as string}`);
    return [...this.data.active].flatMap(([id, s]) => (s === state ? [id] : []));
  }

  async expiredAwaitingApproval(now: number): Promise<string[]> {
    return this.data.expiry.upTo(now);
  }

  async namespacesOfRecentOperations(): Promise<string[]> {
    const since = this.now() - this.retentionMs;
    return this.data.namespaces
      .ascending()
      .flatMap(([name, at]) => (at >= since ? [name] : []))
      .sort();
  }

  /** The target's FIFO order, head first (as the Redis store's `orderOf`). */
  async orderOf(target: Target): Promise<string[]> {
    return [...this.targetOrder(target)];
  }

  async head(target: Target): Promise<string | undefined> {
    return this.targetOrder(target)[0];
  }

  /** The order read in the same step as the caller's own change (the lease twin's acquire is atomic with it). */
  targetOrder(target: Target): readonly string[] {
    return (this.data.orders.get(targetKey(target))?.ascending() ?? []).map(([id]) => id);
  }

  private live(id: string): Stored | undefined {
    const stored = this.data.records.get(id);
    if (stored !== undefined && !alive(stored.expiresAt, this.now())) {
      this.data.records.delete(id);
      return undefined;
    }
    return stored;
  }

  /** lua/commitOperation.lua, step by step, in one synchronous step (nothing interleaves, as nothing does in Lua). */
  private commitNow(
    current: OperationRecord | undefined,
    next: OperationRecord,
    entries: readonly HistoryEntry[],
    order: OrderMove,
  ): CommitReply {
    const stored = this.live(next.id);
    if (current === undefined) {
      if (stored !== undefined) return ['exists'];
    } else {
      if (stored === undefined) return ['missing'];
      if (stored.version !== current.version) return ['conflict'];
    }
    const now = this.now();
    const ticket = this.moveInOrder(next, order);
    const record = ticket >= 0 ? { ...next, firstQueuedSeq: ticket } : next;
    const terminal = isTerminal(next.state);
    this.data.records.set(next.id, {
      json: JSON.stringify(record),
      version: record.version,
      expiresAt: terminal ? now + this.retentionMs : undefined,
    });
    if (terminal) this.data.active.delete(next.id);
    else this.data.active.set(next.id, next.state as ActiveState);
    if (next.state === 'AWAITING_APPROVAL' && next.expiresAt !== undefined)
      this.data.expiry.add(next.id, next.expiresAt);
    else this.data.expiry.remove(next.id);
    this.index(next, now);
    if (this.audit) {
      const events = this.audit.auditing.drafts(next, entries).map((draft) => this.audit?.log.appendNow(draft));
      this.audit.auditing.written(events.filter((e) => e !== undefined));
    }
    return ['ok', ticket];
  }

  /** Joining takes the next ticket (the back of the order); leaving drops out; -1 when it did not join. */
  private moveInOrder(next: OperationRecord, order: OrderMove): number {
    const key = targetKey(next.target);
    if (order === 'join') {
      const set = this.data.orders.get(key) ?? new SortedSet();
      this.data.orders.set(key, set);
      this.data.tickets.last += 1;
      set.add(next.id, this.data.tickets.last);
      return this.data.tickets.last;
    }
    if (order === 'leave') this.data.orders.get(key)?.remove(next.id);
    return -1;
  }

  /** The recent, per-target and namespace indexes, trimmed by age on every commit as the script trims them. */
  private index(next: OperationRecord, now: number): void {
    const stale = now - this.retentionMs;
    this.data.recent.add(next.id, next.createdAt);
    this.data.recent.removeBelow(stale);
    const key = targetKey(next.target);
    const held = this.data.byTarget.get(key);
    const set = held !== undefined && alive(held.expiresAt, now) ? held.set : new SortedSet();
    set.add(next.id, next.createdAt);
    set.removeBelow(stale);
    this.data.byTarget.set(key, { set, expiresAt: now + this.retentionMs });
    this.data.namespaces.add(next.target.namespace, now);
    this.data.namespaces.removeBelow(stale);
  }
}
