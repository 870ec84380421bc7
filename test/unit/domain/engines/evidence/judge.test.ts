import { describe, expect, it } from 'vitest';
import {
  eventsAfter,
  summarize,
  takeEventBaseline,
  timedOutReport,
  type EvidenceKind,
} from '../../../../../src/domain/engines/evidence/judge.js';
import type { Plan } from '../../../../../src/domain/model/plan.js';
import { editSpec, flinkDeployment, planFor, writeStatus } from '../../../../support/fixtures.js';
import {
  DEP,
  judge,
  kubeEvent,
  metMap,
  NOW,
  secondsAfter,
  settled,
  specPatchOf,
  SUBMITTED_AT,
  unmet,
  upgrading,
  warning,
} from '../../../../support/evidence-fixtures.js';

const before = flinkDeployment();
const PLANS: Record<
  'resume' | 'restart' | 'scale' | 'upgrade',
  { plan: Plan; before: ReturnType<typeof flinkDeployment>; field: string }
> = {
  restart: { plan: planFor({ kind: 'restart', target: DEP }, before), before, field: 'spec.restartNonce' },
  scale: {
    plan: planFor({ kind: 'scale', target: DEP, parallelism: 8 }, before),
    before,
    field: 'spec.job.parallelism',
  },
  upgrade: {
    plan: planFor({ kind: 'upgrade', target: DEP, image: 'flink:1.20.2-scala_2.12-java17' }, before),
    before,
    field: 'spec.image',
  },
  resume: (() => {
    const suspended = flinkDeployment({ spec: { job: { state: 'suspended' } } });
    return { plan: planFor({ kind: 'resume', target: DEP }, suspended), before: suspended, field: 'spec.job.state' };
  })(),
};
const KINDS = Object.keys(PLANS) as ('resume' | 'restart' | 'scale' | 'upgrade')[];

function done(kind: keyof typeof PLANS, opts: Parameters<typeof settled>[2] = {}) {
  return settled(flinkDeployment, specPatchOf(PLANS[kind].plan), opts);
}

describe('eventsAfter: new or count grown, by the counts alone (cluster times are never compared with the worker clock)', () => {
  const listed = kubeEvent({
    reason: 'SpecChanged',
    name: 'JobManagerDeployment.1',
    count: 2,
    last: SUBMITTED_AT - 60_000,
  });
  const baseline = takeEventBaseline([listed], SUBMITTED_AT);
  it.each([
    ['a new event', kubeEvent({ reason: 'Submit', name: 'Job.9' }), true],
    ['the listed event, same count (deduplicated, stale)', listed, false],
    ['the listed event, same count, lastTimestamp bumped', { ...listed, lastTimestamp: '2026-01-01T00:00:15Z' }, false],
    [
      'the listed event with its count grown',
      kubeEvent({ reason: 'SpecChanged', name: 'JobManagerDeployment.1', count: 3 }),
      true,
    ],
    [
      'a new name whose lastTimestamp reads before the submission (the cluster clock runs behind)',
      kubeEvent({ reason: 'Submit', name: 'Job.8', last: SUBMITTED_AT - 30_000 }),
      true,
    ],
    [
      'a new name in the same second as the submission',
      kubeEvent({ reason: 'Submit', name: 'Job.7', last: SUBMITTED_AT - 500 }),
      true,
    ],
    [
      'the listed name expired and recorded again (count 1, first seen after)',
      kubeEvent({ reason: 'SpecChanged', name: 'JobManagerDeployment.1', count: 1 }),
      true,
    ],
    [
      'the listed name with a lower count first seen long ago',
      kubeEvent({ reason: 'SpecChanged', name: 'JobManagerDeployment.1', count: 1, first: SUBMITTED_AT - 90_000 }),
      false,
    ],
    [
      'a new event without any timestamp',
      { metadata: { name: 'Job.6' }, reason: 'Submit', type: 'Normal', count: 1 },
      true,
    ],
    ['something that is not an event', { hello: 'world' }, false],
  ])('%s → after: %s', (_, event, expected) => {
    expect(eventsAfter(baseline, [event])).toEqual(expected ? [event] : []);
  });

  it('a listed event of count 1 that expired and was recorded again (count 1, kube-apiserver --event-ttl) is after', () => {
    const once = kubeEvent({ reason: 'Error', name: 'Job.5', count: 1, last: SUBMITTED_AT - 60_000 });
    const base = takeEventBaseline([once], SUBMITTED_AT);
    const again = kubeEvent({ reason: 'Error', name: 'Job.5', count: 1, last: SUBMITTED_AT + 5_000 });
    expect(eventsAfter(base, [again])).toEqual([again]);
    expect(eventsAfter(base, [once])).toEqual([]);
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

  it('is pending while UPGRADING although observedGeneration == generation and Running=True (operator traps)', () => {
    const mid = upgrading(prior, specPatchOf(plan));
    expect(mid.status?.observedGeneration).toBe(mid.metadata.generation);
    const v = judge({
      kind,
      plan,
      before: prior,
      resource: writeStatus(mid, { conditions: [{ type: 'Running', status: 'True', reason: 'Running' }] }),
    });
    expect(v.outcome).toBe('pending');
    expect(unmet(v)).toEqual(expect.arrayContaining(['reconciled-deployed', 'job-running', 'lifecycle-stable']));
  });

  it('is pending while deployed but the job is still RECONCILING and the JobManager DEPLOYING', () => {
    const v = judge({
      kind,
      plan,
      before: prior,
      resource: done(kind, {
        status: {
          jobManagerDeploymentStatus: 'DEPLOYING',
          lifecycleState: 'DEPLOYED',
          jobStatus: { state: 'RECONCILING' },
        },
      }),
    });
    expect(v.outcome).toBe('pending');
    expect(unmet(v)).toEqual(['jobmanager-ready', 'job-running', 'lifecycle-stable']);
  });
});

describe('redeploy kinds: traps that must stay pending', () => {
  const { plan } = PLANS.scale;
  it.each([
    ['RUNNING but lifecycle DEPLOYED (not yet stable)', { lifecycleState: 'DEPLOYED' }, ['lifecycle-stable']],
    [
      'a job FINISHED is not RUNNING (a suspended job shows FINISHED)',
      { jobStatus: { state: 'FINISHED' } },
      ['job-running'],
    ],
    [
      'someone else moved the generation past ours and it is not observed yet',
      { observedGeneration: 4 },
      ['generation-observed'],
    ],
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
    expect(v.criteria.find((c) => c.name === 'spec-reconciled:spec.job.parallelism')).toMatchObject({
      met: false,
      observed: 4,
    });
  });

  it('lastReconciledSpec saying suspended is not running', () => {
    const v = judge({
      kind: 'restart',
      plan: PLANS.restart.plan,
      before,
      resource: done('restart', { reconciled: { job: { state: 'suspended' } } }),
    });
    expect(unmet(v)).toEqual(['reconciled-running']);
  });
});

describe('redeploy kinds: FAILED signals', () => {
  const { plan } = PLANS.upgrade;
  const image = 'flink:1.20.2-scala_2.12-java17';
  const pullError = JSON.stringify({ type: 'DeploymentFailedException', message: `Failed to pull image "${image}"` });

  it('a ValidationError after the submission fails with its message', () => {
    const v = judge({
      kind: 'upgrade',
      plan,
      before,
      resource: editSpec(before, specPatchOf(plan)),
      events: [warning('ValidationError', { message: 'Invalid image' })],
    });
    expect(v).toMatchObject({ outcome: 'failed', rollback: false });
    expect(v.outcome === 'failed' && v.reason).toMatch(/ValidationError.*Invalid image/);
  });

  it.each([
    [
      'TaskManager resource requirements memory request (4Gi) must not exceed its limit (2Gi)',
      'spec.taskManager.resource',
    ],
    [
      'TaskManager resource memory must be defined using `spec.taskManager.resource.memory` or `spec.taskManager.resources.requests.memory`',
      'spec.taskManager.resource',
    ],
    [
      'The AutoScalerOption job.autoscaler.memory.heap-usage.threshold is invalid, it should be a value within the range [0.0, 1.0]',
      'spec.flinkConfiguration.job.autoscaler.memory.heap-usage.threshold',
    ],
  ])('a 1.16 ValidationError about a part the change left alone says so: %s', (message, part) => {
    const v = judge({
      kind: 'upgrade',
      plan,
      before,
      resource: editSpec(before, specPatchOf(plan)),
      events: [warning('ValidationError', { message })],
    });
    expect(v.outcome === 'failed' && v.reason).toContain(
      `This change did not touch ${part}: the operator refuses the object`,
    );
  });

  it('a ValidationError about the part the change made says nothing more', () => {
    const resourcesPlan = planFor({ kind: 'resources', target: DEP, taskManagerMemory: '8g' }, before);
    const v = judge({
      kind: 'resources',
      plan: resourcesPlan,
      before,
      resource: editSpec(before, specPatchOf(resourcesPlan)),
      events: [warning('ValidationError', { message: 'TaskManager resource memory parse error: bad' })],
    });
    expect(v.outcome === 'failed' && v.reason).not.toContain('did not touch');
  });

  it('a stale deduplicated ValidationError (same count) is not after the submission; a grown count is', () => {
    const old = warning('ValidationError', { name: 'Operator.42', count: 2, last: SUBMITTED_AT - 120_000 });
    const resource = editSpec(before, specPatchOf(plan));
    expect(judge({ kind: 'upgrade', plan, before, resource, baselineEvents: [old] }).outcome).toBe('pending');
    const grown = warning('ValidationError', { name: 'Operator.42', count: 3, first: SUBMITTED_AT - 120_000 });
    expect(judge({ kind: 'upgrade', plan, before, resource, baselineEvents: [old], events: [grown] }).outcome).toBe(
      'failed',
    );
  });

  const jmError = { jobManagerDeploymentStatus: 'ERROR', error: pullError, jobStatus: { state: 'RECONCILING' } };
  it('a container reason with the JobManager in ERROR is shown at once as blocked, with when it turns FAILED', () => {
    const v = judge({
      kind: 'upgrade',
      plan,
      before,
      resource: done('upgrade', { status: jmError }),
      events: [warning('ErrImagePull', { message: 'pull failed' })],
    });
    expect(v).toMatchObject({
      outcome: 'pending',
      transient: [{ key: 'jobmanager-error', since: NOW, until: NOW + 120_000 }],
    });
    expect(v.outcome === 'pending' && v.blocking[0]).toMatch(
      /^blocked by ErrImagePull: pull failed; FAILED if it persists until 00:03:10 UTC$/,
    );
  });

  it('FAILED once it has persisted for FAILURE_GRACE since the worker first saw it, with the evidence', () => {
    const events = [warning('ErrImagePull', { message: 'pull failed' })];
    const since = { 'jobmanager-error': NOW - 120_000 };
    const v = judge({
      kind: 'upgrade',
      plan,
      before,
      resource: done('upgrade', { status: jmError }),
      events,
      transientSince: since,
    });
    expect(v.outcome).toBe('failed');
    expect(v.outcome === 'failed' && v.reason).toMatch(
      /JobManager cannot start \(ErrImagePull: pull failed\).*persisted for 2 min.*did not recover/,
    );
    expect(v.outcome === 'failed' && v.evidence).toEqual(
      expect.arrayContaining(['status.jobManagerDeploymentStatus: ERROR']),
    );
    const shorter = judge({
      kind: 'upgrade',
      plan,
      before,
      resource: done('upgrade', { status: jmError }),
      events,
      transientSince: { 'jobmanager-error': NOW - 30_000 },
      failureGraceMs: 30_000,
    });
    expect(shorter.outcome).toBe('failed');
  });

  it('a container reason while the JobManager is still being deployed is transient too (the event comes before the status)', () => {
    const v = judge({
      kind: 'upgrade',
      plan,
      before,
      resource: done('upgrade', {
        status: { jobManagerDeploymentStatus: 'DEPLOYING', jobStatus: { state: 'RECONCILING' } },
      }),
      events: [warning('ImagePullBackOff')],
    });
    expect(v).toMatchObject({ outcome: 'pending', blocking: [expect.stringContaining('blocked by ImagePullBackOff')] });
  });

  it('a recovered JobManager: the container Warning blocks until the job runs again after it, then it is a note', () => {
    const events = [warning('CrashLoopBackOff', { message: 'back-off' })];
    const notYet = judge({
      kind: 'upgrade',
      plan,
      before,
      resource: done('upgrade', { status: { jobStatus: { state: 'RECONCILING' } } }),
      events,
    });
    expect(notYet).toMatchObject({
      outcome: 'pending',
      blocking: [expect.stringContaining('Warning CrashLoopBackOff')],
    });
    expect(notYet.outcome === 'pending' && notYet.transient).toBeFalsy();
    const running = judge({ kind: 'upgrade', plan, before, resource: done('upgrade'), events });
    expect(running).toMatchObject({ outcome: 'completed', notes: [expect.stringContaining('CrashLoopBackOff')] });
  });

  it('JobManager ERROR on our generation alone is transient, then FAILED after the grace', () => {
    const resource = done('restart', { status: { jobManagerDeploymentStatus: 'ERROR' } });
    expect(judge({ kind: 'restart', plan: PLANS.restart.plan, before, resource })).toMatchObject({
      outcome: 'pending',
      transient: [{ key: 'jobmanager-error' }],
    });
    const v = judge({
      kind: 'restart',
      plan: PLANS.restart.plan,
      before,
      resource,
      transientSince: { 'jobmanager-error': NOW - 121_000 },
    });
    expect(v.outcome === 'failed' && v.reason).toMatch(/JobManager cannot start \(JobManager ERROR\)/);
  });

  it.each([
    ['job FAILED', { jobStatus: { state: 'FAILED' }, lifecycleState: 'FAILED' }, /job FAILED/],
    ['lifecycle FAILED', { lifecycleState: 'FAILED' }, /FAILED/],
  ])('%s on our generation fails', (_, status, reason) => {
    const v = judge({ kind: 'restart', plan: PLANS.restart.plan, before, resource: done('restart', { status }) });
    expect(v.outcome).toBe('failed');
    expect(v.outcome === 'failed' && v.reason).toMatch(reason);
  });

  it.each([
    [
      'an UpgradeFailed Warning',
      {
        events: [
          warning('UpgradeFailed', {
            message:
              'Job is in terminal state but last checkpoint is unknown, possibly due to an unrecoverable restore error. Manual restore required.',
          }),
        ],
      },
    ],
    [
      'status.error "Manual restore required."',
      {
        resource: writeStatus(editSpec(before, specPatchOf(PLANS.restart.plan)), {
          error:
            '{"type":"org.apache.flink.kubernetes.operator.exception.UpgradeFailureException","message":"Job is in terminal state but last checkpoint is unknown. Manual restore required."}',
        }),
      },
    ],
    [
      'status.error "HA metadata is not available"',
      {
        resource: writeStatus(editSpec(before, specPatchOf(PLANS.restart.plan)), {
          error: 'JobManager deployment is missing and HA metadata is not available to make stateful upgrades.',
        }),
      },
    ],
  ])(
    '%s is FAILED at once, even before the operator observed our generation, with what a person must do',
    (_, scenario) => {
      const v = judge({
        kind: 'restart',
        plan: PLANS.restart.plan,
        before,
        resource: editSpec(before, specPatchOf(PLANS.restart.plan)),
        ...scenario,
      });
      expect(v.outcome).toBe('failed');
      expect(v.outcome === 'failed' && v.reason).toMatch(
        /(Manual restore required|HA metadata is not available).*restore the job from a savepoint \(`restore streaming-prod\/orders-enricher --from <savepoint path>`\)/,
      );
      expect(v.outcome === 'failed' && v.reason).not.toContain('{"type"');
    },
  );

  it('a restart of a FAILED job is not failed by the FAILED state it starts from', () => {
    const failedJob = flinkDeployment({
      status: { jobStatus: { state: 'FAILED' }, lifecycleState: 'FAILED', jobManagerDeploymentStatus: 'ERROR' },
    });
    const restart = planFor({ kind: 'restart', target: DEP }, failedJob);
    expect(
      judge({ kind: 'restart', plan: restart, before: failedJob, resource: editSpec(failedJob, specPatchOf(restart)) })
        .outcome,
    ).toBe('pending');
    expect(
      judge({ kind: 'restart', plan: restart, before: failedJob, resource: upgrading(failedJob, specPatchOf(restart)) })
        .outcome,
    ).toBe('pending');
  });

  it('a rollback is reported as a rollback: the spec still holds the new image', () => {
    const rolledBack = done('upgrade', {
      reconciled: { image: 'flink:1.20.1-scala_2.12-java17' },
      status: { reconciliationStatus: { state: 'ROLLED_BACK' }, lifecycleState: 'ROLLED_BACK' },
    });
    const v = judge({
      kind: 'upgrade',
      plan,
      before,
      resource: rolledBack,
      events: [kubeEvent({ reason: 'Rollback', message: 'Rolling back failed deployment.' })],
    });
    expect(v).toMatchObject({ outcome: 'failed', rollback: true });
    if (v.outcome !== 'failed') return;
    expect(v.reason).toMatch(/rolled back to the last stable spec.*spec\.image: "flink:1\.20\.2/);
    expect(v.evidence).toEqual(
      expect.arrayContaining(['status.lifecycleState: ROLLED_BACK', expect.stringContaining('Rollback')]),
    );
    expect(summarize(v)).toMatch(/^rolled back: /);
  });

  it('a rollback in progress is pending with a note; a status.error alone is a note', () => {
    const rolling = judge({
      kind: 'upgrade',
      plan,
      before,
      resource: done('upgrade', {
        status: { reconciliationStatus: { state: 'ROLLING_BACK' }, lifecycleState: 'ROLLING_BACK' },
      }),
    });
    expect(rolling).toMatchObject({ outcome: 'pending', notes: [expect.stringContaining('rolling back')] });
    const erred = judge({
      kind: 'upgrade',
      plan,
      before,
      resource: done('upgrade', { status: { error: 'transient REST error', jobStatus: { state: 'RECONCILING' } } }),
    });
    expect(erred).toMatchObject({ outcome: 'pending', notes: ['status.error: transient REST error'] });
  });
});

describe('Warning events after the submission', () => {
  const { plan } = PLANS.restart;
  it.each([
    'ScalingReport',
    'IneffectiveScaling',
    'MemoryPressure',
    'ResourceQuotaReached',
    'AutoscalerError',
    'ScalingVetoed',
  ])('%s is reported, not blocking', (reason) => {
    const v = judge({
      kind: 'restart',
      plan,
      before,
      resource: done('restart'),
      events: [warning(reason, { message: 'autoscaler says hi' })],
    });
    expect(v).toMatchObject({ outcome: 'completed', notes: [expect.stringContaining(reason)] });
  });

  it('ScalingVetoed (operator 1.16: a scaling executor refused the decision) is a note even as the latest word, not blocking', () => {
    const vetoed = warning('ScalingVetoed', {
      message: "Scaling decision vetoed by scaling custom executor instance 'quota' (class=com.example.Quota).",
      last: secondsAfter(50),
    });
    const v = judge({ kind: 'restart', plan, before, resource: done('restart'), events: [vetoed] });
    expect(v).toMatchObject({ outcome: 'completed', notes: [expect.stringContaining('ScalingVetoed')] });
  });

  it('JobException (a task failover) is a note, never blocking, counted over every failover', () => {
    const late = warning('JobException', {
      name: 'Job.77',
      message: 'java.lang.RuntimeException: boom\n\tat x.y',
      count: 2,
      last: secondsAfter(50),
    });
    const v = judge({
      kind: 'restart',
      plan,
      before,
      resource: done('restart'),
      events: [warning('JobException', { message: 'java.io.IOException: gone' }), late],
    });
    expect(v).toMatchObject({
      outcome: 'completed',
      notes: [
        expect.stringMatching(
          /^3 task failovers after the change .*the last at 00:01:00 UTC: java\.lang\.RuntimeException: boom$/,
        ),
      ],
    });
  });

  it.each(['Error', 'SavepointError', 'CleanupFailed', 'Missing', 'RecoverDeployment', 'RestartUnhealthyJob'])(
    '%s blocks COMPLETED while it is the latest word, and is a note once the job ran on our generation after it',
    (reason) => {
      // The job has been RUNNING on our generation since 00:00:40 UTC (jobStatus.updateTime, the cluster's clock).
      const after = judge({
        kind: 'restart',
        plan,
        before,
        resource: done('restart'),
        events: [warning(reason, { message: 'boom', last: secondsAfter(45) })],
      });
      expect(after).toMatchObject({ outcome: 'pending', blocking: [`Warning ${reason} at 00:00:55 UTC: boom`] });
      expect(unmet(after)).toEqual(['no-blocking-warnings']);
      const earlier = judge({
        kind: 'restart',
        plan,
        before,
        resource: done('restart'),
        events: [warning(reason, { message: 'boom' })],
      });
      expect(earlier).toMatchObject({
        outcome: 'completed',
        notes: [expect.stringContaining(`Warning ${reason} at 00:00:15 UTC: boom (before the job reached RUNNING`)],
      });
    },
  );

  it('a JobStatusChanged event to RUNNING after the Warning supersedes it too (cluster times against cluster times)', () => {
    const events = [
      warning('Error', { message: 'boom', last: secondsAfter(45) }),
      kubeEvent({
        reason: 'JobStatusChanged',
        name: 'Job.5',
        message: 'Job status changed from RECONCILING to RUNNING',
        last: secondsAfter(46),
      }),
    ];
    expect(judge({ kind: 'restart', plan, before, resource: done('restart'), events }).outcome).toBe('completed');
  });

  it('ignores Normal events, and Warnings about other objects or from before the submission', () => {
    const other = flinkDeployment({ name: 'other-job' });
    const events = [
      kubeEvent({ reason: 'Submit' }),
      warning('JobException', { involved: other }),
      warning('Error', { name: 'Operator.1', last: SUBMITTED_AT - 5_000 }),
    ];
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
    expect(v.proof.verified.join('; ')).toMatch(/job RUNNING on it since 00:00:40 UTC \(started 00:00:30 UTC\)/);
    expect(v.proof.notVerified).toEqual(expect.arrayContaining(notVerified));
  });

  it('summarizes a completed verdict in one line', () => {
    const v = judge({ kind: 'scale', plan: PLANS.scale.plan, before, resource: done('scale') });
    const line = summarize(v);
    expect(line).toMatch(
      /^8 of 8 criteria met; proof depth: operator reconciled generation 4 \(DEPLOYED; lastReconciledSpec job\.parallelism: 8\); JobManager READY; job RUNNING/,
    );
    expect(line).not.toContain('\n');
  });

  it('summarizes a pending verdict with what it waits for and what blocks it', () => {
    const v = judge({
      kind: 'scale',
      plan: PLANS.scale.plan,
      before,
      resource: upgrading(before, specPatchOf(PLANS.scale.plan)),
      events: [warning('Missing')],
    });
    expect(summarize(v)).toMatch(
      /^\d of 8 criteria met; waiting for reconciled-deployed \(UPGRADING\), reconciled-running \(suspended\), .*job-running \(RECONCILING\).*; blocked by Warning Missing$/,
    );
  });

  it('records in TIMED_OUT the unmet criteria and the blocking Warnings by name', () => {
    const events = [warning('Error', { message: 'reconcile failed', last: secondsAfter(45) })];
    const v = judge({
      kind: 'scale',
      plan: PLANS.scale.plan,
      before,
      resource: done('scale', { status: { lifecycleState: 'DEPLOYED' } }),
      events,
    });
    const report = timedOutReport(v);
    expect(report.unmet.map((c) => c.name)).toEqual(['lifecycle-stable', 'no-blocking-warnings']);
    expect(report.blocking).toEqual(['Warning Error at 00:00:55 UTC: reconcile failed']);
    expect(report.summary).toBe(
      'evidence incomplete at the deadline: 6 of 8 criteria met; unmet: lifecycle-stable (DEPLOYED); blocking Warning events: Warning Error at 00:00:55 UTC: reconcile failed',
    );
  });

  it('a TIMED_OUT report of a settled verdict says it was not pending', () => {
    const v = judge({ kind: 'scale', plan: PLANS.scale.plan, before, resource: done('scale') });
    expect(timedOutReport(v)).toMatchObject({
      unmet: [],
      blocking: [],
      summary: expect.stringMatching(/^evidence at the deadline was completed/),
    });
  });

  it('every criterion carries its source and the observation time', () => {
    const v = judge({ kind: 'scale', plan: PLANS.scale.plan, before, resource: done('scale') });
    expect(v.criteria.find((c) => c.name === 'job-running')).toEqual({
      name: 'job-running',
      met: true,
      observed: 'RUNNING',
      source: 'status.jobStatus.state',
      at: secondsAfter(60),
    });
  });
});
