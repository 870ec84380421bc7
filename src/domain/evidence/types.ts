// The vocabulary of evidence (SPEC §5): criteria, event baselines, observations, verdicts.
import type { UpgradeMode } from '../model/intent.js';
import type { Plan } from '../model/plan.js';

/** The kinds evidence is judged for; an `undo` is judged as the kind it inverts. */
export const EVIDENCE_KINDS = ['suspend', 'resume', 'restart', 'scale', 'upgrade', 'savepoint', 'restore'] as const;
export type EvidenceKind = (typeof EVIDENCE_KINDS)[number];

/** One named fact read from one observation. `name` is a stable identifier people read in the thread. */
export interface Criterion {
  name: string;
  met: boolean;
  observed: unknown;
  /** A field path like `status.jobStatus.state`, or `event Submit`. */
  source: string;
  /** ms of the observation it was read from. */
  at: number;
}

/** The target's events as listed right before submitting: what "after the submission" is measured against. */
export interface EventBaseline {
  /** ms, right before submitting. */
  takenAt: number;
  /** Event `metadata.name` → its `count` then. */
  counts: Record<string, number>;
}

/** Everything read at one moment after the submission; the judge needs nothing else. */
export interface Observation {
  /** The target as now (undefined while it cannot be read). */
  resource: unknown;
  /** core/v1 Events involving the target (and, for savepoint, the snapshot). */
  events: unknown[];
  /** savepoint: our FlinkStateSnapshot as now. */
  snapshot?: unknown;
  /** FlinkSessionJob: its session cluster (its configuration is layered under the job's). */
  sessionCluster?: unknown;
  /** ms of this observation. */
  now: number;
}

export interface Proof {
  verified: string[];
  notVerified: string[];
}

export type EvidenceVerdict =
  | { outcome: 'pending'; criteria: Criterion[]; blocking: string[]; notes: string[] }
  | { outcome: 'completed'; criteria: Criterion[]; notes: string[]; proof: Proof }
  | { outcome: 'failed'; criteria: Criterion[]; reason: string; rollback: boolean; evidence: string[] };

export interface EvidenceInput {
  /** undo: pass the inverted kind (undo.ts `invertedKind`). */
  kind: EvidenceKind;
  plan: Plan;
  /** metadata.generation the submission produced; default: the planned generation + 1. */
  submittedGeneration?: number;
  baseline: EventBaseline;
  /** status.jobStatus.jobId before the submission; default: read from `before`. */
  previousJobId?: string;
  /**
   * The target as read right before submitting (under the lease). Its jobId, upgradeSavepointPath and
   * status.error tell a new value from one that was already there.
   */
  before?: unknown;
  observation: Observation;
  /** The upgrade mode the operator stops the job with; default: plan.effectiveUpgradeMode, else the spec's. */
  upgradeMode?: UpgradeMode;
}

/** Why a change FAILED, with the evidence lines; `rollback` when the operator rolled our spec back. */
export interface Failure {
  reason: string;
  rollback: boolean;
  evidence: string[];
}

/** What one kind's rule concludes from one observation; evidence.ts turns it into the verdict. */
export interface Judgement {
  criteria: Criterion[];
  failure: Failure | undefined;
  notes: string[];
  blocking: string[];
  proof: Proof;
}
