// GitOps on the card and in the thread (docs/policy.md#gitops-managed-targets): the owner and which fields Git puts
// back before approval, the pause and how to end it, and each revert after COMPLETED.
import { describe, expect, it } from 'vitest';
import { gitopsLines, gitopsSection, revertText } from '../../../../src/slack/blocks/gitops.js';
import type { HistoryEntry, OperationRecord } from '../../../../src/domain/engines/operation.js';
import type { PlanGitops } from '../../../../src/domain/model/plan.js';
import { recordIn } from '../../../support/records.js';

const ARGO: PlanGitops = {
  owner: 'Argo CD application team-a_orders',
  tool: 'argocd',
  declared: ['spec.job.parallelism'],
  undeclared: [],
  source: 'managedFields',
  onManaged: 'warn',
  pauses: false,
  paused: false,
  revertWatchMs: 900_000,
};
const AT = Date.UTC(2030, 2, 1, 10, 42, 5);
const revert: HistoryEntry = {
  seq: 9,
  type: 'note',
  name: 'REVERTED',
  actor: 'worker',
  at: AT,
  detail: {
    path: ['spec', 'job', 'parallelism'],
    from: 8,
    to: 4,
    manager: 'argocd-controller',
    gitopsOwner: 'Argo CD application team-a_orders',
    at: AT,
    effect: 'A spec change: the operator redeploys the job with it',
  },
};

describe('gitopsLines', () => {
  it('names the owner and the declared fields, or says none is declared', () => {
    expect(gitopsLines(ARGO, 'streaming-prod/orders', '/flink')).toEqual([
      'Managed by Argo CD application team-a_orders: `spec.job.parallelism` is declared in Git and will be reverted.',
    ]);
    expect(gitopsLines({ ...ARGO, declared: [], undeclared: ['spec.restartNonce'] }, 'x/y', '/flink')).toEqual([
      'Managed by Argo CD application team-a_orders: no field of this change is declared in Git.',
    ]);
    expect(gitopsLines({ ...ARGO, owner: undefined }, 'x/y', '/flink')).toEqual([]);
  });

  it('says how to end a pause the change makes, with the command', () => {
    const lines = gitopsLines(
      { ...ARGO, owner: 'Flux Kustomization flux-system/apps', pauses: true },
      'ns/orders',
      '/ops',
    );
    expect(lines[0]).toContain('would be reverted without the pause');
    expect(lines.at(-1)).toContain('commit the change to Git, then run `/ops gitops resume ns/orders`');
  });
});

describe('reverts', () => {
  it('reads as who, what owner, when and from → to, with the operator effect', () => {
    const text = revertText(revert);
    expect(text).toContain('Reverted by argocd-controller (Argo CD application team-a_orders) at <!date^');
    expect(text).toContain('2030-03-01 10:42:05 UTC');
    expect(text).toContain('spec.job.parallelism 8 → 4. A spec change: the operator redeploys the job with it.');
  });

  it('the card lists the latest reverts under the plan words', () => {
    const base = recordIn('COMPLETED');
    const record: OperationRecord = {
      ...base,
      plan: { ...(base.plan as NonNullable<OperationRecord['plan']>), gitops: ARGO },
      history: [...base.history, revert],
    };
    const text = JSON.stringify(gitopsSection(record, '/flink'));
    expect(text).toContain('*GitOps*');
    expect(text).toContain('will be reverted');
    expect(text).toContain(':rewind: Reverted by argocd-controller');
    expect(
      gitopsSection({ ...base, plan: { ...(base.plan as NonNullable<OperationRecord['plan']>) } }, '/flink'),
    ).toBeUndefined();
    // With the gitops check on the card, the section does not say the same thing again.
    const decision = base.decision as NonNullable<OperationRecord['decision']>;
    const gitopsCheck = { name: 'gitops', outcome: 'warn' as const, message: 'x' };
    const checked = { ...record, decision: { ...decision, checks: [...decision.checks, gitopsCheck] } };
    const once = JSON.stringify(gitopsSection(checked, '/flink'));
    expect(once).not.toContain('will be reverted');
    expect(once).toContain(':rewind: Reverted by argocd-controller');
  });
});
