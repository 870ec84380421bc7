// The in-memory twin of the freeze store (store/freezes.ts, lua/freeze.lua and unfreeze.lua): one freeze per target,
// audited in the same step, the audit trimmed by age on the injected clock.
import { targetKey, type Target } from '../../domain/model/target.js';
import type {
  AuditEntry,
  Freeze,
  FreezeRequest,
  FreezeResult,
  FreezeStore,
  UnfreezeResult,
} from '../../app/ports/freezes.js';
import { freezeInForce } from '../../domain/model/freeze.js';
import { checkedRetention } from '../retention.js';
import { nextStreamId, viaJson } from './sorted.js';

export interface MemoryFreezeStoreOptions {
  now?: () => number;
  /** How long audit entries are kept; at least 30 days, default 35. */
  retentionMs?: number;
}

type Audited = Omit<AuditEntry, 'id'> & { ms: number; seq: number };

export class MemoryFreezeStore implements FreezeStore {
  private readonly now: () => number;
  private readonly retentionMs: number;
  private readonly freezes = new Map<string, Freeze>();
  /** Oldest first, as a stream holds them. */
  private readonly audit: Audited[] = [];

  constructor(opts: MemoryFreezeStoreOptions = {}) {
    this.now = opts.now ?? Date.now;
    this.retentionMs = checkedRetention(opts.retentionMs);
  }

  async freeze(target: Target, request: FreezeRequest): Promise<FreezeResult> {
    if (request.by.trim() === '') throw new Error('a freeze needs who asked for it');
    if (request.reason.trim() === '') throw new Error('a freeze needs a reason');
    const existing = this.inForce(target);
    if (existing !== undefined) return { ok: false, existing: viaJson(existing) };
    const { by, reason, at, until } = request;
    this.freezes.set(targetKey(target), viaJson({ target, by, reason, at, ...(until === undefined ? {} : { until }) }));
    this.append({ what: 'freeze', target: viaJson(target), by: request.by, reason: request.reason, at: request.at });
    return { ok: true };
  }

  async unfreeze(target: Target, by: string): Promise<UnfreezeResult> {
    if (by.trim() === '') throw new Error('an unfreeze needs who asked for it');
    const was = this.inForce(target);
    this.freezes.delete(targetKey(target));
    if (was === undefined) return { ok: false, reason: 'not-frozen' };
    this.append({ what: 'unfreeze', target: viaJson(target), by, reason: was.reason, at: this.now() });
    return { ok: true, was: viaJson(was) };
  }

  async get(target: Target): Promise<Freeze | undefined> {
    const freeze = this.inForce(target);
    return freeze === undefined ? undefined : viaJson(freeze);
  }

  async list(): Promise<Freeze[]> {
    const now = this.now();
    return [...this.freezes.values()]
      .filter((f) => freezeInForce(f, now))
      .map((f) => viaJson(f))
      .sort((a, b) => a.at - b.at);
  }

  /** The target's freeze unless it is past its `until` (docs/policy.md#freezes). */
  private inForce(target: Target): Freeze | undefined {
    const freeze = this.freezes.get(targetKey(target));
    return freeze !== undefined && freezeInForce(freeze, this.now()) ? freeze : undefined;
  }

  async auditLog(limit: number): Promise<AuditEntry[]> {
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`limit must be a positive integer, got ${limit}`);
    return this.audit
      .slice(-limit)
      .reverse()
      .map(({ ms, seq, ...entry }) => ({ id: `${ms}-${seq}`, ...viaJson(entry) }));
  }

  /** The entry's id follows the store's clock (never behind the last one); older entries than the retention go. */
  private append(entry: Omit<Audited, 'ms' | 'seq'>): void {
    const now = this.now();
    const last = this.audit.at(-1);
    const id = nextStreamId(last, now);
    this.audit.push({ ...entry, ...id });
    const min = Math.max(0, now - this.retentionMs);
    while ((this.audit[0]?.ms ?? min) < min) this.audit.shift();
  }
}
