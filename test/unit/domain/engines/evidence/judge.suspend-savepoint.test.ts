import { describe, expect, it } from 'vitest';
import { summarize } from '../../../../../src/domain/engines/evidence/judge.js';
import type { JsonRecord } from '../../../../../src/domain/model/merge-patch.js';
import {
  editSpec,
  flinkDeployment,
  flinkSessionJob,
  flinkStateSnapshot,
  planFor,
  reconciledSpecJson,
  writeStatus,
  type SnapshotOptions,
} from '../../../../support/fixtures.js';
import {
  DEP,
  judge,
  kubeEvent,
  metMap,
  SESSION_JOB,
  settled,
  specPatchOf,
  unmet,
  warning,
} from '../../../../support/evidence-fixtures.js';

const FIXTURE_SAVEPOINT = 's3://flink/savepoints/orders-enricher/savepoint-1a2b3c-0123456789ab';

describe('suspend (synchronous stop): SUSPENDED, FINISHED, and in savepoint mode a new upgradeSavepointPath', () => {
  const before = flinkDeployment();
  const plan = planFor({ kind: 'suspend', target: DEP }, before);
  const done = (opts: Parameters<typeof settled>[2] = {}) => settled(flinkDeployment, specPatchOf(plan), opts);

  it('is COMPLETED with the new savepoint recorded as evidence', () => {
    const v = judge({ kind: 'suspend', plan, before, resource: done() });
    expect(v.outcome).toBe('completed');
    expect(metMap(v)).toEqual({
      'generation-observed': true,
      'reconciled-deployed': true,
      'spec-reconciled:spec.job.state': true,
      'lifecycle-suspended': true,
      'job-finished': true,
      'savepoint-recorded': true,
      'no-blocking-warnings': true,
    });
    expect(v.outcome === 'completed' && v.proof.verified).toContain(
      `savepoint ${FIXTURE_SAVEPOINT} recorded as jobStatus.upgradeSavepointPath`,
    );
    expect(v.outcome === 'completed' && v.proof.notVerified).toContain(
      'the savepoint files at that path were not read',
    );
  });

  it('stays pending while upgradeSavepointPath is still the one from before', () => {
    const withOld = flinkDeployment({ status: { jobStatus: { upgradeSavepointPath: FIXTURE_SAVEPOINT } } });
    const v = judge({ kind: 'suspend', plan, before: withOld, resource: done() });
    expect(v.outcome).toBe('pending');
    expect(unmet(v)).toEqual(['savepoint-recorded']);
  });

  it('a suspended job shows FINISHED: that is success for suspend only once the suspend is reconciled', () => {
    const finishedEarly = writeStatus(editSpec(before, specPatchOf(plan)), { jobStatus: { state: 'FINISHED' } });
    const v = judge({ kind: 'suspend', plan, before, resource: finishedEarly });
    expect(v.outcome).toBe('pending');
    expect(metMap(v)['job-finished']).toBe(true);
    expect(unmet(v)).toEqual(
      expect.arrayContaining(['generation-observed', 'spec-reconciled:spec.job.state', 'lifecycle-suspended']),
    );
  });

  it('a savepoint-mode suspend that fell back to last-state completes without a savepoint and says so', () => {
    const resource = done({
      reconciled: { job: { upgradeMode: 'last-state' } },
      status: { jobStatus: { upgradeSavepointPath: 'KUBERNETES_OPERATOR_LAST_STATE' } },
    });
    const v = judge({ kind: 'suspend', plan, before, resource });
    expect(v.outcome).toBe('completed');
    expect(metMap(v)).not.toHaveProperty('savepoint-recorded');
    expect(v.outcome === 'completed' && v.notes).toEqual([expect.stringContaining('instead of a savepoint')]);
  });

  it.each([
    ['stateless', { spec: { job: { upgradeMode: 'stateless' } } }, {}],
    ['last-state with HA', {}, { mode: 'last-state' }],
  ] as [string, JsonRecord, JsonRecord][])(
    '%s completes on SUSPENDED + FINISHED, without a savepoint criterion',
    (_, beforeOpts, intentExtra) => {
      const prior = flinkDeployment(beforeOpts);
      const p = planFor({ kind: 'suspend', target: DEP, ...intentExtra }, prior);
      const resource = settled(flinkDeployment, specPatchOf(p), {
        spec: (beforeOpts.spec as JsonRecord | undefined) ?? {},
      });
      const v = judge({ kind: 'suspend', plan: p, before: prior, resource });
      expect(v.outcome).toBe('completed');
      expect(Object.keys(metMap(v))).not.toContain('savepoint-recorded');
    },
  );

  it.each([
    [
      'UpgradeFailed',
      /could not apply the change \(UpgradeFailed\): Stop-with-savepoint failed.*restore the job from a savepoint/,
    ],
    [
      'ValidationError',
      /rejected the spec \(ValidationError\): Stop-with-savepoint failed; it keeps running the previous spec/,
    ],
  ])('a %s Warning after the submission fails it at once', (reason, expected) => {
    const v = judge({
      kind: 'suspend',
      plan,
      before,
      resource: editSpec(before, specPatchOf(plan)),
      events: [warning(reason, { message: 'Stop-with-savepoint failed' })],
    });
    expect(v.outcome).toBe('failed');
    expect(v.outcome === 'failed' && v.reason).toMatch(expected);
  });

  it.each(['SavepointError', 'Error', 'CleanupFailed'])(
    'a %s Warning means the operator retries the stop: pending, said once per count, COMPLETED when a retry succeeds',
    (reason) => {
      const failedOnce = warning(reason, {
        name: 'JobManagerDeployment.9',
        message: 'Savepoint Error -> Timed out stopping the job',
        count: 1,
      });
      const v = judge({
        kind: 'suspend',
        plan,
        before,
        resource: editSpec(before, specPatchOf(plan)),
        events: [failedOnce],
      });
      expect(v).toMatchObject({
        outcome: 'pending',
        alerts: [
          {
            key: 'stop-retry:1',
            message: `stop failed, the operator retries (×1): ${reason}: Savepoint Error -> Timed out stopping the job`,
          },
        ],
      });
      const twice = judge({
        kind: 'suspend',
        plan,
        before,
        resource: editSpec(before, specPatchOf(plan)),
        events: [{ ...failedOnce, count: 2 }],
      });
      expect(twice.outcome === 'pending' && twice.alerts?.map((a) => a.key)).toEqual(['stop-retry:2']);
      const p = planFor({ kind: 'suspend', target: DEP }, before);
      const done = judge({
        kind: 'suspend',
        plan: p,
        before,
        resource: settled(flinkDeployment, specPatchOf(p), {
          status: { jobStatus: { upgradeSavepointPath: 's3://sp/new' } },
        }),
        events: [failedOnce],
      });
      expect(done).toMatchObject({
        outcome: 'completed',
        notes: [expect.stringContaining('stop failed, the operator retries (×1)')],
      });
    },
  );

  it('a new status.error means the operator retries; one that needs a person fails it; the same status.error as before says nothing', () => {
    const error = JSON.stringify({ type: 'UpgradeFailureException', message: 'Savepoint directory is not set' });
    const erred = writeStatus(editSpec(before, specPatchOf(plan)), { error });
    const v = judge({ kind: 'suspend', plan, before, resource: erred });
    expect(v).toMatchObject({
      outcome: 'pending',
      alerts: [{ message: 'stop failed, the operator retries (×1): Savepoint directory is not set' }],
    });
    const manual = writeStatus(editSpec(before, specPatchOf(plan)), {
      error: JSON.stringify({
        message: 'Job is in terminal state but last checkpoint is unknown. Manual restore required.',
      }),
    });
    expect(judge({ kind: 'suspend', plan, before, resource: manual }).outcome).toBe('failed');
    const alreadyErred = flinkDeployment({ status: { error } });
    const same = judge({ kind: 'suspend', plan, before: alreadyErred, resource: erred });
    expect(same.outcome === 'pending' && same.alerts).toBeFalsy();
  });

  it.each(['FAILED', 'FINISHED', 'CANCELED'])(
    'a savepoint-mode suspend of a job already %s takes no savepoint: COMPLETED with a note (NOOP)',
    (jobState) => {
      const stopped = flinkDeployment({
        status: { jobStatus: { state: jobState, upgradeSavepointPath: 's3://sp/last-checkpoint' } },
      });
      const p = planFor({ kind: 'suspend', target: DEP, mode: 'savepoint' }, stopped);
      const resource = settled(flinkDeployment, specPatchOf(p), {
        status: { jobStatus: { upgradeSavepointPath: 's3://sp/last-checkpoint' } },
      });
      const v = judge({ kind: 'suspend', plan: p, before: stopped, resource });
      expect(v.outcome).toBe('completed');
      expect(Object.keys(metMap(v))).not.toContain('savepoint-recorded');
      expect(v.outcome === 'completed' && v.notes).toContain(
        `no savepoint was taken: the job had already stopped (${jobState}); resume restores from s3://sp/last-checkpoint`,
      );
    },
  );
});

describe('suspend (cancel-based): reconciled suspended and CANCELED/FINISHED; lifecycleState recorded, not required', () => {
  const noHa = flinkDeployment({
    spec: { job: { upgradeMode: 'last-state' }, flinkConfiguration: { 'high-availability.type': null } },
  });
  const plan = planFor({ kind: 'suspend', target: DEP }, noHa);
  const cancelling = (jobState: string): ReturnType<typeof flinkDeployment> => {
    const edited = editSpec(noHa, specPatchOf(plan));
    const reconciled = reconciledSpecJson({
      ...edited.spec,
      job: { ...(edited.spec?.job as JsonRecord), state: 'suspended', upgradeMode: 'savepoint' },
    });
    return writeStatus(edited, {
      reconciliationStatus: { state: 'UPGRADING', lastReconciledSpec: reconciled },
      lifecycleState: 'UPGRADING',
      jobStatus: { state: jobState },
    });
  };

  it('last-state without HA completes on CANCELED while the reconciliation stays UPGRADING', () => {
    const v = judge({ kind: 'suspend', plan, before: noHa, resource: cancelling('CANCELED') });
    expect(v.outcome).toBe('completed');
    expect(metMap(v)).toEqual({
      'spec-reconciled:spec.job.state': true,
      'job-stopped': true,
      'no-blocking-warnings': true,
    });
    expect(v.outcome === 'completed' && v.notes).toEqual([
      'lifecycleState: UPGRADING (recorded, not required for a cancel-based suspend)',
    ]);
  });

  it('is pending while CANCELLING', () => {
    expect(unmet(judge({ kind: 'suspend', plan, before: noHa, resource: cancelling('CANCELLING') }))).toEqual([
      'job-stopped',
    ]);
  });

  it('a stateless session job is cancel-based; a savepoint-mode session job needs SUSPENDED and a new savepoint', () => {
    const stateless = flinkSessionJob({ spec: { job: { upgradeMode: 'stateless' } } });
    const p1 = planFor({ kind: 'suspend', target: SESSION_JOB }, stateless);
    const canceled = settled(flinkSessionJob, specPatchOf(p1), {
      spec: { job: { upgradeMode: 'stateless' } },
      status: { jobStatus: { state: 'CANCELED' }, lifecycleState: 'UPGRADING' },
    });
    expect(judge({ kind: 'suspend', plan: p1, before: stateless, resource: canceled }).outcome).toBe('completed');

    const savepointJob = flinkSessionJob();
    const p2 = planFor({ kind: 'suspend', target: SESSION_JOB }, savepointJob);
    const v = judge({
      kind: 'suspend',
      plan: p2,
      before: savepointJob,
      resource: settled(flinkSessionJob, specPatchOf(p2)),
    });
    expect(v.outcome).toBe('completed');
    expect(Object.keys(metMap(v))).toEqual(
      expect.arrayContaining(['lifecycle-suspended', 'job-finished', 'savepoint-recorded']),
    );
    expect(Object.keys(metMap(v))).not.toContain('jobmanager-ready');
  });
});

describe('savepoint: the snapshot COMPLETED with its path; retries by backoffLimit', () => {
  const before = flinkDeployment();
  const plan = planFor({ kind: 'savepoint', target: DEP }, before);
  const NAME = 'orders-enricher-op-abc123';
  const snapshot = (opts: SnapshotOptions = {}) => flinkStateSnapshot({ name: NAME, ...opts });
  const onSnapshot = (reason: string, opts: Parameters<typeof warning>[1] = {}) =>
    warning(reason, { involved: snapshot(), component: 'Snapshot', ...opts });

  it('is COMPLETED on COMPLETED with status.path as the evidence', () => {
    const v = judge({
      kind: 'savepoint',
      plan,
      resource: before,
      snapshot: snapshot({ path: 's3://flink/savepoints/orders-enricher/savepoint-abc' }),
    });
    expect(v.outcome).toBe('completed');
    if (v.outcome !== 'completed') return;
    expect(v.criteria.map((c) => [c.name, c.met, c.observed])).toEqual([
      ['snapshot-completed', true, 'COMPLETED'],
      ['snapshot-path', true, 's3://flink/savepoints/orders-enricher/savepoint-abc'],
      ['no-blocking-warnings', true, []],
    ]);
    expect(v.proof.verified).toEqual([
      expect.stringMatching(/^FlinkStateSnapshot streaming-prod\/orders-enricher-op-abc123 COMPLETED at /),
      'savepoint path s3://flink/savepoints/orders-enricher/savepoint-abc',
    ]);
    expect(summarize(v)).toMatch(/^3 of 3 criteria met; proof depth: FlinkStateSnapshot/);
  });

  it.each(['TRIGGER_PENDING', 'IN_PROGRESS'] as const)('is pending while %s', (state) => {
    expect(unmet(judge({ kind: 'savepoint', plan, resource: before, snapshot: snapshot({ state }) }))).toEqual([
      'snapshot-completed',
      'snapshot-path',
    ]);
  });

  it('is pending, with a note, while the snapshot is not visible yet', () => {
    const v = judge({ kind: 'savepoint', plan, resource: before });
    expect(v).toMatchObject({
      outcome: 'pending',
      notes: ['FlinkStateSnapshot streaming-prod/orders-enricher-op-abc123 is not visible yet'],
    });
  });

  it('a SavepointError while failures <= backoffLimit is a retry, reported and not blocking', () => {
    const retrying = snapshot({ state: 'TRIGGER_PENDING', status: { failures: 1 } });
    const v = judge({
      kind: 'savepoint',
      plan,
      resource: before,
      snapshot: retrying,
      events: [onSnapshot('SavepointError', { message: 'Savepoint failed' })],
    });
    expect(v).toMatchObject({
      outcome: 'pending',
      blocking: [],
      notes: [expect.stringMatching(/^retried: Warning SavepointError .*failures 1, backoffLimit 2/)],
    });
    const later = judge({
      kind: 'savepoint',
      plan,
      resource: before,
      snapshot: snapshot({ status: { failures: 1 } }),
      events: [onSnapshot('SavepointError')],
    });
    expect(later.outcome).toBe('completed');
  });

  it.each([
    ['backoffLimit -1', { backoffLimit: -1 }],
    ['no backoffLimit', { backoffLimit: null }],
  ] as [string, Record<string, unknown>][])(
    'a snapshot with %s the operator keeps retrying (1.16) is "retrying (N failures)", never FAILED',
    (_, spec) => {
      const v = judge({
        kind: 'savepoint',
        plan,
        resource: before,
        snapshot: snapshot({ state: 'TRIGGER_PENDING', spec, status: { failures: 3 } }),
        events: [onSnapshot('SavepointError', { message: 'Savepoint failed', count: 3 })],
      });
      expect(v).toMatchObject({ outcome: 'pending', blocking: [] });
      expect(v.outcome === 'pending' && v.notes[0]).toMatch(
        /^retrying \(3 failures\): FlinkStateSnapshot .* retries without end since 1\.16/,
      );
    },
  );

  it.each([
    [
      'failures > backoffLimit',
      { state: 'TRIGGER_PENDING', status: { failures: 3 } },
      /no retry is left \(failures 3 > backoffLimit 2\)/,
    ],
    [
      'backoffLimit -1 ended FAILED (releases up to 1.15)',
      { state: 'FAILED', spec: { backoffLimit: -1 }, status: { failures: 1 } },
      /FAILED after 1 attempt\(s\) \(backoffLimit -1\)/,
    ],
  ] as [string, SnapshotOptions, RegExp][])('a SavepointError with %s fails', (_, opts, reason) => {
    const v = judge({
      kind: 'savepoint',
      plan,
      resource: before,
      snapshot: snapshot(opts),
      events: [onSnapshot('SavepointError')],
    });
    expect(v.outcome).toBe('failed');
    expect(v.outcome === 'failed' && v.reason).toMatch(reason);
  });

  it.each([
    [
      'FAILED',
      {
        state: 'FAILED',
        status: { failures: 3, error: JSON.stringify({ message: 'Checkpoint expired before completing.' }) },
      },
      /FAILED after 3 attempt\(s\) \(backoffLimit 2\): Checkpoint expired/,
    ],
    [
      'ABANDONED',
      { state: 'ABANDONED', status: { error: 'Job orders-enricher is not running' } },
      /ABANDONED.*Job orders-enricher is not running/,
    ],
  ] as [string, SnapshotOptions, RegExp][])('%s with status.error fails', (_, opts, reason) => {
    const v = judge({ kind: 'savepoint', plan, resource: before, snapshot: snapshot(opts) });
    expect(v.outcome).toBe('failed');
    if (v.outcome !== 'failed') return;
    expect(v.reason).toMatch(reason);
    expect(v.evidence[0]).toMatch(/status\.state: /);
  });

  it('a ValidationError on the snapshot fails it although it stays TRIGGER_PENDING', () => {
    const v = judge({
      kind: 'savepoint',
      plan,
      resource: before,
      snapshot: snapshot({ state: 'TRIGGER_PENDING' }),
      events: [onSnapshot('ValidationError', { message: 'Target for snapshot does not exist' })],
    });
    expect(v).toMatchObject({
      outcome: 'failed',
      reason: expect.stringContaining('Target for snapshot does not exist'),
    });
  });

  it('Warnings on the target do not block a COMPLETED snapshot (they are reported); a Normal event is nothing', () => {
    const events = [
      warning('JobException', { message: 'task failed' }),
      warning('Error', { message: 'boom' }),
      kubeEvent({ reason: 'SnapshotCompleted', involved: snapshot() }),
    ];
    const v = judge({ kind: 'savepoint', plan, resource: before, snapshot: snapshot(), events });
    expect(v).toMatchObject({
      outcome: 'completed',
      notes: [
        expect.stringContaining('on the target: Warning JobException'),
        expect.stringContaining('on the target: Warning Error'),
      ],
    });
  });

  it('shows a snapshot error as its text, not the JSON the operator puts in the event', () => {
    const error = JSON.stringify({
      type: 'org.apache.flink.util.SerializedThrowable',
      message: 'Checkpoint Coordinator is suspending.',
      throwableList: [],
    });
    const failed = snapshot({ state: 'FAILED', status: { failures: 3, error } });
    const v = judge({
      kind: 'savepoint',
      plan,
      resource: before,
      snapshot: failed,
      events: [onSnapshot('SavepointError', { message: error })],
    });
    expect(v.outcome === 'failed' && v.reason).toBe(
      'the savepoint FAILED after 3 attempt(s) (backoffLimit 2): Checkpoint Coordinator is suspending.',
    );
    expect(v.outcome === 'failed' && v.evidence.join(' ')).not.toContain('{"type"');
  });

  it('refuses an observation of another snapshot', () => {
    expect(() =>
      judge({ kind: 'savepoint', plan, resource: before, snapshot: flinkStateSnapshot({ name: 'someone-else' }) }),
    ).toThrow(/this plan creates orders-enricher-op-abc123/);
  });
});
