// Evidence rules that follow from how the real operator writes status (docs/lifecycle.md#operator-traps,
// docs/lifecycle.md#evidence).
import { describe, expect, it } from 'vitest';
import {
  DEP,
  judge,
  kubeEvent,
  metMap,
  secondsAfter,
  settled,
  specPatchOf,
  SUBMITTED_AT,
} from '../../../../support/evidence-fixtures.js';
import { flinkDeployment, planFor } from '../../../../support/fixtures.js';
import { planUndo } from '../../../../../src/domain/engines/planning/undo.js';
import { PLAN_CONTEXT } from '../../../../support/fixtures.js';

describe('parallelism 0 means unset in lastReconciledSpec (JobSpec.parallelism is a Java int)', () => {
  it('an undo of a scale back to "unset" completes when the operator reconciled 0', () => {
    const unset = flinkDeployment({ spec: { job: { parallelism: null } } });
    const scale = planFor({ kind: 'scale', target: DEP, parallelism: 8 }, unset);
    const scaled = settled(flinkDeployment, specPatchOf(scale));
    const undo = planUndo(
      {
        id: 'op-scale01',
        kind: 'scale',
        state: 'COMPLETED',
        plan: scale,
        intent: { kind: 'scale', target: DEP, parallelism: 8, incidentChannels: [] },
      },
      { resource: scaled },
      { ...PLAN_CONTEXT, opId: 'op-undo001' },
    );
    if (!undo.ok) throw new Error(undo.refusal);
    expect(undo.plan.judgedAs).toBe('scale');
    const back = settled(flinkDeployment, specPatchOf(undo.plan), {
      generation: 5,
      reconciled: { job: { parallelism: 0 } },
    } as never);
    const v = judge({ kind: 'scale', plan: undo.plan, before: scaled, resource: back, submittedGeneration: 5 });
    expect(metMap(v)['spec-reconciled:spec.job.parallelism']).toBe(true);
  });
});

describe('a restore with a pinned $internal.pipeline.job-id', () => {
  it('does not wait for a new jobId (the operator keeps it): a note says so', () => {
    const conf = { flinkConfiguration: { '$internal.pipeline.job-id': 'a1b2c3d4e5f60718293a4b5c6d7e8f90' } };
    const before = flinkDeployment({
      spec: conf,
      status: { jobStatus: { jobId: 'a1b2c3d4e5f60718293a4b5c6d7e8f90' } },
    });
    const plan = planFor({ kind: 'restore', target: DEP, from: 's3://sp/1' }, before);
    const submit = kubeEvent({
      reason: 'Submit',
      name: 'JobManagerDeployment.3',
      message: 'Starting deployment',
      last: secondsAfter(5),
    });
    const resource = settled(
      flinkDeployment,
      { ...specPatchOf(plan), ...conf },
      { status: { jobStatus: { upgradeSavepointPath: 's3://sp/1', jobId: 'a1b2c3d4e5f60718293a4b5c6d7e8f90' } } },
    );
    const v = judge({ kind: 'restore', plan, before, resource, events: [submit] });
    expect(v.outcome).toBe('completed');
    expect(Object.keys(metMap(v))).not.toContain('job-id-new');
    expect(v.outcome === 'completed' && v.notes.join(' ')).toContain('$internal.pipeline.job-id pins it');
  });
});

describe("cluster clocks that differ from the worker's", () => {
  it.each([30_000, -30_000])(
    'a ValidationError written %d ms off the worker clock still fails the change',
    (offset) => {
      const before = flinkDeployment();
      const plan = planFor({ kind: 'scale', target: DEP, parallelism: 8 }, before);
      const refused = kubeEvent({
        reason: 'ValidationError',
        type: 'Warning',
        name: 'Operator.7',
        message: 'Job parallelism must be larger than 0',
        last: SUBMITTED_AT + 1_000 + offset,
      });
      expect(judge({ kind: 'scale', plan, before, resource: before, events: [refused] }).outcome).toBe('failed');
    },
  );
});
