// The vocabulary of evidence (docs/lifecycle.md#evidence): criteria, event baselines, observations, verdicts.
import type { UpgradeMode } from '../../model/upgrade-mode.js';
import type { Plan } from '../../model/plan.js';
import type { BaselineVertex } from '../../model/rest-vertices.js';

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
  /** ms, right before submitting (the worker's clock: never compared with cluster-written times). */
  takenAt: number;
  /** Event `metadata.name` → its `count` then. */
  counts: Record<string, number>;
  /** The latest `lastTimestamp` on any listed event (the cluster's clock), to recognise an expired event recorded again. */
  clusterLatest?: number;
  /** Only for records written before baselines had counts: bound "after" by the worker's clock. */
  wallClock?: boolean;
}

/**
 * What the JobManager's REST API said (docs/deep-verification.md#what-it-proves), read through the API server's service
 * proxy; absent when not read yet. `jobId` is the job the reading is about: a reading of an older job is treated as
 * absent.
 */
export type RestReading =
  | { reachable: true; jobId: string; job: unknown; checkpoints?: unknown; exceptions?: unknown; at: number }
  | { reachable: false; why: string; at: number };

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
  /** Flink REST, when the worker has read it for the current job. */
  rest?: RestReading;
  /** ms of this observation. */
  now: number;
}

export interface Proof {
  verified: string[];
  notVerified: string[];
}

/**
 * A failure the operator may still recover from (a JobManager in ERROR, an image pull that fails): shown at once,
 * FAILED only once it has persisted for the failure grace, timed from the worker's first observation
 * (docs/lifecycle.md#evidence).
 */
export interface Transient {
  /** Stable for one kind of condition, e.g. `jobmanager-error`: the worker times each key from its first sighting. */
  key: string;
  /** `ErrImagePull: [flink-main-container] …` */
  what: string;
  /** The FAILED reason once the grace has passed. */
  reason: string;
  evidence: string[];
  /**
   * ms of the Flink REST reading the condition was seen in, when REST decides it: it is FAILED only on a reading
   * taken once the grace has passed, so a reading from before the grace's end is taken again first.
   */
  readAt?: number;
}

/** Something the thread should say once while the operation waits, e.g. "stop failed, the operator retries (×2): …". */
export interface Alert {
  /** Said once per key; a new count or a new condition makes a new key. */
  key: string;
  message: string;
}

export type EvidenceVerdict =
  | {
      outcome: 'pending';
      criteria: Criterion[];
      blocking: string[];
      notes: string[];
      alerts?: Alert[];
      transient?: TransientState[];
      rest?: RestNeed;
    }
  | { outcome: 'completed'; criteria: Criterion[]; notes: string[]; proof: Proof; caveats?: string[] }
  | { outcome: 'failed'; criteria: Criterion[]; reason: string; rollback: boolean; evidence: string[] };

export interface EvidenceInput {
  /** The kind the change is judged as; an undo: the kind it inverts (recorded on its plan as `judgedAs`). */
  kind: string;
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
  /** Transient failure key → ms (worker clock) of its first observation in this episode; absent: first seen now. */
  transientSince?: Record<string, number>;
  /** How long a transient failure may persist before it is FAILED (FAILURE_GRACE); default 2 minutes. */
  failureGraceMs?: number;
  /**
   * The caller can read Flink REST (docs/deep-verification.md#what-it-proves): the judge then asks for a reading before
   * COMPLETED.
   */
  deep?: boolean;
  /** Policy verify.checkpointAfterChange for the target's environment: a checkpoint after the change is required. */
  checkpointAfterChange?: boolean;
  /** scale: the job's vertices read through REST right before submitting (absent: no baseline). */
  baselineVertices?: BaselineVertex[];
  /** scale: spec.job.parallelism before the change (the old default). */
  oldParallelism?: number;
}

/** What the judge needs from Flink REST: which paths, and whether now (unread) or on the next poll (not there yet). */
export interface RestNeed {
  when: 'now' | 'poll';
  /** The cluster whose service answers (a session job's session cluster). */
  clusterId: string;
  jobId: string;
  checkpoints: boolean;
  /** Root exceptions are read only when the events show task failovers after the change (they are notes). */
  exceptions: boolean;
}

/** A transient failure as judged: since when the worker has seen it and when it turns FAILED. */
export interface TransientState {
  key: string;
  what: string;
  /** ms (the worker's clock) of the first observation. */
  since: number;
  /** ms (the worker's clock) when it becomes FAILED if it persists. */
  until: number;
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
  /** Failures the operator may still recover from (judge.ts applies the grace). */
  transient?: Transient[];
  alerts?: Alert[];
  /** Set when the deeper REST criteria need a (new) reading before the verdict can be COMPLETED. */
  rest?: RestNeed;
  /** Notes that change what COMPLETED means (also kept in `notes`), shown on the card under the verdict. */
  caveats?: string[];
}

export interface RestJudgement {
  criteria: Criterion[];
  failure?: Failure;
  notes: string[];
  /** Notes that change what COMPLETED means (also in `notes`). */
  caveats: string[];
  verified: string[];
  unverified: string[];
  /** Words of "not verified" lines this reading did verify (they are dropped from the proof). */
  covers: string[];
  need?: RestNeed;
  /** A reading of the current job was judged (REST answered). */
  read?: boolean;
}
