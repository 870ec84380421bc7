import { describe, expect, it } from 'vitest';
import {
  evaluateEvidence,
  takeEventBaseline,
  type EvidenceKind,
} from '../../../../../src/domain/engines/evidence/judge.js';
import { applyMergePatch, type JsonRecord } from '../../../../../src/domain/model/merge-patch.js';
import { jobIdOf } from '../../../../../src/domain/model/resource.js';
import { planUndo } from '../../../../../src/domain/engines/planning/undo.js';
import {
  editSpec,
  flinkDeployment,
  flinkSessionJob,
  intentOf,
  planFor,
  sessionCluster,
} from '../../../../support/fixtures.js';
import {
  DEP,
  judge,
  kubeEvent,
  metMap,
  NOW,
  SESSION_CLUSTER,
  SESSION_JOB,
  secondsAfter,
  settled,
  specPatchOf,
  SUBMITTED_AT,
  unmet,
  warning,
} from '../../../../support/evidence-fixtures.js';

const URI = 's3://flink/savepoints/orders-enricher/savepoint-restore-1';

describe('restore of a running deployment: our nonce, the path, and the job RUNNING after a Submit', () => {
  const before = flinkDeployment();
  const plan = planFor({ kind: 'restore', target: DEP, from: URI }, before);
  const submit = kubeEvent({
    reason: 'Submit',
    component: 'JobManagerDeployment',
    message: 'Starting deployment',
    last: secondsAfter(20),
  });
  const done = (status: JsonRecord = {}) =>
    settled(flinkDeployment, specPatchOf(plan), {
      status: applyMergePatch({ jobStatus: { upgradeSavepointPath: URI } }, status) as JsonRecord,
    });

  it('is COMPLETED, a new jobId confirming the redeploy', () => {
    const v = judge({ kind: 'restore', plan, before, resource: done(), events: [submit] });
    expect(v.outcome).toBe('completed');
    expect(metMap(v)).toEqual({
      'generation-observed': true,
      'reconciled-deployed': true,
      'spec-reconciled:spec.job.initialSavepointPath': true,
      'spec-reconciled:spec.job.savepointRedeployNonce': true,
      'reconciled-running': true,
      'savepoint-path-applied': true,
      'jobmanager-ready': true,
      'submit-event': true,
      'job-running': true,
      'job-id-new': true,
      'no-blocking-warnings': true,
    });
    if (v.outcome !== 'completed') return;
    expect(v.proof.verified.join('; ')).toMatch(
      /jobId [0-9a-f]{8}… \(new; was [0-9a-f]{8}…\), after a Submit event after the submission/,
    );
    expect(v.proof.notVerified).toContain('Flink REST latest.restored path not checked');
  });

  it('lifecycle STABLE before the job runs is not evidence (the redeploy is marked stable at once)', () => {
    const early = done({
      lifecycleState: 'STABLE',
      jobManagerDeploymentStatus: 'DEPLOYING',
      jobStatus: { state: 'RECONCILING' },
    });
    const v = judge({ kind: 'restore', plan, before, resource: early, events: [submit] });
    expect(v.outcome).toBe('pending');
    expect(unmet(v)).toEqual(['jobmanager-ready', 'job-running']);
    expect(Object.keys(metMap(v))).not.toContain('lifecycle-stable');
  });

  it.each([
    [
      'the Submit event is a stale one (same count as before the submission)',
      { baselineEvents: [{ ...submit, lastTimestamp: '2026-01-01T00:00:01Z' }], events: [] },
      ['submit-event'],
    ],
    ['the jobId is the one from before', { previousJobId: jobIdOf(done()) }, ['job-id-new']],
    [
      'RUNNING was observed before the Submit second',
      { resource: done({ jobStatus: { updateTime: String(secondsAfter(9)) } }) },
      ['job-running'],
    ],
    [
      'upgradeSavepointPath is not the given uri',
      { resource: done({ jobStatus: { upgradeSavepointPath: 's3://elsewhere' } }) },
      ['savepoint-path-applied'],
    ],
  ])('is pending when %s', (_, extra, expected) => {
    const v = judge({ kind: 'restore', plan, before, resource: done(), events: [submit], ...extra });
    expect(unmet(v)).toEqual(expected);
  });

  it('says when the previous jobId is unknown', () => {
    const v = judge({ kind: 'restore', plan, resource: done(), events: [submit] });
    expect(v.outcome === 'completed' && v.proof.notVerified).toContain('a new jobId (the previous one is unknown)');
  });

  it('fails as upgrade does: a ValidationError', () => {
    const v = judge({
      kind: 'restore',
      plan,
      before,
      resource: editSpec(before, specPatchOf(plan)),
      events: [warning('ValidationError', { message: 'initialSavepointPath must not be empty' })],
    });
    expect(v).toMatchObject({
      outcome: 'failed',
      rollback: false,
      reason: expect.stringContaining('initialSavepointPath must not be empty'),
    });
  });
});

describe('restore of a suspended target: only the path is recorded', () => {
  const before = flinkDeployment({ spec: { job: { state: 'suspended' } } });
  const plan = planFor({ kind: 'restore', target: DEP, from: URI, allowNonRestoredState: true }, before);

  it('completes on nonce reconciled and upgradeSavepointPath == uri, and says the job stays suspended until resume', () => {
    const resource = settled(flinkDeployment, specPatchOf(plan), {
      spec: { job: { state: 'suspended' } },
      status: { jobStatus: { upgradeSavepointPath: URI } },
    });
    const v = judge({ kind: 'restore', plan, before, resource });
    expect(v.outcome).toBe('completed');
    expect(Object.keys(metMap(v))).toEqual([
      'spec-reconciled:spec.job.initialSavepointPath',
      'spec-reconciled:spec.job.savepointRedeployNonce',
      'spec-reconciled:spec.job.allowNonRestoredState',
      'savepoint-path-applied',
      'no-blocking-warnings',
    ]);
    if (v.outcome !== 'completed') return;
    expect(v.notes).toContain(
      `the target is suspended: the job stays suspended until \`resume\`, which restores from ${URI}`,
    );
    expect(v.proof.notVerified[0]).toMatch(/stays suspended until `resume`/);
  });

  it('is pending while upgradeSavepointPath still holds the old savepoint', () => {
    const resource = settled(flinkDeployment, specPatchOf(plan), { spec: { job: { state: 'suspended' } } });
    expect(unmet(judge({ kind: 'restore', plan, before, resource }))).toEqual(['savepoint-path-applied']);
  });
});

describe('FlinkSessionJob: no JobManager, rollback or image', () => {
  const before = flinkSessionJob();
  it.each([
    ['scale', { kind: 'scale', target: SESSION_JOB, parallelism: 4 }],
    ['restart', { kind: 'restart', target: SESSION_JOB }],
  ])('%s completes without a jobmanager-ready criterion', (kind, raw) => {
    const plan = planFor(raw, before);
    const v = judge({
      kind: kind as EvidenceKind,
      plan,
      before,
      resource: settled(flinkSessionJob, specPatchOf(plan)),
    });
    expect(v.outcome).toBe('completed');
    expect(Object.keys(metMap(v))).not.toContain('jobmanager-ready');
    expect(Object.keys(metMap(v))).toContain('job-running');
  });

  it('a session job is not "rolled back" (rollback is FlinkDeployment only): it stays pending', () => {
    const plan = planFor({ kind: 'restart', target: SESSION_JOB }, before);
    const odd = settled(flinkSessionJob, specPatchOf(plan), {
      status: { lifecycleState: 'ROLLED_BACK', reconciliationStatus: { state: 'ROLLED_BACK' } },
    });
    expect(judge({ kind: 'restart', plan, before, resource: odd }).outcome).toBe('pending');
  });

  it('refuses upgrade: session jobs have no image', () => {
    const plan = planFor({ kind: 'restart', target: SESSION_JOB }, before);
    expect(() => judge({ kind: 'upgrade', plan, before, resource: before })).toThrow(/session jobs have no image/);
  });
});

describe('session cluster: only restart and upgrade, the base predicate without job criteria', () => {
  const before = sessionCluster();
  it.each([
    ['restart', { kind: 'restart', target: SESSION_CLUSTER }, 'spec.restartNonce'],
    ['upgrade', { kind: 'upgrade', target: SESSION_CLUSTER, image: 'flink:1.20.2' }, 'spec.image'],
  ])('%s completes on JobManager READY and STABLE', (kind, raw, field) => {
    const plan = planFor(raw, before);
    const v = judge({ kind: kind as EvidenceKind, plan, before, resource: settled(sessionCluster, specPatchOf(plan)) });
    expect(v.outcome).toBe('completed');
    expect(Object.keys(metMap(v))).toEqual([
      'generation-observed',
      'reconciled-deployed',
      `spec-reconciled:${field}`,
      'jobmanager-ready',
      'lifecycle-stable',
      'no-blocking-warnings',
    ]);
    expect(v.outcome === 'completed' && v.proof.notVerified[0]).toBe(
      'the session jobs on this cluster (check each sessionjob)',
    );
    expect(v.outcome === 'completed' && v.proof.verified.join('; ')).not.toMatch(/job RUNNING/);
  });

  it('is pending while the JobManager is DEPLOYING', () => {
    const plan = planFor({ kind: 'upgrade', target: SESSION_CLUSTER, image: 'flink:1.20.2' }, before);
    const v = judge({
      kind: 'upgrade',
      plan,
      before,
      resource: settled(sessionCluster, specPatchOf(plan), {
        status: { jobManagerDeploymentStatus: 'DEPLOYING', lifecycleState: 'DEPLOYED' },
      }),
    });
    expect(unmet(v)).toEqual(['jobmanager-ready', 'lifecycle-stable']);
  });

  it('refuses the verbs a session cluster has no job for', () => {
    const plan = planFor({ kind: 'restart', target: SESSION_CLUSTER }, before);
    expect(() => judge({ kind: 'scale', plan, before, resource: before })).toThrow(
      /scale does not apply to .*session cluster/,
    );
  });
});

describe('undo, the target itself, and bad input', () => {
  it('an undo is judged as the inverted kind: scale back to an unset parallelism', () => {
    const unset = flinkDeployment({ spec: { job: { parallelism: null } } });
    const first = planFor({ kind: 'scale', target: DEP, parallelism: 8 }, unset);
    const scaled = settled(flinkDeployment, { job: { parallelism: 8 } });
    const undo = planUndo(
      {
        id: 'op-abc123',
        kind: 'scale',
        state: 'COMPLETED',
        plan: first,
        intent: intentOf({ kind: 'scale', target: DEP, parallelism: 8 }),
      },
      { resource: scaled },
      { opId: 'op-undo01', requester: 'U0BOB', nonce: 1 },
    );
    if (!undo.ok) throw new Error(undo.refusal);
    const back = settled(flinkDeployment, { job: { parallelism: null } }, { generation: 5 });
    const v = judge({ kind: undo.invertedKind, plan: undo.plan, before: scaled, resource: back });
    expect(v.outcome).toBe('completed');
    expect(v.criteria.find((c) => c.name === 'spec-reconciled:spec.job.parallelism')).toMatchObject({
      met: true,
      observed: null,
    });
  });

  it('an unreadable target is pending; a recreated one (new uid) failed', () => {
    const before = flinkDeployment();
    const plan = planFor({ kind: 'restart', target: DEP }, before);
    expect(judge({ kind: 'restart', plan, before, resource: undefined })).toMatchObject({
      outcome: 'pending',
      criteria: [{ name: 'target-present', met: false }],
    });
    const recreated = flinkDeployment({ uid: '00000000-0000-4000-a000-000000000000' });
    expect(judge({ kind: 'restart', plan, before, resource: recreated })).toMatchObject({
      outcome: 'failed',
      reason: expect.stringContaining('deleted and recreated'),
    });
  });

  it.each([
    ['an unknown kind', { kind: 'undo' }, /unknown kind "undo".*inverts/],
    ['a savepoint judged on a patch plan', { kind: 'savepoint' }, /savepoint plan must be a create-snapshot change/],
    ['a time that is not a number', { now: Number.NaN }, /observation\.now NaN/],
  ])('throws a clear message for %s', (_, override, message) => {
    const before = flinkDeployment();
    const plan = planFor({ kind: 'restart', target: DEP }, before);
    const { now, kind } = { now: NOW, kind: 'restart', ...override } as { now: number; kind: EvidenceKind };
    const run = () =>
      evaluateEvidence({
        kind,
        plan,
        baseline: takeEventBaseline([], SUBMITTED_AT),
        observation: { resource: before, events: [], now },
      });
    expect(run).toThrow(message);
  });
});
