// The audit chain in Redis (docs/audit.md#where-the-chain-is-kept): a stream of sealed events with entry ids
// `<ms>-<seq>` (ms = max(at, the last id's ms), so ids rise even when a clock goes back), the head hash, and the
// webhook's delivery position.
//
// Redis' Lua has no SHA-256, so an append reads the head, seals the draft here and lets lua/appendAudit.lua add it
// only if the head did not move; else it reads the head again and reseals (at most MAX_ATTEMPTS times). The appends
// of one process take turns (chain-turn.ts), so only other replicas' appends race them.
// Seeking by seq (readAfter, and the trim that keeps everything after the position) needs no index: both parts of
// the entry id rise along the chain, so lua/includes/auditSeek.lua finds the first entry after a seq by a binary
// search over the ms part, in the script, in one round trip. Every key carries the prefix's hash tag (store/keys.ts),
// so the scripts run on Redis Cluster.
import type { AuditDeliveryPosition, AuditLog } from '../app/ports/audit-log.js';
import {
  GENESIS_HASH,
  sealEvent,
  type AuditDraft,
  type AuditEvent,
  type ChainLink,
} from '../domain/kit/audit/event.js';
import { backoff, checkLimit, MAX_ATTEMPTS } from './apply-loop.js';
import { inChainTurn } from './chain-turn.js';
import type { RedisConnection, ReplicaWait } from './connection.js';
import { storeKeys, type StoreKeys } from './keys.js';
import { checkedRetention } from './retention.js';
import { defineScripts, runScript } from './scripts.js';

export interface RedisAuditLogOptions {
  prefix: string;
  now?: () => number;
  /** How long events are held (trimmed by age, never past the webhook's position); at least 30 days, default 35. */
  retentionMs?: number;
  /** Waited for after each append, so a failover right after it does not lose the event (docs/audit.md). */
  replicas?: ReplicaWait;
}

/** The ms an event is filed under in the stream: its `at`, or the last entry's ms when the clock went back. */
export function streamMs(event: Pick<AuditEvent, 'at'>, lastMs: number): number {
  return Math.max(Date.parse(event.at), lastMs);
}

/** A seq to read after or to move a position to: a whole number, 0 or more. */
export function checkedAfterSeq(seq: number): number {
  if (!Number.isSafeInteger(seq) || seq < 0) throw new Error(`seq must be a whole number, 0 or more, got ${seq}`);
  return seq;
}

export function checkedPageSize(pageSize: number): number {
  if (!Number.isInteger(pageSize) || pageSize < 1) {
    throw new Error(`pageSize must be a positive integer, got ${pageSize}`);
  }
  return pageSize;
}

/** The window with its open ends filled in; refused when an end is not a finite ms or since is after until. */
export function checkedWindow(window: { since?: number; until?: number }): { since: number; until: number } {
  const since = window.since ?? 0;
  const until = window.until ?? Number.MAX_SAFE_INTEGER;
  for (const [name, value] of [
    ['since', since],
    ['until', until],
  ] as const) {
    if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${name} must be a time in ms, got ${value}`);
  }
  if (since > until) throw new Error(`since (${since}) is after until (${until})`);
  return { since, until };
}

type AppendReply = ['ok', string] | ['conflict'];
type Entries = [id: string, fields: string[]][];

function eventsOf(entries: Entries): AuditEvent[] {
  return entries.map(([id, fields]) => {
    const at = fields.indexOf('event');
    const json = at >= 0 && at % 2 === 0 ? fields[at + 1] : undefined;
    if (json === undefined) throw new Error(`audit chain entry ${id} has no event field`);
    return JSON.parse(json) as AuditEvent;
  });
}

export class RedisAuditLog implements AuditLog {
  private readonly keys: StoreKeys;
  private readonly now: () => number;
  private readonly retentionMs: number;
  private readonly replicas: ReplicaWait | undefined;

  constructor(
    private readonly redis: RedisConnection,
    opts: RedisAuditLogOptions,
  ) {
    this.keys = storeKeys(opts.prefix);
    this.now = opts.now ?? Date.now;
    this.retentionMs = checkedRetention(opts.retentionMs);
    this.replicas = opts.replicas;
    defineScripts(redis);
  }

  async append(draft: AuditDraft): Promise<AuditEvent> {
    const event = await inChainTurn(this.redis, this.keys.auditHead, () => this.appendRacing(draft));
    await this.replicas?.afterWrite(this.keys.auditHead);
    return event;
  }

  /** Seals after the head and appends while the head is unmoved; else reads it again (at most MAX_ATTEMPTS times). */
  private async appendRacing(draft: AuditDraft): Promise<AuditEvent> {
    for (let attempt = 1; ; attempt++) {
      const head = await this.head();
      const event = sealEvent(draft, head.seq === 0 ? undefined : head);
      const keys = [this.keys.auditChain, this.keys.auditHead, this.keys.auditWebhookPosition];
      const args = [
        String(head.seq),
        head.hash,
        String(event.seq),
        event.hash,
        JSON.stringify(event),
        String(Date.parse(event.at)),
        String(Math.max(0, this.now() - this.retentionMs)),
      ];
      const reply = (await runScript(this.redis, 'appendAudit', keys, args)) as AppendReply;
      if (reply[0] === 'ok') return event;
      if (attempt >= MAX_ATTEMPTS) {
        throw new Error(`audit event ${draft.id} lost the race for the chain's head ${attempt} times; not appended`);
      }
      await backoff(attempt);
    }
  }

  async head(): Promise<ChainLink> {
    const [seq, hash] = await this.redis.hmget(this.keys.auditHead, 'seq', 'hash');
    if (typeof seq !== 'string' || typeof hash !== 'string') return { seq: 0, hash: GENESIS_HASH };
    return { seq: Number(seq), hash };
  }

  async readAfter(afterSeq: number, limit: number): Promise<AuditEvent[]> {
    checkedAfterSeq(afterSeq);
    checkLimit(limit);
    const args = [String(afterSeq), String(limit)];
    return eventsOf((await runScript(this.redis, 'readAuditAfter', [this.keys.auditChain], args)) as Entries);
  }

  /** Pages the stream by the ms of its ids, keeping the events whose `at` lies in the window. */
  async *range(window: { since?: number; until?: number }, pageSize = 100): AsyncIterable<AuditEvent> {
    const { since, until } = checkedWindow(window);
    checkedPageSize(pageSize);
    let start = String(since);
    for (;;) {
      const page = (await this.redis.xrange(this.keys.auditChain, start, String(until), 'COUNT', pageSize)) as Entries;
      for (const event of eventsOf(page)) {
        const at = Date.parse(event.at);
        if (at >= since && at <= until) yield event;
      }
      const last = page.at(-1);
      if (last === undefined || page.length < pageSize) return;
      start = `(${last[0]}`;
    }
  }
}

export class RedisAuditPosition implements AuditDeliveryPosition {
  private readonly key: string;

  constructor(
    private readonly redis: RedisConnection,
    prefix: string,
  ) {
    this.key = storeKeys(prefix).auditWebhookPosition;
    defineScripts(redis);
  }

  async get(): Promise<number> {
    const stored = await this.redis.get(this.key);
    return stored === null ? 0 : Number(stored);
  }

  async advance(seq: number): Promise<void> {
    checkedAfterSeq(seq);
    await runScript(this.redis, 'advanceAuditPosition', [this.key], [String(seq)]);
  }
}
