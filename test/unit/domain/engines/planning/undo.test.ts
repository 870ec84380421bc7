import { describe, expect, it } from 'vitest';
import { OperationIntentSchema, type OperationIntent } from '../../../../../src/domain/kinds/index.js';
import { applyMergePatch } from '../../../../../src/domain/model/merge-patch.js';
import type { Plan } from '../../../../../src/domain/model/plan.js';
import type { KindIntent as PlannableIntent } from '../../../../../src/domain/kinds/index.js';
import { planOperation, type PlanContext } from '../../../../../src/domain/engines/planning/planner.js';
import { planUndo, type UndoneOperation } from '../../../../../src/domain/engines/planning/undo.js';
import type { Target } from '../../../../../src/domain/model/target.js';
import type { KubeObject } from '@flink-chatops/sim/kube/store';
import { editSpec, flinkDeployment, flinkSessionJob } from '../../../../support/fixtures.js';

const DEP: Target = { kind: 'FlinkDeployment', namespace: 'streaming-prod', name: 'orders-enricher' };
const FIRST: PlanContext = { opId: 'op-first1', requester: 'U0ALICE', nonce: 1_767_225_600_000 };
const UNDO: PlanContext = { opId: 'op-undo01', requester: 'U0BOB', nonce: 1_767_225_900_000 };
const UNDO_ANNOTATIONS = { 'flink-chatops/operation-id': 'op-undo01', 'flink-chatops/requested-by': 'U0BOB' };

/** Plans `raw` on `before`, applies its patch (as the API server would) and returns the finished operation. */
function ranOn(
  raw: Record<string, unknown>,
  before: KubeObject,
  state = 'COMPLETED',
): { undone: UndoneOperation; after: KubeObject } {
  const intent = OperationIntentSchema.parse(raw) as OperationIntent;
  const result = planOperation(intent as PlannableIntent, { resource: before }, FIRST);
  if (!result.ok) throw new Error(result.refusal);
  const plan: Plan = result.plan;
  const after =
    plan.change.type === 'patch'
      ? editSpec(before, (plan.change.patch as { spec: Record<string, unknown> }).spec)
      : structuredClone(before);
  return { undone: { id: FIRST.opId, kind: intent.kind, state, plan, intent }, after };
}

function undoPlan(undone: UndoneOperation, resource: unknown) {
  const result = planUndo(undone, { resource }, UNDO);
  if (!result.ok) throw new Error(`expected an undo plan, got: ${result.refusal}`);
  return result;
}

const running = flinkDeployment();

describe('planUndo puts back what the operation changed', () => {
  it.each([
    {
      name: 'suspend → resume',
      raw: { kind: 'suspend', target: DEP },
      before: running,
      inverted: 'resume',
      spec: { job: { state: 'running' } },
    },
    {
      name: 'suspend --mode stateless → resume with the old mode',
      raw: { kind: 'suspend', target: DEP, mode: 'stateless' },
      before: running,
      inverted: 'resume',
      spec: { job: { state: 'running', upgradeMode: 'savepoint' } },
    },
    {
      name: 'suspend of a job with no state or mode written → both removed again',
      raw: { kind: 'suspend', target: DEP, mode: 'last-state' },
      before: flinkDeployment({ spec: { job: { state: null, upgradeMode: null } } }),
      inverted: 'resume',
      spec: { job: { state: null, upgradeMode: null } },
    },
    {
      name: 'resume → suspend',
      raw: { kind: 'resume', target: DEP },
      before: flinkDeployment({ spec: { job: { state: 'suspended' } } }),
      inverted: 'suspend',
      spec: { job: { state: 'suspended' } },
    },
    {
      name: 'scale → scale back',
      raw: { kind: 'scale', target: DEP, parallelism: 12 },
      before: running,
      inverted: 'scale',
      spec: { job: { parallelism: 4 } },
    },
    {
      name: 'upgrade --mode → old image and mode',
      raw: { kind: 'upgrade', target: DEP, image: 'orders:2', mode: 'last-state' },
      before: running,
      inverted: 'upgrade',
      spec: { image: 'flink:1.20.1-scala_2.12-java17', job: { upgradeMode: 'savepoint' } },
    },
  ])('$name', ({ raw, before, inverted, spec }) => {
    const { undone, after } = ranOn(raw, before);
    const result = undoPlan(undone, after);
    expect(result.invertedKind).toBe(inverted);
    expect(result.plan.change).toEqual({ type: 'patch', patch: { metadata: { annotations: UNDO_ANNOTATIONS }, spec } });
    expect(result.plan.generation).toBe(after.metadata.generation);
    // Applying the undo gives back the spec from before the operation.
    const restored = applyMergePatch(after.spec, spec);
    expect(restored).toEqual(before.spec);
  });

  it.each(['COMPLETED', 'FAILED', 'TIMED_OUT'])('undoes a %s operation', (state) => {
    const { undone, after } = ranOn({ kind: 'scale', target: DEP, parallelism: 12 }, running, state);
    expect(planUndo(undone, { resource: after }, UNDO).ok).toBe(true);
  });

  it('diffs from the values the operation set back to the ones it found', () => {
    const { undone, after } = ranOn({ kind: 'scale', target: DEP, parallelism: 12 }, running);
    const { plan } = undoPlan(undone, after);
    expect(plan.diff).toEqual([{ path: 'spec.job.parallelism', before: 12, after: 4 }]);
    expect(plan.notes).toEqual([expect.stringContaining(`before ${FIRST.opId}`)]);
  });

  it('reports the upgrade mode the inverse redeploys with', () => {
    const { undone, after } = ranOn({ kind: 'upgrade', target: DEP, image: 'orders:2', mode: 'stateless' }, running);
    expect(undoPlan(undone, after).plan.effectiveUpgradeMode).toBe('savepoint');
  });

  it('undoes a session job scale', () => {
    const target: Target = { kind: 'FlinkSessionJob', namespace: 'streaming-prod', name: 'clickstream-sessionizer' };
    const { undone, after } = ranOn({ kind: 'scale', target, parallelism: 5 }, flinkSessionJob());
    expect(undoPlan(undone, after).plan.diff).toEqual([{ path: 'spec.job.parallelism', before: 5, after: 2 }]);
  });
});

describe('planUndo refusals', () => {
  it.each([
    { raw: { kind: 'restart', target: DEP } },
    { raw: { kind: 'savepoint', target: DEP } },
    { raw: { kind: 'restore', target: DEP, from: 's3://sp/1' } },
  ])('refuses a $raw.kind: nonce-driven, nothing can be put back', ({ raw }) => {
    const { undone, after } = ranOn(raw, running);
    const result = planUndo(undone, { resource: after }, UNDO);
    expect(result).toEqual({
      ok: false,
      refusal: expect.stringMatching(
        new RegExp(`${FIRST.opId} was a ${raw.kind}: .*nonce-driven: nothing can be put back`),
      ),
    });
  });

  it('refuses an undo of an undo', () => {
    const { undone, after } = ranOn({ kind: 'scale', target: DEP, parallelism: 12 }, running);
    const result = planUndo({ ...undone, kind: 'undo' }, { resource: after }, UNDO);
    expect(result).toEqual({ ok: false, refusal: expect.stringContaining('an undo cannot be undone') });
  });

  it.each([
    'ACCEPTED',
    'AWAITING_APPROVAL',
    'QUEUED',
    'SUBMITTING',
    'UNCERTAIN',
    'SUBMITTED',
    'DENIED',
    'REJECTED',
    'EXPIRED',
    'CANCELLED',
    'ABORTED',
  ])('refuses an operation that is %s', (state) => {
    const { undone, after } = ranOn({ kind: 'scale', target: DEP, parallelism: 12 }, running, state);
    expect(planUndo(undone, { resource: after }, UNDO)).toEqual({
      ok: false,
      refusal: `${FIRST.opId} is ${state}: only a COMPLETED, FAILED or TIMED_OUT operation can be undone`,
    });
  });

  it.each([
    {
      name: 'parallelism changed by someone else',
      raw: { kind: 'scale', target: DEP, parallelism: 12 },
      edit: { job: { parallelism: 6 } },
      refusal: `spec.job.parallelism was changed since ${FIRST.opId}: now 6 (${FIRST.opId} set 12)`,
    },
    {
      name: 'image changed again',
      raw: { kind: 'upgrade', target: DEP, image: 'orders:2' },
      edit: { image: 'orders:3' },
      refusal: `spec.image was changed since ${FIRST.opId}: now orders:3 (${FIRST.opId} set orders:2)`,
    },
    {
      name: 'resumed since the suspend',
      raw: { kind: 'suspend', target: DEP },
      edit: { job: { state: 'running' } },
      refusal: `spec.job.state was changed since ${FIRST.opId}: now running (${FIRST.opId} set suspended)`,
    },
    {
      name: 'mode removed since',
      raw: { kind: 'suspend', target: DEP, mode: 'stateless' },
      edit: { job: { upgradeMode: null } },
      refusal: `spec.job.upgradeMode was changed since ${FIRST.opId}: now unset (${FIRST.opId} set stateless)`,
    },
  ])('refuses when the field no longer holds what the operation set: $name', ({ raw, edit, refusal }) => {
    const { undone, after } = ranOn(raw, running);
    expect(planUndo(undone, { resource: editSpec(after, edit) }, UNDO)).toEqual({ ok: false, refusal });
  });

  it('allows it when unrelated fields changed since', () => {
    const { undone, after } = ranOn({ kind: 'scale', target: DEP, parallelism: 12 }, running);
    const edited = editSpec(after, { flinkConfiguration: { 'pipeline.max-parallelism': '64' } });
    expect(planUndo(undone, { resource: edited }, UNDO).ok).toBe(true);
  });

  it('refuses when the target was recreated (different uid)', () => {
    const { undone } = ranOn({ kind: 'scale', target: DEP, parallelism: 12 }, running);
    const recreated = flinkDeployment({ uid: 'fresh-uid', generation: 1, spec: { job: { parallelism: 12 } } });
    expect(planUndo(undone, { resource: recreated }, UNDO)).toEqual({
      ok: false,
      refusal: expect.stringContaining('uid changed'),
    });
  });

  it('refuses when the target lost its operator status', () => {
    const { undone } = ranOn({ kind: 'scale', target: DEP, parallelism: 12 }, running);
    const bare = flinkDeployment({ status: null, spec: { job: { parallelism: 12 } } });
    expect(planUndo(undone, { resource: bare }, UNDO)).toEqual({
      ok: false,
      refusal: expect.stringContaining('not reconciled'),
    });
  });
});
