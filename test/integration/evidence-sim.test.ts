// Evidence judged on every change the simulated operator makes: pending until the operator is really done, then one verdict.
import { describe, expect, it } from 'vitest';
import {
  evaluateEvidence,
  summarize,
  takeEventBaseline,
  type EvidenceKind,
  type EvidenceVerdict,
} from '../../src/domain/engines/evidence/judge.js';
import { applyMergePatch } from '../../src/domain/model/merge-patch.js';
import type { Plan } from '../../src/domain/model/plan.js';
import { planOperation } from '../../src/domain/engines/planning/planner.js';
import type { KubeObject } from '@flink-chatops/sim/kube/store';
import { intentOf, PLAN_CONTEXT } from '../support/fixtures.js';
import { isStable, statusOf, useSimRig, waitFor, waitForStatus, waitStable } from '@flink-chatops/sim/testing/sim';
import { deployment, sessionCluster, sessionJob } from '@flink-chatops/sim/testing/sim-resources';

const NS = 'streaming-prod';
const sim = useSimRig(NS);

type Cr = 'flinkdeployments' | 'flinksessionjobs';

interface Run {
  verdicts: EvidenceVerdict[];
  /** The target as it was when each verdict was made. */
  seen: KubeObject[];
  final: EvidenceVerdict;
}

/** Plans `raw`, submits it as the worker would (baseline, patch or create), and judges every store change until a verdict. */
async function submitAndWatch(
  kind: EvidenceKind,
  raw: Record<string, unknown>,
  resource: Cr = 'flinkdeployments',
  until: (v: EvidenceVerdict) => boolean = (v) => v.outcome !== 'pending',
  failureGraceMs?: number,
): Promise<Run> {
  const name = (raw.target as { name: string }).name;
  const before = sim.rig.store.get(resource, NS, name) as KubeObject;
  const result = planOperation(intentOf(raw), { resource: before }, { ...PLAN_CONTEXT, nonce: Date.now() });
  if (!result.ok) throw new Error(result.refusal);
  const plan: Plan = result.plan;
  const baseline = takeEventBaseline(sim.rig.store.list('events', NS), sim.rig.store.now().getTime());
  let submittedGeneration: number | undefined;
  if (plan.change.type === 'patch') {
    const patch = plan.change.patch;
    submittedGeneration = sim.rig.store.update(
      resource,
      NS,
      name,
      (current) => applyMergePatch(current, patch) as KubeObject,
    ).metadata.generation;
  } else {
    sim.rig.store.create('flinkstatesnapshots', plan.change.snapshot as unknown as KubeObject);
  }
  const snapshotName =
    plan.change.type === 'create-snapshot' ? (plan.change.snapshot.metadata as { name: string }).name : undefined;
  const run: Omit<Run, 'final'> = { verdicts: [], seen: [] };
  // Like the worker: each transient failure is timed from its first sighting.
  const transientSince: Record<string, number> = {};
  const judgeNow = (): EvidenceVerdict | undefined => {
    const target = sim.rig.store.get(resource, NS, name);
    const verdict = evaluateEvidence({
      kind,
      plan,
      baseline,
      before,
      ...(submittedGeneration === undefined ? {} : { submittedGeneration }),
      transientSince: { ...transientSince },
      ...(failureGraceMs === undefined ? {} : { failureGraceMs }),
      observation: {
        resource: target,
        events: sim.rig.store.list('events', NS),
        ...(snapshotName ? { snapshot: sim.rig.store.get('flinkstatesnapshots', NS, snapshotName) } : {}),
        now: sim.rig.store.now().getTime(),
      },
    });
    run.verdicts.push(verdict);
    run.seen.push(structuredClone(target as KubeObject));
    if (verdict.outcome === 'pending') for (const s of verdict.transient ?? []) transientSince[s.key] ??= s.since;
    return until(verdict) ? verdict : undefined;
  };
  const final = await waitFor(sim.rig.store, judgeNow, 8000, `a verdict for ${kind}`, () => run.verdicts.at(-1));
  return { ...run, final };
}

function expectOnlyPendingBefore(run: Run): void {
  expect(run.verdicts.slice(0, -1).every((v) => v.outcome === 'pending')).toBe(true);
}

describe('evidence on the simulated operator', () => {
  it.each([
    ['scale', { kind: 'scale', parallelism: 4 }],
    ['restart', { kind: 'restart' }],
    ['upgrade', { kind: 'upgrade', image: 'flink:1.20.2' }],
  ] as const)(
    '%s: pending on every intermediate status, COMPLETED only once the deployment is stable on the new generation',
    async (kind, extra) => {
      sim.rig.store.create('flinkdeployments', deployment('orders', NS));
      await waitStable(sim.rig.store, NS, 'orders');
      const run = await submitAndWatch(kind, {
        ...extra,
        target: { kind: 'FlinkDeployment', namespace: NS, name: 'orders' },
      });
      expect(run.final.outcome, summarize(run.final)).toBe('completed');
      expectOnlyPendingBefore(run);
      const last = run.seen.at(-1) as KubeObject;
      expect(isStable(statusOf(last), last)).toBe(true);
      // The traps were there to be fallen into: UPGRADING with observedGeneration == generation was seen and judged pending.
      const trap = run.seen.findIndex(
        (o) =>
          statusOf(o).reconciliationStatus?.state === 'UPGRADING' &&
          statusOf(o).observedGeneration === o.metadata.generation,
      );
      expect(trap).toBeGreaterThanOrEqual(0);
      expect(run.verdicts[trap]?.outcome).toBe('pending');
    },
  );

  it('an image that cannot be pulled is blocked at first sight, and FAILS with the container reason once the grace is over', async () => {
    sim.rig.store.create('flinkdeployments', deployment('orders', NS));
    await waitStable(sim.rig.store, NS, 'orders');
    const target = { kind: 'FlinkDeployment', namespace: NS, name: 'orders' };
    const blocked = await submitAndWatch(
      'upgrade',
      { kind: 'upgrade', image: 'flink:broken', target },
      'flinkdeployments',
      (v) => v.outcome !== 'pending' || (v.transient ?? []).length > 0,
    );
    expect(blocked.final).toMatchObject({
      outcome: 'pending',
      blocking: [
        expect.stringMatching(
          /^blocked by ErrImagePull: .*Failed to pull image "flink:broken".*FAILED if it persists until/,
        ),
      ],
    });
    sim.rig.store.create('flinkdeployments', deployment('orders-2', NS));
    await waitStable(sim.rig.store, NS, 'orders-2');
    const run = await submitAndWatch(
      'upgrade',
      { kind: 'upgrade', image: 'flink:broken', target: { ...target, name: 'orders-2' } },
      'flinkdeployments',
      undefined,
      0,
    );
    expect(run.final).toMatchObject({
      outcome: 'failed',
      rollback: false,
      reason: expect.stringContaining('Failed to pull image "flink:broken"'),
    });
    expectOnlyPendingBefore(run);
  });

  it('suspend in savepoint mode COMPLETES with the new savepoint; resume then COMPLETES', async () => {
    sim.rig.store.create('flinkdeployments', deployment('orders', NS));
    await waitStable(sim.rig.store, NS, 'orders');
    const target = { kind: 'FlinkDeployment', namespace: NS, name: 'orders' };
    const suspend = await submitAndWatch('suspend', { kind: 'suspend', target });
    expect(suspend.final.outcome, summarize(suspend.final)).toBe('completed');
    expect(suspend.final.criteria.find((c) => c.name === 'savepoint-recorded')?.observed).toMatch(
      /^s3:\/\/flink-state\//,
    );
    const resume = await submitAndWatch('resume', { kind: 'resume', target });
    expect(resume.final.outcome, summarize(resume.final)).toBe('completed');
    expectOnlyPendingBefore(resume);
  });

  it('a stop-with-savepoint that keeps failing: the operator retries, the suspend waits and says so, never FAILED', async () => {
    sim.rig.store.create('flinkdeployments', deployment('orders', NS));
    await waitStable(sim.rig.store, NS, 'orders');
    sim.rig.operator.setScenario(NS, 'orders', 'savepoint-failure');
    const retried = (v: EvidenceVerdict) =>
      v.outcome !== 'pending' || (v.alerts ?? []).some((a) => a.key === 'stop-retry:2');
    const run = await submitAndWatch(
      'suspend',
      { kind: 'suspend', target: { kind: 'FlinkDeployment', namespace: NS, name: 'orders' } },
      'flinkdeployments',
      retried,
    );
    expect(run.final).toMatchObject({
      outcome: 'pending',
      alerts: [{ message: expect.stringMatching(/^stop failed, the operator retries \(×2\): SavepointError/) }],
    });
    expect(run.verdicts.every((v) => v.outcome === 'pending')).toBe(true);
  });

  it('a cancel-based suspend (last-state without HA) COMPLETES', async () => {
    sim.rig.store.create('flinkdeployments', deployment('orders', NS, { upgradeMode: 'last-state', ha: false }));
    await waitStable(sim.rig.store, NS, 'orders');
    const run = await submitAndWatch('suspend', {
      kind: 'suspend',
      target: { kind: 'FlinkDeployment', namespace: NS, name: 'orders' },
    });
    expect(run.final.outcome, summarize(run.final)).toBe('completed');
    // The real operator's intermediate state: CANCELLING with the old spec (job.state running) still reconciled
    // and the old observedGeneration; it was judged pending, and the final one keeps the old generation too.
    const cancelling = run.seen.findIndex((o) => statusOf(o).jobStatus?.state === 'CANCELLING');
    expect(cancelling).toBeGreaterThanOrEqual(0);
    const seen = run.seen[cancelling] as KubeObject;
    expect(JSON.parse(String(statusOf(seen).reconciliationStatus?.lastReconciledSpec)).spec.job.state).toBe('running');
    expect(statusOf(seen).observedGeneration).toBe(1);
    expect(run.verdicts[cancelling]?.outcome).toBe('pending');
    expect(statusOf(run.seen.at(-1) as KubeObject)).toMatchObject({
      observedGeneration: 1,
      reconciliationStatus: { state: 'UPGRADING' },
    });
  });

  it('restore of a running deployment COMPLETES only after the new job runs', async () => {
    sim.rig.store.create('flinkdeployments', deployment('orders', NS));
    await waitStable(sim.rig.store, NS, 'orders');
    const run = await submitAndWatch('restore', {
      kind: 'restore',
      from: 's3://flink-state/streaming-prod/orders/savepoints/savepoint-x',
      target: { kind: 'FlinkDeployment', namespace: NS, name: 'orders' },
    });
    expect(run.final.outcome, summarize(run.final)).toBe('completed');
    expectOnlyPendingBefore(run);
    // The operator marks the redeploy STABLE before the job runs: that moment was judged pending.
    const early = run.seen.findIndex(
      (o) => statusOf(o).lifecycleState === 'STABLE' && statusOf(o).jobStatus?.state !== 'RUNNING',
    );
    expect(early).toBeGreaterThanOrEqual(0);
    expect(run.verdicts[early]?.outcome).toBe('pending');
  });

  it('savepoint COMPLETES with the snapshot path', async () => {
    sim.rig.store.create('flinkdeployments', deployment('orders', NS));
    await waitStable(sim.rig.store, NS, 'orders');
    const run = await submitAndWatch('savepoint', {
      kind: 'savepoint',
      target: { kind: 'FlinkDeployment', namespace: NS, name: 'orders' },
    });
    expect(run.final.outcome, summarize(run.final)).toBe('completed');
    expect(run.final.criteria.find((c) => c.name === 'snapshot-path')?.observed).toMatch(/^s3:\/\//);
  });

  it('a session job scale COMPLETES', async () => {
    sim.rig.store.create('flinkdeployments', sessionCluster('session', NS));
    await waitForStatus(
      sim.rig.store,
      'flinkdeployments',
      NS,
      'session',
      (s) => s.jobManagerDeploymentStatus === 'READY' && s.lifecycleState === 'STABLE',
      'READY',
    );
    sim.rig.store.create('flinksessionjobs', sessionJob('etl', NS, 'session'));
    await waitStable(sim.rig.store, NS, 'etl', 'flinksessionjobs');
    const run = await submitAndWatch(
      'scale',
      { kind: 'scale', parallelism: 4, target: { kind: 'FlinkSessionJob', namespace: NS, name: 'etl' } },
      'flinksessionjobs',
    );
    expect(run.final.outcome, summarize(run.final)).toBe('completed');
    expectOnlyPendingBefore(run);
  });
});
