// gitops-resume: what only this kind does — typed as `gitops resume`, a metadata-only patch that removes the GitOps
// pause annotations, refused on a target that is not paused, judged by the annotations on the object it wrote.
import { describe, expect, it } from 'vitest';
import { parseCommand } from '../../../../src/domain/engines/language/parse.js';
import { helpText } from '../../../../src/domain/engines/language/help.js';
import { describeIntent } from '../../../../src/domain/kinds/index.js';
import { ANNOTATION_FLUX_RECONCILE, ANNOTATION_GITOPS_PAUSED_BY } from '../../../../src/domain/model/gitops.js';
import { applyMergePatch } from '../../../../src/domain/model/merge-patch.js';
import { ANNOTATION_OPERATION_ID, ANNOTATION_REQUESTED_BY, type Plan } from '../../../../src/domain/model/plan.js';
import type { KubeObject } from '@flink-chatops/sim/kube/store';
import { DEP, judge, metMap, warning } from '../../../support/evidence-fixtures.js';
import {
  PLAN_CONTEXT,
  flinkDeployment,
  flinkSessionJob,
  planFor,
  refusalFor,
  sessionCluster,
} from '../../../support/fixtures.js';

const intent = { kind: 'gitops-resume', target: DEP };
const PAUSED_BY_US = { [ANNOTATION_FLUX_RECONCILE]: 'disabled', [ANNOTATION_GITOPS_PAUSED_BY]: 'op-pause01' };
const paused = (annotations: Record<string, string> = PAUSED_BY_US) => flinkDeployment({ annotations });

/** The object as the API server returns it after our patch: annotations merged, resourceVersion moved, same generation. */
function written(before: KubeObject, plan: Plan): KubeObject {
  const patch = plan.change.type === 'patch' ? plan.change.patch : {};
  const after = applyMergePatch(before, patch) as KubeObject;
  after.metadata.resourceVersion = String(Number(before.metadata.resourceVersion) + 1);
  return after;
}

describe('gitops-resume: the command', () => {
  it('is typed as two words and takes the usual operation flags', () => {
    expect(
      parseCommand('gitops resume prod/x --reason "in Git now" --incident <#C0123ABCD|inc> --window nightly', {}),
    ).toStrictEqual({
      type: 'intent',
      intent: {
        kind: 'gitops-resume',
        target: { kind: 'FlinkDeployment', namespace: 'prod', name: 'x' },
        reason: 'in Git now',
        incidentChannels: ['C0123ABCD'],
        window: 'nightly',
      },
    });
    expect(parseCommand('gitops resume sessionjob:x --break-glass --reason now', { defaultNamespace: 'prod' })).toEqual(
      {
        type: 'intent',
        intent: expect.objectContaining({
          kind: 'gitops-resume',
          target: { kind: 'FlinkSessionJob', namespace: 'prod', name: 'x' },
          breakGlass: true,
        }),
      },
    );
  });

  it('says what gitops takes when the second word is missing or unknown', () => {
    for (const text of ['gitops', 'gitops pause prod/x']) {
      const result = parseCommand(text, {});
      expect(result.type).toBe('reply');
      if (result.type === 'reply') expect(result.message).toMatch(/; use `gitops resume <target>`\nUsage: /);
    }
    expect(parseCommand('gitops pause prod/x', {})).toMatchObject({
      message: expect.stringMatching(/^unknown gitops command "pause"/),
    });
  });

  it('has help under both names', () => {
    expect(helpText('gitops')).toBe(helpText('gitops-resume'));
    expect(helpText('gitops')).toContain('`/flink gitops resume analytics/clickstream --reason');
  });

  it('reads on cards as its kind and target', () => {
    expect(describeIntent({ kind: 'gitops-resume', target: DEP, incidentChannels: [] })).toBe(
      'gitops-resume streaming-prod/orders-enricher',
    );
  });
});

describe('gitops-resume: the plan', () => {
  it('removes both annotations in a metadata-only merge patch beside the bot’s own two', () => {
    const plan = planFor(intent, paused());
    expect(plan.change).toEqual({
      type: 'patch',
      patch: {
        metadata: {
          annotations: {
            [ANNOTATION_OPERATION_ID]: PLAN_CONTEXT.opId,
            [ANNOTATION_REQUESTED_BY]: PLAN_CONTEXT.requester,
            [ANNOTATION_FLUX_RECONCILE]: null,
            [ANNOTATION_GITOPS_PAUSED_BY]: null,
          },
        },
      },
    });
    expect(plan.diff).toEqual([
      { path: `metadata.annotations.${ANNOTATION_FLUX_RECONCILE}`, before: 'disabled', after: null },
      { path: `metadata.annotations.${ANNOTATION_GITOPS_PAUSED_BY}`, before: 'op-pause01', after: null },
    ]);
    expect(plan.effectiveUpgradeMode).toBeUndefined();
    expect(plan.notes).toEqual([expect.stringMatching(/^Flux applies Git to this object again at its next reconcile/)]);
  });

  it('refuses a target that is not paused, in plain words', () => {
    expect(refusalFor(intent, flinkDeployment())).toBe(
      `streaming-prod/orders-enricher is not paused for GitOps (no ${ANNOTATION_FLUX_RECONCILE}: disabled annotation); nothing to resume`,
    );
  });

  it('takes a reconcile annotation that is not `disabled` as no pause', () => {
    const enabled = paused({ [ANNOTATION_FLUX_RECONCILE]: 'enabled' });
    expect(refusalFor(intent, enabled)).toMatch(/is not paused for GitOps .*; nothing to resume$/);
    const leftover = paused({ [ANNOTATION_FLUX_RECONCILE]: 'enabled', [ANNOTATION_GITOPS_PAUSED_BY]: 'op-pause01' });
    const plan = planFor(intent, leftover);
    expect(plan.diff.map((c) => c.path)).toEqual([`metadata.annotations.${ANNOTATION_GITOPS_PAUSED_BY}`]);
    expect(judge({ kind: 'gitops-resume', plan, before: leftover, resource: written(leftover, plan) }).outcome).toBe(
      'completed',
    );
  });

  it('resumes a pause someone else made, and says the bot did not make it', () => {
    const plan = planFor(intent, paused({ [ANNOTATION_FLUX_RECONCILE]: 'Disabled' }));
    expect(plan.diff.map((c) => c.path)).toEqual([`metadata.annotations.${ANNOTATION_FLUX_RECONCILE}`]);
    expect(plan.notes[0]).toMatch(
      /^the GitOps pause \(kustomize\.toolkit\.fluxcd\.io\/reconcile: Disabled\) was not made by this bot/,
    );
  });

  it('removes a leftover pause marker when the reconcile annotation is already gone', () => {
    const plan = planFor(intent, paused({ [ANNOTATION_GITOPS_PAUSED_BY]: 'op-pause01' }));
    expect(plan.diff.map((c) => c.path)).toEqual([`metadata.annotations.${ANNOTATION_GITOPS_PAUSED_BY}`]);
    expect(plan.notes[0]).toMatch(/is already gone, so Flux already applies Git; this removes the leftover/);
  });

  it('applies to session clusters, session jobs and suspended jobs alike', () => {
    const annotations = PAUSED_BY_US;
    const cluster = { kind: 'FlinkDeployment', namespace: 'streaming-prod', name: 'session-cluster' };
    expect(planFor({ ...intent, target: cluster }, sessionCluster({ annotations })).diff).toHaveLength(2);
    const job = { kind: 'FlinkSessionJob', namespace: 'streaming-prod', name: 'clickstream-sessionizer' };
    expect(planFor({ ...intent, target: job }, flinkSessionJob({ annotations })).diff).toHaveLength(2);
    const suspended = flinkDeployment({ annotations, spec: { job: { state: 'suspended' } } });
    expect(planFor(intent, suspended).diff).toHaveLength(2);
  });
});

describe('gitops-resume: the evidence', () => {
  const before = paused();
  const plan = planFor(intent, before);
  const after = written(before, plan);
  const verdict = (resource: unknown, events: unknown[] = []) =>
    judge({ kind: 'gitops-resume', plan, before, resource, events, submittedGeneration: plan.generation });

  it('is COMPLETED on the object our patch produced, without waiting for the operator', () => {
    expect(after.metadata.generation).toBe(before.metadata.generation);
    const v = verdict(after);
    expect(v.outcome).toBe('completed');
    expect(metMap(v)).toEqual({
      'submission-observed': true,
      [`annotation-removed:${ANNOTATION_FLUX_RECONCILE}`]: true,
      [`annotation-removed:${ANNOTATION_GITOPS_PAUSED_BY}`]: true,
    });
    if (v.outcome !== 'completed') return;
    expect(v.proof.verified).toEqual([
      expect.stringMatching(/no longer carries kustomize\.toolkit\.fluxcd\.io\/reconcile/),
    ]);
    expect(v.proof.notVerified).toContain(
      'that Flux applied Git again (its next reconcile of the Kustomization was not watched)',
    );
  });

  it('is judged without the submitted generation too (the worker records the one the patch left)', () => {
    expect(judge({ kind: 'gitops-resume', plan, before, resource: after }).outcome).toBe('completed');
  });

  it('waits while the object still carries an annotation', () => {
    const readded = structuredClone(after);
    readded.metadata.annotations = { ...readded.metadata.annotations, [ANNOTATION_FLUX_RECONCILE]: 'disabled' };
    const v = verdict(readded);
    expect(v.outcome).toBe('pending');
    expect(metMap(v)[`annotation-removed:${ANNOTATION_FLUX_RECONCILE}`]).toBe(false);
  });

  it('waits on a copy from before the submission, even one without the annotations', () => {
    expect(verdict(before).outcome).toBe('pending');
    const cleared = flinkDeployment();
    const v = verdict(cleared);
    expect(v.outcome).toBe('pending');
    expect(metMap(v)['submission-observed']).toBe(false);
  });

  it('is not held back by Warning events: the operator has nothing to do with it', () => {
    expect(verdict(after, [warning('ClusterDeploymentException')]).outcome).toBe('completed');
  });
});
