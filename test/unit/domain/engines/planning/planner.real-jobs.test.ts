// Refusals and plan notes for real jobs: Blue/Green children, the autoscaler's overrides (and --reset-autoscaler),
// jobs the operator would wait on, the last-state fallback note, and a session job its cluster lost
// (docs/deep-verification.md#real-jobs; E1–E12 are the rows of issue 23).
import { describe, expect, it } from 'vitest';
import { planOperation } from '../../../../../src/domain/engines/planning/planner.js';
import type { Target } from '../../../../../src/domain/model/target.js';
import {
  PLAN_CONTEXT as CTX,
  flinkDeployment,
  flinkSessionJob,
  intentOf,
  planFor as planned,
  refusalFor as refusal,
  sessionCluster,
} from '../../../../support/fixtures.js';

const NS = 'streaming-prod';
const DEP: Target = { kind: 'FlinkDeployment', namespace: NS, name: 'orders-enricher' };
const SJ: Target = { kind: 'FlinkSessionJob', namespace: NS, name: 'clickstream-sessionizer' };
const OVERRIDES = '0a448493b4782967b150582570326227:2,bc764cd8ddf7a0cff126f51c16239658:1';
const NO_HA = { flinkConfiguration: { 'high-availability.type': null, 'high-availability.storageDir': null } };

describe('Blue/Green children (E12)', () => {
  const child = flinkDeployment({ name: 'orders-enricher' });
  // As the operator writes it: blockOwnerDeletion true, controller false.
  child.metadata.ownerReferences = [
    {
      apiVersion: 'flink.apache.org/v1beta1',
      kind: 'FlinkBlueGreenDeployment',
      name: 'orders',
      uid: 'u-1',
      blockOwnerDeletion: true,
      controller: false,
    },
  ];

  it.each([
    { kind: 'restart' },
    { kind: 'scale', parallelism: 8 },
    { kind: 'suspend' },
    { kind: 'savepoint' },
    { kind: 'upgrade', image: 'flink:2.0' },
    { kind: 'config', action: 'set', entries: [{ key: 'a.b', value: '1' }] },
  ])('refuses $kind of a blue/green child, naming the parent', (raw) => {
    expect(refusal({ ...raw, target: DEP }, child)).toBe(
      'streaming-prod/orders-enricher is managed by FlinkBlueGreenDeployment streaming-prod/orders: change the parent, not its blue/green child',
    );
  });

  it('plans against a FlinkDeployment whose owner is not a Blue/Green controller', () => {
    const owned = flinkDeployment();
    owned.metadata.ownerReferences = [
      { apiVersion: 'argoproj.io/v1alpha1', kind: 'Application', name: 'x', uid: 'u-2', controller: true },
    ];
    expect(planned({ kind: 'restart', target: DEP }, owned).diff[0]?.path).toBe('spec.restartNonce');
  });
});

describe('the autoscaler holds the parallelism (E5)', () => {
  const autoscaled = flinkDeployment({
    spec: { flinkConfiguration: { 'job.autoscaler.enabled': 'true' } },
    reconciled: { flinkConfiguration: { 'pipeline.jobvertex-parallelism-overrides': OVERRIDES } },
  });

  it('refuses scale, naming vertices by id prefix without REST', () => {
    expect(refusal({ kind: 'scale', target: DEP, parallelism: 8 }, autoscaled)).toBe(
      'the autoscaler holds the parallelism of its vertices (vertex 0a448493: 2, vertex bc764cd8: 1); turn it off with ' +
        '`/flink config set streaming-prod/orders-enricher job.autoscaler.enabled=false`, or reset it with `--reset-autoscaler`',
    );
  });

  it('names the vertices when REST gave their names', () => {
    const names = {
      '0a448493b4782967b150582570326227': 'Source: orders',
      bc764cd8ddf7a0cff126f51c16239658: 'Sink: results',
    };
    const result = planOperation(
      intentOf({ kind: 'scale', target: DEP, parallelism: 8 }),
      { resource: autoscaled, vertexNames: names },
      CTX,
    );
    expect(result).toMatchObject({
      ok: false,
      refusal: expect.stringContaining('(Source: orders: 2, Sink: results: 1)'),
    });
  });

  it('--reset-autoscaler bumps spec.job.autoscalerResetNonce with the parallelism', () => {
    const plan = planned({ kind: 'scale', target: DEP, parallelism: 8, resetAutoscaler: true }, autoscaled);
    expect(plan.diff).toEqual([
      { path: 'spec.job.parallelism', before: 4, after: 8 },
      { path: 'spec.job.autoscalerResetNonce', before: null, after: CTX.nonce },
    ]);
    expect(plan.notes).toContain(
      "the autoscaler's stored parallelism overrides are cleared with the scale: every vertex starts from parallelism 8 until the autoscaler decides again",
    );
  });

  it('a fresh nonce when the current one equals the context nonce', () => {
    const already = flinkDeployment({
      spec: { job: { autoscalerResetNonce: CTX.nonce } },
      reconciled: { flinkConfiguration: { 'pipeline.jobvertex-parallelism-overrides': OVERRIDES } },
    });
    expect(planned({ kind: 'scale', target: DEP, parallelism: 8, resetAutoscaler: true }, already).diff[1]).toEqual({
      path: 'spec.job.autoscalerResetNonce',
      before: CTX.nonce,
      after: CTX.nonce + 1,
    });
  });

  it('plans a scale when the autoscaler is on but holds no overrides yet, and when the CR sets the overrides itself', () => {
    const noOverrides = flinkDeployment({ spec: { flinkConfiguration: { 'job.autoscaler.enabled': 'true' } } });
    expect(planned({ kind: 'scale', target: DEP, parallelism: 8 }, noOverrides).diff).toEqual([
      { path: 'spec.job.parallelism', before: 4, after: 8 },
    ]);
    const own = flinkDeployment({
      spec: { flinkConfiguration: { 'pipeline.jobvertex-parallelism-overrides': OVERRIDES } },
    });
    expect(planned({ kind: 'scale', target: DEP, parallelism: 8 }, own).diff).toHaveLength(1);
  });
});

describe('not upgradeable yet (E6): refused where the operator would wait', () => {
  const withJob = (state: string, spec: Record<string, unknown> = {}, status: Record<string, unknown> = {}) =>
    flinkDeployment({ spec, status: { jobStatus: { state }, ...status } });
  const noFallback = { flinkConfiguration: { 'kubernetes.operator.job.upgrade.last-state-fallback.enabled': 'false' } };

  it.each([
    ['restart', { kind: 'restart' }],
    ['scale', { kind: 'scale', parallelism: 8 }],
    ['upgrade', { kind: 'upgrade', image: 'flink:2.0' }],
    ['resources', { kind: 'resources', taskManagerMemory: '8g' }],
    ['config', { kind: 'config', action: 'set', entries: [{ key: 'restart-strategy.type', value: 'fixed-delay' }] }],
  ])('%s of a RECONCILING job without HA, saying why and what works instead', (_kind, raw) => {
    const message = refusal({ ...raw, target: DEP }, withJob('RECONCILING', NO_HA));
    expect(message).toMatch(
      /^streaming-prod\/orders-enricher is not upgradeable yet in savepoint mode: its job is RECONCILING \(the operator cannot reach it\) and it has no high availability/,
    );
    expect(message).toContain('wait until the job is RUNNING');
    expect(message).toContain('`/flink restore streaming-prod/orders-enricher --from <savepoint>`');
    expect(message).toMatch(raw.kind === 'upgrade' ? /`--mode stateless`/ : /spec\.job\.upgradeMode: stateless/);
  });

  it.each(['RESTARTING', 'FAILING', 'CREATED'])(
    'savepoint mode, %s, last-state fallback disabled: refused',
    (state) => {
      expect(refusal({ kind: 'restart', target: DEP }, withJob(state, noFallback))).toMatch(
        new RegExp(
          `its job is ${state}, so no savepoint can be taken, and kubernetes\\.operator\\.job\\.upgrade\\.last-state-fallback\\.enabled is false`,
        ),
      );
    },
  );

  it('a CANCELLING job: the operator waits for the cancel', () => {
    expect(refusal({ kind: 'restart', target: DEP }, withJob('CANCELLING'))).toMatch(
      /its job is CANCELLING and the operator waits for the cancel to finish/,
    );
  });

  it('last-state mode without HA while RECONCILING: refused too', () => {
    expect(
      refusal(
        { kind: 'restart', target: DEP },
        withJob('RECONCILING', { ...NO_HA, job: { upgradeMode: 'last-state' } }),
      ),
    ).toMatch(/not upgradeable yet in last-state mode/);
  });

  it('a session job that is RECONCILING is waited on whatever its HA', () => {
    const job = flinkSessionJob({ status: { jobStatus: { state: 'RECONCILING' } } });
    const result = planOperation(
      intentOf({ kind: 'scale', target: SJ, parallelism: 4 }),
      { resource: job, sessionCluster: sessionCluster() },
      CTX,
    );
    expect(result).toMatchObject({
      ok: false,
      refusal: expect.stringMatching(
        /^sessionjob:streaming-prod\/clickstream-sessionizer is not upgradeable yet in savepoint mode: its job is RECONCILING/,
      ),
    });
  });

  it.each([
    ['terminal FAILED (restored from the status savepoint)', withJob('FAILED', NO_HA)],
    ['terminal FINISHED', withJob('FINISHED', noFallback)],
    ['RESTARTING without HA (the operator cancels it)', withJob('RESTARTING', NO_HA)],
    ['RECONCILING with HA (falls back to last-state)', withJob('RECONCILING')],
    [
      'RECONCILING without HA, JobManager never started (ERROR)',
      withJob('RECONCILING', NO_HA, { jobManagerDeploymentStatus: 'ERROR' }),
    ],
  ])('plans: %s', (_case, resource) => {
    expect(planned({ kind: 'restart', target: DEP }, resource).diff[0]?.path).toBe('spec.restartNonce');
  });

  it('plans a stateless upgrade of a RECONCILING job without HA, and an IGNORE-class config', () => {
    expect(
      planned({ kind: 'upgrade', target: DEP, image: 'flink:2.0', mode: 'stateless' }, withJob('RECONCILING', NO_HA))
        .diff,
    ).toHaveLength(2);
    const ignore = {
      kind: 'config',
      target: DEP,
      action: 'set',
      entries: [{ key: 'kubernetes.operator.savepoint.history.max.count', value: '5' }],
    };
    expect(planned(ignore, withJob('RECONCILING', NO_HA)).diff).toHaveLength(1);
  });
});

describe('the last-state fallback, said beforehand (E2)', () => {
  const NOTE =
    'the job is RESTARTING, not RUNNING: the operator will fall back to last-state — no savepoint is taken; the job restores from its latest checkpoint (HA metadata)';

  it('a savepoint-mode target with HA that is not RUNNING gets the note', () => {
    const resource = flinkDeployment({ status: { jobStatus: { state: 'RESTARTING' } } });
    expect(planned({ kind: 'restart', target: DEP }, resource).notes).toContain(NOTE);
  });

  it.each([
    ['RUNNING', flinkDeployment()],
    ['FAILED (restores from the status savepoint)', flinkDeployment({ status: { jobStatus: { state: 'FAILED' } } })],
    [
      'last-state mode',
      flinkDeployment({ spec: { job: { upgradeMode: 'last-state' } }, status: { jobStatus: { state: 'RESTARTING' } } }),
    ],
  ])('no note when %s', (_case, resource) => {
    expect(planned({ kind: 'restart', target: DEP }, resource).notes.join('\n')).not.toMatch(/fall back to last-state/);
  });
});

describe('a session job its cluster lost (E7)', () => {
  const lost = flinkSessionJob({
    status: {
      error: 'Job Not Found',
      jobStatus: { state: 'RECONCILING', upgradeSavepointPath: 's3://flink/savepoints/clickstream/savepoint-77aa' },
    },
  });

  it('refuses restart, giving the exact restore command', () => {
    expect(refusal({ kind: 'restart', target: SJ }, lost)).toBe(
      'sessionjob:streaming-prod/clickstream-sessionizer is no longer known to its session cluster (status.error: Job Not Found): ' +
        'the operator never proceeds with a restart of it. Bring it back from its state with ' +
        '`/flink restore sessionjob:streaming-prod/clickstream-sessionizer --from s3://flink/savepoints/clickstream/savepoint-77aa`',
    );
  });

  it('plans the restore it points to', () => {
    expect(
      planned({ kind: 'restore', target: SJ, from: 's3://flink/savepoints/clickstream/savepoint-77aa' }, lost).diff.map(
        (d) => d.path,
      ),
    ).toContain('spec.job.initialSavepointPath');
  });
});
