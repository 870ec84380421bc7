// GitOps-managed targets end to end (docs/policy.md#gitops-managed-targets, docs/lifecycle.md#after-completed): the real
// Bolt app, a worker, real Redis and the simulated cluster with its simulated Argo CD and Flux, through client-node.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@flink-chatops/sim/kube/store';
import { REVERTED_NOTE } from '../../src/domain/kit/evidence/reverts.js';
import type { OperationRecord } from '../../src/domain/engines/operation.js';
import { createLogger } from '../../src/log.js';
import { startWorker, type RunningWorker } from '../../src/roles/worker.js';
import { fieldOwners } from '@flink-chatops/sim';
import { crPath, kubeClients, MERGE_PATCH } from '@flink-chatops/sim/testing/kube';
import { waitStable } from '@flink-chatops/sim/testing/sim';
import { HAND_EDIT_MANAGER } from '../support/attribution.js';
import { testPolicy, USERS, useBotEnvs, type BotEnv } from '../support/bot-env.js';
import { runningDeployment } from '../support/running-job.js';

const bots = useBotEnvs();
const ENDED = ['COMPLETED', 'FAILED', 'TIMED_OUT', 'ABORTED', 'DENIED'] as const;

const fresh = (namespace: string, name: string) => runningDeployment(bots.cluster, namespace, name);

/** A policy with `gitops` set for one namespace entry. */
function policyWith(namespace: string, gitops: Record<string, unknown>) {
  return (channel: string) => {
    const policy = testPolicy(channel);
    const namespaces = policy.namespaces as Record<string, unknown>[];
    policy.namespaces = namespaces.map((n) => (n.name === namespace ? { ...n, gitops } : n));
    return policy;
  };
}

async function withWorker<T>(env: BotEnv, run: (worker: RunningWorker) => Promise<T>): Promise<T> {
  const worker = await startWorker(env.config, {
    logger: createLogger('silent'),
    sweepIntervalMs: 60_000,
    afterCompletedRefreshMs: 200,
  });
  try {
    return await run(worker);
  } finally {
    await worker.close();
  }
}

const live = (t: { namespace: string; name: string }) =>
  bots.cluster.store.get('flinkdeployments', t.namespace, t.name) as KubeObject;
const jobOf = (o: KubeObject) => o.spec?.job as Record<string, unknown>;
const reverts = (r: OperationRecord) => r.history.filter((e) => e.type === 'note' && e.name === REVERTED_NOTE);

/** `kubectl edit` of one field: a merge patch through client-node as field manager `kubectl-edit`. */
async function kubectlEdit(t: { namespace: string; name: string }, body: unknown): Promise<void> {
  const { custom } = kubeClients(bots.cluster.url);
  await custom.patchNamespacedCustomObject(
    { ...crPath(t.namespace), name: t.name, body, fieldManager: HAND_EDIT_MANAGER },
    MERGE_PATCH,
  );
}

describe('an Argo CD self-heal target', () => {
  it('the card warns before approval; a revert after COMPLETED is reported within 10 s, the state stays COMPLETED', async () => {
    const env = await bots.start();
    const target = await fresh('streaming-prod', 'gitops-argo');
    // Self-heal 4 s of real time after a change (cluster time at fast speed is 100× faster): after the redeploy.
    bots.cluster.gitops.manage({
      ...target,
      controller: 'argocd',
      application: 'team-a_orders',
      selfHealDelayMs: 400_000,
    });
    await withWorker(env, async () => {
      const requested = await env.request('scale streaming-prod/gitops-argo 3 --reason "gitops"', USERS.alice);
      expect(requested.state).toBe('AWAITING_APPROVAL');
      const card = await env.cardIn(requested, 'AWAITING_APPROVAL');
      expect(JSON.stringify(card.blocks)).toContain(
        'managed by Argo CD application team-a_orders: `spec.job.parallelism` is declared in Git and will be reverted',
      );
      await (await env.click('approve', requested, USERS.lead1)).reply();
      const done = await env.waitForState(requested.id, [...ENDED], 30_000);
      expect(done.state).toBe('COMPLETED');
      const owners = (live(target).metadata.managedFields ?? []).map((e) => e.manager);
      expect(owners).toContain('flink-chatops');
      await bots.cluster.gitops.waitForStats(target, (s) => s.reverts >= 1, 20_000);
      const revertedAt = Date.now();
      const noted = await env.waitFor(requested.id, (r) => reverts(r).length > 0, 'the REVERTED note', 10_000);
      expect(noted.state).toBe('COMPLETED');
      expect(reverts(noted)[0]?.detail).toMatchObject({
        path: ['spec', 'job', 'parallelism'],
        from: 3,
        to: 2,
        manager: 'argocd-controller',
        gitopsOwner: 'Argo CD application team-a_orders',
      });
      const reply = await env.sim.waitFor(
        () => env.sim.replies(env.channel, done.card?.ts ?? '').find((m) => m.text.includes('Reverted by')),
        10_000,
      );
      expect(Date.now() - revertedAt).toBeLessThan(10_000);
      expect(reply.text).toContain('Reverted by argocd-controller (Argo CD application team-a_orders)');
      expect(JSON.stringify(reply.blocks)).toContain('spec.job.parallelism 3 → 2');
      const status = await (await env.command('status streaming-prod/gitops-argo', USERS.alice)).reply();
      expect(status.text + JSON.stringify(status.body)).toContain('Managed by Argo CD application team-a_orders');
    });
  }, 90_000);

  it('a restart whose restartNonce Git does not declare: no revert warning, and no revert after a sync', async () => {
    const env = await bots.start();
    const target = await fresh('streaming-prod', 'gitops-restart');
    bots.cluster.gitops.manage({ ...target, controller: 'argocd', selfHealDelayMs: 10_000 });
    await withWorker(env, async () => {
      const requested = await env.request('restart streaming-prod/gitops-restart --reason "gitops"', USERS.alice);
      const card = JSON.stringify((await env.cardIn(requested, 'AWAITING_APPROVAL')).blocks);
      expect(card).toContain('no field of this change is declared in Git');
      expect(card).not.toContain('will be reverted');
      await (await env.click('approve', requested, USERS.lead1)).reply();
      const done = await env.waitForState(requested.id, [...ENDED], 30_000);
      expect(done.state).toBe('COMPLETED');
      const nonce = live(target).spec?.restartNonce;
      // A commit to Git makes Argo CD sync the object: the positive signal that it looked, and left the nonce alone.
      const before = bots.cluster.gitops.stats(target)?.reverts ?? 0;
      bots.cluster.gitops.commit(target, ['spec', 'job', 'parallelism'], 3);
      await bots.cluster.gitops.waitForStats(target, (s) => s.reverts > before, 10_000);
      expect(jobOf(live(target)).parallelism).toBe(3);
      expect(live(target).spec?.restartNonce).toBe(nonce);
      expect(reverts(await env.record(requested.id))).toEqual([]);
    });
  }, 90_000);
  it('self-heal faster than the redeploy: FAILED at once, naming who reverted which field, never COMPLETED', async () => {
    const env = await bots.start();
    const target = await fresh('streaming-dev', 'gitops-fast');
    bots.cluster.gitops.manage({ ...target, controller: 'argocd', selfHealDelayMs: 1 });
    await withWorker(env, async () => {
      const requested = await env.request('scale streaming-dev/gitops-fast 3', USERS.bob);
      const done = await env.waitForState(requested.id, [...ENDED], 30_000);
      expect(done.state).toBe('FAILED');
      const failed = done.history.findLast((e) => e.type === 'state' && e.name === 'FAILED');
      expect(String(failed?.detail.reason)).toContain(
        'the change was reverted by argocd-controller (Argo CD application streaming-dev_gitops-fast) before it took effect: spec.job.parallelism 3 → 2',
      );
      expect(jobOf(live(target)).parallelism).toBe(2);
    });
  }, 60_000);
});

describe('Argo CD client-side apply (its default)', () => {
  // Argo CD's client-side apply owns only the fields its own patches changed and keeps Git's copy in
  // last-applied-configuration (gitops-engine pkg/utils/kube/resource_ops.go newApplyOptions).
  it('a field Git declares but kubectl edit last changed still warns; label tracking (2.x) is detected', async () => {
    const env = await bots.start();
    const target = await fresh('streaming-prod', 'gitops-csa');
    // Someone edits the parallelism by hand and commits the same value to Git; Argo CD then adopts the object. The
    // hand edit redeploys the job: the request waits for it, or the operator-busy check would refuse it.
    await kubectlEdit(target, { spec: { job: { parallelism: 3 } } });
    await waitStable(bots.cluster.store, target.namespace, target.name, 'flinkdeployments', 20_000);
    bots.cluster.gitops.manage({
      ...target,
      controller: 'argocd',
      application: 'team-a_orders',
      tracking: 'label',
      selfHealDelayMs: 400_000,
    });
    expect(fieldOwners(live(target).metadata.managedFields, ['spec', 'job', 'parallelism'])).toEqual(['kubectl-edit']);
    await withWorker(env, async () => {
      const requested = await env.request('scale streaming-prod/gitops-csa 4 --reason "csa"', USERS.alice);
      const card = JSON.stringify((await env.cardIn(requested, 'AWAITING_APPROVAL')).blocks);
      expect(card).toContain(
        'managed by Argo CD application team-a_orders: `spec.job.parallelism` is declared in Git and will be reverted',
      );
      await (await env.click('approve', requested, USERS.lead1)).reply();
      const done = await env.waitForState(requested.id, [...ENDED], 30_000);
      expect(done.state).toBe('COMPLETED');
      await bots.cluster.gitops.waitForStats(target, (s) => s.reverts >= 1, 20_000);
      const noted = await env.waitFor(requested.id, (r) => reverts(r).length > 0, 'the REVERTED note', 10_000);
      expect(reverts(noted)[0]?.detail).toMatchObject({ path: ['spec', 'job', 'parallelism'], from: 4, to: 3 });
    });
  }, 90_000);
});

describe('Flux exclusions', () => {
  // fluxcd/pkg ssa/manager_apply.go shouldSkipApply: an object marked `ssa: Ignore` is not applied at all.
  it('ssa: Ignore on the target: onManaged refuse does not refuse, the change sticks through Flux passes', async () => {
    const env = await bots.start({ policy: policyWith('streaming-dev', { onManaged: 'refuse' }) });
    const target = await fresh('streaming-dev', 'gitops-ignore');
    await kubectlEdit(target, { metadata: { annotations: { 'kustomize.toolkit.fluxcd.io/ssa': 'Ignore' } } });
    bots.cluster.gitops.manage({ ...target, controller: 'flux', intervalMs: 20_000 });
    await withWorker(env, async () => {
      const requested = await env.request('scale streaming-dev/gitops-ignore 3', USERS.bob);
      expect(requested.state).not.toBe('DENIED');
      const done = await env.waitForState(requested.id, [...ENDED], 30_000);
      expect(done.state).toBe('COMPLETED');
      expect(JSON.stringify((await env.cardIn(done, 'COMPLETED')).blocks)).toContain(
        'Flux does not apply Git to it (kustomize.toolkit.fluxcd.io/ssa: Ignore), so the change sticks',
      );
      const skipped = bots.cluster.gitops.stats(target)?.skipped ?? 0;
      await bots.cluster.gitops.waitForStats(target, (s) => s.skipped > skipped, 10_000);
      expect(jobOf(live(target)).parallelism).toBe(3);
      expect(reverts(await env.record(requested.id))).toEqual([]);
      const status = await (await env.command('status streaming-dev/gitops-ignore', USERS.bob)).reply();
      expect(status.text + JSON.stringify(status.body)).toContain(
        'Flux does not apply Git to it (`kustomize.toolkit.fluxcd.io/ssa: Ignore`)',
      );
    });
  }, 60_000);
});

describe('Flux --override-manager', () => {
  // fluxcd/kustomize-controller main.go --override-manager: Flux takes the bot's fields over and drops those Git does
  // not declare; the operator ignores a restartNonce set to null (the simulated operator's @SpecDiff classes).
  it('the restartNonce Flux removes is reported as reverted, without claiming a second restart', async () => {
    const env = await bots.start();
    const target = await fresh('streaming-dev', 'gitops-override');
    bots.cluster.gitops.manage({
      ...target,
      controller: 'flux',
      overrideManagers: ['flink-chatops'],
      intervalMs: 300_000,
    });
    await withWorker(env, async () => {
      const requested = await env.request('restart streaming-dev/gitops-override', USERS.bob);
      const done = await env.waitForState(requested.id, [...ENDED], 30_000);
      expect(done.state).toBe('COMPLETED');
      const noted = await env.waitFor(requested.id, (r) => reverts(r).length > 0, 'the REVERTED note', 15_000);
      expect(live(target).spec?.restartNonce).toBeUndefined();
      const detail = reverts(noted)[0]?.detail;
      expect(detail).toMatchObject({ path: ['spec', 'restartNonce'], to: null });
      expect(detail?.effect).toBeUndefined();
    });
  }, 60_000);
});

describe('policy gitops', () => {
  // Argo CD's default client-side apply with 3.x annotation tracking, 2.x label tracking, and the server-side opt-in.
  it.each([
    ['client-side apply, annotation tracking', 'gitops-refuse', {}],
    ['client-side apply, label tracking', 'gitops-refuse-label', { tracking: 'label' as const }],
    ['server-side apply', 'gitops-refuse-ssa', { serverSideApply: true }],
  ])(
    'onManaged: refuse → DENIED naming the application, nothing written (%s)',
    async (_mode, name, knobs) => {
      const env = await bots.start({ policy: policyWith('streaming-dev', { onManaged: 'refuse' }) });
      const target = await fresh('streaming-dev', name);
      bots.cluster.gitops.manage({ ...target, controller: 'argocd', application: 'team-a_orders', ...knobs });
      const before = live(target).metadata.resourceVersion;
      const denied = await env.request(`scale streaming-dev/${name} 5`, USERS.bob);
      expect(denied.state).toBe('DENIED');
      const reasons = denied.decision?.outcome === 'deny' ? denied.decision.reasons.join('\n') : '';
      expect(reasons).toContain('managed by Argo CD application team-a_orders');
      expect(reasons).toContain('change it in Git instead');
      expect(live(target).metadata.resourceVersion).toBe(before);
    },
    60_000,
  );

  it('pause on a Flux target: one patch with both annotations, no revert while paused, gitops resume removes them', async () => {
    const env = await bots.start({ policy: policyWith('streaming-dev', { onManaged: 'pause' }) });
    const target = await fresh('streaming-dev', 'gitops-pause');
    bots.cluster.gitops.manage({ ...target, controller: 'flux', intervalMs: 20_000 });
    const patches: string[] = [];
    const off = bots.cluster.server.onRequest((info) => {
      if (info.verb === 'patch' && info.name === 'gitops-pause' && info.namespace === 'streaming-dev')
        patches.push(info.path);
    });
    try {
      await withWorker(env, async () => {
        const scaled = await env.request('scale streaming-dev/gitops-pause 3', USERS.bob);
        const done = await env.waitForState(scaled.id, [...ENDED], 30_000);
        expect(done.state).toBe('COMPLETED');
        expect(patches).toHaveLength(1);
        const annotations = live(target).metadata.annotations ?? {};
        expect(annotations['kustomize.toolkit.fluxcd.io/reconcile']).toBe('disabled');
        expect(annotations['flink-chatops/gitops-paused-by']).toBe(scaled.id);
        // The bot's write names its manager, which now owns what it changed.
        expect(fieldOwners(live(target).metadata.managedFields, ['spec', 'job', 'parallelism'])).toEqual([
          'flink-chatops',
        ]);
        const card = JSON.stringify((await env.cardIn(done, 'COMPLETED')).blocks);
        expect(card).toContain('gitops resume streaming-dev/gitops-pause');
        const skipped = bots.cluster.gitops.stats(target)?.skipped ?? 0;
        await bots.cluster.gitops.waitForStats(target, (s) => s.skipped > skipped, 10_000);
        expect(jobOf(live(target)).parallelism).toBe(3);
        expect(reverts(await env.record(scaled.id))).toEqual([]);

        const resumed = await env.request('gitops resume streaming-dev/gitops-pause', USERS.bob);
        const ended = await env.waitForState(resumed.id, [...ENDED], 30_000);
        expect(ended.state).toBe('COMPLETED');
        const after = live(target).metadata.annotations ?? {};
        expect(after['kustomize.toolkit.fluxcd.io/reconcile']).toBeUndefined();
        expect(after['flink-chatops/gitops-paused-by']).toBeUndefined();
      });
    } finally {
      off();
      bots.cluster.gitops.manage({ ...target, controller: 'off' });
    }
  }, 90_000);

  it('restore of a target whose savepoint fields Git owns is DENIED unless the target is paused', async () => {
    const env = await bots.start();
    const target = await fresh('streaming-dev', 'gitops-restore');
    bots.cluster.store.update('flinkdeployments', 'streaming-dev', 'gitops-restore', (d: KubeObject) => ({
      ...d,
      spec: {
        ...d.spec,
        job: {
          ...jobOf(d),
          initialSavepointPath: 's3://flink-state/streaming-dev/gitops-restore/savepoints/sp-0',
          savepointRedeployNonce: 1,
        },
      },
    }));
    const declared = [
      ['spec', 'job', 'parallelism'],
      ['spec', 'job', 'initialSavepointPath'],
      ['spec', 'job', 'savepointRedeployNonce'],
    ];
    bots.cluster.gitops.manage({ ...target, controller: 'flux', declared, intervalMs: 600_000 });
    const restore =
      'restore streaming-dev/gitops-restore --from s3://flink-state/streaming-dev/gitops-restore/savepoints/sp-1';
    const denied = await env.request(restore, USERS.bob);
    expect(denied.state).toBe('DENIED');
    const reasons = denied.decision?.outcome === 'deny' ? denied.decision.reasons.join('\n') : '';
    expect(reasons).toContain('restore is denied');
    expect(reasons).toContain('spec.job.initialSavepointPath');
    bots.cluster.store.update('flinkdeployments', 'streaming-dev', 'gitops-restore', (d: KubeObject) => ({
      ...d,
      metadata: {
        ...d.metadata,
        annotations: { ...d.metadata.annotations, 'kustomize.toolkit.fluxcd.io/reconcile': 'disabled' },
      },
    }));
    const allowed = await env.request(restore, USERS.bob);
    expect(allowed.state).not.toBe('DENIED');
  }, 60_000);
});
