// The after-COMPLETED watch port (docs/lifecycle.md#after-completed): one watch per target of what the last completed
// operation set (its revert part) and of how the job does after it (its health part), kept in Redis
// (store/after-completed.ts) so every worker replica of the cluster sees it, in memory for unit tests
// (store/memory/after-completed.ts).
import type { HealthBaseline } from '../../domain/kit/evidence/regression.js';
import type { WatchedField } from '../../domain/kit/evidence/reverts.js';
import type { Target } from '../../domain/model/target.js';

export type { HealthBaseline, WatchedField };

/** The post-change watch (policy `verify.watchAfter`): the job's health against its state at COMPLETED. */
export interface HealthWatch {
  /** ms: COMPLETED + watchAfter. */
  until: number;
  /** As the policy wrote it ("10m"). */
  watchAfter: string;
  baseline: HealthBaseline;
}

export interface AfterCompletedWatch {
  opId: string;
  /** The operation's kind, as policy names it (metrics label). */
  kind: string;
  /** The cluster whose workers watch it (the target's, resolved: docs/deployment.md#several-clusters). */
  cluster: string;
  target: Target;
  /** ms: COMPLETED. */
  startedAt: number;
  /**
   * ms: when the revert part ends (`gitops.revertWatch` after COMPLETED; `startedAt` without one). The whole watch
   * ends at the later of this and `health.until`.
   */
  until: number;
  /** The revert part: what the operation set; empty when only the health part runs. */
  fields: WatchedField[];
  /** Who manages the target in Git, in words ("Argo CD application team-a_orders"), as detected when planned. */
  gitopsOwner?: string;
  /**
   * The operation paused Flux for the target: the watch outlives `until` while the object still carries the
   * operation's pause, and the thread is reminded daily (docs/policy.md#gitops-managed-targets).
   */
  pauses?: boolean;
  /** The health part, for a change to the job with `verify.watchAfter` > 0. */
  health?: HealthWatch;
}

export interface AfterCompletedWatches {
  /** Starts the target's watch, replacing any earlier one on it (one per target). */
  start(watch: AfterCompletedWatch): Promise<void>;
  /** Ends the target's watch unless it belongs to `opId` (another operation started); the ended watch, if any. */
  endOthers(cluster: string, target: Target, opId: string): Promise<AfterCompletedWatch | undefined>;
  /** Ends `opId`'s watch on the target if it is still the target's (its time ran out); false when it was not. */
  end(cluster: string, target: Target, opId: string): Promise<boolean>;
  /** Every watch of the cluster, oldest first. */
  list(cluster: string): Promise<AfterCompletedWatch[]>;
}
