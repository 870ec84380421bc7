// The base predicate (docs/lifecycle.md#evidence) every redeploying kind shares: resume, restart, scale, upgrade (and
// later resources, config).
import {
  generationObserved,
  jobManagerReady,
  jobStateIn,
  lifecycleIs,
  noBlockingWarnings,
  reconciledDeployed,
  reconciledRunning,
  specReconciled,
  type Ctx,
} from './criteria.js';
import { jobFailedTransient, jobManagerTransient, redeployFailure, statusNotes } from './failures.js';
import { classifyWarnings } from './warnings.js';
import { redeployProof } from './proof.js';
import { restEvidence, type RestWant } from './rest.js';
import type { Judgement } from './types.js';
import { getPath } from '../../model/merge-patch.js';
import { jobStatusStateOf, upgradeSavepointPathOf } from '../../model/resource.js';
import { LAST_STATE_PLACEHOLDER } from '../../model/snapshot-history.js';
import { MODE } from '../../model/upgrade-mode.js';

export interface RedeployExtras {
  /** Notes only this kind adds (e.g. scale: replicas override parallelism). */
  notes?(ctx: Ctx): string[];
  /** Notes of this kind that change what COMPLETED means (kept in the notes too). */
  caveats?(ctx: Ctx): string[];
  /** What this kind's proof does not reach (e.g. upgrade: the image the pods run). */
  notVerified?: readonly string[];
  /** What Flink REST should prove beyond every vertex RUNNING (scale: the parallelism). */
  rest?(ctx: Ctx): RestWant;
  /**
   * A savepoint-mode redeploy must have restored from the savepoint the operator recorded
   * (docs/deep-verification.md#what-it-proves).
   */
  restoresInSavepointMode?: boolean;
}

/** The REST part asked for once operator status is settled (nothing is read before). */
function restWant(ctx: Ctx, extras: RedeployExtras): RestWant {
  const want: RestWant = {
    tasksRunning: true,
    checkpointAfterChange: ctx.checkpointAfterChange,
    ...(extras.rest?.(ctx) ?? {}),
  };
  const recorded = upgradeSavepointPathOf(ctx.resource);
  if (!extras.restoresInSavepointMode || ctx.upgradeMode !== MODE.savepoint) return want;
  // A savepoint-mode redeploy of a job that was not RUNNING falls back to last-state when HA metadata exists.
  if (recorded === LAST_STATE_PLACEHOLDER || getPath(ctx.reconciled, ['job', 'upgradeMode']) === MODE.lastState) {
    want.lastStateFallback = { jobState: jobStatusStateOf(ctx.before) };
  } else if (recorded !== undefined) want.restoredFrom = recorded;
  return want;
}

/** The base predicate (without job criteria on a session cluster, without the JobManager for session jobs). */
export function redeployRule(ctx: Ctx, extras: RedeployExtras = {}): Judgement {
  const warnings = classifyWarnings(ctx, false);
  const jm = jobManagerTransient(ctx, warnings);
  const transient = [...jm.transient, ...jobFailedTransient(ctx)];
  const blocking = [...warnings.blocking, ...jm.blocking];
  const criteria = [
    generationObserved(ctx),
    reconciledDeployed(ctx),
    ...specReconciled(ctx),
    ...(ctx.sessionCluster ? [] : reconciledRunning(ctx)),
    ...(ctx.sessionJob ? [] : [jobManagerReady(ctx)]),
    ...(ctx.sessionCluster ? [] : [jobStateIn(ctx, 'job-running', ['RUNNING'])]),
    lifecycleIs(ctx, 'lifecycle-stable', 'STABLE'),
    noBlockingWarnings(ctx, blocking),
  ];
  const settled = criteria.every((c) => c.met) && transient.length === 0;
  const rest = settled ? restEvidence(ctx, restWant(ctx, extras)) : undefined;
  const proof = redeployProof(ctx, extras.notVerified);
  if (rest) {
    proof.verified.push(...rest.verified);
    proof.notVerified = [
      ...proof.notVerified.filter((line) => !rest.covers.some((words) => line.includes(words))),
      ...rest.unverified,
    ];
  }
  const caveats = [...(extras.caveats?.(ctx) ?? []), ...(rest?.caveats ?? [])];
  return {
    criteria: [...criteria, ...(rest?.criteria ?? [])],
    failure: redeployFailure(ctx, warnings) ?? rest?.failure,
    notes: [
      ...warnings.notes,
      ...statusNotes(ctx),
      ...(extras.notes?.(ctx) ?? []),
      ...(extras.caveats?.(ctx) ?? []),
      ...(rest?.notes ?? []),
    ],
    blocking,
    proof,
    transient,
    ...(rest?.need ? { rest: rest.need } : {}),
    ...(caveats.length > 0 ? { caveats } : {}),
  };
}
