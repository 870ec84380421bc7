// The general criteria kinds build their evidence from; here the one metadata-only changes are judged on.
import { describe, expect, it } from 'vitest';
import { submissionObserved, type Ctx } from '../../../../../src/domain/kit/evidence/criteria.js';
import { ANNOTATION_OPERATION_ID } from '../../../../../src/domain/model/plan.js';
import { flinkDeployment, planFor, PLAN_CONTEXT } from '../../../../support/fixtures.js';

const target = { kind: 'FlinkDeployment', namespace: 'streaming-prod', name: 'orders-enricher' };
const plan = planFor({ kind: 'restart', target }, flinkDeployment());
/** Only what submissionObserved reads; the judge builds the rest. */
const ctxOf = (resource: unknown, p = plan) => ({ plan: p, resource, now: 1_000 }) as unknown as Ctx;

describe('submissionObserved', () => {
  it('holds on an object carrying this operation’s id, and says which resourceVersion it read', () => {
    const ours = flinkDeployment({
      annotations: { [ANNOTATION_OPERATION_ID]: PLAN_CONTEXT.opId },
      resourceVersion: '9',
    });
    expect(submissionObserved(ctxOf(ours))).toEqual({
      name: 'submission-observed',
      met: true,
      observed: { operationId: PLAN_CONTEXT.opId, resourceVersion: '9' },
      source: `metadata.annotations[${ANNOTATION_OPERATION_ID}], metadata.resourceVersion`,
      at: 1_000,
    });
  });

  it('does not hold on a copy without it, or written by another operation', () => {
    expect(submissionObserved(ctxOf(flinkDeployment())).met).toBe(false);
    const other = flinkDeployment({ annotations: { [ANNOTATION_OPERATION_ID]: 'op-other1' } });
    expect(submissionObserved(ctxOf(other)).met).toBe(false);
    expect(submissionObserved(ctxOf(undefined)).met).toBe(false);
  });

  it('does not hold for a change that is not a patch', () => {
    const snapshot = planFor({ kind: 'savepoint', target }, flinkDeployment());
    const ours = flinkDeployment({ annotations: { [ANNOTATION_OPERATION_ID]: PLAN_CONTEXT.opId } });
    expect(submissionObserved(ctxOf(ours, snapshot)).met).toBe(false);
  });
});
