// The contract of an operation kind: everything the kind means lives in one module that satisfies this.
import type { z } from 'zod';
import type { Judgement } from '../kit/evidence/types.js';
import type { Ctx } from '../kit/evidence/criteria.js';
import type { OperationVerbSpec } from '../kit/language/verb-kit.js';
import type { CheckResult } from '../model/decision.js';
import type { Target } from '../model/target.js';
import type { UpgradeMode } from '../model/upgrade-mode.js';
import type { FieldPath, KindOutcome, PlanInput, PreflightInput } from '../kit/planning/edits.js';
import type { CheckCtx } from '../kit/policy/check-kit.js';

/** An intent that acts on a target directly (every kind but undo, which acts through the operation it inverts). */
export interface TargetedIntent {
  kind: string;
  target: Target;
  mode?: UpgradeMode;
  reason?: string;
  incidentChannels: string[];
}

/** What a kind is, as the shared engines need to know it; every "kinds that …" list is derived from these. */
export interface KindTraits {
  /** A merge patch on the target, or a FlinkStateSnapshot created beside it. */
  readonly change: 'patch' | 'create-snapshot';
  /** Stops the running job with the upgrade mode's mechanism (savepoint directory / HA checks apply). */
  readonly stopsJob: boolean;
  /** The job starts again afterwards from what the upgrade mode kept (the stateless warning applies). */
  readonly redeploys: boolean;
  /** Takes `--mode`, and the operator redeploys or stops it with an upgrade mode policy rules may match. */
  readonly hasMode: boolean;
  /** The operator stops or redeploys with an upgrade mode (policy `upgradeModes` can match it). */
  readonly usesUpgradeMode: boolean;
  /** Applies to a session cluster (a FlinkDeployment without spec.job). */
  readonly onSessionCluster: boolean;
  /** Applies to a FlinkSessionJob (when not, `sessionJobRefusal` says why). */
  readonly onSessionJob: boolean;
  /** Its checks need the target's last savepoint (one more list call at planning). */
  readonly readsLastSavepoint: boolean;
  /**
   * Refused on a suspended target (docs/lifecycle.md#refused-or-denied): the operator records such a change but writes
   * no status for it until a resume, so no evidence could ever come.
   */
  readonly refusedWhileSuspended: boolean;
}

/** Fields of the target: exact paths, and subtrees whose every leaf counts. */
export interface FieldScope {
  readonly paths: readonly FieldPath[];
  /** Subtrees with dynamic leaves (e.g. `spec.flinkConfiguration`): every leaf under them the operation's patch set. */
  readonly under?: readonly FieldPath[];
}

/** How an undo of this kind puts things back: the kind it is judged as, and the fields it may restore. */
export interface UndoSpec extends FieldScope {
  readonly inverse: string;
}

export interface KindModule<I extends TargetedIntent = TargetedIntent> {
  /** Joins the intent union (kinds/index.ts builds it from the registry). */
  readonly intent: z.ZodType<I>;
  /**
   * Its grammar, examples and synonyms; a value only this kind takes is a ValueSpec (language/values.ts) written in
   * this module and used in its args or flags, and `build` reads its own bound keys (typed with `Bound<Own>`).
   */
  readonly verb: OperationVerbSpec;
  readonly traits: KindTraits;
  /** The refusal or the exact change (docs/commands.md#operations). */
  plan(input: PlanInput<I>): KindOutcome;
  /** A refusal before planning that only this kind has (e.g. a scale the autoscaler would undo), from the target as read. */
  refuseBefore?(input: PreflightInput<I>): string | undefined;
  /** Whether the operator redeploys the job for this change (absent: it does when `traits.redeploys`). */
  redeploysJob?(intent: I, resource: unknown): boolean;
  /** This kind's own built-in checks, after the shared ones that key off its traits. */
  checks?(ctx: CheckCtx, intent: I): CheckResult[];
  /** The evidence rule (docs/lifecycle.md#per-kind): criteria, failures, notes and proof from one observation. */
  evidence(ctx: Ctx): Judgement;
  /** Absent: not undoable (nonce-driven kinds). */
  readonly undo?: UndoSpec;
  /**
   * Every field its patch may set, besides the bot's own annotations (docs/lifecycle.md#record-integrity): the worker
   * writes nothing outside it. Absent: the fields of `undo`.
   */
  readonly writes?: FieldScope;
  /** When an undo is judged as this kind: the intent it behaves as, read from the undo's patch. */
  asInverse?(target: Target, patch: unknown): I;
  /** Why the kind does not apply to a FlinkSessionJob, in words, e.g. "session jobs have no image". */
  readonly sessionJobRefusal?: string;
  /** The words after `<kind> <target>` on cards and digests, e.g. ` to parallelism 8`. */
  describe(intent: I): string;
}
