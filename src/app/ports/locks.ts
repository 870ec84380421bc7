// The lock port: per-target execution leases that only the head of the target's FIFO order may hold, token-checked
// (docs/lifecycle.md#queue-order-and-leases; store/locks.ts on Redis, store/memory/locks.ts in memory).
import type { Target } from '../../domain/model/target.js';

export interface Lease {
  target: Target;
  opId: string;
  /** Random; proves ownership to extend and release. */
  token: string;
  /** ms when this lease was taken. */
  since: number;
}

export interface LeaseHolder {
  opId: string;
  since: number;
}

export type AcquireResult =
  | { acquired: true; lease: Lease }
  | { acquired: false; reason: 'held' | 'not-head'; holder?: LeaseHolder; head?: string };

export interface LeaseInfo {
  target: Target;
  opId: string;
  since: number;
  ageMs: number;
}

/** The lock port the worker and the `locks` query use; the conformance suite runs against every implementation. */
export interface LockStore {
  /** Takes the lease when `opId` heads the target's order and nobody still in the order holds it. */
  tryAcquire(target: Target, opId: string, ttlMs: number): Promise<AcquireResult>;
  /** False (never a throw) when the lease expired or someone else holds it now. */
  extend(lease: Lease, ttlMs: number): Promise<boolean>;
  /** False (never a throw) when the lease expired or someone else holds it now. */
  release(lease: Lease): Promise<boolean>;
  holder(target: Target): Promise<LeaseHolder | undefined>;
  /** Live leases, oldest first. */
  listLeases(): Promise<LeaseInfo[]>;
}
