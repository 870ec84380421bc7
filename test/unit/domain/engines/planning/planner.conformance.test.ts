// Planning against how the real operator behaves (docs/lifecycle.md#refused-or-denied,
// docs/lifecycle.md#session-jobs-and-session-clusters): refusals before planning, and the savepoint directory a session
// job's snapshot must name.
import { describe, expect, it } from 'vitest';
import { planOperation } from '../../../../../src/domain/engines/planning/planner.js';
import type { Target } from '../../../../../src/domain/model/target.js';
import {
  PLAN_CONTEXT as CTX,
  flinkDeployment,
  flinkSessionJob,
  intentOf,
  planFor,
  refusalFor,
  sessionCluster,
} from '../../../../support/fixtures.js';

const NS = 'streaming-prod';
const DEP: Target = { kind: 'FlinkDeployment', namespace: NS, name: 'orders-enricher' };
const SJ: Target = { kind: 'FlinkSessionJob', namespace: NS, name: 'clickstream-sessionizer' };
const suspended = flinkDeployment({ spec: { job: { state: 'suspended' } } });

describe('refusals before planning: the operator would only record the change', () => {
  it.each([
    { kind: 'scale', target: DEP, parallelism: 8 },
    { kind: 'upgrade', target: DEP, image: 'flink:1.20.2-scala_2.12-java17' },
    { kind: 'restart', target: DEP },
  ])('$kind of a suspended target is refused with the way forward', (raw) => {
    expect(refusalFor(raw, suspended)).toBe(
      `${NS}/orders-enricher is suspended: the operator records the change but applies it only at resume; resume first`,
    );
  });

  it('resume, suspend of a running one and restore are still planned on their own terms', () => {
    expect(planFor({ kind: 'resume', target: DEP }, suspended).diff.map((d) => d.path)).toEqual(['spec.job.state']);
    expect(planFor({ kind: 'restore', target: DEP, from: 's3://sp/1' }, suspended).notes.join(' ')).toContain(
      'the job stays suspended until resume',
    );
  });

  it('restore of a suspended session job without a jobId is refused; with a jobId it is planned', () => {
    const noJobId = flinkSessionJob({
      spec: { job: { state: 'suspended' } },
      status: { jobStatus: { state: 'FINISHED', jobId: null } },
    });
    expect(refusalFor({ kind: 'restore', target: SJ, from: 's3://sp/1' }, noJobId)).toMatch(
      /suspended session job without a jobId \(status\.jobStatus\.jobId\).*resume it first, or recreate the session job with spec\.job\.initialSavepointPath/,
    );
    const withJobId = flinkSessionJob({
      spec: { job: { state: 'suspended' } },
      status: { jobStatus: { state: 'FINISHED', jobId: 'a1b2c3d4e5f60718293a4b5c6d7e8f90' } },
    });
    expect(planFor({ kind: 'restore', target: SJ, from: 's3://sp/1' }, withJobId).diff.length).toBeGreaterThan(0);
  });
});

describe("a session job savepoint names its directory (1.15 reads only spec.savepoint.path or the cluster's)", () => {
  const plan = (job: ReturnType<typeof flinkSessionJob>, cluster: unknown) => {
    const result = planOperation(
      intentOf({ kind: 'savepoint', target: SJ }),
      { resource: job, sessionCluster: cluster },
      CTX,
    );
    if (!result.ok) throw new Error(result.refusal);
    return result.plan;
  };
  const snapshotSpec = (p: ReturnType<typeof plan>) =>
    p.change.type === 'create-snapshot' ? (p.change.snapshot.spec as Record<string, unknown>) : {};

  it("takes the job's own state.savepoints.dir over the cluster's, and shows it in the diff", () => {
    const job = flinkSessionJob({ spec: { flinkConfiguration: { 'state.savepoints.dir': 's3://job/sp' } } });
    const p = plan(
      job,
      sessionCluster({ spec: { flinkConfiguration: { 'state.savepoints.dir': 's3://cluster/sp' } } }),
    );
    expect(snapshotSpec(p).savepoint).toEqual({ disposeOnDelete: false, path: 's3://job/sp' });
    expect(p.diff).toContainEqual({ path: 'snapshot.spec.savepoint.path', before: null, after: 's3://job/sp' });
  });

  it("falls back to the session cluster's directory; with none anywhere it sets no path (the check reports it)", () => {
    const job = flinkSessionJob();
    expect(
      snapshotSpec(
        plan(job, sessionCluster({ spec: { flinkConfiguration: { 'state.savepoints.dir': 's3://cluster/sp' } } })),
      ).savepoint,
    ).toEqual({
      disposeOnDelete: false,
      path: 's3://cluster/sp',
    });
    expect(
      snapshotSpec(plan(job, sessionCluster({ spec: { flinkConfiguration: { 'state.savepoints.dir': null } } })))
        .savepoint,
    ).toEqual({ disposeOnDelete: false });
  });

  it("a FlinkDeployment savepoint sets no path: the operator reads the deployment's own configuration", () => {
    const p = planFor(
      { kind: 'savepoint', target: DEP },
      flinkDeployment({ spec: { flinkConfiguration: { 'state.savepoints.dir': 's3://dep/sp' } } }),
    );
    expect(snapshotSpec(p).savepoint).toEqual({ disposeOnDelete: false });
  });
});
