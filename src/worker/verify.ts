// Verification (docs/lifecycle.md#evidence): judge every change seen through the shared watches until COMPLETED, FAILED
// or the deadline.
import { evaluateEvidence, summarize, timedOutReport } from '../domain/engines/evidence/judge.js';
import type { Criterion, EvidenceVerdict } from '../domain/kit/evidence/types.js';
import { judgedKind } from '../domain/kinds/index.js';
import { MODE } from '../domain/model/upgrade-mode.js';
import type { HistoryEntry, OperationRecord } from '../domain/engines/operation.js';
import type { Plan } from '../domain/model/plan.js';
import { commit, entry, interrupted, readWithRetry, type Handback, type Run, type WorkerEvidence } from './context.js';
import { openView } from './submit.js';
import { nextGraceEnd, waitingNotes, waitingStateOf } from './waiting.js';
import { withSessionJobs } from './session-jobs.js';
import { deepSettings, readRest, restDueAt } from './rest-read.js';
import type { TargetView } from './target-view.js';
import { watchOf } from './after-completed.js';

export type Verification = { type: 'ended' } | Handback;

/** VERIFY_TIMEOUT_SAVEPOINT for savepoints and for kinds that stop the job with a savepoint. */
export function verifyTimeoutOf(run: Run, plan: Plan): number {
  const slow = plan.change.type === 'create-snapshot' || plan.effectiveUpgradeMode === MODE.savepoint;
  return slow ? run.deps.settings.verifyTimeoutSavepointMs : run.deps.settings.verifyTimeoutMs;
}

/** Names of the criteria already recorded as met in `evidence` entries. */
export function metCriteria(history: readonly HistoryEntry[]): Set<string> {
  const met = new Set<string>();
  for (const e of history) {
    if (e.type !== 'evidence') continue;
    for (const c of (e.detail.criteria as Criterion[] | undefined) ?? []) met.add(c.name);
  }
  return met;
}

/**
 * Criteria newly met in this observation. Until the operator has reconciled the submitted generation, what
 * holds is the old deployment's state (its job RUNNING, its JobManager READY): not progress, so not recorded;
 * the verdict needs every criterion on one observation anyway, so nothing is lost by waiting.
 */
export function progressOf(verdict: EvidenceVerdict, met: ReadonlySet<string>): Criterion[] {
  if (verdict.criteria.some((c) => GATES.has(c.name) && !c.met)) return [];
  return verdict.criteria.filter((c) => c.met && !met.has(c.name));
}

/** The criteria (where a kind has them) saying the operator reconciled our generation. */
const GATES = new Set(['generation-observed', 'reconciled-deployed']);

function submittedAt(record: OperationRecord): number {
  for (let i = record.history.length - 1; i >= 0; i--) {
    const e = record.history[i] as HistoryEntry;
    if (e.type === 'state' && e.name === 'SUBMITTED') return e.at;
  }
  return record.updatedAt;
}

/** SUBMITTED → COMPLETED, FAILED or TIMED_OUT; the deadline runs from the SUBMITTED entry, so a resumed run keeps it. */
export async function verify(run: Run, record: OperationRecord, plan: Plan): Promise<Verification> {
  const { deps } = run;
  const kind = judgedKind(record.kind, plan);
  const since = submittedAt(record);
  // A record submitted without a baseline (written by an older worker) counts every event from the submission on.
  const recorded = record.evidence as Partial<WorkerEvidence> | undefined;
  const stored: WorkerEvidence = {
    ...recorded,
    baseline: recorded?.baseline ?? { takenAt: since, counts: {}, wallClock: true },
    before: recorded?.before,
  };
  const deadline = since + verifyTimeoutOf(run, plan);
  const view = await openView(run, plan, stored.before);
  const seeded = await seed(run, view, plan, stored);
  if (seeded) return seeded;
  const met = metCriteria(record.history);
  const waiting = waitingStateOf(record.history);
  const deep = await deepSettings(run, plan);
  for (;;) {
    const seen = view.changes;
    const now = deps.now();
    const verdict = evaluateEvidence({
      kind,
      plan,
      ...(record.submittedGeneration === undefined ? {} : { submittedGeneration: record.submittedGeneration }),
      baseline: stored.baseline,
      before: stored.before,
      ...(stored.previousJobId ? { previousJobId: stored.previousJobId } : {}),
      ...(stored.baselineVertices ? { baselineVertices: stored.baselineVertices } : {}),
      ...(stored.oldParallelism === undefined ? {} : { oldParallelism: stored.oldParallelism }),
      observation: view.observation(now),
      transientSince: { ...waiting.since },
      failureGraceMs: deps.settings.failureGraceMs,
      ...deep,
    });
    const fresh = progressOf(verdict, met);
    const progress =
      fresh.length > 0 ? [entry(run, 'evidence', fresh.map((c) => c.name).join(', '), { criteria: fresh })] : [];
    progress.push(...waitingNotes(run, verdict, waiting));
    if (verdict.outcome !== 'pending' || now >= deadline) {
      await finish(run, stored, await withSessionJobs(run, plan, view.observation(now).resource, verdict), progress);
      return { type: 'ended' };
    }
    if (progress.length > 0) {
      if (!(await commit(run, { from: ['SUBMITTED'], before: progress }))) return { type: 'ended' };
      for (const c of fresh) met.add(c.name);
    }
    if (verdict.outcome === 'pending' && verdict.rest !== undefined) {
      const due = restDueAt(verdict.rest, view.restReading);
      if (due <= now) {
        await readRest(run, view, verdict.rest);
        continue;
      }
    }
    const restWake =
      verdict.outcome === 'pending' && verdict.rest ? restDueAt(verdict.rest, view.restReading) : deadline;
    const wakeAt = Math.min(deadline, nextGraceEnd(verdict) ?? deadline, restWake);
    if ((await view.waitForChange(seen, wakeAt, run.signal, deps.now)) === 'aborted') return interrupted(run);
  }
}

async function finish(
  run: Run,
  stored: WorkerEvidence,
  verdict: EvidenceVerdict,
  progress: ReturnType<typeof entry>[],
): Promise<void> {
  const base = { ...stored, verdict, summary: summarize(verdict), criteria: verdict.criteria };
  if (verdict.outcome === 'completed') {
    run.log.info({ summary: base.summary }, 'completed with evidence');
    const completed = await commit(run, {
      from: ['SUBMITTED'],
      to: 'COMPLETED',
      before: progress,
      detail: {
        summary: base.summary,
        verified: verdict.proof.verified,
        notVerified: verdict.proof.notVerified,
        notes: verdict.notes,
        caveats: verdict.caveats ?? [],
      },
      set: { evidence: base },
    });
    if (completed) await startWatch(run, completed);
    return;
  }
  if (verdict.outcome === 'failed') {
    run.log.info({ reason: verdict.reason, rollback: verdict.rollback }, 'failed, with evidence');
    await commit(run, {
      from: ['SUBMITTED'],
      to: 'FAILED',
      before: progress,
      detail: { reason: verdict.reason, rollback: verdict.rollback, evidence: verdict.evidence },
      set: { evidence: base },
    });
    return;
  }
  const report = timedOutReport(verdict);
  run.log.info({ summary: report.summary }, 'evidence incomplete at the deadline');
  await commit(run, {
    from: ['SUBMITTED'],
    to: 'TIMED_OUT',
    before: progress,
    detail: { summary: report.summary, unmet: report.unmet.map((c) => c.name), blocking: report.blocking },
    set: { evidence: { ...base, summary: report.summary, timedOut: report } },
  });
}

/**
 * A view opened after the baseline (a resumed run) has missed what happened since: read the target, list its
 * events (and the snapshot's) again. A session job's cluster is read once in any case (it rarely changes).
 */
async function seed(run: Run, view: TargetView, plan: Plan, stored: WorkerEvidence): Promise<Handback | undefined> {
  const { kube } = run.deps;
  const { kind, namespace, name } = plan.target;
  const reads: Promise<Handback | undefined>[] = [];
  const add = <T>(what: string, read: Parameters<typeof readWithRetry<T>>[2], use: (value: T) => void): void => {
    reads.push(readWithRetry(run, what, read).then((r) => (r.ok ? (use(r.value), undefined) : r.handback)));
  };
  if (!run.viewSeeded) {
    add(
      `reading ${namespace}/${name}`,
      (o) => kube.get(kind, namespace, name, o),
      (v) => view.seedResource(v),
    );
    add(
      'listing the target events',
      (o) => kube.listEvents(namespace, plan.uid, o),
      (v) => view.seedEvents(v),
    );
    const snapshot = stored.snapshot;
    if (snapshot) {
      add(
        'reading the snapshot',
        (o) => kube.get('FlinkStateSnapshot', namespace, snapshot.name, o),
        (v) => view.seedSnapshot(v),
      );
      if (snapshot.uid)
        add(
          'listing the snapshot events',
          (o) => kube.listEvents(namespace, snapshot.uid as string, o),
          (v) => view.seedEvents(v),
        );
    }
  }
  const cluster = view.spec.sessionClusterName;
  if (cluster)
    add(
      'reading the session cluster',
      (o) => kube.get('FlinkDeployment', namespace, cluster, o),
      (v) => view.seedSessionCluster(v),
    );
  const failed = (await Promise.all(reads)).find((r) => r !== undefined);
  if (!failed) run.viewSeeded = true;
  return failed;
}

/** The after-COMPLETED watch of what the operation set (docs/lifecycle.md#after-completed); a failure only costs it. */
async function startWatch(run: Run, record: OperationRecord): Promise<void> {
  const watch = watchOf(record, run.deps.cluster, run.deps.now());
  if (!watch || !run.deps.afterCompleted) return;
  await run.deps.afterCompleted
    .begin(watch)
    .catch((error: unknown) => run.log.warn({ err: error }, 'could not start the after-COMPLETED watch'));
}
