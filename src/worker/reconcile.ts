// After a 409, a timeout, a reset or a 5xx (or a resumed submission): read the target, then decide
// (docs/lifecycle.md#submission).
import { CHANGED_REASON } from '../domain/kit/planning/drift.js';
import type { OperationRecord } from '../domain/engines/operation.js';
import { ANNOTATION_OPERATION_ID, type Plan } from '../domain/model/plan.js';
import { annotationsOf, generationOf, nameOf, resourceVersionOf, uidOf } from '../domain/model/resource.js';
import type { KubeObject } from '../kube/flink-client.js';
import { commit, readWithRetry, type Handback, type Run, type WorkerEvidence } from './context.js';
import { ALREADY_DESIRED, driftOf, VANISHED } from './replan.js';

export type Decision =
  /** Our change is there: the annotation carries this operation's id. */
  | { type: 'submitted'; object: KubeObject }
  /** Nothing of ours arrived and nothing else changed: submit again with this precondition. */
  | { type: 'resubmit'; resourceVersion?: string }
  | { type: 'abort'; reason: string }
  | Handback;

/** Reads what the cluster holds now and decides; nothing is ever resubmitted without this read. */
export async function readAndDecide(run: Run, plan: Plan): Promise<Decision> {
  if (plan.change.type === 'create-snapshot') return decideSnapshot(run, plan, nameOf(plan.change.snapshot) ?? '');
  const { kind, namespace, name } = plan.target;
  const read = await readWithRetry(run, `reading ${namespace}/${name}`, (o) =>
    run.deps.kube.get(kind, namespace, name, o),
  );
  if (!read.ok) return read.handback;
  const current = read.value;
  if (!current) return { type: 'abort', reason: VANISHED };
  if (annotationsOf(current)[ANNOTATION_OPERATION_ID] === run.opId) return { type: 'submitted', object: current };
  run.view?.seedResource(current);
  if (uidOf(current) !== plan.uid) return { type: 'abort', reason: CHANGED_REASON };
  if (generationOf(current) === plan.generation)
    return { type: 'resubmit', resourceVersion: resourceVersionOf(current) ?? '' };
  const { drift } = await driftOf(run, plan, current);
  // Mid-submission there is no re-plan: a moved generation that is not ours is someone else's change.
  return { type: 'abort', reason: drift.outcome === 'already-desired' ? ALREADY_DESIRED : CHANGED_REASON };
}

async function decideSnapshot(run: Run, plan: Plan, name: string): Promise<Decision> {
  const { namespace } = plan.target;
  const read = await readWithRetry(run, `reading snapshot ${namespace}/${name}`, (o) =>
    run.deps.kube.get('FlinkStateSnapshot', namespace, name, o),
  );
  if (!read.ok) return read.handback;
  const snapshot = read.value;
  if (!snapshot) return { type: 'resubmit' };
  if (annotationsOf(snapshot)[ANNOTATION_OPERATION_ID] === run.opId) return { type: 'submitted', object: snapshot };
  return { type: 'abort', reason: `a FlinkStateSnapshot named ${name} exists and was not created by ${run.opId}` };
}

/** SUBMITTING or UNCERTAIN → SUBMITTED, recording what the submission produced (generation, or the snapshot's uid). */
export async function markSubmitted(
  run: Run,
  record: OperationRecord,
  plan: Plan,
  object: KubeObject,
  how: string,
): Promise<OperationRecord | undefined> {
  run.view?.[plan.change.type === 'create-snapshot' ? 'seedSnapshot' : 'seedResource'](object);
  if (plan.change.type === 'create-snapshot') {
    const stored = record.evidence as WorkerEvidence;
    const snapshot = { name: nameOf(object) ?? '', ...(uidOf(object) ? { uid: uidOf(object) } : {}) };
    return commit(run, {
      from: ['SUBMITTING', 'UNCERTAIN'],
      to: 'SUBMITTED',
      detail: { snapshot: snapshot.name, uid: snapshot.uid, how },
      set: { evidence: { ...stored, snapshot } },
    });
  }
  const generation = generationOf(object) ?? plan.generation + 1;
  return commit(run, {
    from: ['SUBMITTING', 'UNCERTAIN'],
    to: 'SUBMITTED',
    // The target after the call, for the audit event (docs/audit.md#what-each-operation-writes).
    detail: { generation, resourceVersion: resourceVersionOf(object), uid: uidOf(object), how },
    set: { submittedGeneration: generation },
  });
}
