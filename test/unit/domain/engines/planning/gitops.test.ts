// What a target's GitOps owner means for a plan (docs/policy.md#gitops-managed-targets): the card's words, the check per
// `onManaged`, the pause in the same patch, the restore rule and the exempt kinds.
import { describe, expect, it } from 'vitest';
import { assessGitops, GITOPS_CHECK } from '../../../../../src/domain/engines/planning/gitops.js';
import { planDigest } from '../../../../../src/domain/engines/planning/planner.js';
import { DEFAULT_GITOPS, type GitopsSettings } from '../../../../../src/domain/engines/policy/gitops.js';
import { evaluate } from '../../../../../src/domain/engines/policy/evaluate.js';
import { validatePolicy } from '../../../../../src/domain/engines/policy/validate.js';
import type { KubeObject } from '../../../../../src/kube/flink-client.js';
import { flinkDeployment, planFor } from '../../../../support/fixtures.js';

const TARGET = { kind: 'FlinkDeployment', namespace: 'streaming-prod', name: 'orders-enricher' } as const;
const spec = (...keys: string[]) => ({ 'f:spec': { 'f:job': Object.fromEntries(keys.map((k) => [`f:${k}`, {}])) } });

function managed(
  manager: string,
  fieldsV1: Record<string, unknown>,
  extra: { annotations?: Record<string, string>; labels?: Record<string, string> } = {},
): KubeObject {
  const resource = flinkDeployment({ ...extra });
  resource.metadata.managedFields = [
    {
      manager,
      operation: 'Apply',
      apiVersion: 'flink.apache.org/v1beta1',
      time: '2030-03-01T12:00:00Z',
      fieldsType: 'FieldsV1',
      fieldsV1: fieldsV1 as never,
    },
  ];
  return resource;
}

const ARGO = {
  annotations: {
    'argocd.argoproj.io/tracking-id': 'team-a_orders:flink.apache.org/FlinkDeployment:streaming-prod/orders-enricher',
  },
};
const FLUX = {
  labels: { 'kustomize.toolkit.fluxcd.io/name': 'apps', 'kustomize.toolkit.fluxcd.io/namespace': 'flux-system' },
};
const argoTarget = managed('argocd-controller', spec('parallelism', 'state', 'upgradeMode'), ARGO);
const fluxTarget = managed('kustomize-controller', spec('parallelism', 'initialSavepointPath'), FLUX);

function assessed(
  raw: Record<string, unknown>,
  resource: unknown,
  settings: Partial<GitopsSettings> = {},
  effectiveKind?: string,
) {
  const plan = planFor({ target: TARGET, ...raw }, resource);
  return assessGitops({
    plan,
    resource,
    intentKind: String(raw.kind),
    effectiveKind: effectiveKind ?? String(raw.kind),
    settings: { ...DEFAULT_GITOPS, ...settings },
  });
}

describe('assessGitops', () => {
  it('warns before approval that a declared field will be reverted, naming the Argo CD application', () => {
    const { plan, checks } = assessed({ kind: 'scale', parallelism: 8 }, argoTarget);
    expect(checks).toEqual([
      {
        name: GITOPS_CHECK,
        outcome: 'warn',
        message:
          'managed by Argo CD application team-a_orders: `spec.job.parallelism` is declared in Git and will be reverted',
      },
    ]);
    expect(plan.gitops).toMatchObject({
      owner: 'Argo CD application team-a_orders',
      tool: 'argocd',
      declared: ['spec.job.parallelism'],
      undeclared: [],
      source: 'managedFields',
      onManaged: 'warn',
      pauses: false,
      revertWatchMs: 15 * 60_000,
    });
  });

  it('says no field is declared for a restart whose restartNonce Git does not declare', () => {
    const { plan, checks } = assessed({ kind: 'restart' }, argoTarget);
    expect(checks.map((c) => [c.outcome, c.message])).toEqual([
      ['pass', 'managed by Argo CD application team-a_orders: no field of this change is declared in Git'],
    ]);
    expect(plan.gitops?.declared).toEqual([]);
    expect(plan.gitops?.undeclared).toEqual(['spec.restartNonce']);
  });

  it('refuse fails the check naming the owner (a failed check denies, break-glass or not)', () => {
    const { checks } = assessed({ kind: 'scale', parallelism: 8 }, argoTarget, { onManaged: 'refuse' });
    expect(checks[0]?.outcome).toBe('fail');
    expect(checks[0]?.message).toContain('Argo CD application team-a_orders');
    expect(checks[0]?.message).toContain('change it in Git instead');
  });

  it('refuse denies even with --break-glass: a failed check is never skipped', () => {
    const { checks } = assessed({ kind: 'scale', parallelism: 8 }, argoTarget, { onManaged: 'refuse' });
    const validated = validatePolicy({
      version: 1,
      groups: { oncall: { users: ['U0ALICE'] } },
      namespaces: [{ name: 'streaming-prod', environment: 'production' }],
      breakGlass: { groups: ['oncall'], environments: ['production'] },
    });
    if (!validated.ok) throw new Error(validated.errors.join('\n'));
    const policy = validated.policy;
    const decision = evaluate(policy, {
      intentKind: 'scale',
      namespace: 'streaming-prod',
      now: new Date(Date.UTC(2030, 2, 6, 10)),
      checks,
      breakGlass: true,
    });
    expect(decision.outcome).toBe('deny');
    expect(decision.outcome === 'deny' && decision.reasons.join()).toContain('Argo CD application team-a_orders');
  });

  it('pause on a Flux Kustomization target adds both annotations to the same merge patch and re-digests it', () => {
    const before = planFor({ target: TARGET, kind: 'scale', parallelism: 8 }, fluxTarget);
    const { plan, checks } = assessed({ kind: 'scale', parallelism: 8 }, fluxTarget, { onManaged: 'pause' });
    if (plan.change.type !== 'patch') throw new Error('expected a patch');
    expect(plan.change.patch).toMatchObject({
      metadata: {
        annotations: {
          'kustomize.toolkit.fluxcd.io/reconcile': 'disabled',
          'flink-chatops/gitops-paused-by': 'op-abc123',
          'flink-chatops/operation-id': 'op-abc123',
        },
      },
      spec: { job: { parallelism: 8 } },
    });
    expect(plan.gitops?.pauses).toBe(true);
    expect(checks[0]?.outcome).toBe('warn');
    expect(checks[0]?.message).toContain('gitops resume streaming-prod/orders-enricher');
    expect(plan.digest).not.toBe(before.digest);
    expect(plan.digest).toBe(
      planDigest({ target: plan.target, uid: plan.uid, generation: plan.generation, change: plan.change }),
    );
  });

  it('pause elsewhere is refused with the reason; nothing is added to the patch', () => {
    const { plan, checks } = assessed({ kind: 'scale', parallelism: 8 }, argoTarget, { onManaged: 'pause' });
    expect(checks[0]).toMatchObject({ outcome: 'fail' });
    expect(checks[0]?.message).toContain(
      'pause is supported for Flux-managed targets; change Git, or disable self-heal on application team-a_orders',
    );
    expect(JSON.stringify(plan.change)).not.toContain('reconcile');
  });

  it('denies a restore whose savepoint fields Git owns unless the target is paused', () => {
    const intent = { kind: 'restore', from: 's3://flink/savepoints/orders/savepoint-1' };
    const denied = assessed(intent, fluxTarget);
    expect(denied.checks.find((c) => c.name === 'gitops-restore')).toMatchObject({ outcome: 'fail' });
    const paused = managed('kustomize-controller', spec('parallelism', 'initialSavepointPath'), {
      labels: FLUX.labels,
      annotations: { 'kustomize.toolkit.fluxcd.io/reconcile': 'disabled' },
    });
    expect(assessed(intent, paused).checks.find((c) => c.name === 'gitops-restore')?.outcome).toBe('pass');
    const pausing = assessed(intent, fluxTarget, { onManaged: 'pause' });
    expect(pausing.checks.find((c) => c.name === 'gitops-restore')?.outcome).toBe('pass');
  });

  it('leaves exempt kinds and unmanaged targets without a check', () => {
    expect(assessed({ kind: 'scale', parallelism: 8 }, argoTarget, { exempt: ['scale'] })).toMatchObject({
      checks: [],
    });
    expect(assessed({ kind: 'scale', parallelism: 8 }, argoTarget, { exempt: ['scale'] }).plan.gitops).toBeUndefined();
    const plain = assessed({ kind: 'scale', parallelism: 8 }, flinkDeployment());
    expect(plain.checks).toEqual([]);
    expect(plain.plan.gitops).toMatchObject({
      declared: [],
      undeclared: ['spec.job.parallelism'],
      revertWatchMs: 900_000,
    });
    expect(plain.plan.gitops?.owner).toBeUndefined();
  });

  it('counts every field as declared when the object does not say which ones Git declares', () => {
    const helm = flinkDeployment({
      labels: { 'app.kubernetes.io/managed-by': 'Helm' },
      annotations: { 'meta.helm.sh/release-name': 'orders' },
    });
    const { checks, plan } = assessed({ kind: 'scale', parallelism: 8 }, helm);
    expect(plan.gitops).toMatchObject({ source: 'unknown', declared: ['spec.job.parallelism'] });
    expect(checks[0]?.message).toContain('Helm release orders');
  });
});
