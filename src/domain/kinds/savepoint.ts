// savepoint: create a FlinkStateSnapshot beside the target; judged by the snapshot's own state and its retries.
import { z } from 'zod';
import { criterion, noBlockingWarnings, splitWarnings, type Ctx } from '../kit/evidence/criteria.js';
import { describeEvent, type EventView } from '../kit/evidence/events.js';
import { snapshotProof } from '../kit/evidence/proof.js';
import { abandonedCheck } from '../kit/evidence/abandoned.js';
import type { Criterion, Failure, Judgement } from '../kit/evidence/types.js';
import { OPERATION_FLAGS, TARGET } from '../kit/language/verb-kit.js';
import type { CheckResult } from '../model/decision.js';
import { COMMON_INTENT_FIELDS } from '../kit/language/intent-base.js';
import { getPath } from '../model/merge-patch.js';
import { errorText, nameOf, namespaceOf, statusErrorOf } from '../model/resource.js';
import { TargetSchema } from '../model/target.js';
import { SAVEPOINT_DIR_KEYS, at, fail, pass, savepointDir, text, type CheckCtx } from '../kit/policy/check-kit.js';
import { readFlinkConfig } from '../model/flink-config.js';
import type { KindModule } from './kind.js';

export const SavepointIntent = z.object({
  kind: z.literal('savepoint'),
  target: TargetSchema,
  ...COMMON_INTENT_FIELDS,
});
type Intent = z.infer<typeof SavepointIntent>;

export const SAVEPOINT_CHECK = { jobRunning: 'job-running' } as const;

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
function plannedSnapshotName(ctx: Ctx): string {
  if (ctx.plan.change.type !== 'create-snapshot')
    throw new TypeError('evidence: a savepoint plan must create a FlinkStateSnapshot');
  const snapshot = ctx.plan.change.snapshot;
  return `${namespaceOf(snapshot) ?? ctx.plan.target.namespace}/${nameOf(snapshot) ?? '?'}`;
}

interface SnapshotState {
  state: string | undefined;
  path: string | undefined;
  failures: number;
  /**
   * spec.backoffLimit, -1 when absent (docs/lifecycle.md#snapshot-retries): no retry up to 1.15, retries without end
   * on 1.16.
   */
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
    // The snapshot as the operator sees it, once visible: a spec that lost the field has no limit on 1.16.
    backoffLimit: int(getPath(snapshot ?? planned, ['spec', 'backoffLimit'])) ?? -1,
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
  const message = errorText(event.message) || 'no message';
  if (event.reason === 'ValidationError') return `the operator rejected the snapshot (ValidationError): ${message}`;
  if (event.reason === 'SnapshotAbandoned') return `the savepoint was abandoned: ${message}`;
  return `the savepoint failed (${event.reason}) and no retry is left (failures ${snap.failures} > backoffLimit ${snap.backoffLimit}): ${message}`;
}

/** A snapshot with no attempt limit that failed: the operator keeps retrying it and never writes FAILED. */
function unlimitedRetries(name: string, snap: SnapshotState): string[] {
  if (snap.backoffLimit >= 0 || snap.failures === 0 || snap.state === 'FAILED' || snap.state === 'COMPLETED') return [];
  const failures = `${snap.failures} failure${snap.failures === 1 ? '' : 's'}`;
  return [
    `retrying (${failures}): FlinkStateSnapshot ${name} has no backoffLimit (or -1), which the operator retries without end since 1.16; it will not end FAILED, so it runs until it completes or the wait ends`,
  ];
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
function savepointRule(ctx: Ctx): Judgement {
  const name = plannedSnapshotName(ctx);
  const snap = readSnapshot(ctx);
  // A SavepointError while failures <= backoffLimit is a retry the operator schedules, not a failure; below 0 every
  // one is (1.16 retries without end; 1.15 writes FAILED, which the state says).
  const retrying = (snap.backoffLimit < 0 || snap.failures <= snap.backoffLimit) && snap.state !== 'FAILED';
  const retried = retrying
    ? ctx.snapshotEvents.filter((e) => e.type === 'Warning' && SNAPSHOT_ERRORS.has(e.reason))
    : [];
  const retries = retried.map(
    (e) => `retried: ${describeEvent(e)} (failures ${snap.failures}, backoffLimit ${snap.backoffLimit})`,
  );
  const own = splitWarnings(
    ctx.snapshotEvents.filter((e) => !retried.includes(e)),
    (e) => (SNAPSHOT_FAILURES.has(e.reason) || SNAPSHOT_ERRORS.has(e.reason) ? 'failure' : undefined),
  );
  // The snapshot's own state is the evidence: Warnings on the target (task failovers, …) are only reported.
  const onTarget = ctx.events.filter((e) => e.type === 'Warning').map((e) => `on the target: ${describeEvent(e)}`);
  const blocking = own.blocking;
  const criteria: Criterion[] = [
    criterion(
      ctx,
      'snapshot-completed',
      snap.state === 'COMPLETED',
      snap.state,
      `FlinkStateSnapshot ${name} status.state`,
    ),
    criterion(ctx, 'snapshot-path', snap.path !== undefined, snap.path, `FlinkStateSnapshot ${name} status.path`),
    noBlockingWarnings(ctx, blocking),
  ];
  const notes = [...unlimitedRetries(name, snap), ...retries, ...own.notes, ...onTarget];
  if (ctx.observation.snapshot === undefined) notes.push(`FlinkStateSnapshot ${name} is not visible yet`);
  let failure = failureOf(ctx, name, snap, own.failures);
  // ABANDONED: Flink may have finished the savepoint the operator stopped tracking; REST says, before FAILED.
  const gaveUp = snap.state === 'ABANDONED' || own.failures.some((e) => e.reason === 'SnapshotAbandoned');
  const abandoned = gaveUp && failure !== undefined ? abandonedCheck(ctx, name, failure.reason) : undefined;
  if (abandoned?.type === 'completed')
    return { ...abandoned.judgement, notes: [...abandoned.judgement.notes, ...notes] };
  if (abandoned?.type === 'read')
    return {
      criteria,
      failure: undefined,
      notes,
      blocking,
      proof: snapshotProof(name, '', undefined),
      ...abandoned.judgement,
    };
  if (abandoned?.type === 'failed' && failure)
    failure = { ...failure, evidence: [...failure.evidence, ...abandoned.evidence] };
  return {
    criteria,
    failure,
    notes,
    blocking,
    proof: snapshotProof(name, snap.path ?? '', snap.resultAt),
  };
}

function jobRunning({ input }: CheckCtx): CheckResult {
  const state = text(at(input.resource, 'status', 'jobStatus', 'state')) ?? 'unknown';
  if (state === 'RUNNING') return pass(SAVEPOINT_CHECK.jobRunning, 'the job is RUNNING');
  return fail(SAVEPOINT_CHECK.jobRunning, `the job is ${state}, not RUNNING: the snapshot would be ABANDONED`);
}

export const savepoint = {
  intent: SavepointIntent,
  verb: {
    group: 'operation',
    summary: 'take a savepoint (creates a FlinkStateSnapshot that is never deleted with its record)',
    args: [TARGET],
    flags: [...OPERATION_FLAGS],
    examples: ['savepoint analytics/clickstream --reason "before the schema change"'],
    synonyms: ['snapshot', 'checkpoint', 'backup', 'sp'],
    build: (b) => ({ target: b.target }),
  },
  traits: {
    change: 'create-snapshot',
    stopsJob: false,
    redeploys: false,
    hasMode: false,
    usesUpgradeMode: false,
    onSessionCluster: false,
    onSessionJob: true,
    readsLastSavepoint: false,
    refusedWhileSuspended: false,
  },
  plan: ({ intent, resource, sessionClusterResource }) => {
    if (intent.target.kind !== 'FlinkSessionJob') return { ok: true, type: 'create-snapshot' } as const;
    // Up to 1.15 the operator reads only spec.savepoint.path or the session cluster's directory
    // (docs/lifecycle.md#session-jobs-and-session-clusters): the snapshot names the directory the check resolved from
    // the job's configuration over the cluster's.
    const dir = readFlinkConfig(resource, SAVEPOINT_DIR_KEYS, sessionClusterResource ?? {})?.value.trim();
    return dir
      ? ({ ok: true, type: 'create-snapshot', savepointPath: dir } as const)
      : ({ ok: true, type: 'create-snapshot' } as const);
  },
  checks: (ctx) => [savepointDir(ctx, 'a savepoint'), jobRunning(ctx)],
  // It creates a FlinkStateSnapshot and writes nothing on the target.
  writes: { paths: [] },
  evidence: savepointRule,
  describe: () => '',
} as const satisfies KindModule<Intent>;
