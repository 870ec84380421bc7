// The operation store port: records changed only by compare-and-set commits that append their history entries and
// keep the indexes and each target's FIFO order (docs/lifecycle.md#records-and-the-event-stream,
// docs/lifecycle.md#queue-order-and-leases); store/operations.ts on Redis, store/memory/operations.ts in memory.
import type { Approval } from '../../domain/model/decision.js';
import type { Change, HistoryEntry, MutableFields, OperationRecord } from '../../domain/engines/operation.js';
import type { ActiveState, ActorRole, OperationState } from '../../domain/model/lifecycle.js';
import type { Target } from '../../domain/model/target.js';

export type { Change };

/** What `decide` returns to refuse: nothing is written and the reason comes back to the caller. */
export interface Refusal {
  refuse: string;
}
export type Decide = (current: OperationRecord) => Change | Refusal;

export type NewOperation = Omit<
  OperationRecord,
  'version' | 'history' | 'state' | 'createdAt' | 'updatedAt' | 'approvals' | 'reenqueues' | 'firstQueuedSeq'
> & { approvals?: Approval[]; reenqueues?: number };

export type CreateResult = { ok: true; record: OperationRecord } | { ok: false; reason: 'exists' };
export type ApplyResult =
  | { ok: true; record: OperationRecord; entries: HistoryEntry[] }
  | { ok: false; reason: string; record?: OperationRecord };

export interface TransitionRequest {
  /** States the caller expects the record to be in; any other current state refuses. */
  from: readonly OperationState[];
  to: OperationState;
  actor: string;
  role: ActorRole;
  detail?: Record<string, unknown>;
  set?: MutableFields;
}

/**
 * Records are kept at least 30 days after they end (docs/lifecycle.md#records-and-the-event-stream); a record that is
 * gone reads as undefined and is left out of lists. Every method but `create`, `apply` and `transition`
 * only reads.
 */
export interface OperationStore {
  /** Records a new operation as ACCEPTED with its `(new) → ACCEPTED` entry; refuses an id already taken. */
  create(fields: NewOperation, actor: string): Promise<CreateResult>;
  get(id: string): Promise<OperationRecord | undefined>;
  /** Records in the order of `ids`; ids whose record is gone (expired) are left out. */
  getMany(ids: readonly string[]): Promise<OperationRecord[]>;
  /**
   * Reads the record, lets `decide` choose a change, checks every transition in it and commits it only if nobody
   * else committed in between; otherwise reads again and asks `decide` again (bounded, then refused).
   */
  apply(id: string, decide: Decide): Promise<ApplyResult>;
  /** One state transition, refused unless the record is currently in one of `request.from`. */
  transition(id: string, request: TransitionRequest): Promise<ApplyResult>;
  /** Newest first, across all targets. */
  recent(limit: number): Promise<OperationRecord[]>;
  /** Newest first, for one target. */
  recentForTarget(target: Target, limit: number): Promise<OperationRecord[]>;
  /** Ids of every non-terminal operation. */
  activeIds(): Promise<string[]>;
  /** Ids of the non-terminal operations currently in `state`. */
  byState(state: ActiveState): Promise<string[]>;
  /** Ids of AWAITING_APPROVAL operations whose `expiresAt` is at or before `now`, soonest first. */
  expiredAwaitingApproval(now: number): Promise<string[]>;
  /** Namespaces that operations were recorded in within the retention period, sorted. */
  namespacesOfRecentOperations(): Promise<string[]>;
  /** The head of the target's FIFO order (first QUEUED until terminal): the only operation that may take its lease. */
  head(target: Target): Promise<string | undefined>;
}
