// Evidence of a savepoint: our FlinkStateSnapshot's own state, its retries by backoffLimit, and its failure.
import { criterion, noBlockingWarnings, splitWarnings, type Ctx } from './criteria.js';
import { snapshotProof } from './proof.js';
import type { Criterion, Failure, Judgement } from './types.js';
import { describeEvent, type EventView } from './events.js';
import { getPath } from '../model/merge-patch.js';
import { nameOf, namespaceOf, statusErrorOf } from '../model/resource.js';

const SNAPSHOT_ERRORS = new Set(['SavepointError', 'CheckpointError']);
/** Reasons on the snapshot that end it: the webhook-less reference check, and abandonment. */
const SNAPSHOT_FAILURES = new Set(['ValidationError', 'SnapshotAbandoned']);

function int(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  if (typeof value === 'string' && /^-?\d{1,9}$/.test(value)) return Number(value);
  return undefined;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/** `namespace/name` of the snapshot the plan creates. */
export function plannedSnapshotName(ctx: Ctx): string {
  if (ctx.plan.change.type !== 'create-snapshot') throw new TypeError('evidence: a savepoint plan must create a FlinkStateSnapshot');
  const snapshot = ctx.plan.change.snapshot;
  return `${namespaceOf(snapshot) ?? ctx.plan.target.namespace}/${nameOf(snapshot) ?? '?'}`;
}

interface SnapshotState {
  state: string | undefined;
  path: string | undefined;
  failures: number;
  /** spec.backoffLimit; -1 (the default) means no retry in every release up to 1.15. */
  backoffLimit: number;
  resultAt: number | undefined;
}

function readSnapshot(ctx: Ctx): SnapshotState {
  const snapshot = ctx.observation.snapshot;
  const planned = ctx.plan.change.type === 'create-snapshot' ? ctx.plan.change.snapshot : undefined;
  const result = Date.parse(str(getPath(snapshot, ['status', 'resultTimestamp'])) ?? '');
  return {
    state: str(getPath(snapshot, ['status', 'state'])),
    path: str(getPath(snapshot, ['status', 'path'])),
    failures: int(getPath(snapshot, ['status', 'failures'])) ?? 0,
    backoffLimit: int(getPath(snapshot, ['spec', 'backoffLimit'])) ?? int(getPath(planned, ['spec', 'backoffLimit'])) ?? -1,
    resultAt: Number.isNaN(result) ? undefined : result,
  };
}

function stateFailure(name: string, snap: SnapshotState, error: string | undefined): string | undefined {
  if (snap.state === 'FAILED') {
    return `the savepoint FAILED after ${snap.failures} attempt(s) (backoffLimit ${snap.backoffLimit}): ${error ?? 'no error reported'}`;
  }
  if (snap.state === 'ABANDONED') {
    return `the savepoint was ABANDONED (the job was not RUNNING, or its reference went away): ${error ?? 'no error reported'}`;
  }
  return undefined;
}

function eventFailure(event: EventView, snap: SnapshotState): string {
  if (event.reason === 'ValidationError') return `the operator rejected the snapshot (ValidationError): ${event.message || 'no message'}`;
  if (event.reason === 'SnapshotAbandoned') return `the savepoint was abandoned: ${event.message || 'no message'}`;
  return `the savepoint failed (${event.reason}) and no retry is left (failures ${snap.failures} > backoffLimit ${snap.backoffLimit}): ${event.message || 'no message'}`;
}

function failureOf(ctx: Ctx, name: string, snap: SnapshotState, failures: readonly EventView[]): Failure | undefined {
  const error = statusErrorOf(ctx.observation.snapshot);
  const evidence = failures.map(describeEvent);
  const fromState = stateFailure(name, snap, error);
  const reason = fromState ?? (failures[0] === undefined ? undefined : eventFailure(failures[0], snap));
  if (reason === undefined) return undefined;
  if (snap.state !== undefined) evidence.unshift(`FlinkStateSnapshot ${name} status.state: ${snap.state}`);
  if (error !== undefined) evidence.push(`FlinkStateSnapshot ${name} status.error: ${error}`);
  return { reason, rollback: false, evidence };
}

/** Savepoint: COMPLETED with a path; FAILED/ABANDONED, a refused snapshot, or an error with no retry left fails it. */
export function savepointRule(ctx: Ctx): Judgement {
  const name = plannedSnapshotName(ctx);
  const snap = readSnapshot(ctx);
  // A SavepointError while failures <= backoffLimit is a retry the operator schedules, not a failure.
  const retrying = snap.failures <= snap.backoffLimit && snap.state !== 'FAILED';
  const retried = retrying ? ctx.snapshotEvents.filter((e) => e.type === 'Warning' && SNAPSHOT_ERRORS.has(e.reason)) : [];
  const retries = retried.map((e) => `retried: ${describeEvent(e)} (failures ${snap.failures}, backoffLimit ${snap.backoffLimit})`);
  const own = splitWarnings(
    ctx.snapshotEvents.filter((e) => !retried.includes(e)),
    (e) => (SNAPSHOT_FAILURES.has(e.reason) || SNAPSHOT_ERRORS.has(e.reason) ? 'failure' : undefined),
  );
  const onTarget = splitWarnings(ctx.events, () => undefined);
  const blocking = [...own.blocking, ...onTarget.blocking];
  const criteria: Criterion[] = [
    criterion(ctx, 'snapshot-completed', snap.state === 'COMPLETED', snap.state, `FlinkStateSnapshot ${name} status.state`),
    criterion(ctx, 'snapshot-path', snap.path !== undefined, snap.path, `FlinkStateSnapshot ${name} status.path`),
    noBlockingWarnings(ctx, blocking),
  ];
  const notes = [...retries, ...own.notes, ...onTarget.notes];
  if (ctx.observation.snapshot === undefined) notes.push(`FlinkStateSnapshot ${name} is not visible yet`);
  return {
    criteria,
    failure: failureOf(ctx, name, snap, own.failures),
    notes,
    blocking,
    proof: snapshotProof(name, snap.path ?? '', snap.resultAt),
  };
}
