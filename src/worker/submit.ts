// Submission (docs/lifecycle.md#submission): the events baseline and SUBMITTING written before the call, the call, and
// each outcome.
import { takeEventBaseline } from '../domain/kit/evidence/events.js';
import { autoscalerOverrides, PARALLELISM_OVERRIDES_KEY } from '../domain/model/autoscaler.js';
import { getPath, isRecord, setPath, type JsonRecord } from '../domain/model/merge-patch.js';
import type { PolicyDecision } from '../domain/model/decision.js';
import type { EntryInput, OperationRecord } from '../domain/engines/operation.js';
import type { Plan } from '../domain/model/plan.js';
import { deploymentNameOf, jobIdOf, nameOf, upgradeSavepointPathOf } from '../domain/model/resource.js';
import { isKubeError } from '../kube/errors.js';
import type { KubeObject } from '../kube/flink-client.js';
import {
  callOptions,
  commit,
  entry,
  interrupted,
  readWithRetry,
  type Handback,
  type Run,
  type WorkerEvidence,
} from './context.js';
import { readBaseline } from './baseline.js';
import { droppedByApi, refusalMessage, refusedByCrd, strictlyRefused } from './installed-crd.js';
import { markSubmitted, readAndDecide } from './reconcile.js';
import { TargetView } from './target-view.js';
import { abortForIntegrity, fieldsProblem } from './integrity.js';

export type Submission = { type: 'submitted'; record: OperationRecord } | { type: 'ended' } | Handback;

type CallResult =
  | { type: 'accepted'; object: KubeObject }
  /** Timeout, reset or 5xx: the change may or may not have been applied. */
  | { type: 'unknown'; message: string }
  /** 409 Conflict on the patch, or 409 AlreadyExists on the snapshot. */
  | { type: 'conflict'; message: string }
  | { type: 'rejected'; message: string; status?: number }
  /** The change would write outside its kind's declared fields: never sent (docs/lifecycle.md#record-integrity). */
  | { type: 'undeclared'; message: string }
  | { type: 'interrupted' };

/** The fields of the target evidence compares against (the whole object would bloat every record). */
const BEFORE_PATHS = [
  ['apiVersion'],
  ['kind'],
  ['metadata', 'name'],
  ['metadata', 'namespace'],
  ['metadata', 'uid'],
  ['metadata', 'generation'],
  ['metadata', 'resourceVersion'],
  ['spec', 'deploymentName'],
  ['spec', 'job', 'state'],
  ['spec', 'job', 'upgradeMode'],
  ['status', 'error'],
  ['status', 'lifecycleState'],
  ['status', 'jobStatus', 'state'],
  ['status', 'jobStatus', 'jobId'],
  ['status', 'jobStatus', 'upgradeSavepointPath'],
] as const;

export function trimBefore(resource: unknown): JsonRecord {
  const out: JsonRecord = {};
  for (const path of BEFORE_PATHS) {
    const value = getPath(resource, path);
    if (value !== undefined) setPath(out, path, value);
  }
  // The autoscaler's overrides (reconciled, not in the spec) decide how turning it off is judged: keep only them.
  const overrides = autoscalerOverrides(resource);
  if (Object.keys(overrides).length > 0) {
    const text = Object.entries(overrides)
      .map(([id, p]) => `${id}:${p}`)
      .join(',');
    const spec = JSON.stringify({ spec: { flinkConfiguration: { [PARALLELISM_OVERRIDES_KEY]: text } } });
    setPath(out, ['status', 'reconciliationStatus', 'lastReconciledSpec'], spec);
  }
  return out;
}

/** Opens the shared watches of the plan's target once per run, before anything is listed or read for evidence. */
export async function openView(run: Run, plan: Plan, targetSpec: unknown): Promise<TargetView> {
  if (run.view) return run.view;
  const sessionClusterName = plan.target.kind === 'FlinkSessionJob' ? deploymentNameOf(targetSpec) : undefined;
  const snapshotName = plan.change.type === 'create-snapshot' ? nameOf(plan.change.snapshot) : undefined;
  const spec = {
    target: plan.target,
    ...(snapshotName ? { snapshotName } : {}),
    ...(sessionClusterName ? { sessionClusterName } : {}),
  };
  run.view = await TargetView.open(run.deps.watches, spec, {
    signal: run.signal,
    timeoutMs: 3 * run.deps.settings.kubeTimeoutMs,
  });
  return run.view;
}

export interface Prepared {
  plan: Plan;
  current: KubeObject;
  replanned?: { decision: PolicyDecision; entry: EntryInput };
}

/** QUEUED → SUBMITTING with the baseline (in one commit, before the call), then the call and what follows. */
export async function submitFromQueued(run: Run, prepared: Prepared): Promise<Submission> {
  const { plan, current, replanned } = prepared;
  const refused = await refusedByCrd(run, plan);
  if (refused) {
    await commit(run, { from: ['QUEUED'], to: 'ABORTED', detail: { reason: refused } });
    return { type: 'ended' };
  }
  const view = await openView(run, plan, current);
  view.seedResource(current);
  run.viewSeeded = true;
  const { namespace } = plan.target;
  const [listed, vertices] = await Promise.all([
    readWithRetry(run, 'listing the target events', (o) => run.deps.kube.listEvents(namespace, plan.uid, o)),
    readBaseline(run, plan, current),
  ]);
  if (!listed.ok) return listed.handback;
  view.seedEvents(listed.value);
  const snapshotName = plan.change.type === 'create-snapshot' ? nameOf(plan.change.snapshot) : undefined;
  const evidence: WorkerEvidence = {
    baseline: takeEventBaseline(listed.value, run.deps.now()),
    before: trimBefore(current),
    ...(jobIdOf(current) ? { previousJobId: jobIdOf(current) } : {}),
    ...(upgradeSavepointPathOf(current) ? { upgradeSavepointPath: upgradeSavepointPathOf(current) } : {}),
    ...(snapshotName ? { snapshot: { name: snapshotName } } : {}),
    ...vertices,
  };
  const resourceVersion = current.metadata.resourceVersion ?? '';
  const submitting = await commit(run, {
    from: ['QUEUED'],
    to: 'SUBMITTING',
    before: replanned ? [replanned.entry] : [],
    detail: { revision: plan.revision, resourceVersion },
    set: { evidence, ...(replanned ? { plan, decision: replanned.decision } : {}) },
  });
  if (!submitting) return { type: 'ended' };
  // This operation starts: the target's earlier after-COMPLETED watch ends (docs/lifecycle.md#after-completed).
  await run.deps.afterCompleted
    ?.endOthers(plan.target, run.opId)
    .catch((error: unknown) => run.log.warn({ err: error }, 'could not end the earlier after-COMPLETED watch'));
  return submitLoop(run, submitting, plan, { resourceVersion, readFirst: false });
}

/** A resumed submission: SUBMITTING is treated as UNCERTAIN (its call may have been made), then read first. */
export async function resumeSubmission(run: Run, record: OperationRecord, plan: Plan): Promise<Submission> {
  let current: OperationRecord | undefined = record;
  if (record.state === 'SUBMITTING') {
    current = await commit(run, {
      from: ['SUBMITTING'],
      to: 'UNCERTAIN',
      detail: { reason: 'resumed by another run: whether the last call reached the API is unknown' },
    });
    if (!current) return { type: 'ended' };
  }
  await openView(run, plan, (record.evidence as WorkerEvidence | undefined)?.before);
  return submitLoop(run, current, plan, { readFirst: true });
}

async function submitLoop(
  run: Run,
  start: OperationRecord,
  plan: Plan,
  from: { resourceVersion?: string; readFirst: boolean },
): Promise<Submission> {
  let record = start;
  let resourceVersion = from.resourceVersion;
  let readFirst = from.readFirst;
  const max = run.deps.settings.maxSubmitAttempts;
  for (let calls = 0; ;) {
    if (!readFirst) {
      calls += 1;
      const result = await call(run, plan, resourceVersion, record);
      run.log.info({ outcome: result.type, attempt: calls }, 'submission call returned');
      if (result.type === 'interrupted') return interrupted(run);
      if (result.type === 'undeclared') return abortForIntegrity(run, ['SUBMITTING'], 'fields', result.message);
      if (result.type === 'accepted') return settled(await markSubmitted(run, record, plan, result.object, 'response'));
      if (result.type === 'rejected') {
        await commit(run, {
          from: ['SUBMITTING'],
          to: 'FAILED',
          detail: { reason: result.message, status: result.status },
        });
        return { type: 'ended' };
      }
      if (result.type === 'unknown') {
        const uncertain = await commit(run, {
          from: ['SUBMITTING'],
          to: 'UNCERTAIN',
          detail: { error: result.message },
        });
        if (!uncertain) return { type: 'ended' };
        record = uncertain;
      }
    }
    readFirst = false;
    const decision = await readAndDecide(run, plan);
    if (decision.type === 'handback') return decision;
    if (decision.type === 'submitted') return settled(await markSubmitted(run, record, plan, decision.object, 'read'));
    if (decision.type === 'abort') {
      await commit(run, { from: ['SUBMITTING', 'UNCERTAIN'], to: 'ABORTED', detail: { reason: decision.reason } });
      return { type: 'ended' };
    }
    if (calls >= max)
      return {
        type: 'handback',
        delayMs: run.deps.settings.leaseTtlMs,
        why: `${calls} submission attempts left the outcome open`,
      };
    const again = await commit(run, {
      from: ['SUBMITTING', 'UNCERTAIN'],
      to: 'SUBMITTING',
      before: [
        entry(run, 'retry', 'resubmit', {
          attempt: calls + 1,
          reason: 'our change is not on the target and nothing else changed',
        }),
      ],
      detail: { revision: plan.revision, resourceVersion: decision.resourceVersion, retry: calls + 1 },
    });
    if (!again) return { type: 'ended' };
    record = again;
    resourceVersion = decision.resourceVersion;
  }
}

function settled(record: OperationRecord | undefined): Submission {
  return record ? { type: 'submitted', record } : { type: 'ended' };
}

/** The one write of a submission, made for the operation's requester (docs/deployment.md#kubernetes-attribution). */
async function call(
  run: Run,
  plan: Plan,
  resourceVersion: string | undefined,
  record: OperationRecord,
): Promise<CallResult> {
  const { kube } = run.deps;
  const outside = fieldsProblem(record, plan);
  if (outside !== undefined) return { type: 'undeclared', message: outside };
  const options = { ...callOptions(run), requester: record.requester };
  try {
    const object =
      plan.change.type === 'patch'
        ? await kube.mergePatch(plan.target, plan.change.patch, resourceVersion ?? '', options)
        : await kube.createSnapshot(plan.target.namespace, plan.change.snapshot, options);
    if (!isRecord(object) || !isRecord(object.metadata))
      return { type: 'unknown', message: 'the API answered without an object' };
    const dropped = droppedByApi(plan, object);
    return dropped ? { type: 'rejected', message: dropped } : { type: 'accepted', object };
  } catch (error) {
    // Our own signal: the call may have reached the API; the state stays as recorded and is resumed as UNCERTAIN.
    if (run.signal.aborted || isKubeError(error, 'aborted')) return { type: 'interrupted' };
    const message = error instanceof Error ? error.message : String(error);
    if (!isKubeError(error) || error.outcomeUnknown) return { type: 'unknown', message };
    if (error.code === 'conflict' || error.code === 'already-exists') return { type: 'conflict', message };
    const unknown = strictlyRefused(message);
    const words = unknown.length > 0 ? refusalMessage(unknown, plan.target.kind) : message;
    return { type: 'rejected', message: words, ...(error.status === undefined ? {} : { status: error.status }) };
  }
}
