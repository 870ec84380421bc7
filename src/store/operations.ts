// The operation store: records in Redis, changed only by compare-and-set commits that also append the history
// entries to the event stream and keep the indexes and each target's FIFO order, in one Lua script.
import { type HistoryEntry, type OperationRecord, type OrderMove } from '../domain/engines/operation.js';
import { isTerminal, type ActiveState, type OperationState } from '../domain/model/lifecycle.js';
import type { Target } from '../domain/model/target.js';
import type {
  ApplyResult,
  Change,
  CreateResult,
  Decide,
  NewOperation,
  OperationStore as OperationStorePort,
  Refusal,
  TransitionRequest,
} from '../app/ports/operation-store.js';
import type { OperationAuditing } from '../app/ports/audit-log.js';
import { sealAfter, type AuditDraft, type AuditEvent, type ChainLink } from '../domain/kit/audit/event.js';
import {
  applyWithRetries,
  backoff,
  checkLimit,
  MAX_ATTEMPTS,
  observe,
  transitionDecide,
  type CommitReply,
} from './apply-loop.js';
import { RedisAuditLog } from './audit-log.js';
import { inChainTurn } from './chain-turn.js';
import { entryArgs, EVENTS_MAX_AGE_MS } from './events.js';
import type { RedisConnection, ReplicaWait } from './connection.js';
import { storeKeys, type StoreKeys } from './keys.js';
import { defineScripts, runScript } from './scripts.js';
import { checkedRetention } from './retention.js';
import { processRecordKey, type RecordKey } from '../config/record-key.js';
import { resealed, sealedInitialRecord } from '../domain/engines/record-seal.js';

export { checkedRetention, DEFAULT_RETENTION_MS, MIN_RETENTION_MS } from './retention.js';

export type { ApplyResult, Change, CreateResult, Decide, NewOperation, Refusal, TransitionRequest };

export interface OperationStoreOptions {
  /**
   * The key records are sealed with (docs/lifecycle.md#record-integrity); default the process's own
   * (config/record-key.ts).
   */
  recordKey?: RecordKey;
  prefix: string;
  now?: () => number;
  /** How long terminal records and index entries are kept; at least 30 days (default 35). */
  retentionMs?: number;
  /** How long entries stay in the event stream before it may be trimmed (default 7 days). */
  eventRetentionMs?: number;
  /** Called once per committed change with its new entries (metrics count terminal states through it). */
  onCommitted?: (record: OperationRecord, entries: readonly HistoryEntry[]) => void;
  /**
   * Waits for a replica (docs/lifecycle.md#queue-order-and-leases) after the commits that decide a submission (see
   * DECISIVE_STATES).
   */
  replicas?: ReplicaWait;
  /** Writes each change's audit events in the commit itself (docs/audit.md#what-each-operation-writes). */
  audit?: OperationAuditing;
}

/**
 * The states whose commit decides a submission (docs/lifecycle.md#queue-order-and-leases): SUBMITTING is written before
 * the call to the API and SUBMITTED after it; a failover that lost either could make a run send the change again or
 * forget it was sent.
 */
const DECISIVE_STATES: ReadonlySet<OperationState> = new Set(['SUBMITTING', 'SUBMITTED']);

export class OperationStore implements OperationStorePort {
  private readonly keys: StoreKeys;
  private readonly now: () => number;
  private readonly retentionMs: number;
  private readonly eventRetentionMs: number;
  private readonly onCommitted: OperationStoreOptions['onCommitted'];
  private readonly replicas: ReplicaWait | undefined;
  private readonly audit: OperationAuditing | undefined;
  /** Reads the chain's head before sealing; the audit chain's retention is the records'. */
  private readonly auditLog: RedisAuditLog;
  private readonly recordKey: RecordKey;

  constructor(
    private readonly redis: RedisConnection,
    opts: OperationStoreOptions,
  ) {
    this.onCommitted = opts.onCommitted;
    this.replicas = opts.replicas;
    this.keys = storeKeys(opts.prefix);
    this.now = opts.now ?? Date.now;
    this.retentionMs = checkedRetention(opts.retentionMs);
    this.eventRetentionMs = opts.eventRetentionMs ?? EVENTS_MAX_AGE_MS;
    this.audit = opts.audit;
    this.recordKey = opts.recordKey ?? processRecordKey();
    this.auditLog = new RedisAuditLog(redis, { prefix: opts.prefix, now: this.now, retentionMs: this.retentionMs });
    defineScripts(redis);
  }

  /** Records a new operation as ACCEPTED with its `(new) → ACCEPTED` entry; refuses an id already taken. */
  async create(fields: NewOperation, actor: string): Promise<CreateResult> {
    const record = sealedInitialRecord(
      { ...fields, approvals: fields.approvals ?? [], reenqueues: fields.reenqueues ?? 0 },
      actor,
      this.now(),
      this.recordKey,
    );
    const reply = await this.commit(undefined, record, record.history, 'stay');
    if (reply[0] === 'exists') return { ok: false, reason: 'exists' };
    if (reply[0] !== 'ok') {
      throw new Error(
        `${record.id} was not recorded: the audit chain kept moving (${MAX_ATTEMPTS} attempts); try again`,
      );
    }
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
    return applyWithRetries(
      {
        get: (opId) => this.get(opId),
        now: this.now,
        seal: (current, next) => resealed(current, next, this.recordKey),
        commit: (current, next, entries, order) => this.commit(current, next, entries, order),
        committed: async (record, entries) => {
          // With auditing, a decisive commit also wrote audit events, and commit() waited already.
          if (
            this.replicas &&
            !this.audit &&
            entries.some((e) => e.type === 'state' && DECISIVE_STATES.has(e.name as OperationState))
          ) {
            await this.replicas.afterWrite(this.keys.operation(id));
          }
          observe(this.onCommitted, record, entries);
        },
      },
      id,
      decide,
    );
  }

  /** One state transition, refused unless the record is currently in one of `from`. */
  async transition(id: string, request: TransitionRequest): Promise<ApplyResult> {
    return this.apply(id, transitionDecide(id, request));
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

  /**
   * One commit of lua/commitOperation.lua with the change's audit events sealed after the chain's head; when another
   * writer moved the head first, the events are sealed again after the new one (the record's version still decides).
   * A commit with events takes this process's turn on the chain (chain-turn.ts).
   */
  private async commit(
    current: OperationRecord | undefined,
    next: OperationRecord,
    entries: HistoryEntry[],
    order: OrderMove,
  ): Promise<CommitReply> {
    const drafts = this.audit?.drafts(next, entries) ?? [];
    if (drafts.length === 0) return (await this.commitRacing(current, next, entries, order, drafts)).reply;
    const { reply, events } = await inChainTurn(this.redis, this.keys.auditHead, () =>
      this.commitRacing(current, next, entries, order, drafts),
    );
    if (reply[0] === 'ok' && events.length > 0) {
      // An audit event a failover lost would be given out again under its seq (docs/audit.md).
      await this.replicas?.afterWrite(this.keys.auditHead);
      this.audit?.written(events);
    }
    return reply;
  }

  /** Commits, sealing again after the new head while other replicas move it first (at most MAX_ATTEMPTS times). */
  private async commitRacing(
    current: OperationRecord | undefined,
    next: OperationRecord,
    entries: HistoryEntry[],
    order: OrderMove,
    drafts: readonly AuditDraft[],
  ): Promise<{ reply: CommitReply; events: readonly AuditEvent[] }> {
    for (let attempt = 1; ; attempt++) {
      const head: ChainLink = drafts.length > 0 ? await this.auditLog.head() : { seq: 0, hash: '' };
      const events = sealAfter(drafts, head);
      const reply = (await runScript(
        this.redis,
        'commitOperation',
        this.commitKeys(next),
        this.commitArgs(current, next, entries, order, { head, events }),
      )) as CommitReply | ['auditConflict'];
      if (reply[0] !== 'auditConflict') return { reply, events };
      if (attempt >= MAX_ATTEMPTS) return { reply: ['conflict'], events: [] };
      await backoff(attempt);
    }
  }

  private commitKeys(next: OperationRecord): string[] {
    const k = this.keys;
    return [
      k.operation(next.id),
      k.events,
      k.recent,
      k.recentByTarget(next.target),
      k.active,
      k.expiry,
      k.namespaces,
      k.order(next.target),
      k.orderTickets,
      k.auditChain,
      k.auditHead,
      k.auditWebhookPosition,
    ];
  }

  private commitArgs(
    current: OperationRecord | undefined,
    next: OperationRecord,
    entries: HistoryEntry[],
    order: OrderMove,
    audit: { head: ChainLink; events: readonly AuditEvent[] },
  ): string[] {
    const now = this.now();
    return [
      String(current?.version ?? 0),
      encodeRecord(next, order === 'join'),
      next.id,
      String(now),
      String(Math.max(0, now - this.eventRetentionMs)),
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
      String(audit.head.seq),
      audit.head.hash,
      String(Math.max(0, now - this.retentionMs)),
      String(audit.events.length),
      ...audit.events.flatMap((e) => [String(e.seq), e.hash, JSON.stringify(e), String(Date.parse(e.at))]),
    ];
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
