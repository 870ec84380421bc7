// The `savepoints` answer's data (docs/commands.md#flink-savepoints): the operator's recorded path, then the target's
// FlinkStateSnapshots, newest first.
import { getPath } from './merge-patch.js';
import { isSavepointSnapshot, labelsOf, nameOf, referencesTarget, upgradeSavepointPathOf } from './resource.js';
import type { Target } from './target.js';

/** What the operator writes while a job runs with HA and no checkpoint is known to it yet: no path at all. */
export const LAST_STATE_PLACEHOLDER = 'KUBERNETES_OPERATOR_LAST_STATE';

export interface SnapshotEntry {
  name: string;
  type: 'savepoint' | 'checkpoint';
  /** TRIGGER_PENDING, IN_PROGRESS, COMPLETED, FAILED, ABANDONED, or `unknown` before the operator wrote one. */
  state: string;
  path?: string;
  /** `snapshot.trigger-type`: MANUAL, PERIODIC, UPGRADE. */
  triggerType?: string;
  /** Epoch ms: `resultTimestamp`, else the creation time (`timeSource` says which). */
  at?: number;
  timeSource: 'result' | 'created';
  failures: number;
  /** status.error, as written (often JSON; the renderer shows its message). */
  error?: string;
  /**
   * Not finished, and `spec.backoffLimit` absent or below 0: operator 1.16 retries it without end and never writes
   * FAILED (docs/lifecycle.md#snapshot-retries); releases up to 1.15 do not retry it at all.
   */
  noAttemptLimit?: true;
}

export interface SnapshotHistory {
  /** `status.jobStatus.upgradeSavepointPath`: the path the operator itself would restore from. */
  recorded?: string;
  /** Newest first, at most the limit. */
  snapshots: SnapshotEntry[];
  /** How many snapshots referenced the target before the limit. */
  total: number;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

function time(value: unknown): number | undefined {
  const ms = Date.parse(str(value) ?? '');
  return Number.isNaN(ms) ? undefined : ms;
}

function entryOf(snapshot: unknown): SnapshotEntry {
  const result = time(getPath(snapshot, ['status', 'resultTimestamp']));
  const created = time(getPath(snapshot, ['metadata', 'creationTimestamp']));
  const failures = getPath(snapshot, ['status', 'failures']);
  const at = result ?? created;
  const fields = {
    path: str(getPath(snapshot, ['status', 'path'])),
    triggerType: labelsOf(snapshot)['snapshot.trigger-type'],
    error: str(getPath(snapshot, ['status', 'error'])),
    at,
  };
  const entry: SnapshotEntry = {
    name: nameOf(snapshot) ?? '?',
    type: isSavepointSnapshot(snapshot) ? 'savepoint' : 'checkpoint',
    state: str(getPath(snapshot, ['status', 'state'])) ?? 'unknown',
    timeSource: result === undefined ? 'created' : 'result',
    failures: typeof failures === 'number' && Number.isSafeInteger(failures) && failures > 0 ? failures : 0,
  };
  for (const [key, value] of Object.entries(fields))
    if (value !== undefined) (entry as unknown as Record<string, unknown>)[key] = value;
  const limit = getPath(snapshot, ['spec', 'backoffLimit']);
  const unlimited = typeof limit !== 'number' || limit < 0;
  if (unlimited && !['COMPLETED', 'FAILED', 'ABANDONED'].includes(entry.state)) entry.noAttemptLimit = true;
  return entry;
}

/**
 * The snapshots of exactly this target (namespace, kind and name: a same-named target elsewhere never shows),
 * newest first by `resultTimestamp`, else creation time; ties by name, so the order is stable.
 */
export function snapshotHistory(
  target: Target,
  snapshots: readonly unknown[],
  resource: unknown,
  limit: number,
): SnapshotHistory {
  const entries = snapshots.filter((s) => referencesTarget(s, target)).map(entryOf);
  entries.sort((a, b) => (b.at ?? -Infinity) - (a.at ?? -Infinity) || b.name.localeCompare(a.name));
  const recorded = upgradeSavepointPathOf(resource);
  const history: SnapshotHistory = { snapshots: entries.slice(0, Math.max(0, limit)), total: entries.length };
  if (recorded !== undefined && recorded !== '') history.recorded = recorded;
  return history;
}

/** What a checkpoint pointer is, in words: Flink's statistics say `is_savepoint`. */
export function pointerType(isSavepoint: boolean): SnapshotEntry['type'] {
  return isSavepoint ? 'savepoint' : 'checkpoint';
}

/** Where Flink REST `/jobs/<id>/checkpoints` keeps the latest savepoint it completed. */
export const LATEST_SAVEPOINT = ['latest', 'savepoint'] as const;
