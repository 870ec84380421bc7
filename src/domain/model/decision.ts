// Policy decisions as values: what the policy and the built-in checks say about one plan.

export type CheckOutcome = 'pass' | 'warn' | 'fail';

export interface CheckResult {
  /** Stable identifier, e.g. `not-frozen`, `operator-busy`, `max-parallelism`. */
  name: string;
  outcome: CheckOutcome;
  /** Plain words, shown on the card. */
  message: string;
}

/** One matching rule's `require`: how many approvals, from which policy groups. */
export interface Requirement {
  rule: string;
  approvals: number;
  from: string[];
}

/**
 * What `--break-glass` skipped (docs/policy.md#break-glass): the approvers of these requirements review it afterwards.
 */
export interface BreakGlassUse {
  skippedRequirements: Requirement[];
  /** The time-window deny rules skipped, as their reasons read ("… (rule friday-freeze)"). */
  skippedDenies: string[];
}

export type PolicyDecision = (
  | { outcome: 'allow'; checks: CheckResult[]; requirements: []; environment?: string }
  | { outcome: 'needs-approval'; checks: CheckResult[]; requirements: Requirement[]; environment?: string }
  | { outcome: 'deny'; reasons: string[]; checks: CheckResult[]; requirements: Requirement[]; environment?: string }
) & {
  /** Set when the operation was requested with `--break-glass` by someone allowed to (docs/policy.md#break-glass). */
  breakGlass?: BreakGlassUse;
};

/** One approver's vote, bound to the plan digest it was given for. */
export interface Approval {
  user: string;
  at: number;
  planDigest: string;
  /** Names of the rules this vote counts for (those whose groups contain the approver). */
  countsFor: string[];
}
