// The simulated GitOps controllers: Argo CD self-heal, Flux with its reconcile-disabled pause, Helm, driven
// through client-node as the bot drives the cluster; the counters are the positive signal of every "stays".
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSimCluster, type SimCluster } from '../../src/kube/cluster.js';
import { LAST_APPLIED } from '../../src/kube/gitops/argocd.js';
import { FLUX_SSA } from '../../src/kube/gitops/flux.js';
import { SELF_HEAL_DELAY_MS } from '../../src/kube/gitops/gitops.js';
import { fieldOwners } from '../../src/kube/managed-fields.js';
import type { KubeObject } from '../../src/kube/store.js';
import { crPath, kubeClients, MERGE_PATCH, type KubeClients } from '../support/kube.js';
import { statusOf, waitFor, waitStable } from '../support/sim.js';
import { deployment, sessionCluster, sessionJob, type Loose } from '../support/sim-resources.js';

const NS = 'team-a';
let cluster: SimCluster;
let kube: KubeClients;

beforeEach(async () => {
  cluster = await startSimCluster({ seed: 'none', speed: 'fast' });
  kube = kubeClients(cluster.url);
  await kube.custom.createNamespacedCustomObject({
    ...crPath(NS),
    body: deployment('orders', NS),
    fieldManager: 'kubectl',
  });
  await waitStable(cluster.store, NS, 'orders');
});
afterEach(async () => {
  await cluster.close();
});

const target = { namespace: NS, name: 'orders' };
const orders = (): KubeObject => cluster.store.get('flinkdeployments', NS, 'orders') as KubeObject;
const job = (o: KubeObject = orders()): Loose => (o.spec as Loose).job as Loose;
const owners = (path: string[], o: KubeObject = orders()) => fieldOwners(o.metadata.managedFields, path);
const botPatch = (body: unknown) =>
  kube.custom.patchNamespacedCustomObject(
    { ...crPath(NS), name: 'orders', body, fieldManager: 'flink-chatops' },
    MERGE_PATCH,
  ) as Promise<KubeObject>;

describe('Argo CD self-heal', () => {
  // Argo CD applies client-side unless the Application sets ServerSideApply=true (argo-cd controller/sync.go,
  // gitops-engine pkg/utils/kube/resource_ops.go newApplyOptions: the same manager for both), and tracks by
  // annotation since 3.0 (argo-cd docs user-guide/resource_tracking.md).
  it('client-side apply by default: an Update entry owning only what it changed, and the last-applied copy', () => {
    const view = cluster.gitops.manage({ ...target, controller: 'argocd' });
    expect(view).toMatchObject({ controller: 'argocd', application: 'team-a_orders', manager: 'argocd-controller' });
    expect(cluster.gitops.get(target)?.argocd).toEqual({
      tracking: 'annotation',
      serverSideApply: false,
      selfHeal: true,
      sync: 'Synced',
    });
    const o = orders();
    expect(o.metadata.annotations?.['argocd.argoproj.io/tracking-id']).toBe(
      'team-a_orders:flink.apache.org/FlinkDeployment:team-a/orders',
    );
    expect(o.metadata.labels?.['app.kubernetes.io/instance']).toBeUndefined();
    const argo = o.metadata.managedFields?.find((e) => e.manager === 'argocd-controller');
    expect(argo?.operation).toBe('Update');
    // Git's values were the object's already: kubectl, which wrote them, still owns them.
    expect(owners(['spec', 'job', 'parallelism'], o)).toEqual(['kubectl']);
    expect(owners(['metadata', 'annotations', 'argocd.argoproj.io/tracking-id'], o)).toEqual(['argocd-controller']);
    expect(owners(['metadata', 'annotations', LAST_APPLIED], o)).toEqual(['argocd-controller']);
    const applied = JSON.parse(o.metadata.annotations?.[LAST_APPLIED] ?? '{}') as Loose;
    expect(applied).toMatchObject({ apiVersion: o.apiVersion, kind: 'FlinkDeployment', metadata: { name: 'orders' } });
    expect(((applied.spec as Loose).job as Loose).parallelism).toBe(2);
    expect(JSON.stringify(applied)).not.toContain('restartNonce');
  });

  it('a client-side revert takes only the fields it changed back; last-applied keeps every declared one', async () => {
    cluster.gitops.manage({ ...target, controller: 'argocd' });
    await botPatch({ spec: { job: { parallelism: 8 } } });
    await cluster.gitops.waitForStats(target, (s) => s.reverts === 1);
    const healed = orders();
    expect(job(healed).parallelism).toBe(2);
    expect(owners(['spec', 'job', 'parallelism'], healed)).toEqual(['argocd-controller']);
    expect(owners(['spec', 'image'], healed)).toEqual(['kubectl']);
    expect(healed.metadata.managedFields?.find((e) => e.manager === 'argocd-controller')?.operation).toBe('Update');
  });

  it('ServerSideApply=true: an Apply entry owning every declared field, no last-applied copy', () => {
    cluster.gitops.manage({ ...target, controller: 'argocd', serverSideApply: true, tracking: 'annotation+label' });
    const o = orders();
    const argo = o.metadata.managedFields?.find((e) => e.manager === 'argocd-controller');
    expect(argo?.operation).toBe('Apply');
    expect(owners(['spec', 'job', 'parallelism'], o)).toEqual(['argocd-controller']);
    expect(owners(['spec', 'flinkConfiguration', 'state.savepoints.dir'], o)).toEqual(['argocd-controller']);
    expect(o.metadata.labels?.['app.kubernetes.io/instance']).toBe('team-a_orders');
    expect(o.metadata.annotations?.['argocd.argoproj.io/tracking-id']).toBeDefined();
    expect(o.metadata.annotations?.[LAST_APPLIED]).toBeUndefined();
    // Not spec.job itself (a map), nor anything Git does not declare.
    expect(owners(['spec', 'job'], o)).toEqual(['kubectl']);
    expect(JSON.stringify(argo?.fieldsV1)).not.toContain('restartNonce');
  });

  it('label tracking (the 2.x default): the instance label only', () => {
    cluster.gitops.manage({ ...target, controller: 'argocd', tracking: 'label' });
    const o = orders();
    expect(o.metadata.labels?.['app.kubernetes.io/instance']).toBe('team-a_orders');
    expect(o.metadata.annotations?.['argocd.argoproj.io/tracking-id']).toBeUndefined();
    expect(owners(['metadata', 'labels', 'app.kubernetes.io/instance'], o)).toEqual(['argocd-controller']);
  });

  // Without automated.selfHeal, a live change only marks the Application OutOfSync (argo-cd docs
  // user-guide/auto_sync.md); a new revision in Git is still synced.
  it('without self-heal: drift marks OutOfSync and stays; a commit to Git syncs it', async () => {
    cluster.gitops.manage({ ...target, controller: 'argocd', selfHeal: false });
    await botPatch({ spec: { job: { parallelism: 8 } } });
    const stats = await cluster.gitops.waitForStats(target, (s) => s.outOfSync === 1);
    expect(stats.passes).toBe(0);
    expect(cluster.gitops.get(target)).toMatchObject({
      label: 'Argo CD without self-heal',
      argocd: { sync: 'OutOfSync' },
    });
    expect(job().parallelism).toBe(8);
    cluster.gitops.commit(target, ['spec', 'image'], 'flink:2.0');
    await cluster.gitops.waitForStats(target, (s) => s.reverts === 1);
    expect(job().parallelism).toBe(2);
    expect((orders().spec as Loose).image).toBe('flink:2.0');
    expect(cluster.gitops.get(target)?.argocd?.sync).toBe('Synced');
  });

  it('reverts a declared field after selfHealDelay and takes it back; an undeclared restartNonce stays', async () => {
    cluster.gitops.manage({ ...target, controller: 'argocd', selfHealDelayMs: SELF_HEAL_DELAY_MS });
    const sentAt = Date.now();
    const patched = await botPatch({ spec: { job: { parallelism: 8 }, restartNonce: 7 } });
    expect(job(patched).parallelism).toBe(8);
    expect(owners(['spec', 'job', 'parallelism'], patched)).toEqual(['flink-chatops']);
    const stats = await cluster.gitops.waitForStats(target, (s) => s.reverts === 1);
    // 5 s of cluster time is 50 ms at the fast speed.
    expect(Date.now() - sentAt).toBeGreaterThanOrEqual(45);
    expect(stats).toEqual({ passes: 1, reverts: 1, skipped: 0, outOfSync: 0 });
    const healed = orders();
    expect(job(healed).parallelism).toBe(2);
    expect(owners(['spec', 'job', 'parallelism'], healed)).toEqual(['argocd-controller']);
    expect((healed.spec as Loose).restartNonce).toBe(7);
    expect(owners(['spec', 'restartNonce'], healed)).toEqual(['flink-chatops']);
    // The revert is a spec change like any other: the operator redeploys the generation it made.
    await waitStable(cluster.store, NS, 'orders');
    expect(statusOf(orders()).observedGeneration).toBe(healed.metadata.generation);
  });

  it('a change of an undeclared field only is no drift: no pass runs, until a declared one changes', async () => {
    cluster.gitops.manage({ ...target, controller: 'argocd' });
    await botPatch({ spec: { restartNonce: 1 } });
    await botPatch({ spec: { job: { upgradeMode: 'last-state' } } });
    const stats = await cluster.gitops.waitForStats(target, (s) => s.reverts === 1);
    expect(stats.passes).toBe(1);
    expect(job().upgradeMode).toBe('savepoint');
    expect((orders().spec as Loose).restartNonce).toBe(1);
  });

  it('syncs a commit to Git; an explicit declared list leaves the other fields alone', async () => {
    cluster.gitops.manage({
      ...target,
      controller: 'argocd',
      application: 'orders-app',
      declared: [['spec', 'job', 'parallelism']],
    });
    await botPatch({ spec: { image: 'flink:2.0' } });
    cluster.gitops.commit(target, ['spec', 'job', 'parallelism'], 6);
    await cluster.gitops.waitForStats(target, (s) => s.reverts === 1);
    expect(job().parallelism).toBe(6);
    expect((orders().spec as Loose).image).toBe('flink:2.0');
    expect(cluster.gitops.get(target)?.declared).toEqual([{ path: ['spec', 'job', 'parallelism'], value: 6 }]);
  });

  it('off stops it: its marks stay, a change is not reverted', async () => {
    cluster.gitops.manage({ ...target, controller: 'argocd' });
    expect(cluster.gitops.manage({ ...target, controller: 'off' })).toMatchObject({ controller: 'off' });
    expect(cluster.gitops.list()).toEqual([]);
    const patched = await botPatch({ spec: { job: { parallelism: 5 } } });
    await waitStable(cluster.store, NS, 'orders');
    expect(job().parallelism).toBe(5);
    expect(orders().metadata.annotations?.['argocd.argoproj.io/tracking-id']).toBeDefined();
    expect(orders().metadata.generation).toBe(patched.metadata.generation);
  });

  it('manages a FlinkSessionJob by kind, and forgets a resource that is deleted', async () => {
    cluster.store.create('flinkdeployments', sessionCluster('session', NS));
    cluster.store.create('flinksessionjobs', sessionJob('etl', NS, 'session'));
    const view = cluster.gitops.manage({ kind: 'FlinkSessionJob', namespace: NS, name: 'etl', controller: 'argocd' });
    expect(view.kind).toBe('FlinkSessionJob');
    const etl = cluster.store.get('flinksessionjobs', NS, 'etl');
    expect(etl?.metadata.annotations?.['argocd.argoproj.io/tracking-id']).toBe(
      'team-a_etl:flink.apache.org/FlinkSessionJob:team-a/etl',
    );
    cluster.store.delete('flinksessionjobs', NS, 'etl');
    expect(cluster.gitops.get({ namespace: NS, name: 'etl' })).toBeUndefined();
  });
});

describe('Flux', () => {
  it('labels the object; every interval re-applies Git; with reconcile disabled a pass is skipped', async () => {
    cluster.gitops.manage({ ...target, controller: 'flux', intervalMs: 2_000 });
    const o = orders();
    expect(o.metadata.labels).toMatchObject({
      'kustomize.toolkit.fluxcd.io/name': 'orders',
      'kustomize.toolkit.fluxcd.io/namespace': 'flux-system',
    });
    expect(owners(['spec', 'job', 'parallelism'], o)).toEqual(['kustomize-controller']);
    expect(o.metadata.managedFields?.find((e) => e.manager === 'kustomize-controller')?.operation).toBe('Apply');

    await botPatch({ spec: { job: { parallelism: 8 } } });
    await cluster.gitops.waitForStats(target, (s) => s.reverts === 1);
    expect(job().parallelism).toBe(2);
    expect(owners(['spec', 'job', 'parallelism'])).toEqual(['kustomize-controller']);

    await botPatch({
      metadata: { annotations: { 'kustomize.toolkit.fluxcd.io/reconcile': 'disabled' } },
      spec: { job: { parallelism: 8 } },
    });
    const before = cluster.gitops.stats(target)?.skipped ?? 0;
    const stats = await cluster.gitops.waitForStats(target, (s) => s.skipped >= before + 2);
    expect(stats.reverts).toBe(1);
    expect(job().parallelism).toBe(8);
    expect(owners(['spec', 'job', 'parallelism'])).toEqual(['flink-chatops']);
  });

  // fluxcd/kustomize-controller kustomization_controller.go (ExclusionSelector, IfNotPresentSelector) with fluxcd/pkg
  // ssa/manager_apply.go shouldSkipApply and ssa/utils/meta.go AnyInMetadata (strings.EqualFold).
  it('ssa: Ignore on the object (any case) excludes it from apply: the pass is skipped, nothing reverts', async () => {
    cluster.gitops.manage({ ...target, controller: 'flux', intervalMs: 2_000 });
    await botPatch({ metadata: { annotations: { [FLUX_SSA]: 'ignore' } }, spec: { job: { parallelism: 8 } } });
    const stats = await cluster.gitops.waitForStats(target, (s) => s.skipped >= 2);
    expect(stats.reverts).toBe(0);
    expect(job().parallelism).toBe(8);
  });

  it('ssa: IfNotPresent in Git leaves the existing object alone; on the object only, it is applied as ever', async () => {
    await botPatch({ metadata: { annotations: { [FLUX_SSA]: 'IfNotPresent' } } });
    const declared = [
      ['metadata', 'annotations', FLUX_SSA],
      ['spec', 'job', 'parallelism'],
    ];
    cluster.gitops.manage({ ...target, controller: 'flux', declared, intervalMs: 2_000 });
    await botPatch({ spec: { job: { parallelism: 8 } } });
    const stats = await cluster.gitops.waitForStats(target, (s) => s.skipped >= 2);
    expect(stats.reverts).toBe(0);
    expect(job().parallelism).toBe(8);

    // Git without the mark: the mark left on the object does not stop the next apply.
    const parallelism = [['spec', 'job', 'parallelism']];
    cluster.gitops.manage({ ...target, controller: 'flux', declared: parallelism, intervalMs: 2_000 });
    cluster.gitops.commit(target, ['spec', 'job', 'parallelism'], 3);
    await cluster.gitops.waitForStats(target, (s) => s.reverts === 1);
    expect(job().parallelism).toBe(3);
    expect(orders().metadata.annotations?.[FLUX_SSA]).toBe('IfNotPresent');
  });

  // fluxcd/kustomize-controller kustomization_controller.go: spec.ignore becomes the apply's DriftIgnoreRules.
  it('spec.ignore: a declared field under an ignore rule is neither drift nor applied, nor owned', async () => {
    cluster.gitops.manage({
      ...target,
      controller: 'flux',
      ignore: [['spec', 'job', 'parallelism']],
      intervalMs: 2_000,
    });
    expect(owners(['spec', 'job', 'parallelism'])).toEqual(['kubectl']);
    await botPatch({ spec: { job: { parallelism: 8, upgradeMode: 'last-state' } } });
    await cluster.gitops.waitForStats(target, (s) => s.reverts === 1);
    expect(job().parallelism).toBe(8);
    expect(job().upgradeMode).toBe('savepoint');
    expect(cluster.gitops.get(target)?.flux).toEqual({
      ignore: [['spec', 'job', 'parallelism']],
      overrideManagers: [],
    });
  });

  // fluxcd/kustomize-controller main.go --override-manager; fluxcd/pkg ssa/patch.go PatchReplaceFieldsManagers
  // folds the manager's entries into Flux's before its server-side apply, which drops what Git does not declare.
  it('--override-manager: the named manager loses its entries, and its fields Git does not declare go', async () => {
    cluster.gitops.manage({ ...target, controller: 'flux', overrideManagers: ['flink-chatops'], intervalMs: 2_000 });
    await botPatch({ spec: { job: { parallelism: 8 }, restartNonce: 7 } });
    await cluster.gitops.waitForStats(target, (s) => s.reverts === 1);
    const o = orders();
    expect(job(o).parallelism).toBe(2);
    expect((o.spec as Loose).restartNonce).toBeUndefined();
    expect(o.metadata.managedFields?.map((e) => e.manager)).not.toContain('flink-chatops');
    expect(owners(['spec', 'job', 'parallelism'], o)).toEqual(['kustomize-controller']);
  });

  it('takes the Kustomization as <namespace>/<name>; a pass without drift changes nothing', async () => {
    cluster.gitops.manage({ ...target, controller: 'flux', application: 'apps/team-a', intervalMs: 1_000 });
    expect(orders().metadata.labels).toMatchObject({
      'kustomize.toolkit.fluxcd.io/name': 'team-a',
      'kustomize.toolkit.fluxcd.io/namespace': 'apps',
    });
    const { generation, managedFields } = orders().metadata;
    const stats = await cluster.gitops.waitForStats(target, (s) => s.passes >= 2);
    expect(stats.reverts).toBe(0);
    expect(orders().metadata.generation).toBe(generation);
    expect(orders().metadata.managedFields).toEqual(managedFields);
  });
});

describe('Helm', () => {
  it('labels and annotates, owns the declared fields with an Update entry, and never reverts', async () => {
    cluster.gitops.manage({ ...target, controller: 'helm' });
    const o = orders();
    expect(o.metadata.labels?.['app.kubernetes.io/managed-by']).toBe('Helm');
    expect(o.metadata.annotations).toMatchObject({
      'meta.helm.sh/release-name': 'orders',
      'meta.helm.sh/release-namespace': NS,
    });
    const helm = o.metadata.managedFields?.find((e) => e.manager === 'helm');
    expect(helm?.operation).toBe('Update');
    expect(owners(['spec', 'job', 'parallelism'], o)).toEqual(['helm']);

    const patched = await botPatch({ spec: { job: { parallelism: 8 } } });
    // The redeploy the change starts completes with the bot's value: nothing put Git's back.
    await waitFor(
      cluster.store,
      () => statusOf(orders()).observedGeneration === patched.metadata.generation && job().parallelism === 8,
      5000,
      'the redeploy of the bot change',
    );
    await waitStable(cluster.store, NS, 'orders');
    expect(job().parallelism).toBe(8);
    expect(cluster.gitops.stats(target)).toEqual({ passes: 0, reverts: 0, skipped: 0, outOfSync: 0 });
  });
});

describe('refusals', () => {
  it.each([
    [{ ...target, controller: 'jenkins' }, /controller/],
    [
      { ...target, controller: 'argocd', declared: [['status', 'x']] },
      /declared: \["status","x"\] is neither under spec/,
    ],
    [
      { ...target, controller: 'argocd', declared: [['spec', 'job', 'savepointRedeployNonce']] },
      /spec\.job\.savepointRedeployNonce is not set/,
    ],
    [{ ...target, controller: 'argocd', colour: 'blue' }, /colour/],
  ])('%j', (body, message) => {
    expect(() => cluster.gitops.manage(body as never)).toThrow(message);
  });

  it('a resource that does not exist is 404', () => {
    expect(() => cluster.gitops.manage({ namespace: NS, name: 'nope', controller: 'flux' })).toThrow(
      expect.objectContaining({ status: 404, message: expect.stringContaining('team-a/nope') }),
    );
  });
});
