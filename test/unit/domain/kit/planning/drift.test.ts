import { describe, expect, it } from 'vitest';
import { checkDrift, desiredStateHolds, CHANGED_REASON } from '../../../../../src/domain/kit/planning/drift.js';
import { OperationIntentSchema } from '../../../../../src/domain/kinds/index.js';
import type { Plan } from '../../../../../src/domain/model/plan.js';
import type { KindIntent as PlannableIntent } from '../../../../../src/domain/kinds/index.js';
import { planOperation } from '../../../../../src/domain/engines/planning/planner.js';
import type { Target } from '../../../../../src/domain/model/target.js';
import { editSpec, flinkDeployment, writeStatus } from '../../../../support/fixtures.js';

const DEP: Target = { kind: 'FlinkDeployment', namespace: 'streaming-prod', name: 'orders-enricher' };
const base = flinkDeployment({ generation: 5 });

function plan(raw: Record<string, unknown>, resource: unknown = base, opId = 'op-this01'): Plan {
  const result = planOperation(
    OperationIntentSchema.parse(raw) as PlannableIntent,
    { resource },
    { opId, requester: 'U0ALICE', nonce: 1_767_225_600_000 },
  );
  if (!result.ok) throw new Error(result.refusal);
  return result.plan;
}

const scale8 = plan({ kind: 'scale', target: DEP, parallelism: 8 });
const savepoint = plan({ kind: 'savepoint', target: DEP });
const changed = { outcome: 'changed', reason: CHANGED_REASON };

/** Two edits in a row: generation 6 and 7. */
const twiceEdited = editSpec(editSpec(base, { image: 'orders:2' }), { job: { upgradeMode: 'last-state' } });

describe('checkDrift', () => {
  it.each([
    {
      name: 'nothing moved',
      plan: scale8,
      current: base,
      ours: [],
      desired: false,
      expected: { outcome: 'unchanged' },
    },
    {
      name: 'only the resourceVersion moved (operator status writes)',
      plan: scale8,
      current: writeStatus(writeStatus(base, { jobStatus: { updateTime: '1' } }), {
        clusterInfo: { 'state-size': '42' },
      }),
      ours: [],
      desired: false,
      expected: { outcome: 'unchanged' },
    },
    {
      name: 'a different uid (deleted and recreated)',
      plan: scale8,
      current: flinkDeployment({ generation: 5, uid: 'recreated' }),
      ours: [],
      desired: false,
      expected: changed,
    },
    {
      name: 'a different uid even though it already holds the desired value',
      plan: scale8,
      current: flinkDeployment({ generation: 1, uid: 'recreated', spec: { job: { parallelism: 8 } } }),
      ours: [],
      desired: true,
      expected: changed,
    },
    {
      name: 'generations 6 and 7 both made by our ahead-running operations',
      plan: scale8,
      current: twiceEdited,
      ours: [6, 7],
      desired: false,
      expected: { outcome: 'replan', reason: expect.stringContaining('from 5 to 7') },
    },
    {
      name: 'generation 6 ours, 7 someone else’s',
      plan: scale8,
      current: twiceEdited,
      ours: [6],
      desired: false,
      expected: changed,
    },
    {
      name: 'someone else changed the spec',
      plan: scale8,
      current: editSpec(base, { image: 'orders:2' }),
      ours: [],
      desired: false,
      expected: changed,
    },
    {
      name: 'our own generations from before the plan do not count',
      plan: scale8,
      current: editSpec(base, { image: 'orders:2' }),
      ours: [4, 5],
      desired: false,
      expected: changed,
    },
    {
      name: 'someone else already set the desired value',
      plan: scale8,
      current: editSpec(base, { job: { parallelism: 8 } }),
      ours: [],
      desired: true,
      expected: { outcome: 'already-desired' },
    },
    {
      name: 'our ahead-running operation already set the desired value',
      plan: scale8,
      current: editSpec(base, { job: { parallelism: 8 } }),
      ours: [6],
      desired: true,
      expected: { outcome: 'already-desired' },
    },
    {
      name: 'a generation that went backwards',
      plan: scale8,
      current: flinkDeployment({ generation: 4 }),
      ours: [],
      desired: false,
      expected: changed,
    },
    {
      name: 'a resource without metadata',
      plan: scale8,
      current: {},
      ours: [],
      desired: false,
      expected: changed,
    },
    {
      name: 'savepoint: the generation rule does not apply',
      plan: savepoint,
      current: editSpec(base, { image: 'orders:2' }),
      ours: [],
      desired: false,
      expected: { outcome: 'unchanged' },
    },
    {
      name: 'savepoint: a different uid',
      plan: savepoint,
      current: flinkDeployment({ uid: 'recreated' }),
      ours: [],
      desired: false,
      expected: changed,
    },
  ])('$name → $expected.outcome', ({ plan: p, current, ours, desired, expected }) => {
    expect(checkDrift({ plan: p, current, ourGenerations: ours, desiredAlreadyHolds: desired })).toEqual(expected);
  });
});

describe('desiredStateHolds', () => {
  it.each([
    { name: 'before the change', plan: scale8, current: base, holds: false },
    { name: 'after the change', plan: scale8, current: editSpec(base, { job: { parallelism: 8 } }), holds: true },
    {
      name: 'one of two fields',
      plan: plan({ kind: 'upgrade', target: DEP, image: 'orders:2', mode: 'stateless' }),
      current: editSpec(base, { image: 'orders:2' }),
      holds: false,
    },
    {
      name: 'both fields, other spec fields changed too',
      plan: plan({ kind: 'upgrade', target: DEP, image: 'orders:2', mode: 'stateless' }),
      current: editSpec(base, { image: 'orders:2', job: { upgradeMode: 'stateless', parallelism: 2 } }),
      holds: true,
    },
    {
      name: 'annotations are not part of the desired state',
      plan: scale8,
      current: { ...editSpec(base, { job: { parallelism: 8 } }), metadata: { ...base.metadata, annotations: {} } },
      holds: true,
    },
    {
      name: 'a restart is desired only once our nonce is there',
      plan: plan({ kind: 'restart', target: DEP }),
      current: editSpec(base, { restartNonce: 1 }),
      holds: false,
    },
    { name: 'a savepoint is always something to do', plan: savepoint, current: base, holds: false },
    { name: 'an unreadable resource', plan: scale8, current: 'nope', holds: false },
  ])('$name → $holds', ({ plan: p, current, holds }) => {
    expect(desiredStateHolds(p, current)).toBe(holds);
  });

  it('treats a removal (null in the patch) as holding when the field is absent', () => {
    const removal: Plan = { ...scale8, change: { type: 'patch', patch: { spec: { job: { upgradeMode: null } } } } };
    expect(desiredStateHolds(removal, base)).toBe(false);
    expect(desiredStateHolds(removal, flinkDeployment({ spec: { job: { upgradeMode: null } } }))).toBe(true);
  });
});
