// The plan of an operation: the exact change to submit, its human diff and the digest approvals bind to.
import type { UpgradeMode } from './upgrade-mode.js';
import type { Target } from './target.js';
import type { DeclaredSource } from './gitops.js';

export const ANNOTATION_OPERATION_ID = 'flink-chatops/operation-id';
export const ANNOTATION_REQUESTED_BY = 'flink-chatops/requested-by';
/**
 * The field manager every write of the bot names (docs/policy.md#gitops-managed-targets): managedFields then show which
 * fields the bot set, and a revert by another manager can be told apart.
 */
export const FIELD_MANAGER = 'flink-chatops';

/** One field as a person reads it on the card: `spec.job.parallelism: 4 → 8`. */
export interface FieldChange {
  path: string;
  before: unknown;
  after: unknown;
}

/**
 * What the worker submits. `patch` is a JSON merge patch on the target and already carries the two
 * annotations; the `metadata.resourceVersion` precondition is added at submit time (read under the lease).
 */
export type PlanChange =
  { type: 'patch'; patch: Record<string, unknown> } | { type: 'create-snapshot'; snapshot: Record<string, unknown> };

/**
 * What the plan knows about the target's GitOps owner (docs/policy.md#gitops-managed-targets), filled in at assessment
 * from the object as read and the policy's `gitops` settings; absent for kinds the policy exempts.
 */
export interface PlanGitops {
  /** Who manages the target, in words ("Argo CD application team-a_orders"); absent: no GitOps owner detected. */
  owner?: string;
  /** The tool (docs/policy.md#gitops-managed-targets), when detected. */
  tool?: string;
  /** Planned fields (as the card writes them) Git declares: they will be reverted. */
  declared: string[];
  /** Planned fields Git does not declare: they stick. */
  undeclared: string[];
  /** Where the declared fields were read from; `unknown`: nothing says, so every field counts as declared. */
  source?: DeclaredSource;
  /** `gitops.onManaged` in force for this operation. */
  onManaged: 'warn' | 'refuse' | 'pause';
  /** The patch also pauses Flux's reconciliation of the target. */
  pauses: boolean;
  /** The target was already paused when planned. */
  paused: boolean;
  /** Flux does not apply Git to the target for this mark on it (`kustomize.toolkit.fluxcd.io/ssa: Ignore`). */
  skipped?: string;
  /** How long after COMPLETED the worker watches the planned fields for a revert (ms); 0: no watch. */
  revertWatchMs: number;
}

export interface Plan {
  /** 1 for the first plan; each re-plan adds one. */
  revision: number;
  target: Target;
  /** metadata.uid and metadata.generation of the target when planned. */
  uid: string;
  generation: number;
  /** Informational only: never part of the digest, never the submit precondition. */
  resourceVersion: string;
  change: PlanChange;
  diff: FieldChange[];
  /** sha256 (hex) of canonical JSON of kind, namespace, name, uid, generation and change. */
  digest: string;
  /** The upgrade mode the operator will use for kinds that redeploy (policy `upgradeModes` match it). */
  effectiveUpgradeMode?: UpgradeMode;
  /** An undo's plan: the kind it is judged as (evidence, checks, timeouts), recorded once when planned. */
  judgedAs?: string;
  /** Plain-words notes for the card, e.g. "allowNonRestoredState: true stays set after the restore". */
  notes: string[];
  /** The target's GitOps owner and what it means for this change (absent: the kind is exempt, or planned before v4). */
  gitops?: PlanGitops;
}
