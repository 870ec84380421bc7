// Judges one observation after a submission (SPEC §5): pending, COMPLETED with its proof depth, or FAILED.
import { previousJobIdOf, type Ctx } from './criteria.js';
import { RULES } from './kind-rules.js';
import { EVIDENCE_KINDS, type Criterion, type EvidenceInput, type EvidenceVerdict, type Judgement } from './types.js';
import { involves, isAfterSubmission, readEvent, type EventView } from './events.js';
import { isRecord } from '../model/merge-patch.js';
import { isSessionCluster, lastReconciledSpecOf, nameOf, uidOf, upgradeModeOf } from '../model/resource.js';
import { formatTarget } from '../model/target.js';

export type { Criterion, EventBaseline, EvidenceInput, EvidenceKind, EvidenceVerdict, Observation, Proof } from './types.js';
export { EVIDENCE_KINDS } from './types.js';
export { eventsAfter, takeEventBaseline } from './events.js';
export { summarize, timedOutReport } from './report.js';

/** Kinds a session cluster (a FlinkDeployment without spec.job) accepts; it has no job for the others. */
const SESSION_CLUSTER_KINDS = new Set(['restart', 'upgrade']);

/** Bad input is a bug in the caller: say exactly what is wrong. */
function checkInput(input: EvidenceInput): void {
  const { kind, plan, observation, baseline } = input;
  if (!(EVIDENCE_KINDS as readonly string[]).includes(kind)) {
    throw new TypeError(`evidence: unknown kind "${String(kind)}" (one of ${EVIDENCE_KINDS.join(', ')}; an undo passes the kind it inverts)`);
  }
  const wanted = kind === 'savepoint' ? 'create-snapshot' : 'patch';
  if (plan.change.type !== wanted) throw new TypeError(`evidence: a ${kind} plan must be a ${wanted} change, got ${plan.change.type}`);
  if (!Number.isFinite(observation.now)) throw new TypeError(`evidence: observation.now ${String(observation.now)} is not a time in ms`);
  if (!Number.isFinite(baseline.takenAt) || !isRecord(baseline.counts)) {
    throw new TypeError('evidence: the baseline needs takenAt (ms) and counts (event name → count), as takeEventBaseline makes it');
  }
  if (!Array.isArray(observation.events)) throw new TypeError('evidence: observation.events must be an array (empty when none)');
  const seen = nameOf(observation.snapshot);
  if (kind === 'savepoint' && seen !== undefined && seen !== snapshotName(input)) {
    throw new TypeError(`evidence: observation.snapshot is ${seen}, but this plan creates ${snapshotName(input) ?? '?'}`);
  }
  if (kind === 'upgrade' && plan.target.kind === 'FlinkSessionJob') {
    throw new TypeError(`evidence: upgrade does not apply to ${formatTarget(plan.target)}: session jobs have no image`);
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
    submittedAt: input.baseline.takenAt,
    submitted: input.submittedGeneration ?? plan.generation + 1,
    sessionJob: plan.target.kind === 'FlinkSessionJob',
    sessionCluster: plan.target.kind === 'FlinkDeployment' && isSessionCluster(resource),
    reconciled: lastReconciledSpecOf(resource),
    events: events.target,
    snapshotEvents: events.snapshot,
    before: input.before,
    previousJobId: previousJobIdOf(input),
    upgradeMode: input.upgradeMode ?? plan.effectiveUpgradeMode ?? upgradeModeOf(input.before ?? resource) ?? 'stateless',
  };
}

function verdictOf(judgement: Judgement): EvidenceVerdict {
  const { criteria, failure, notes, blocking, proof } = judgement;
  if (failure) return { outcome: 'failed', criteria, reason: failure.reason, rollback: failure.rollback, evidence: failure.evidence };
  if (blocking.length === 0 && criteria.every((c) => c.met)) return { outcome: 'completed', criteria, notes, proof };
  return { outcome: 'pending', criteria, blocking, notes };
}

/** The target is unreadable (pending) or was replaced by another object of the same name (failed). */
function identityVerdict(ctx: Ctx): EvidenceVerdict | undefined {
  if (ctx.kind === 'savepoint') return undefined;
  const shown = formatTarget(ctx.plan.target);
  if (!isRecord(ctx.resource)) {
    const missing: Criterion = { name: 'target-present', met: false, observed: null, source: shown, at: ctx.now };
    return { outcome: 'pending', criteria: [missing], blocking: [], notes: [`${shown} could not be read in this observation`] };
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
  if (ctx.sessionCluster && !SESSION_CLUSTER_KINDS.has(ctx.kind)) {
    throw new TypeError(`evidence: ${ctx.kind} does not apply to ${formatTarget(ctx.plan.target)}, a session cluster (only restart and upgrade)`);
  }
  return verdictOf(RULES[ctx.kind](ctx));
}
