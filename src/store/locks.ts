// Per-target execution leases (docs/lifecycle.md#queue-order-and-leases): only the head of the target's FIFO order may
// hold one; token-checked.
import { randomBytes } from 'node:crypto';
import type { RedisConnection } from './connection.js';
import type { Target } from '../domain/model/target.js';
import type { AcquireResult, Lease, LeaseHolder, LeaseInfo, LockStore } from '../app/ports/locks.js';
import { storeKeys, type StoreKeys } from './keys.js';
import { defineScripts, runScript } from './scripts.js';

export type { AcquireResult, Lease, LeaseHolder, LeaseInfo, LockStore };

export interface LeaseStoreOptions {
  prefix: string;
  now?: () => number;
  /** Token source; 16 random bytes by default. */
  token?: () => string;
}

type AcquireReply = ['acquired'] | ['not-head', string, string] | ['held', string];

export class LeaseStore implements LockStore {
  private readonly keys: StoreKeys;
  private readonly now: () => number;
  private readonly token: () => string;

  constructor(
    private readonly redis: RedisConnection,
    opts: LeaseStoreOptions,
  ) {
    this.keys = storeKeys(opts.prefix);
    this.now = opts.now ?? Date.now;
    this.token = opts.token ?? (() => randomBytes(16).toString('hex'));
    defineScripts(redis);
  }

  /**
   * Takes the lease when `opId` heads the target's order and nobody in the order holds it. A holder that has
   * left the order (terminal) no longer counts, so a worker dying after its last transition blocks nobody.
   */
  async tryAcquire(target: Target, opId: string, ttlMs: number): Promise<AcquireResult> {
    checkTtl(ttlMs);
    const lease: Lease = { target, opId, token: this.token(), since: this.now() };
    const keys = [this.keys.lease(target), this.keys.order(target), this.keys.leases];
    const reply = (await runScript(this.redis, 'acquireLease', keys, [
      opId,
      JSON.stringify(lease),
      String(ttlMs),
    ])) as AcquireReply;
    if (reply[0] === 'acquired') return { acquired: true, lease };
    if (reply[0] === 'held') return { acquired: false, reason: 'held', holder: holderOf(reply[1]), head: opId };
    return {
      acquired: false,
      reason: 'not-head',
      ...(reply[1] === '' ? {} : { head: reply[1] }),
      ...(reply[2] === '' ? {} : { holder: holderOf(reply[2]) }),
    };
  }

  /** False (never a throw) when the lease expired or someone else holds it now. */
  async extend(lease: Lease, ttlMs: number): Promise<boolean> {
    checkTtl(ttlMs);
    return (
      (await runScript(this.redis, 'extendLease', [this.keys.lease(lease.target)], [lease.token, String(ttlMs)])) === 1
    );
  }

  /** False (never a throw) when the lease expired or someone else holds it now. */
  async release(lease: Lease): Promise<boolean> {
    const keys = [this.keys.lease(lease.target), this.keys.leases];
    return (await runScript(this.redis, 'releaseLease', keys, [lease.token])) === 1;
  }

  async holder(target: Target): Promise<LeaseHolder | undefined> {
    const json = await this.redis.get(this.keys.lease(target));
    return json === null ? undefined : holderOf(json);
  }

  /**
   * Live leases, oldest first. The index keeps a key whose lease expired unreleased (a crashed worker) until that
   * target is leased and released again; pruning it here could race a new acquire, and it is one key per target.
   */
  async listLeases(): Promise<LeaseInfo[]> {
    const leaseKeys = await this.redis.smembers(this.keys.leases);
    if (leaseKeys.length === 0) return [];
    const values = await this.redis.mget(...leaseKeys);
    const now = this.now();
    return values
      .flatMap((json) => (json === null ? [] : [JSON.parse(json) as Lease]))
      .map(({ target, opId, since }) => ({ target, opId, since, ageMs: Math.max(0, now - since) }))
      .sort((a, b) => a.since - b.since);
  }
}

/** The holder a stored lease JSON names. */
export function holderOf(json: string): LeaseHolder {
  const { opId, since } = JSON.parse(json) as Lease;
  return { opId, since };
}

/** Lease TTLs are whole positive ms (both implementations refuse anything else the same way). */
export function checkTtl(ttlMs: number): void {
  if (!Number.isInteger(ttlMs) || ttlMs < 1)
    throw new Error(`lease ttl must be a positive whole number of ms, got ${ttlMs}`);
}
