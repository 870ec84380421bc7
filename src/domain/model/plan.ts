// The plan of an operation: the exact change to submit, its human diff and the digest approvals bind to.
import type { UpgradeMode } from './upgrade-mode.js';
import type { Target } from './target.js';

export const ANNOTATION_OPERATION_ID = 'flink-chatops/operation-id';
export const ANNOTATION_REQUESTED_BY = 'flink-chatops/requested-by';

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
}
