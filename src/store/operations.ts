// The operation store: records in Redis, changed only by compare-and-set commits that also append the history
// entries to the event stream and keep the indexes and each target's FIFO order, in one Lua script.
import type { Approval } from '../domain/model/decision.js';
import {
  applyChange,
  initialRecord,
  isTerminal,
  type ActiveState,
  type ActorRole,
  type Change,
  type HistoryEntry,
  type MutableFields,
  type OperationRecord,
  type OperationState,
  type OrderMove,
} from '../domain/model/operation.js';
import type { Target } from '../domain/model/target.js';
import { entryArgs, EVENTS_MAX_AGE_MS } from './events.js';
import type { RedisConnection, ReplicaWait } from './connection.js';
import { storeKeys, type StoreKeys } from './keys.js';
import { defineScripts, runScript } from './scripts.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** SPEC §4: records and history are kept at least 30 days. */
export const MIN_RETENTION_MS = 30 * DAY_MS;
export const DEFAULT_RETENTION_MS = 35 * DAY_MS;
/** Commit attempts before a change that keeps losing the race is given up (it is then refused, not thrown). */
const MAX_ATTEMPTS = 20;

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

export interface OperationStoreOptions {
  prefix: string;
  now?: () => number;
  /** How long terminal records and index entries are kept; at least 30 days (default 35). */
  retentionMs?: number;
  /** Called once per committed change with its new entries (metrics count terminal states through it). */
  onCommitted?: (record: OperationRecord, entries: readonly HistoryEntry[]) => void;
  /** SPEC §9: waits for a replica after the commits that decide a submission (see DECISIVE_STATES). */
  replicas?: ReplicaWait;
}

/**
 * The states whose commit decides a submission (SPEC §9): SUBMITTING is written before the call to the API and
 * SUBMITTED after it; a failover that lost either could make a run send the change again or forget it was sent.
 */
const DECISIVE_STATES: ReadonlySet<OperationState> = new Set(['SUBMITTING', 'SUBMITTED']);

type CommitReply = ['ok', number] | ['exists'] | ['missing'] | ['conflict'];

/** The retention a store keeps records for: at least 30 days (SPEC §4), 35 unless told otherwise. */
export function checkedRetention(retentionMs: number = DEFAULT_RETENTION_MS): number {
  if (!(retentionMs >= MIN_RETENTION_MS)) {
    throw new Error(`retentionMs must be at least ${MIN_RETENTION_MS} (30 days), got ${retentionMs}`);
  }
  return retentionMs;
}

export class OperationStore {
  private readonly keys: StoreKeys;
  private readonly now: () => number;
  private readonly retentionMs: number;
  private readonly onCommitted: OperationStoreOptions['onCommitted'];
  private readonly replicas: ReplicaWait | undefined;

  constructor(
    private readonly redis: RedisConnection,
    opts: OperationStoreOptions,
  ) {
    this.onCommitted = opts.onCommitted;
    this.replicas = opts.replicas;
    this.keys = storeKeys(opts.prefix);
    this.now = opts.now ?? Date.now;
    this.retentionMs = checkedRetention(opts.retentionMs);
    defineScripts(redis);
  }

  /** Records a new operation as ACCEPTED with its `(new) → ACCEPTED` entry; refuses an id already taken. */
  async create(fields: NewOperation, actor: string): Promise<CreateResult> {
    const record = initialRecord({ ...fields, approvals: fields.approvals ?? [], reenqueues: fields.reenqueues ?? 0 }, actor, this.now());
    const reply = await this.commit(undefined, record, record.history, 'stay');
    if (reply[0] === 'exists') return { ok: false, reason: 'exists' };
    return { ok: true, record };
  }

  async get(id: string): Promise<OperationRecord | undefined> {
    const json = await this.redis.get(this.keys.operation(id));
    return json === null ? undefined : (JSON.parse(json) as OperationRecord);
  }

  /** Records in the order of `ids`; ids whose record is gone (expired) are left out. */
  async getMany(ids: readonly string[]): Promise<OperationRecord[]> {
    if (ids.length === 0) return [];
    const values = await this.redis.mget(...ids.map((id) => this.keys.operation(id)));
    return values.flatMap((json) => (json === null ? [] : [JSON.parse(json) as OperationRecord]));
  }

  /**
   * Reads the record, lets `decide` choose a change, checks every transition in it and commits it only if
   * nobody else committed in between; otherwise reads again and asks `decide` again (bounded).
   */
  async apply(id: string, decide: Decide): Promise<ApplyResult> {
    for (let attempt = 1; ; attempt++) {
      const current = await this.get(id);
      if (current === undefined) return { ok: false, reason: `${id} not found` };
      const decided = decide(current);
      if ('refuse' in decided) return { ok: false, reason: decided.refuse, record: current };
      const outcome = applyChange(current, decided, this.now());
      if (!outcome.ok) return { ok: false, reason: outcome.reason, record: current };
      const reply = await this.commit(current, outcome.record, outcome.entries, outcome.order);
      if (reply[0] === 'ok') {
        const record = outcome.order === 'join' ? { ...outcome.record, firstQueuedSeq: reply[1] } : outcome.record;
        if (this.replicas && outcome.entries.some((e) => e.type === 'state' && DECISIVE_STATES.has(e.name as OperationState))) {
          await this.replicas.afterWrite(this.keys.operation(id));
        }
        this.observe(record, outcome.entries);
        return { ok: true, record, entries: outcome.entries };
      }
      if (reply[0] === 'missing') return { ok: false, reason: `${id} not found` };
      if (attempt >= MAX_ATTEMPTS) {
        return { ok: false, reason: `${id} kept changing while this change was decided (${attempt} attempts); try again`, record: current };
      }
      await backoff(attempt);
    }
  }

  /** Observers (metrics) never fail a commit that already happened. */
  private observe(record: OperationRecord, entries: readonly HistoryEntry[]): void {
    try {
      this.onCommitted?.(record, entries);
    } catch {
      // A broken observer loses a count, never an operation.
    }
  }

  /** One state transition, refused unless the record is currently in one of `from`. */
  async transition(id: string, request: TransitionRequest): Promise<ApplyResult> {
    return this.apply(id, (current) => {
      if (!request.from.includes(current.state)) {
        return { refuse: `${id} is ${current.state} now; ${request.from.join(' or ')} → ${request.to} no longer applies` };
      }
      const entry = { type: 'state', name: request.to, actor: request.actor, role: request.role, detail: request.detail } as const;
      return { set: request.set, entries: [entry] };
    });
  }

  /** Newest first, across all targets. */
  async recent(limit: number): Promise<OperationRecord[]> {
    return this.getMany(await this.redis.zrevrange(this.keys.recent, 0, checkLimit(limit) - 1));
  }

  /** Newest first, for one target. */
  async recentForTarget(target: Target, limit: number): Promise<OperationRecord[]> {
    return this.getMany(await this.redis.zrevrange(this.keys.recentByTarget(target), 0, checkLimit(limit) - 1));
  }

  /** Ids of every non-terminal operation. */
  async activeIds(): Promise<string[]> {
    return this.redis.hkeys(this.keys.active);
  }

  /** Ids of the non-terminal operations currently in `state`. */
  async byState(state: ActiveState): Promise<string[]> {
    if (isTerminal(state)) throw new Error(`byState covers non-terminal states only, not ${state as string}`);
    const all = await this.redis.hgetall(this.keys.active);
    return Object.entries(all).flatMap(([id, s]) => (s === state ? [id] : []));
  }

  /** Ids of AWAITING_APPROVAL operations whose `expiresAt` is at or before `now`, soonest first. */
  async expiredAwaitingApproval(now: number): Promise<string[]> {
    return this.redis.zrangebyscore(this.keys.expiry, '-inf', now);
  }

  /** Namespaces that operations were recorded in within the retention period, sorted. */
  async namespacesOfRecentOperations(): Promise<string[]> {
    const names = await this.redis.zrangebyscore(this.keys.namespaces, this.now() - this.retentionMs, '+inf');
    return names.sort();
  }

  /** The target's FIFO order: operations from first QUEUED until terminal, head first. */
  async orderOf(target: Target): Promise<string[]> {
    return this.redis.zrange(this.keys.order(target), 0, -1);
  }

  async head(target: Target): Promise<string | undefined> {
    return (await this.redis.zrange(this.keys.order(target), 0, 0))[0];
  }

  private async commit(
    current: OperationRecord | undefined,
    next: OperationRecord,
    entries: HistoryEntry[],
    order: OrderMove,
  ): Promise<CommitReply> {
    const k = this.keys;
    const now = this.now();
    const keys = [
      k.operation(next.id),
      k.events,
      k.recent,
      k.recentByTarget(next.target),
      k.active,
      k.expiry,
      k.namespaces,
      k.order(next.target),
      k.orderTickets,
    ];
    const args = [
      String(current?.version ?? 0),
      encodeRecord(next, order === 'join'),
      next.id,
      String(now),
      String(Math.max(0, now - EVENTS_MAX_AGE_MS)),
      String(now - this.retentionMs),
      String(this.retentionMs),
      next.state,
      isTerminal(next.state) ? '1' : '0',
      order,
      next.state === 'AWAITING_APPROVAL' && next.expiresAt !== undefined ? String(next.expiresAt) : '',
      String(next.createdAt),
      next.target.namespace,
      String(entries.length),
      ...entries.flatMap(entryArgs),
    ];
    return (await runScript(this.redis, 'commitOperation', keys, args)) as CommitReply;
  }
}

/**
 * The script checks the version by the JSON's first member, so it is always written first; on joining the
 * order the script adds `firstQueuedSeq` itself (the ticket only exists inside the script).
 */
function encodeRecord(record: OperationRecord, joining: boolean): string {
  const { version, firstQueuedSeq, ...rest } = record;
  return JSON.stringify(joining ? { version, ...rest } : { version, firstQueuedSeq, ...rest });
}

function checkLimit(limit: number): number {
  if (!Number.isInteger(limit) || limit < 1) throw new Error(`limit must be a positive integer, got ${limit}`);
  return limit;
}

/** Jittered, so racing replicas do not retry in lockstep. */
async function backoff(attempt: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(attempt, 10)));
}
