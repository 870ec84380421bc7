// The in-memory twin of the notifier's delivery state (store/delivery.ts and its scripts): marks compared as stored
// strings, the rendered seq raised only, and the per-operation lock; every deadline on the injected clock.
import type { DeliveryMark, DeliverySnapshot, DeliveryState, MarkRead } from '../../app/ports/delivery.js';
import { DEFAULT_RETENTION_MS } from '../retention.js';
import { parseMark, snapshotOf } from '../delivery.js';
import { alive } from './sorted.js';

export interface MemoryDeliveryStateOptions {
  now?: () => number;
  /** How long an operation's marks are kept after its last write (default: the records' 35 days). */
  retentionMs?: number;
}

interface Hash {
  fields: Map<string, string>;
  expiresAt: number;
}

export class MemoryDeliveryState implements DeliveryState {
  private readonly now: () => number;
  private readonly retentionMs: number;
  private readonly hashes = new Map<string, Hash>();
  private readonly locks = new Map<string, { token: string; expiresAt: number }>();

  constructor(opts: MemoryDeliveryStateOptions = {}) {
    this.now = opts.now ?? Date.now;
    this.retentionMs = opts.retentionMs ?? DEFAULT_RETENTION_MS;
  }

  async read(opId: string): Promise<DeliverySnapshot> {
    return snapshotOf(Object.fromEntries(this.hash(opId)?.fields ?? []));
  }

  async mark(opId: string, field: string): Promise<MarkRead> {
    const raw = this.hash(opId)?.fields.get(field);
    return { raw, mark: parseMark(raw) };
  }

  async casMark(
    opId: string,
    field: string,
    expectedRaw: string | undefined,
    mark: DeliveryMark,
  ): Promise<{ ok: boolean; raw: string }> {
    const raw = JSON.stringify(mark);
    // As lua/casDeliveryMark.lua: an absent field reads as '', so expecting '' and expecting absent are one.
    if ((this.hash(opId)?.fields.get(field) ?? '') !== (expectedRaw ?? '')) return { ok: false, raw };
    this.write(opId, field, raw);
    return { ok: true, raw };
  }

  async setMark(opId: string, field: string, mark: DeliveryMark): Promise<void> {
    this.write(opId, field, JSON.stringify(mark));
  }

  async renderedSeq(opId: string): Promise<number> {
    return Number(this.hash(opId)?.fields.get('card') ?? 0);
  }

  async raiseRendered(opId: string, seq: number): Promise<number> {
    const before = Number(this.hash(opId)?.fields.get('card') ?? 0);
    if (seq > before) this.write(opId, 'card', String(seq));
    return before;
  }

  async setPermalink(opId: string, permalink: string): Promise<void> {
    this.write(opId, 'permalink', permalink);
  }

  async tryLock(opId: string, token: string, ttlMs: number): Promise<boolean> {
    if (this.lock(opId) === undefined) {
      this.locks.set(opId, { token, expiresAt: this.now() + ttlMs });
      return true;
    }
    return this.extendLock(opId, token, ttlMs);
  }

  async extendLock(opId: string, token: string, ttlMs: number): Promise<boolean> {
    const held = this.lock(opId);
    if (held?.token !== token) return false;
    held.expiresAt = this.now() + ttlMs;
    return true;
  }

  async releaseLock(opId: string, token: string): Promise<void> {
    if (this.lock(opId)?.token === token) this.locks.delete(opId);
  }

  private hash(opId: string): Hash | undefined {
    const hash = this.hashes.get(opId);
    if (hash !== undefined && !alive(hash.expiresAt, this.now())) {
      this.hashes.delete(opId);
      return undefined;
    }
    return hash;
  }

  /** HSET then PEXPIRE: every write keeps the whole hash another retention. */
  private write(opId: string, field: string, value: string): void {
    const hash = this.hash(opId) ?? { fields: new Map<string, string>(), expiresAt: 0 };
    hash.fields.set(field, value);
    hash.expiresAt = this.now() + this.retentionMs;
    this.hashes.set(opId, hash);
  }

  private lock(opId: string): { token: string; expiresAt: number } | undefined {
    const held = this.locks.get(opId);
    if (held !== undefined && !alive(held.expiresAt, this.now())) {
      this.locks.delete(opId);
      return undefined;
    }
    return held;
  }
}
