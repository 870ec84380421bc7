// Manual freezes of targets (`lock`/`unlock`, docs/policy.md#freezes) and their audit history; kept apart from leases.
import type {
  AuditEntry,
  Freeze,
  FreezeRequest,
  FreezeResult,
  FreezeStore as FreezeStorePort,
  UnfreezeResult,
} from '../app/ports/freezes.js';
import type { RedisConnection } from './connection.js';
import { freezeInForce } from '../domain/model/freeze.js';
import { targetKey, type Target } from '../domain/model/target.js';
import { storeKeys, type StoreKeys } from './keys.js';
import { checkedRetention } from './retention.js';
import { defineScripts, runScript } from './scripts.js';

export type { AuditEntry, Freeze, FreezeResult, UnfreezeResult };

export interface FreezeStoreOptions {
  prefix: string;
  now?: () => number;
  /** How long audit entries are kept (trimmed by age); at least 30 days, default 35. */
  retentionMs?: number;
}

type FreezeReply = ['ok'] | ['exists', string];
type UnfreezeReply = ['ok', string] | ['not-frozen'];

export class FreezeStore implements FreezeStorePort {
  private readonly keys: StoreKeys;
  private readonly now: () => number;
  private readonly retentionMs: number;

  constructor(
    private readonly redis: RedisConnection,
    opts: FreezeStoreOptions,
  ) {
    this.keys = storeKeys(opts.prefix);
    this.now = opts.now ?? Date.now;
    this.retentionMs = checkedRetention(opts.retentionMs);
    defineScripts(redis);
  }

  /**
   * Freezes the target unless a freeze holds (the existing one is returned); audited atomically. One past its `until`
   * is replaced (docs/policy.md#freezes).
   */
  async freeze(target: Target, request: FreezeRequest): Promise<FreezeResult> {
    if (request.by.trim() === '') throw new Error('a freeze needs who asked for it');
    if (request.reason.trim() === '') throw new Error('a freeze needs a reason');
    const freeze: Freeze = {
      target,
      by: request.by,
      reason: request.reason,
      at: request.at,
      ...(request.until === undefined ? {} : { until: request.until }),
    };
    const now = this.now();
    const args = [
      targetKey(target),
      JSON.stringify(freeze),
      JSON.stringify(target),
      request.by,
      request.reason,
      String(request.at),
      String(Math.max(0, now - this.retentionMs)),
      String(now),
    ];
    const reply = (await runScript(this.redis, 'freeze', [this.keys.freezes, this.keys.audit], args)) as FreezeReply;
    return reply[0] === 'ok' ? { ok: true } : { ok: false, existing: JSON.parse(reply[1]) as Freeze };
  }

  /** Lifts the freeze; who may do so is policy's decision, this only records who did. */
  async unfreeze(target: Target, by: string): Promise<UnfreezeResult> {
    if (by.trim() === '') throw new Error('an unfreeze needs who asked for it');
    const now = this.now();
    const args = [
      targetKey(target),
      JSON.stringify(target),
      by,
      String(now),
      String(Math.max(0, now - this.retentionMs)),
    ];
    const reply = (await runScript(
      this.redis,
      'unfreeze',
      [this.keys.freezes, this.keys.audit],
      args,
    )) as UnfreezeReply;
    return reply[0] === 'ok' ? { ok: true, was: JSON.parse(reply[1]) as Freeze } : { ok: false, reason: 'not-frozen' };
  }

  /** The freeze in force now; one past its `until` is left in the hash until the next lock or unlock replaces it. */
  async get(target: Target): Promise<Freeze | undefined> {
    const json = await this.redis.hget(this.keys.freezes, targetKey(target));
    if (json === null) return undefined;
    const freeze = JSON.parse(json) as Freeze;
    return freezeInForce(freeze, this.now()) ? freeze : undefined;
  }

  /** Every freeze in force now, oldest first. */
  async list(): Promise<Freeze[]> {
    const all = await this.redis.hvals(this.keys.freezes);
    const now = this.now();
    return all
      .map((json) => JSON.parse(json) as Freeze)
      .filter((f) => freezeInForce(f, now))
      .sort((a, b) => a.at - b.at);
  }

  /** The newest `limit` freeze/unfreeze commands, newest first. */
  async auditLog(limit: number): Promise<AuditEntry[]> {
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`limit must be a positive integer, got ${limit}`);
    const raw = (await this.redis.xrevrange(this.keys.audit, '+', '-', 'COUNT', limit)) as [string, string[]][];
    return raw.map(([id, fields]) => {
      const map = new Map<string, string>();
      for (let i = 0; i + 1 < fields.length; i += 2) map.set(fields[i] as string, fields[i + 1] as string);
      return {
        id,
        what: map.get('what') === 'unfreeze' ? 'unfreeze' : 'freeze',
        target: JSON.parse(map.get('target') ?? 'null') as Target,
        by: map.get('by') ?? '',
        reason: map.get('reason') ?? '',
        at: Number(map.get('at')),
      };
    });
  }
}
