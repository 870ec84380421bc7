// The freeze store port: manual freezes of targets (`lock`/`unlock`, docs/policy.md#freezes) and their audit
// history, kept apart from leases (store/freezes.ts on Redis, store/memory/freezes.ts in memory).
import type { Target } from '../../domain/model/target.js';

export interface Freeze {
  target: Target;
  /** Slack user id of who froze it. */
  by: string;
  reason: string;
  /** ms */
  at: number;
  /** ms; from then on it no longer holds (`lock --for`, docs/policy.md#freezes). Absent: until `unlock`. */
  until?: number;
}

/** What `lock` asks for: `until` (ms) when it was given `--for`. */
export interface FreezeRequest {
  by: string;
  reason: string;
  at: number;
  until?: number;
}

export type FreezeResult = { ok: true } | { ok: false; existing: Freeze };
export type UnfreezeResult = { ok: true; was: Freeze } | { ok: false; reason: 'not-frozen' };

export interface AuditEntry {
  /** Stream id; newer entries have greater ids. */
  id: string;
  what: 'freeze' | 'unfreeze';
  target: Target;
  by: string;
  /** For an unfreeze: the reason of the freeze it lifted. */
  reason: string;
  at: number;
}

export interface FreezeStore {
  /**
   * Freezes the target unless it already is (the existing freeze is returned); audited in the same step. A freeze
   * past its `until` counts as lifted: it is replaced.
   */
  freeze(target: Target, request: FreezeRequest): Promise<FreezeResult>;
  /** Lifts the freeze; who may do so is policy's decision, this only records who did. */
  unfreeze(target: Target, by: string): Promise<UnfreezeResult>;
  /** The freeze in force now (one past its `until` is not). */
  get(target: Target): Promise<Freeze | undefined>;
  /** Every freeze in force now, oldest first. */
  list(): Promise<Freeze[]>;
  /** The newest `limit` freeze/unfreeze commands, newest first; entries older than the retention may be gone. */
  auditLog(limit: number): Promise<AuditEntry[]>;
}
