import { describe, expect, it } from 'vitest';
import {
  ANNOTATION_FLUX_RECONCILE,
  declaredPaths,
  detectGitops,
  GITOPS_MANAGERS,
  GITOPS_TOOLS,
  ownerWords,
  trackingIdApp,
  type GitopsOwner,
} from '../../../../src/domain/model/gitops.js';
import type { FieldPath } from '../../../../src/domain/model/managed-fields.js';

interface Meta {
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  managers?: string[];
  managedFields?: unknown[];
}

function object(meta: Meta): unknown {
  const managedFields =
    meta.managedFields ?? (meta.managers ?? []).map((manager) => ({ manager, operation: 'Apply', fieldsV1: {} }));
  return {
    apiVersion: 'flink.apache.org/v1beta1',
    kind: 'FlinkDeployment',
    metadata: {
      name: 'orders',
      namespace: 'team-a',
      labels: meta.labels ?? {},
      annotations: meta.annotations ?? {},
      managedFields,
    },
    spec: { image: 'flink:1.20', job: { parallelism: 4 } },
  };
}

const TRACKING = 'argocd.argoproj.io/tracking-id';
const HELM_CHART_LABELS = { 'app.kubernetes.io/instance': 'orders', 'app.kubernetes.io/managed-by': 'Helm' };
const HELM_ANNOTATIONS = { 'meta.helm.sh/release-name': 'orders', 'meta.helm.sh/release-namespace': 'team-a' };
const KS_LABELS = {
  'kustomize.toolkit.fluxcd.io/name': 'apps',
  'kustomize.toolkit.fluxcd.io/namespace': 'flux-system',
};
const HR_LABELS = { 'helm.toolkit.fluxcd.io/name': 'orders', 'helm.toolkit.fluxcd.io/namespace': 'team-a' };

describe('detectGitops', () => {
  it.each<[string, Meta, GitopsOwner | undefined]>([
    [
      'Argo CD by tracking annotation',
      { annotations: { [TRACKING]: 'orders:flink.apache.org/FlinkDeployment:team-a/orders' } },
      { tool: 'argocd', name: 'orders', managers: [], paused: false },
    ],
    [
      'Argo CD app outside its namespace',
      {
        annotations: { [TRACKING]: 'team-a_orders:flink.apache.org/FlinkDeployment:team-a/orders' },
        managers: ['argocd-controller'],
      },
      { tool: 'argocd', name: 'team-a_orders', managers: ['argocd-controller'], paused: false },
    ],
    [
      'Argo CD core kind, cluster-scoped (empty group and namespace)',
      { annotations: { [TRACKING]: 'infra:/Namespace:/team-a' } },
      { tool: 'argocd', name: 'infra', managers: [], paused: false },
    ],
    [
      'Argo CD with a malformed tracking id: still Argo CD, no name',
      { annotations: { [TRACKING]: 'garbage' } },
      { tool: 'argocd', managers: [], paused: false },
    ],
    [
      'Argo CD by the SSA manager alone',
      { managers: ['argocd-controller'] },
      { tool: 'argocd', managers: ['argocd-controller'], paused: false },
    ],
    [
      'Argo CD by the client-side-apply manager with label tracking',
      { labels: { 'app.kubernetes.io/instance': 'orders-app' }, managers: ['argocd-application-controller'] },
      { tool: 'argocd', name: 'orders-app', managers: ['argocd-application-controller'], paused: false },
    ],
    ['the instance label alone is not Argo CD', { labels: { 'app.kubernetes.io/instance': 'orders' } }, undefined],
    [
      'the instance label with managed-by Helm is Helm',
      { labels: HELM_CHART_LABELS },
      { tool: 'helm', name: 'orders', managers: [], paused: false },
    ],
    [
      'Helm by label and release annotation',
      { labels: { 'app.kubernetes.io/managed-by': 'Helm' }, annotations: HELM_ANNOTATIONS },
      { tool: 'helm', name: 'orders', managers: [], paused: false },
    ],
    ['Helm by manager', { managers: ['helm'] }, { tool: 'helm', managers: ['helm'], paused: false }],
    [
      'managed-by Helm without a release says nothing',
      { labels: { 'app.kubernetes.io/managed-by': 'Helm' } },
      undefined,
    ],
    ['the release annotation without managed-by Helm says nothing', { annotations: HELM_ANNOTATIONS }, undefined],
    [
      'Flux Kustomization by labels',
      { labels: KS_LABELS },
      { tool: 'flux-kustomization', name: 'flux-system/apps', managers: [], paused: false },
    ],
    [
      'Flux Kustomization by manager',
      { managers: ['kustomize-controller'] },
      { tool: 'flux-kustomization', managers: ['kustomize-controller'], paused: false },
    ],
    [
      'one Flux Kustomization label is not enough',
      { labels: { 'kustomize.toolkit.fluxcd.io/name': 'apps' } },
      undefined,
    ],
    [
      'Flux HelmRelease by labels, with Helm annotations',
      { labels: { ...HR_LABELS, ...HELM_CHART_LABELS }, annotations: HELM_ANNOTATIONS },
      { tool: 'flux-helmrelease', name: 'team-a/orders', managers: [], paused: false },
    ],
    [
      'Flux HelmRelease by manager, with Helm labels and annotations',
      { labels: HELM_CHART_LABELS, annotations: HELM_ANNOTATIONS, managers: ['helm-controller'] },
      { tool: 'flux-helmrelease', managers: ['helm-controller'], paused: false },
    ],
    [
      'one Flux HelmRelease label is not enough',
      { labels: { 'helm.toolkit.fluxcd.io/namespace': 'team-a' } },
      undefined,
    ],
    [
      'Argo CD before Flux Kustomization before Helm',
      {
        labels: { ...KS_LABELS, ...HELM_CHART_LABELS },
        annotations: { [TRACKING]: 'orders:flink.apache.org/FlinkDeployment:team-a/orders' },
        managers: ['kustomize-controller', 'helm'],
      },
      { tool: 'argocd', name: 'orders', managers: [], paused: false },
    ],
    [
      'Flux Kustomization before Flux HelmRelease',
      { labels: { ...KS_LABELS, ...HR_LABELS }, managers: ['helm-controller'] },
      { tool: 'flux-kustomization', name: 'flux-system/apps', managers: [], paused: false },
    ],
    ['other managers are nobody', { managers: ['kubectl', 'flink-chatops', 'kubectl-client-side-apply'] }, undefined],
    ['an object without metadata', {}, undefined],
  ])('%s', (_name, meta, expected) => {
    expect(detectGitops(object(meta))).toEqual(expected);
  });

  it('reads paused from the reconcile annotation or label, for Flux Kustomization only', () => {
    const paused = (meta: Meta) => detectGitops(object(meta))?.paused;
    expect(paused({ labels: KS_LABELS, annotations: { [ANNOTATION_FLUX_RECONCILE]: 'disabled' } })).toBe(true);
    expect(paused({ labels: { ...KS_LABELS, [ANNOTATION_FLUX_RECONCILE]: 'Disabled' } })).toBe(true);
    expect(paused({ labels: KS_LABELS, annotations: { [ANNOTATION_FLUX_RECONCILE]: 'enabled' } })).toBe(false);
    expect(paused({ labels: HR_LABELS, annotations: { [ANNOTATION_FLUX_RECONCILE]: 'disabled' } })).toBe(false);
  });

  // fluxcd/pkg ssa/manager_apply.go shouldSkipApply, ssa/utils/meta.go AnyInMetadata (strings.EqualFold).
  it('reads the ssa marks Flux skips an object for: Ignore anywhere, IfNotPresent only as Git applied it', () => {
    const skipped = (meta: Meta) => detectGitops(object(meta))?.skipped;
    const SSA = 'kustomize.toolkit.fluxcd.io/ssa';
    expect(skipped({ labels: KS_LABELS, annotations: { [SSA]: 'ignore' } })).toBe(`${SSA}: Ignore`);
    expect(skipped({ labels: { ...KS_LABELS, [SSA]: 'Ignore' } })).toBe(`${SSA}: Ignore`);
    expect(skipped({ labels: KS_LABELS, annotations: { [SSA]: 'Merge' } })).toBeUndefined();
    const fromGit = entry('kustomize-controller', { 'f:metadata': { 'f:annotations': { [`f:${SSA}`]: {} } } });
    const byHand = entry('kubectl-edit', { 'f:metadata': { 'f:annotations': { [`f:${SSA}`]: {} } } });
    const ifNotPresent = { [SSA]: 'IfNotPresent' };
    expect(skipped({ labels: KS_LABELS, annotations: ifNotPresent, managedFields: [fromGit] })).toBe(
      `${SSA}: IfNotPresent`,
    );
    expect(skipped({ labels: KS_LABELS, annotations: ifNotPresent, managedFields: [byHand] })).toBeUndefined();
    expect(skipped({ labels: HR_LABELS, annotations: { [SSA]: 'Ignore' } })).toBeUndefined();
  });

  it('lists each manager of the tool once, ignoring malformed entries', () => {
    const r = object({
      managedFields: [
        { manager: 'kustomize-controller', operation: 'Apply' },
        { manager: 'flink-chatops', operation: 'Update' },
        { operation: 'Apply' },
        { manager: 'kustomize-controller', operation: 'Update' },
      ],
    });
    expect(detectGitops(r)?.managers).toEqual(['kustomize-controller']);
  });

  it('never throws on odd input', () => {
    for (const input of [undefined, null, 3, 'x', [], { metadata: { labels: 'x', managedFields: 'y' } }]) {
      expect(detectGitops(input)).toBeUndefined();
    }
  });
});

describe('trackingIdApp', () => {
  it.each([
    ['orders:flink.apache.org/FlinkDeployment:team-a/orders', 'orders'],
    ['team-a_orders:apps/Deployment:team-a/web', 'team-a_orders'],
    [':apps/Deployment:team-a/web', undefined],
    ['orders:FlinkDeployment:team-a/orders', undefined],
    ['orders:flink.apache.org/FlinkDeployment:orders', undefined],
    ['orders:flink.apache.org/:team-a/orders', undefined],
    ['orders:flink.apache.org/FlinkDeployment:team-a/', undefined],
    ['a:b/c:d/e:f', undefined],
  ])('%s → %s', (id, app) => {
    expect(trackingIdApp(id)).toBe(app);
  });
});

describe('ownerWords', () => {
  it.each<[GitopsOwner, string]>([
    [{ tool: 'argocd', name: 'team-a_orders', managers: [], paused: false }, 'Argo CD application team-a_orders'],
    [
      { tool: 'flux-kustomization', name: 'flux-system/apps', managers: [], paused: true },
      'Flux Kustomization flux-system/apps',
    ],
    [
      { tool: 'flux-helmrelease', name: 'team-a/orders', managers: [], paused: false },
      'Flux HelmRelease team-a/orders',
    ],
    [{ tool: 'helm', name: 'orders', managers: [], paused: false }, 'Helm release orders'],
    [{ tool: 'argocd', managers: ['argocd-controller'], paused: false }, 'an Argo CD application'],
    [{ tool: 'flux-kustomization', managers: [], paused: false }, 'a Flux Kustomization'],
    [{ tool: 'flux-helmrelease', managers: [], paused: false }, 'a Flux HelmRelease'],
    [{ tool: 'helm', managers: ['helm'], paused: false }, 'a Helm release'],
  ])('%j → %s', (owner, words) => {
    expect(ownerWords(owner)).toBe(words);
  });

  it('has managers for every tool', () => {
    for (const tool of GITOPS_TOOLS) expect(GITOPS_MANAGERS[tool].length).toBeGreaterThan(0);
  });
});

const PARALLELISM: FieldPath = ['spec', 'job', 'parallelism'];
const NONCE: FieldPath = ['spec', 'restartNonce'];
const SLOTS: FieldPath = ['spec', 'flinkConfiguration', 'taskmanager.numberOfTaskSlots'];
const CHECKPOINTS: FieldPath = ['spec', 'flinkConfiguration', 'execution.checkpointing.interval'];
const ARGO: GitopsOwner = { tool: 'argocd', name: 'team-a_orders', managers: ['argocd-controller'], paused: false };

function entry(manager: string, fieldsV1: unknown, extra: Record<string, unknown> = {}) {
  return { manager, operation: 'Apply', time: '2026-01-01T10:00:00Z', fieldsType: 'FieldsV1', fieldsV1, ...extra };
}

describe('declaredPaths', () => {
  const argoSpec = {
    'f:spec': {
      'f:image': {},
      'f:job': { 'f:parallelism': {}, 'f:upgradeMode': {} },
      'f:flinkConfiguration': { '.': {}, 'f:taskmanager.numberOfTaskSlots': {} },
    },
  };

  it('splits by the owner manager entries', () => {
    const r = object({ managedFields: [entry('argocd-controller', argoSpec)] });
    expect(declaredPaths(r, ARGO, [PARALLELISM, NONCE, SLOTS, CHECKPOINTS])).toEqual({
      owned: [PARALLELISM, SLOTS],
      unowned: [NONCE, CHECKPOINTS],
      source: 'managedFields',
    });
  });

  it('no longer counts a field a later Update moved to another manager', () => {
    const afterBot = {
      'f:spec': { 'f:image': {}, 'f:job': { 'f:upgradeMode': {} } },
    };
    const r = object({
      managedFields: [
        entry('argocd-controller', afterBot),
        entry(
          'flink-chatops',
          { 'f:spec': { 'f:job': { 'f:parallelism': {} } } },
          {
            operation: 'Update',
            time: '2026-01-01T10:05:00Z',
          },
        ),
      ],
    });
    expect(declaredPaths(r, ARGO, [PARALLELISM, ['spec', 'image']])).toEqual({
      owned: [['spec', 'image']],
      unowned: [PARALLELISM],
      source: 'managedFields',
    });
  });

  it('treats a leaf ancestor as atomic and ignores other managers and status writes', () => {
    const r = object({
      managedFields: [
        entry('argocd-application-controller', { 'f:spec': { 'f:podTemplate': {} } }, { operation: 'Update' }),
        entry('kubectl', { 'f:spec': { 'f:restartNonce': {} } }),
        entry('argocd-controller', { 'f:spec': { 'f:job': {} } }, { subresource: 'status' }),
      ],
    });
    const owner: GitopsOwner = { tool: 'argocd', managers: ['argocd-application-controller'], paused: false };
    const containers: FieldPath = ['spec', 'podTemplate', 'spec', 'containers'];
    expect(declaredPaths(r, owner, [containers, NONCE, PARALLELISM])).toEqual({
      owned: [containers],
      unowned: [NONCE, PARALLELISM],
      source: 'managedFields',
    });
  });

  it('falls back to last-applied when the owner has no entry', () => {
    const lastApplied = JSON.stringify({
      apiVersion: 'flink.apache.org/v1beta1',
      kind: 'FlinkDeployment',
      spec: {
        job: { parallelism: 4 },
        flinkConfiguration: { 'taskmanager.numberOfTaskSlots': '2' },
        podTemplate: 'atomic-for-the-test',
      },
    });
    const r = object({
      annotations: { 'kubectl.kubernetes.io/last-applied-configuration': lastApplied },
      managedFields: [entry('kubectl-client-side-apply', { 'f:spec': {} }, { operation: 'Update' })],
    });
    const owner: GitopsOwner = { tool: 'argocd', name: 'orders', managers: [], paused: false };
    const deep: FieldPath = ['spec', 'podTemplate', 'metadata'];
    expect(declaredPaths(r, owner, [PARALLELISM, NONCE, SLOTS, CHECKPOINTS, deep])).toEqual({
      owned: [PARALLELISM, SLOTS, deep],
      unowned: [NONCE, CHECKPOINTS],
      source: 'last-applied',
    });
  });

  // Argo CD's default client-side apply (gitops-engine pkg/utils/kube/resource_ops.go) owns only what it changed;
  // last-applied-configuration holds every field Git declares.
  it('for Argo CD, also counts what last-applied holds beside its manager entry', () => {
    const lastApplied = JSON.stringify({ spec: { job: { parallelism: 4 }, image: 'flink:1.20' } });
    const r = object({
      annotations: { 'kubectl.kubernetes.io/last-applied-configuration': lastApplied },
      managedFields: [
        entry(
          'argocd-controller',
          { 'f:metadata': { 'f:annotations': { [`f:${TRACKING}`]: {} } } },
          { operation: 'Update' },
        ),
        entry('kubectl-edit', { 'f:spec': { 'f:job': { 'f:parallelism': {} } } }, { operation: 'Update' }),
      ],
    });
    expect(declaredPaths(r, ARGO, [PARALLELISM, NONCE])).toEqual({
      owned: [PARALLELISM],
      unowned: [NONCE],
      source: 'managedFields+last-applied',
    });
    // Flux removes last-applied when it applies: another tool's entry alone decides.
    const flux: GitopsOwner = { tool: 'flux-kustomization', managers: ['kustomize-controller'], paused: false };
    const fluxed = object({
      annotations: { 'kubectl.kubernetes.io/last-applied-configuration': lastApplied },
      managedFields: [entry('kustomize-controller', { 'f:spec': { 'f:image': {} } })],
    });
    expect(declaredPaths(fluxed, flux, [PARALLELISM]).unowned).toEqual([PARALLELISM]);
  });

  it('assumes every path is declared when nothing says', () => {
    const owner: GitopsOwner = { tool: 'helm', name: 'orders', managers: [], paused: false };
    expect(declaredPaths(object({ labels: HELM_CHART_LABELS }), owner, [PARALLELISM, NONCE])).toEqual({
      owned: [PARALLELISM, NONCE],
      unowned: [],
      source: 'unknown',
    });
    const broken = object({ annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{not json' } });
    expect(declaredPaths(broken, owner, [NONCE]).source).toBe('unknown');
  });

  it('uses the tool managers even when the owner was detected without them', () => {
    const r = object({ managedFields: [entry('kustomize-controller', { 'f:spec': { 'f:restartNonce': {} } })] });
    const owner: GitopsOwner = { tool: 'flux-kustomization', name: 'flux-system/apps', managers: [], paused: false };
    expect(declaredPaths(r, owner, [NONCE, PARALLELISM])).toEqual({
      owned: [NONCE],
      unowned: [PARALLELISM],
      source: 'managedFields',
    });
  });
});
