import { describe, expect, it } from 'vitest';
import { applyMergePatch, patchLeaves } from '../../../../src/domain/model/merge-patch.js';
import {
  annotationsOf,
  generationOf,
  hasOperatorStatus,
  imageOf,
  isSessionCluster,
  jobFailureOf,
  jobStateOf,
  lastReconciledSpecOf,
  lastSavepoint,
  lastStableSpecOf,
  parallelismOf,
  parseReconciledSpec,
  restartNonceOf,
  savepointRedeployNonceOf,
  statusErrorOf,
  taskManagerReplicasOf,
  upgradeModeOf,
} from '../../../../src/domain/model/resource.js';
import type { Target } from '../../../../src/domain/model/target.js';
import {
  FIXTURE_EPOCH_MS,
  flinkDeployment,
  flinkSessionJob,
  flinkStateSnapshot,
  reconciledSpecJson,
  sessionCluster,
} from '../../../support/fixtures.js';

const DEP: Target = { kind: 'FlinkDeployment', namespace: 'streaming-prod', name: 'orders-enricher' };

describe('readers over live resources', () => {
  it('read the spec fields of a running deployment', () => {
    const r = flinkDeployment({ spec: { restartNonce: 7, taskManager: { replicas: 3 } } });
    expect([
      jobStateOf(r),
      upgradeModeOf(r),
      parallelismOf(r),
      imageOf(r),
      restartNonceOf(r),
      taskManagerReplicasOf(r),
    ]).toEqual(['running', 'savepoint', 4, 'flink:1.20.1-scala_2.12-java17', 7, 3]);
  });

  it.each([
    ['a missing field', flinkDeployment({ spec: { job: { parallelism: null } } }), undefined],
    ['a string', flinkDeployment({ spec: { job: { parallelism: 'four' } } }), undefined],
    ['a fraction', flinkDeployment({ spec: { job: { parallelism: 2.5 } } }), undefined],
    ['no spec at all', { metadata: {} }, undefined],
    ['not an object', 'garbage', undefined],
  ])('read %s as absent instead of throwing', (_case, resource, expected) => {
    expect(parallelismOf(resource)).toBe(expected);
  });

  it('reads a nonce written as a numeric string', () => {
    expect(
      savepointRedeployNonceOf(flinkDeployment({ spec: { job: { savepointRedeployNonce: '1767225600000' } } })),
    ).toBe(1_767_225_600_000);
  });

  it('ignores an upgrade mode the operator does not know', () => {
    expect(upgradeModeOf(flinkDeployment({ spec: { job: { upgradeMode: 'hot-swap' } } }))).toBeUndefined();
  });

  it('keeps only string annotations', () => {
    const r = flinkDeployment({ annotations: { a: 'b' } });
    (r.metadata.annotations as Record<string, unknown>).n = 1;
    expect(annotationsOf(r)).toEqual({ a: 'b' });
    expect(generationOf(r)).toBe(3);
  });

  it.each([
    ['a session cluster', sessionCluster(), true],
    ['an application deployment', flinkDeployment(), false],
    ['a session job', flinkSessionJob(), false],
    ['nothing', undefined, false],
  ])('isSessionCluster: %s → %s', (_case, resource, expected) => {
    expect(isSessionCluster(resource)).toBe(expected);
  });

  it.each([
    ['an operator status', flinkDeployment(), true],
    ['a session job status', flinkSessionJob(), true],
    ['no status', flinkDeployment({ status: null }), false],
    ['an empty status', { ...flinkDeployment(), status: {} }, false],
    ['a status of nulls', { ...flinkDeployment(), status: { lifecycleState: null } }, false],
  ])('hasOperatorStatus: %s → %s', (_case, resource, expected) => {
    expect(hasOperatorStatus(resource)).toBe(expected);
  });

  it('reads status.error as JSON or plain text', () => {
    const json = JSON.stringify({
      type: 'org.apache.flink.kubernetes.operator.exception.ValidationException',
      message: 'Job parallelism must be larger than 0',
    });
    expect(statusErrorOf(flinkDeployment({ status: { error: json } }))).toBe('Job parallelism must be larger than 0');
    expect(statusErrorOf(flinkDeployment({ status: { error: 'plain words' } }))).toBe('plain words');
    expect(statusErrorOf(flinkDeployment())).toBeUndefined();
  });

  it("reads a job failure's cause under Flink's wrapper from the operator's throwableList", () => {
    const error = (message: string, throwableList?: unknown[]) => ({
      status: { error: JSON.stringify({ type: 'org.apache.flink.runtime.JobException', message, throwableList }) },
    });
    const cause = {
      type: 'org.apache.flink.runtime.jobmanager.scheduler.NoResourceAvailableException',
      message: 'Slot request bulk is not fulfillable!',
    };
    expect(
      jobFailureOf(flinkDeployment(error('Recovery is suppressed by NoRestartBackoffTimeStrategy', [cause]))),
    ).toBe(
      'Recovery is suppressed by NoRestartBackoffTimeStrategy, caused by NoResourceAvailableException: Slot request bulk is not fulfillable!',
    );
    // A cause the message already names, or none at all, adds nothing.
    expect(jobFailureOf(flinkDeployment(error('boom: Slot request bulk is not fulfillable!', [cause])))).toBe(
      'boom: Slot request bulk is not fulfillable!',
    );
    expect(jobFailureOf(flinkDeployment(error('Recovery is suppressed')))).toBe('Recovery is suppressed');
    expect(jobFailureOf(flinkDeployment({ status: { error: 'plain words' } }))).toBe('plain words');
  });
});

describe('lastReconciledSpec / lastStableSpec', () => {
  it('parse the spec out of the operator JSON string', () => {
    const r = flinkDeployment({ reconciled: { job: { parallelism: 2 } } });
    expect(lastReconciledSpecOf(r)).toMatchObject({ image: imageOf(r), job: { parallelism: 2, state: 'running' } });
    expect(lastStableSpecOf(r)).toEqual(lastReconciledSpecOf(r));
  });

  it.each([
    ['the wrapped form', reconciledSpecJson({ image: 'a' }), { image: 'a' }],
    ['a bare spec (old releases)', JSON.stringify({ image: 'a' }), { image: 'a' }],
    ['metadata without a spec', JSON.stringify({ resource_metadata: {} }), undefined],
    ['broken JSON', '{"spec":', undefined],
    ['an empty string', '', undefined],
    ['a number', 3, undefined],
  ])('%s', (_case, text, expected) => {
    expect(parseReconciledSpec(text)).toEqual(expected);
  });
});

describe('lastSavepoint', () => {
  const t = (minutesAgo: number) => FIXTURE_EPOCH_MS - minutesAgo * 60_000;

  it('picks the newest COMPLETED savepoint snapshot of the target by resultTimestamp', () => {
    const snapshots = [
      flinkStateSnapshot({ resultAt: t(60), path: 's3://sp/old' }),
      flinkStateSnapshot({ resultAt: t(5), path: 's3://sp/newest' }),
      flinkStateSnapshot({ resultAt: t(30), path: 's3://sp/middle', triggerType: 'UPGRADE' }),
      flinkStateSnapshot({ resultAt: t(1), state: 'FAILED' }),
      flinkStateSnapshot({ resultAt: t(1), type: 'CHECKPOINT', path: 's3://cp/1' }),
      flinkStateSnapshot({
        resultAt: t(1),
        jobReference: { kind: 'FlinkDeployment', name: 'other' },
        path: 's3://sp/other',
      }),
      flinkStateSnapshot({
        resultAt: t(1),
        jobReference: { kind: 'FlinkSessionJob', name: DEP.name },
        path: 's3://sp/sj',
      }),
      flinkStateSnapshot({ resultAt: t(1), namespace: 'elsewhere', path: 's3://sp/elsewhere' }),
    ];
    const newest = snapshots[1];
    expect(lastSavepoint(DEP, snapshots, flinkDeployment())).toEqual({
      location: 's3://sp/newest',
      at: t(5),
      source: 'snapshot',
      snapshot: newest?.metadata.name,
    });
  });

  it('matches on spec.jobReference when the operator has not labelled the snapshot yet', () => {
    const unlabelled = flinkStateSnapshot({ path: 's3://sp/x' });
    unlabelled.metadata.labels = {};
    expect(lastSavepoint(DEP, [unlabelled], flinkDeployment())?.location).toBe('s3://sp/x');
  });

  it('falls back to savepointInfo.lastSavepoint.location', () => {
    const resource = flinkDeployment({
      status: {
        jobStatus: {
          savepointInfo: { lastSavepoint: { location: 's3://sp/legacy', timeStamp: t(90), triggerType: 'MANUAL' } },
        },
      },
    });
    expect(lastSavepoint(DEP, [flinkStateSnapshot({ state: 'ABANDONED' })], resource)).toEqual({
      location: 's3://sp/legacy',
      at: t(90),
      source: 'savepointInfo',
    });
  });

  it('is undefined when there is none', () => {
    expect(lastSavepoint(DEP, [], flinkDeployment())).toBeUndefined();
  });
});

describe('merge patch (RFC 7386)', () => {
  it.each([
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [['a'], { a: 'c' }, { a: 'c' }],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ])('%j + %j = %j', (target, patch, expected) => {
    expect(applyMergePatch(target, patch)).toEqual(expected);
  });

  it('lists the leaves a patch sets, nulls included', () => {
    expect(
      patchLeaves({ metadata: { annotations: { a: 'b' } }, spec: { job: { state: null, parallelism: 2 } } }),
    ).toEqual([
      { path: ['metadata', 'annotations', 'a'], value: 'b' },
      { path: ['spec', 'job', 'state'], value: null },
      { path: ['spec', 'job', 'parallelism'], value: 2 },
    ]);
  });
});
