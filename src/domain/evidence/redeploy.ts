// The base predicate (SPEC §5) every redeploying kind shares: resume, restart, scale, upgrade (and later resources, config).
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
import { jobManagerTransient, redeployFailure, statusNotes } from './failures.js';
import { classifyWarnings } from './warnings.js';
import { redeployProof } from './proof.js';
import type { Judgement } from './types.js';

export interface RedeployExtras {
  /** Notes only this kind adds (e.g. scale: replicas override parallelism). */
  notes?(ctx: Ctx): string[];
  /** What this kind's proof does not reach (e.g. upgrade: the image the pods run). */
  notVerified?: readonly string[];
}

/** The base predicate (without job criteria on a session cluster, without the JobManager for session jobs). */
export function redeployRule(ctx: Ctx, extras: RedeployExtras = {}): Judgement {
  const warnings = classifyWarnings(ctx, false);
  const jm = jobManagerTransient(ctx, warnings);
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
  return {
    criteria,
    failure: redeployFailure(ctx, warnings),
    notes: [...warnings.notes, ...statusNotes(ctx), ...(extras.notes?.(ctx) ?? [])],
    blocking,
    proof: redeployProof(ctx, extras.notVerified),
    transient: jm.transient,
  };
}
