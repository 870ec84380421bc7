// Judges one observation after a submission (docs/lifecycle.md#evidence): pending, COMPLETED with its proof depth, or
// FAILED.
import { revertedFailure } from '../../kit/evidence/reverts.js';
import { previousJobIdOf, type Ctx } from '../../kit/evidence/criteria.js';
import { KIND_NAMES, isKindName, kindModule, kindsWhere, type KindName } from '../../kinds/index.js';
import type {
  Criterion,
  EvidenceInput,
  EvidenceVerdict,
  Failure,
  Judgement,
  TransientState,
} from '../../kit/evidence/types.js';
import { clockTime, involves, isAfterSubmission, readEvent, type EventView } from '../../kit/evidence/events.js';
import { isRecord } from '../../model/merge-patch.js';
import { isSessionCluster, lastReconciledSpecOf, nameOf, uidOf } from '../../model/resource.js';
import { effectiveUpgradeMode } from '../../model/upgrade-mode.js';
import { formatTarget } from '../../model/target.js';

export type {
  Criterion,
  EventBaseline,
  EvidenceInput,
  EvidenceVerdict,
  Observation,
  Proof,
} from '../../kit/evidence/types.js';
/** The kinds evidence is judged as (an undo is judged as the kind it inverts). */
export type EvidenceKind = KindName;
export { eventsAfter, takeEventBaseline } from '../../kit/evidence/events.js';
export { summarize, timedOutReport } from '../../kit/evidence/report.js';

/** Bad input is a bug in the caller: say exactly what is wrong. */
function checkInput(input: EvidenceInput): asserts input is EvidenceInput & { kind: KindName } {
  const { kind, plan, observation, baseline } = input;
  if (!isKindName(kind)) {
    throw new TypeError(
      `evidence: unknown kind "${String(kind)}" (one of ${KIND_NAMES.join(', ')}; an undo passes the kind it inverts)`,
    );
  }
  const traits = kindModule(kind).traits;
  const wanted = traits.change;
  if (plan.change.type !== wanted)
    throw new TypeError(`evidence: a ${kind} plan must be a ${wanted} change, got ${plan.change.type}`);
  if (!Number.isFinite(observation.now))
    throw new TypeError(`evidence: observation.now ${String(observation.now)} is not a time in ms`);
  if (!Number.isFinite(baseline.takenAt) || !isRecord(baseline.counts)) {
    throw new TypeError(
      'evidence: the baseline needs takenAt (ms) and counts (event name → count), as takeEventBaseline makes it',
    );
  }
  if (!Array.isArray(observation.events))
    throw new TypeError('evidence: observation.events must be an array (empty when none)');
  const seen = nameOf(observation.snapshot);
  if (wanted === 'create-snapshot' && seen !== undefined && seen !== snapshotName(input)) {
    throw new TypeError(
      `evidence: observation.snapshot is ${seen}, but this plan creates ${snapshotName(input) ?? '?'}`,
    );
  }
  if (!traits.onSessionJob && plan.target.kind === 'FlinkSessionJob') {
    const why = kindModule(kind).sessionJobRefusal ?? 'it is a session job';
    throw new TypeError(`evidence: ${kind} does not apply to ${formatTarget(plan.target)}: ${why}`);
  }
}

function snapshotName(input: EvidenceInput): string | undefined {
  return input.plan.change.type === 'create-snapshot' ? nameOf(input.plan.change.snapshot) : undefined;
}

function splitEvents(input: EvidenceInput): { target: EventView[]; snapshot: EventView[] } {
  const { plan, baseline } = input;
  const snapshot = snapshotName(input);
  const out = { target: [] as EventView[], snapshot: [] as EventView[] };
  for (const raw of input.observation.events) {
    const event = readEvent(raw);
    if (event === undefined || !isAfterSubmission(baseline, event)) continue;
    if (involves(event, plan.target.kind, plan.target.name, plan.uid)) out.target.push(event);
    else if (snapshot !== undefined && involves(event, 'FlinkStateSnapshot', snapshot)) out.snapshot.push(event);
  }
  return out;
}

function contextOf(input: EvidenceInput): Ctx {
  const { plan, observation } = input;
  const resource = observation.resource;
  const events = splitEvents(input);
  return {
    kind: input.kind,
    plan,
    observation,
    resource,
    now: observation.now,
    submitted: input.submittedGeneration ?? plan.generation + 1,
    sessionJob: plan.target.kind === 'FlinkSessionJob',
    sessionCluster: plan.target.kind === 'FlinkDeployment' && isSessionCluster(resource),
    reconciled: lastReconciledSpecOf(resource),
    events: events.target,
    snapshotEvents: events.snapshot,
    before: input.before,
    previousJobId: previousJobIdOf(input),
    upgradeMode: effectiveUpgradeMode(input.upgradeMode ?? plan.effectiveUpgradeMode, input.before ?? resource),
    deep: input.deep === true,
    checkpointAfterChange: input.checkpointAfterChange === true,
    ...(input.baselineVertices === undefined ? {} : { baselineVertices: input.baselineVertices }),
    ...(input.oldParallelism === undefined ? {} : { oldParallelism: input.oldParallelism }),
  };
}

/** FAILURE_GRACE's default: how long a JobManager or container failure may persist before it is FAILED. */
export const DEFAULT_FAILURE_GRACE_MS = 120_000;

function graceWords(ms: number): string {
  return ms % 60_000 === 0 ? `${ms / 60_000} min` : `${Math.round(ms / 1000)} s`;
}

/**
 * Transient failures timed from the worker's first sighting: FAILED once one persisted for the grace, seen in a
 * reading taken after the grace ran out (`readNow`: a REST reading from before it is taken again first).
 */
function transientStates(
  judgement: Judgement,
  input: EvidenceInput,
): { states: TransientState[]; expired?: Failure; readNow?: boolean } {
  const now = input.observation.now;
  const grace = input.failureGraceMs ?? DEFAULT_FAILURE_GRACE_MS;
  const states: TransientState[] = [];
  let readNow = false;
  for (const t of judgement.transient ?? []) {
    const since = Math.min(input.transientSince?.[t.key] ?? now, now);
    const until = since + grace;
    const stale = t.readAt !== undefined && t.readAt < until;
    if (now >= until && stale) readNow = true;
    else if (now >= until) {
      const reason = `${t.reason}; it persisted for ${graceWords(grace)} (first seen ${clockTime(since)}) and the operator did not recover it`;
      return { states, expired: { reason, rollback: false, evidence: t.evidence } };
    }
    states.push({ key: t.key, what: t.what, since, until });
  }
  return readNow ? { states, readNow } : { states };
}

function verdictOf(judgement: Judgement, input: EvidenceInput): EvidenceVerdict {
  const { criteria, failure, notes, blocking, proof } = judgement;
  if (failure)
    return {
      outcome: 'failed',
      criteria,
      reason: failure.reason,
      rollback: failure.rollback,
      evidence: failure.evidence,
    };
  const { states, expired, readNow } = transientStates(judgement, input);
  if (expired)
    return { outcome: 'failed', criteria, reason: expired.reason, rollback: false, evidence: expired.evidence };
  const restNow = judgement.rest?.when === 'now';
  if (!restNow && states.length === 0 && blocking.length === 0 && criteria.every((c) => c.met)) {
    const caveats = [...new Set(judgement.caveats ?? [])];
    return { outcome: 'completed', criteria, notes, proof, ...(caveats.length > 0 ? { caveats } : {}) };
  }
  const blocked = states.map((s) => `blocked by ${s.what}; FAILED if it persists until ${clockTime(s.until)}`);
  const alerts = judgement.alerts ?? [];
  return {
    outcome: 'pending',
    criteria,
    blocking: [...blocked, ...blocking],
    notes,
    ...(alerts.length > 0 ? { alerts } : {}),
    ...(states.length > 0 ? { transient: states } : {}),
    ...(judgement.rest ? { rest: readNow ? { ...judgement.rest, when: 'now' as const } : judgement.rest } : {}),
  };
}

/** The target is unreadable (pending) or was replaced by another object of the same name (failed). */
function identityVerdict(ctx: Ctx): EvidenceVerdict | undefined {
  if (isKindName(ctx.kind) && kindModule(ctx.kind).traits.change === 'create-snapshot') return undefined;
  const shown = formatTarget(ctx.plan.target);
  if (!isRecord(ctx.resource)) {
    const missing: Criterion = { name: 'target-present', met: false, observed: null, source: shown, at: ctx.now };
    return {
      outcome: 'pending',
      criteria: [missing],
      blocking: [],
      notes: [`${shown} could not be read in this observation`],
    };
  }
  const uid = uidOf(ctx.resource);
  if (uid === undefined || uid === ctx.plan.uid) return undefined;
  const replaced: Criterion = { name: 'target-uid', met: false, observed: uid, source: 'metadata.uid', at: ctx.now };
  return {
    outcome: 'failed',
    criteria: [replaced],
    reason: `${shown} was deleted and recreated after the submission (metadata.uid ${ctx.plan.uid} → ${uid}): the change went with the old object`,
    rollback: false,
    evidence: [`metadata.uid: ${uid} (planned against ${ctx.plan.uid})`],
  };
}

/**
 * The verdict on one observation made after the submission. Every criterion must hold on this one
 * observation; the worker calls it on each watch event and records the result.
 */
export function evaluateEvidence(input: EvidenceInput): EvidenceVerdict {
  checkInput(input);
  const ctx = contextOf(input);
  const identity = identityVerdict(ctx);
  if (identity) return identity;
  const reverted = revertedFailure(ctx);
  if (reverted) return { outcome: 'failed', criteria: [], ...reverted };
  const module = kindModule(input.kind);
  if (ctx.sessionCluster && !module.traits.onSessionCluster) {
    throw new TypeError(
      `evidence: ${ctx.kind} does not apply to ${formatTarget(ctx.plan.target)}, a session cluster (only ${kindsWhere('onSessionCluster').join(' and ')})`,
    );
  }
  return verdictOf(module.evidence(ctx), input);
}
