import { describe, expect, it } from 'vitest';
import { eventsAfter, summarize, takeEventBaseline, timedOutReport, type EvidenceKind } from '../../src/domain/evidence/judge.js';
import type { Plan } from '../../src/domain/model/plan.js';
import { editSpec, flinkDeployment, planFor, writeStatus } from '../support/fixtures.js';
import { DEP, judge, kubeEvent, metMap, secondsAfter, settled, specPatchOf, SUBMITTED_AT, unmet, upgrading, warning } from '../support/evidence-fixtures.js';

const before = flinkDeployment();
const PLANS: Record<'resume' | 'restart' | 'scale' | 'upgrade', { plan: Plan; before: ReturnType<typeof flinkDeployment>; field: string }> = {
  restart: { plan: planFor({ kind: 'restart', target: DEP }, before), before, field: 'spec.restartNonce' },
  scale: { plan: planFor({ kind: 'scale', target: DEP, parallelism: 8 }, before), before, field: 'spec.job.parallelism' },
  upgrade: { plan: planFor({ kind: 'upgrade', target: DEP, image: 'flink:1.20.2-scala_2.12-java17' }, before), before, field: 'spec.image' },
  resume: (() => {
    const suspended = flinkDeployment({ spec: { job: { state: 'suspended' } } });
    return { plan: planFor({ kind: 'resume', target: DEP }, suspended), before: suspended, field: 'spec.job.state' };
  })(),
};
const KINDS = Object.keys(PLANS) as ('resume' | 'restart' | 'scale' | 'upgrade')[];

function done(kind: keyof typeof PLANS, opts: Parameters<typeof settled>[2] = {}) {
  return settled(flinkDeployment, specPatchOf(PLANS[kind].plan), opts);
}

describe('eventsAfter: new or count grown; the second of the submission is necessary, not sufficient', () => {
  const listed = kubeEvent({ reason: 'SpecChanged', name: 'JobManagerDeployment.1', count: 2, last: SUBMITTED_AT - 60_000 });
  const baseline = takeEventBaseline([listed], SUBMITTED_AT);
  it.each([
    ['a new event', kubeEvent({ reason: 'Submit', name: 'Job.9' }), true],
    ['the listed event, same count (deduplicated, stale)', listed, false],
    ['the listed event, same count, lastTimestamp bumped', { ...listed, lastTimestamp: '2026-01-01T00:00:15Z' }, false],
    ['the listed event with its count grown', kubeEvent({ reason: 'SpecChanged', name: 'JobManagerDeployment.1', count: 3 }), true],
    ['a new name whose lastTimestamp is before the submission second', kubeEvent({ reason: 'Submit', name: 'Job.8', last: SUBMITTED_AT - 1_000 }), false],
    ['a new name in the same second as the submission', kubeEvent({ reason: 'Submit', name: 'Job.7', last: SUBMITTED_AT - 500 }), true],
    ['the listed name expired and recorded again (count 1, first seen after)', kubeEvent({ reason: 'SpecChanged', name: 'JobManagerDeployment.1', count: 1 }), true],
    ['the listed name with a lower count first seen long ago', kubeEvent({ reason: 'SpecChanged', name: 'JobManagerDeployment.1', count: 1, first: SUBMITTED_AT - 90_000 }), false],
    ['a new event without any timestamp', { metadata: { name: 'Job.6' }, reason: 'Submit', type: 'Normal', count: 1 }, true],
    ['something that is not an event', { hello: 'world' }, false],
  ])('%s → after: %s', (_, event, expected) => {
    expect(eventsAfter(baseline, [event])).toEqual(expected ? [event] : []);
  });

  it('takes the highest count per name and refuses a baseline without a time', () => {
    const b = takeEventBaseline([listed, { ...listed, count: 5 }, { reason: 'X' }], SUBMITTED_AT);
    expect(b.counts).toEqual({ 'JobManagerDeployment.1': 5 });
    expect(() => eventsAfter({ takenAt: Number.NaN, counts: {} }, [])).toThrow(/takenAt/);
  });
});

describe.each(KINDS)('%s of a running FlinkDeployment: the base predicate', (kind) => {
  const { plan, before: prior, field } = PLANS[kind];

  it('is COMPLETED on the settled observation, naming the reconciled field', () => {
    const v = judge({ kind, plan, before: prior, resource: done(kind) });
    expect(v.outcome).toBe('completed');
    expect(metMap(v)).toMatchObject({
      'generation-observed': true,
      'reconciled-deployed': true,
      [`spec-reconciled:${field}`]: true,
      'jobmanager-ready': true,
      'job-running': true,
      'lifecycle-stable': true,
      'no-blocking-warnings': true,
    });
  });

  it('is pending right after the submission (observedGeneration behind)', () => {
    const v = judge({ kind, plan, before: prior, resource: editSpec(prior, specPatchOf(plan)) });
    expect(v.outcome).toBe('pending');
    expect(unmet(v)).toContain('generation-observed');
  });

  it('is pending while UPGRADING although observedGeneration == generation and Running=True (traps §9.1, §9.2)', () => {
    const mid = upgrading(prior, specPatchOf(plan));
    expect(mid.status?.observedGeneration).toBe(mid.metadata.generation);
    const v = judge({ kind, plan, before: prior, resource: writeStatus(mid, { conditions: [{ type: 'Running', status: 'True', reason: 'Running' }] }) });
    expect(v.outcome).toBe('pending');
    expect(unmet(v)).toEqual(expect.arrayContaining(['reconciled-deployed', 'job-running', 'lifecycle-stable']));
  });

  it('is pending while deployed but the job is still RECONCILING and the JobManager DEPLOYING', () => {
    const v = judge({ kind, plan, before: prior, resource: done(kind, { status: { jobManagerDeploymentStatus: 'DEPLOYING', lifecycleState: 'DEPLOYED', jobStatus: { state: 'RECONCILING' } } }) });
    expect(v.outcome).toBe('pending');
    expect(unmet(v)).toEqual(['jobmanager-ready', 'job-running', 'lifecycle-stable']);
  });
});

describe('redeploy kinds: traps that must stay pending', () => {
  const { plan } = PLANS.scale;
  it.each([
    ['RUNNING but lifecycle DEPLOYED (not yet stable)', { lifecycleState: 'DEPLOYED' }, ['lifecycle-stable']],
    ['a job FINISHED is not RUNNING (a suspended job shows FINISHED)', { jobStatus: { state: 'FINISHED' } }, ['job-running']],
    ['someone else moved the generation past ours and it is not observed yet', { observedGeneration: 4 }, ['generation-observed']],
  ])('%s', (_, status, expected) => {
    const resource = done('scale', { status });
    if (expected.includes('generation-observed')) resource.metadata.generation = 5;
    const v = judge({ kind: 'scale', plan, before, resource });
    expect(v.outcome).toBe('pending');
    expect(unmet(v)).toEqual(expected);
  });

  it('observedGeneration alone proves nothing: DEPLOYED with the old parallelism reconciled stays pending', () => {
    const resource = done('scale', { reconciled: { job: { parallelism: 4 } } });
    const v = judge({ kind: 'scale', plan, before, resource });
    expect(v.outcome).toBe('pending');
    expect(v.criteria.find((c) => c.name === 'spec-reconciled:spec.job.parallelism')).toMatchObject({ met: false, observed: 4 });
  });

  it('lastReconciledSpec saying suspended is not running', () => {
    const v = judge({ kind: 'restart', plan: PLANS.restart.plan, before, resource: done('restart', { reconciled: { job: { state: 'suspended' } } }) });
    expect(unmet(v)).toEqual(['reconciled-running']);
  });
});

describe('redeploy kinds: FAILED signals', () => {
  const { plan } = PLANS.upgrade;
  const image = 'flink:1.20.2-scala_2.12-java17';
  const pullError = JSON.stringify({ type: 'DeploymentFailedException', message: `Failed to pull image "${image}"` });

  it('a ValidationError after the submission fails with its message', () => {
    const v = judge({ kind: 'upgrade', plan, before, resource: editSpec(before, specPatchOf(plan)), events: [warning('ValidationError', { message: 'Invalid image' })] });
    expect(v).toMatchObject({ outcome: 'failed', rollback: false });
    expect(v.outcome === 'failed' && v.reason).toMatch(/ValidationError.*Invalid image/);
  });

  it('a stale deduplicated ValidationError (same count) is not after the submission; a grown count is', () => {
    const old = warning('ValidationError', { name: 'Operator.42', count: 2, last: SUBMITTED_AT - 120_000 });
    const resource = editSpec(before, specPatchOf(plan));
    expect(judge({ kind: 'upgrade', plan, before, resource, baselineEvents: [old] }).outcome).toBe('pending');
    const grown = warning('ValidationError', { name: 'Operator.42', count: 3, first: SUBMITTED_AT - 120_000 });
    expect(judge({ kind: 'upgrade', plan, before, resource, baselineEvents: [old], events: [grown] }).outcome).toBe('failed');
  });

  it.each([
    ['ErrImagePull with status.error and JobManager ERROR', warning('ErrImagePull', { message: 'pull failed' }), { jobManagerDeploymentStatus: 'ERROR', error: pullError, jobStatus: { state: 'RECONCILING' } }, /ErrImagePull.*Failed to pull image/],
    ['CrashLoopBackOff with status.error', warning('CrashLoopBackOff'), { error: 'back-off restarting failed container', jobStatus: { state: 'RECONCILING' } }, /CrashLoopBackOff/],
  ])('container reason: %s', (_, event, status, reason) => {
    const v = judge({ kind: 'upgrade', plan, before, resource: done('upgrade', { status }), events: [event] });
    expect(v.outcome).toBe('failed');
    expect(v.outcome === 'failed' && v.reason).toMatch(reason);
  });

  it('ImagePullBackOff without status.error blocks but does not fail yet', () => {
    const v = judge({ kind: 'upgrade', plan, before, resource: done('upgrade', { status: { jobManagerDeploymentStatus: 'DEPLOYING' } }), events: [warning('ImagePullBackOff')] });
    expect(v).toMatchObject({ outcome: 'pending', blocking: [expect.stringContaining('ImagePullBackOff')] });
  });

  it.each([
    ['JobManager ERROR', { jobManagerDeploymentStatus: 'ERROR' }, /JobManager deployment is in ERROR/],
    ['job FAILED', { jobStatus: { state: 'FAILED' }, lifecycleState: 'FAILED' }, /job FAILED/],
    ['lifecycle FAILED', { lifecycleState: 'FAILED' }, /FAILED/],
  ])('%s on our generation fails', (_, status, reason) => {
    const v = judge({ kind: 'restart', plan: PLANS.restart.plan, before, resource: done('restart', { status }) });
    expect(v.outcome).toBe('failed');
    expect(v.outcome === 'failed' && v.reason).toMatch(reason);
  });

  it('a restart of a FAILED job is not failed by the FAILED state it starts from', () => {
    const failedJob = flinkDeployment({ status: { jobStatus: { state: 'FAILED' }, lifecycleState: 'FAILED', jobManagerDeploymentStatus: 'ERROR' } });
    const restart = planFor({ kind: 'restart', target: DEP }, failedJob);
    expect(judge({ kind: 'restart', plan: restart, before: failedJob, resource: editSpec(failedJob, specPatchOf(restart)) }).outcome).toBe('pending');
    expect(judge({ kind: 'restart', plan: restart, before: failedJob, resource: upgrading(failedJob, specPatchOf(restart)) }).outcome).toBe('pending');
  });

  it('a rollback is reported as a rollback: the spec still holds the new image', () => {
    const rolledBack = done('upgrade', {
      reconciled: { image: 'flink:1.20.1-scala_2.12-java17' },
      status: { reconciliationStatus: { state: 'ROLLED_BACK' }, lifecycleState: 'ROLLED_BACK' },
    });
    const v = judge({ kind: 'upgrade', plan, before, resource: rolledBack, events: [kubeEvent({ reason: 'Rollback', message: 'Rolling back failed deployment.' })] });
    expect(v).toMatchObject({ outcome: 'failed', rollback: true });
    if (v.outcome !== 'failed') return;
    expect(v.reason).toMatch(/rolled back to the last stable spec.*spec\.image: "flink:1\.20\.2/);
    expect(v.evidence).toEqual(expect.arrayContaining(['status.lifecycleState: ROLLED_BACK', expect.stringContaining('Rollback')]));
    expect(summarize(v)).toMatch(/^rolled back: /);
  });

  it('a rollback in progress is pending with a note; a status.error alone is a note', () => {
    const rolling = judge({ kind: 'upgrade', plan, before, resource: done('upgrade', { status: { reconciliationStatus: { state: 'ROLLING_BACK' }, lifecycleState: 'ROLLING_BACK' } }) });
    expect(rolling).toMatchObject({ outcome: 'pending', notes: [expect.stringContaining('rolling back')] });
    const erred = judge({ kind: 'upgrade', plan, before, resource: done('upgrade', { status: { error: 'transient REST error', jobStatus: { state: 'RECONCILING' } } }) });
    expect(erred).toMatchObject({ outcome: 'pending', notes: ['status.error: transient REST error'] });
  });
});

describe('Warning events after the submission', () => {
  const { plan } = PLANS.restart;
  it.each(['ScalingReport', 'IneffectiveScaling', 'MemoryPressure', 'ResourceQuotaReached', 'AutoscalerError'])('%s is reported, not blocking', (reason) => {
    const v = judge({ kind: 'restart', plan, before, resource: done('restart'), events: [warning(reason, { message: 'autoscaler says hi' })] });
    expect(v).toMatchObject({ outcome: 'completed', notes: [expect.stringContaining(reason)] });
  });

  it.each(['JobException', 'Error', 'SavepointError', 'Missing', 'RestartUnhealthyJob'])('%s blocks COMPLETED and is listed', (reason) => {
    const v = judge({ kind: 'restart', plan, before, resource: done('restart'), events: [warning(reason, { message: 'boom' })] });
    expect(v).toMatchObject({ outcome: 'pending', blocking: [`Warning ${reason} at 00:00:15 UTC: boom`] });
    expect(unmet(v)).toEqual(['no-blocking-warnings']);
  });

  it('ignores Normal events, and Warnings about other objects or from before the submission', () => {
    const other = flinkDeployment({ name: 'other-job' });
    const events = [kubeEvent({ reason: 'Submit' }), warning('JobException', { involved: other }), warning('Error', { name: 'Operator.1', last: SUBMITTED_AT - 5_000 })];
    expect(judge({ kind: 'restart', plan, before, resource: done('restart'), events }).outcome).toBe('completed');
  });
});

describe('proof depth, summary and the TIMED_OUT report', () => {
  it.each([
    ['restart', ['a checkpoint completed after the change', 'output correctness']],
    ['scale', ['actual per-vertex parallelism (Flink REST) not checked']],
    ['upgrade', [expect.stringContaining('image the pods actually run')]],
  ] as [EvidenceKind, unknown[]][])('%s says what was and was not verified', (kind, notVerified) => {
    const v = judge({ kind, plan: PLANS[kind as 'restart'].plan, before, resource: done(kind as 'restart') });
    if (v.outcome !== 'completed') throw new Error(`expected completed, got ${v.outcome}`);
    expect(v.proof.verified[0]).toMatch(/^operator reconciled generation 4 \(DEPLOYED; lastReconciledSpec /);
    expect(v.proof.verified).toContain('JobManager READY');
    expect(v.proof.verified.join('; ')).toMatch(/job RUNNING on it since 00:00:40 UTC \(started 00:00:30 UTC, after the submission\)/);
    expect(v.proof.notVerified).toEqual(expect.arrayContaining(notVerified));
  });

  it('summarizes a completed verdict in one line', () => {
    const v = judge({ kind: 'scale', plan: PLANS.scale.plan, before, resource: done('scale') });
    const line = summarize(v);
    expect(line).toMatch(/^8 of 8 criteria met; proof depth: operator reconciled generation 4 \(DEPLOYED; lastReconciledSpec job\.parallelism: 8\); JobManager READY; job RUNNING/);
    expect(line).not.toContain('\n');
  });

  it('summarizes a pending verdict with what it waits for and what blocks it', () => {
    const v = judge({ kind: 'scale', plan: PLANS.scale.plan, before, resource: upgrading(before, specPatchOf(PLANS.scale.plan)), events: [warning('JobException')] });
    expect(summarize(v)).toMatch(/^\d of 8 criteria met; waiting for reconciled-deployed \(UPGRADING\), reconciled-running \(suspended\), .*job-running \(RECONCILING\).*; blocked by Warning JobException$/);
  });

  it('records in TIMED_OUT the unmet criteria and the blocking Warnings by name', () => {
    const v = judge({ kind: 'scale', plan: PLANS.scale.plan, before, resource: done('scale', { status: { lifecycleState: 'DEPLOYED' } }), events: [warning('Error', { message: 'reconcile failed' })] });
    const report = timedOutReport(v);
    expect(report.unmet.map((c) => c.name)).toEqual(['lifecycle-stable', 'no-blocking-warnings']);
    expect(report.blocking).toEqual(['Warning Error at 00:00:15 UTC: reconcile failed']);
    expect(report.summary).toBe(
      'evidence incomplete at the deadline: 6 of 8 criteria met; unmet: lifecycle-stable (DEPLOYED); blocking Warning events: Warning Error at 00:00:15 UTC: reconcile failed',
    );
  });

  it('a TIMED_OUT report of a settled verdict says it was not pending', () => {
    const v = judge({ kind: 'scale', plan: PLANS.scale.plan, before, resource: done('scale') });
    expect(timedOutReport(v)).toMatchObject({ unmet: [], blocking: [], summary: expect.stringMatching(/^evidence at the deadline was completed/) });
  });

  it('every criterion carries its source and the observation time', () => {
    const v = judge({ kind: 'scale', plan: PLANS.scale.plan, before, resource: done('scale') });
    expect(v.criteria.find((c) => c.name === 'job-running')).toEqual({ name: 'job-running', met: true, observed: 'RUNNING', source: 'status.jobStatus.state', at: secondsAfter(60) });
  });
});
