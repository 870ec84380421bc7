// The in-memory twin of the lease store (store/locks.ts, lua/acquireLease.lua): only the head of the target's FIFO
// order (read from the memory operation store in the same step) may take a lease; TTLs run on the injected clock.
import { randomBytes } from 'node:crypto';
import { targetKey, type Target } from '../../domain/model/target.js';
import type { AcquireResult, Lease, LeaseHolder, LeaseInfo, LockStore } from '../../app/ports/locks.js';
import { checkTtl } from '../locks.js';
import { alive, viaJson } from './sorted.js';

export interface MemoryLeaseStoreOptions {
  /** The order the leases follow: the memory operation store's, read synchronously so an acquire is one step. */
  order: { targetOrder(target: Target): readonly string[] };
  now?: () => number;
  /** Token source; 16 random bytes by default. */
  token?: () => string;
}

export class MemoryLeaseStore implements LockStore {
  private readonly now: () => number;
  private readonly token: () => string;
  private readonly leases = new Map<string, { lease: Lease; expiresAt: number }>();

  constructor(private readonly opts: MemoryLeaseStoreOptions) {
    this.now = opts.now ?? Date.now;
    this.token = opts.token ?? (() => randomBytes(16).toString('hex'));
  }

  async tryAcquire(target: Target, opId: string, ttlMs: number): Promise<AcquireResult> {
    checkTtl(ttlMs);
    const order = this.opts.order.targetOrder(target);
    const head = order[0];
    const current = this.live(target);
    if (head !== opId) {
      return {
        acquired: false,
        reason: 'not-head',
        ...(head === undefined ? {} : { head }),
        ...(current ? { holder: holderOf(current) } : {}),
      };
    }
    // A holder that left the order (terminal, or back to approval) lost its authority with that transition.
    if (current !== undefined && order.includes(current.opId))
      return { acquired: false, reason: 'held', holder: holderOf(current), head: opId };
    const lease: Lease = { target: viaJson(target), opId, token: this.token(), since: this.now() };
    this.leases.set(targetKey(target), { lease, expiresAt: this.now() + ttlMs });
    return { acquired: true, lease: viaJson(lease) };
  }

  async extend(lease: Lease, ttlMs: number): Promise<boolean> {
    checkTtl(ttlMs);
    const held = this.live(lease.target);
    if (held?.token !== lease.token) return false;
    this.leases.set(targetKey(lease.target), { lease: held, expiresAt: this.now() + ttlMs });
    return true;
  }

  async release(lease: Lease): Promise<boolean> {
    if (this.live(lease.target)?.token !== lease.token) return false;
    this.leases.delete(targetKey(lease.target));
    return true;
  }

  async holder(target: Target): Promise<LeaseHolder | undefined> {
    const held = this.live(target);
    return held === undefined ? undefined : holderOf(held);
  }

  async listLeases(): Promise<LeaseInfo[]> {
    const now = this.now();
    return [...this.leases.values()]
      .filter((held) => alive(held.expiresAt, now))
      .map(({ lease: { target, opId, since } }) => ({
        target: viaJson(target),
        opId,
        since,
        ageMs: Math.max(0, now - since),
      }))
      .sort((a, b) => a.since - b.since);
  }

  private live(target: Target): Lease | undefined {
    const held = this.leases.get(targetKey(target));
    if (held !== undefined && !alive(held.expiresAt, this.now())) {
      this.leases.delete(targetKey(target));
      return undefined;
    }
    return held?.lease;
  }
}

function holderOf(lease: Lease): LeaseHolder {
  return { opId: lease.opId, since: lease.since };
}
