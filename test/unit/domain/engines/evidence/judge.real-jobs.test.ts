// Evidence on real jobs: vertices with their own parallelism, bounded vertices, the last-state fallback, normalised
// pointers, the autoscaler, checkpointing set in code, jobs the operator resubmits, savepoints Flink finished alone.
import { describe, expect, it } from 'vitest';
import {
  DEP,
  judge,
  kubeEvent,
  metMap,
  NOW,
  secondsAfter,
  settled,
  specPatchOf,
} from '../../../../support/evidence-fixtures.js';
import {
  FIXTURE_EPOCH_MS,
  flinkDeployment,
  flinkSessionJob,
  flinkStateSnapshot,
  planFor,
} from '../../../../support/fixtures.js';
import { normalisePointer, pointersMatch } from '../../../../../src/domain/model/checkpoint-pointer.js';
import { autoscalerOverrides, isAutoscaled } from '../../../../../src/domain/model/autoscaler.js';
import { sessionJobNotes } from '../../../../../src/worker/session-jobs.js';
import { trimBefore } from '../../../../../src/worker/submit.js';
import type { EvidenceVerdict } from '../../../../../src/domain/kit/evidence/types.js';

const A = 'a'.repeat(32);
const B = 'b'.repeat(32);
const C = 'c'.repeat(32);
const OVERRIDES = 'pipeline.jobvertex-parallelism-overrides';
const reading = (jobId: string, job: Record<string, unknown>, checkpoints?: unknown) => ({
  reachable: true as const,
  jobId,
  job: { state: 'RUNNING', 'start-time': secondsAfter(20), ...job },
  ...(checkpoints === undefined ? {} : { checkpoints }),
  at: NOW,
});
const vertex = (
  id: string,
  name: string,
  parallelism: number,
  status = 'RUNNING',
  tasks: Record<string, number> = { [status]: parallelism },
) => ({ id, name, parallelism, maxParallelism: 128, status, tasks });
const jobIdOf = (resource: { status?: unknown }) =>
  String((resource.status as { jobStatus: { jobId: string } }).jobStatus.jobId);
const caveatsOf = (v: EvidenceVerdict) => (v.outcome === 'completed' ? (v.caveats ?? []) : []);

describe('scale: per-vertex parallelism and finished vertices', () => {
  const before = flinkDeployment();
  const plan = planFor({ kind: 'scale', target: DEP, parallelism: 8 }, before);
  const done = settled(flinkDeployment, specPatchOf(plan));
  const jobId = jobIdOf(done);
  const baselineVertices = [
    { id: A, name: 'Source: Kafka', parallelism: 4, status: 'RUNNING' },
    { id: B, name: 'Sink: results', parallelism: 1, status: 'RUNNING' },
  ];
  const scale = (vertices: unknown[], extra: Record<string, unknown> = {}) =>
    judge({ kind: 'scale', plan, before, resource: done, deep: true, rest: reading(jobId, { vertices }), ...extra });

  it.each([
    [
      'baseline: the sink keeps its own parallelism',
      [vertex(A, 'Source: Kafka', 8), vertex(B, 'Sink: results', 1)],
      true,
      'completed',
      ['Sink: results keeps parallelism 1, set in the job'],
    ],
    [
      'baseline: the default vertex did not move',
      [vertex(A, 'Source: Kafka', 4), vertex(B, 'Sink: results', 1)],
      true,
      'pending',
      [],
    ],
    [
      'no baseline: one vertex at N is enough, the other is a caveat',
      [vertex(A, 'Source: Kafka', 8), vertex(B, 'Sink: results', 1)],
      false,
      'completed',
      ['Sink: results runs at parallelism 1, not 8'],
    ],
    [
      'no baseline: no vertex at N',
      [vertex(A, 'Source: Kafka', 4), vertex(B, 'Sink: results', 1)],
      false,
      'pending',
      [],
    ],
  ] as const)('%s', (_, vertices, withBaseline, outcome, caveats) => {
    const v = scale([...vertices], withBaseline ? { baselineVertices, oldParallelism: 4 } : {});
    expect(v.outcome).toBe(outcome);
    expect(caveatsOf(v)).toEqual(caveats);
    if (v.outcome === 'completed') expect(v.notes).toEqual(expect.arrayContaining([...caveats]));
  });

  it('a changed job graph is judged without the baseline, and says so', () => {
    const v = scale([vertex(C, 'Source: new', 8), vertex(B, 'Sink: results', 2)], {
      baselineVertices,
      oldParallelism: 4,
    });
    expect(v.outcome).toBe('completed');
    expect(v.outcome === 'completed' && v.notes).toContain(
      'the job graph changed (other vertex ids than before the change): judged without the baseline',
    );
  });

  it('no vertex may run above pipeline.max-parallelism, nor a task wait for a slot', () => {
    const capped = settled(flinkDeployment, specPatchOf(plan), {
      spec: { flinkConfiguration: { 'pipeline.max-parallelism': '6' } },
    });
    const above = judge({
      kind: 'scale',
      plan,
      before,
      resource: capped,
      deep: true,
      rest: reading(jobId, { vertices: [vertex(A, 'Source: Kafka', 8)] }),
    });
    expect(metMap(above)['rest:parallelism-applied']).toBe(false);
    // Flink's vertex status is RUNNING as soon as one subtask runs: the counts show the two still SCHEDULED.
    const waiting = scale(
      [vertex(A, 'Source: Kafka', 8, 'RUNNING', { RUNNING: 6, SCHEDULED: 2 }), vertex(B, 'Sink: results', 1)],
      {
        baselineVertices,
        oldParallelism: 4,
      },
    );
    expect(waiting).toMatchObject({ outcome: 'pending', rest: { when: 'poll' } });
    expect(metMap(waiting)['rest:tasks-running']).toBe(false);
  });

  it('a bounded vertex that FINISHED while the job runs counts as done, with a note', () => {
    const v = scale([vertex(A, 'Source: Kafka', 8), vertex(C, 'Source: bootstrap', 8, 'FINISHED')]);
    expect(v.outcome).toBe('completed');
    expect(v.outcome === 'completed' && v.notes).toContain('Source: bootstrap FINISHED (bounded)');
    // Every vertex finished: nothing runs, so it is not done.
    expect(metMap(scale([vertex(C, 'Source: bootstrap', 8, 'FINISHED')]))['rest:tasks-running']).toBe(false);
  });

  it('an autoscaled target: the parallelism part is a caveat naming the vertices the autoscaler holds', () => {
    const auto = settled(flinkDeployment, specPatchOf(plan), {
      reconciled: { flinkConfiguration: { [OVERRIDES]: `${A}:2,${B}:1` } },
    });
    expect(isAutoscaled(auto)).toBe(true);
    expect(autoscalerOverrides(auto)).toEqual({ [A]: 2, [B]: 1 });
    const v = judge({
      kind: 'scale',
      plan,
      before,
      resource: auto,
      deep: true,
      rest: reading(jobId, { vertices: [vertex(A, 'Source: Kafka', 2), vertex(B, 'Sink: results', 1)] }),
    });
    expect(v.outcome).toBe('completed');
    expect(caveatsOf(v)).toEqual([
      'the autoscaler holds the parallelism of its vertices (Source: Kafka: 2, Sink: results: 1)',
    ]);
  });
});

describe('the last-state fallback and normalised pointers', () => {
  const before = flinkDeployment({ status: { jobStatus: { state: 'RESTARTING' } } });
  const plan = planFor({ kind: 'restart', target: DEP }, before);
  const fellBack = settled(flinkDeployment, specPatchOf(plan), {
    status: { jobStatus: { upgradeSavepointPath: 'KUBERNETES_OPERATOR_LAST_STATE' } },
  });
  const jobId = jobIdOf(fellBack);
  const restart = (resource: unknown, restored: unknown) =>
    judge({
      kind: 'restart',
      plan,
      before,
      resource,
      deep: true,
      rest: reading(
        jobId,
        { vertices: [vertex(A, 'Source', 4)] },
        { counts: { total: 0 }, latest: { completed: null, restored } },
      ),
    });

  it('COMPLETED from a checkpoint of this job, with the caveat that no savepoint was taken', () => {
    const path = `s3://flink/checkpoints/orders-enricher/${jobId}/chk-42`;
    const v = restart(fellBack, { external_path: path, is_savepoint: false });
    expect(v.outcome).toBe('completed');
    expect(caveatsOf(v)).toEqual([
      `the operator fell back to last-state (the job was RESTARTING): no savepoint was taken; restored from checkpoint ${path}`,
    ]);
    // The reconciled upgrade mode says last-state too (no marker recorded).
    const reconciledLastState = settled(flinkDeployment, specPatchOf(plan), {
      reconciled: { job: { upgradeMode: 'last-state' } },
    });
    expect(caveatsOf(restart(reconciledLastState, { external_path: path, is_savepoint: false }))).toHaveLength(1);
  });

  it('a genuine restore from elsewhere still FAILS', () => {
    const v = restart(fellBack, { external_path: 's3://other/savepoints/savepoint-9', is_savepoint: true });
    expect(v.outcome).toBe('failed');
    expect(v.outcome === 'failed' && v.reason).toMatch(
      /^the job started without its state: the operator fell back to last-state/,
    );
    expect(restart(fellBack, null).outcome).toBe('failed');
  });

  it.each([
    ['s3://b/sp-1/_metadata', 's3://b/sp-1', true],
    ['s3://b/sp-1/', 's3://b/sp-1', true],
    ['file:///tmp/sp-1', 'file:/tmp/sp-1', true],
    ['hdfs:///flink/sp-1', 'hdfs://nn:8020/flink/sp-1', true],
    ['hdfs://nn1:8020/flink/sp-1', 'hdfs://nn2:8020/flink/sp-1', false],
    ['s3://b/sp-1', 's3://b/sp-2', false],
  ] as const)('pointer %s ~ %s: %s', (typed, reported, match) => {
    expect(pointersMatch(typed, reported).match).toBe(match);
  });

  it('normalises to one form, and a restore that matched only when normalised says so', () => {
    expect(normalisePointer('file:///tmp/x//y/_metadata')).toBe('file:/tmp/x/y');
    const target = flinkDeployment();
    const restorePlan = planFor({ kind: 'restore', target: DEP, from: 'file:///state/sp-7/_metadata' }, target);
    const restored = settled(flinkDeployment, specPatchOf(restorePlan), {
      status: { jobStatus: { upgradeSavepointPath: 'file:///state/sp-7/_metadata' } },
    });
    const submit = kubeEvent({ reason: 'Submit', last: secondsAfter(15) });
    const v = judge({
      kind: 'restore',
      plan: restorePlan,
      before: target,
      resource: restored,
      events: [submit],
      deep: true,
      rest: reading(
        jobIdOf(restored),
        { vertices: [vertex(A, 'Source', 4)] },
        { latest: { restored: { external_path: 'file:/state/sp-7', is_savepoint: true } } },
      ),
    });
    expect(v.outcome).toBe('completed');
    expect(v.outcome === 'completed' && v.notes).toContain(
      'Flink reports file:/state/sp-7: the same place as file:///state/sp-7/_metadata once both are normalised',
    );
  });
});

describe('config: the autoscaler switched off, parallelism overrides', () => {
  const autoscaled = flinkDeployment({
    spec: { flinkConfiguration: { 'job.autoscaler.enabled': 'true' } },
    reconciled: { flinkConfiguration: { [OVERRIDES]: `${A}:2` } },
  });
  const off = planFor(
    { kind: 'config', target: DEP, action: 'set', entries: [{ key: 'job.autoscaler.enabled', value: 'false' }] },
    autoscaled,
  );
  // The operator observed the generation, but the new job is not RUNNING yet.
  const redeploying = settled(flinkDeployment, specPatchOf(off), {
    status: { lifecycleState: 'DEPLOYED', jobStatus: { state: 'RECONCILING' } },
  });

  it('job.autoscaler.enabled=false on a target with overrides is judged as a redeploy, not IGNORE-class', () => {
    const v = judge({ kind: 'config', plan: off, before: trimBefore(autoscaled), resource: redeploying });
    expect(v.outcome).toBe('pending');
    expect(metMap(v)['job-running']).toBe(false);
    // Without overrides it stays IGNORE-class: no redeploy happens.
    const plain = flinkDeployment({ spec: { flinkConfiguration: { 'job.autoscaler.enabled': 'true' } } });
    const plainPlan = planFor(
      { kind: 'config', target: DEP, action: 'set', entries: [{ key: 'job.autoscaler.enabled', value: 'false' }] },
      plain,
    );
    expect(
      judge({
        kind: 'config',
        plan: plainPlan,
        before: plain,
        resource: settled(flinkDeployment, specPatchOf(plainPlan)),
      }).outcome,
    ).toBe('completed');
  });

  const before = flinkDeployment();
  const overrides = planFor(
    { kind: 'config', target: DEP, action: 'set', entries: [{ key: OVERRIDES, value: `${A}:6` }] },
    before,
  );
  const done = settled(flinkDeployment, specPatchOf(overrides));

  it('overrides: COMPLETED only once REST shows the vertex at its overridden parallelism', () => {
    const at = (p: number) =>
      judge({
        kind: 'config',
        plan: overrides,
        before,
        resource: done,
        deep: true,
        rest: reading(jobIdOf(done), { vertices: [vertex(A, 'Source', p), vertex(B, 'Sink', 4)] }),
      });
    expect(at(4)).toMatchObject({ outcome: 'pending', rest: { when: 'poll' } });
    expect(metMap(at(6))['rest:overrides-applied']).toBe(true);
    expect(at(6).outcome).toBe('completed');
  });

  it('overrides without REST: the Scaling event after the submission, with a lower depth said', () => {
    expect(metMap(judge({ kind: 'config', plan: overrides, before, resource: done }))['scaling-event']).toBe(false);
    const v = judge({
      kind: 'config',
      plan: overrides,
      before,
      resource: done,
      events: [kubeEvent({ reason: 'Scaling', message: 'In-place scaling triggered' })],
    });
    expect(v.outcome).toBe('completed');
    expect(v.outcome === 'completed' && v.proof.notVerified.join(' ')).toMatch(/Flink REST not read/);
  });
});

describe('checkpointing set in code, failed jobs the operator resubmits', () => {
  const noInterval = { flinkConfiguration: { 'execution.checkpointing.interval': null } };
  const before = flinkDeployment({ spec: noInterval });
  const plan = planFor({ kind: 'restart', target: DEP }, before);

  it('REST shows checkpoints: checkpointAfterChange is required although no interval is configured', () => {
    const done = settled(flinkDeployment, specPatchOf(plan), { spec: noInterval });
    // The fixture fills in a 60 s interval: take it out, as in a job that checkpoints from its code.
    delete (done.spec?.flinkConfiguration as Record<string, unknown>)['execution.checkpointing.interval'];
    const at = (ack: number) =>
      judge({
        kind: 'restart',
        plan,
        before,
        resource: done,
        deep: true,
        checkpointAfterChange: true,
        rest: reading(
          jobIdOf(done),
          { vertices: [vertex(A, 'Source', 4)] },
          { counts: { total: 5, failed: 0 }, latest: { completed: { id: 5, latest_ack_timestamp: ack } } },
        ),
      });
    expect(metMap(at(secondsAfter(10)))['rest:checkpoint-after-change']).toBe(false);
    expect(at(secondsAfter(30)).outcome).toBe('completed');
  });

  it('reads checkpoint statistics when a checkpoint is required (also without an interval), or for the note where one is configured; else not', () => {
    // A stateless scale restores nothing it must prove, so only the checkpoint rule decides whether /checkpoints is read.
    const need = (required: boolean, interval?: string): boolean | undefined => {
      const spec = {
        job: { upgradeMode: 'stateless' },
        flinkConfiguration: { 'execution.checkpointing.interval': interval ?? null },
      };
      const from = flinkDeployment({ spec });
      const scale = planFor({ kind: 'scale', target: DEP, parallelism: 8 }, from);
      const resource = settled(flinkDeployment, specPatchOf(scale), { spec });
      // The fixture fills in a 60 s interval; a job without one has none in its configuration at all.
      if (interval === undefined)
        delete (resource.spec?.flinkConfiguration as Record<string, unknown>)['execution.checkpointing.interval'];
      const v = judge({
        kind: 'scale',
        plan: scale,
        before: from,
        resource,
        deep: true,
        checkpointAfterChange: required,
      });
      return v.outcome === 'pending' ? v.rest?.checkpoints : undefined;
    };
    expect(need(true)).toBe(true);
    expect(need(false)).toBe(false);
    expect(need(false, '30s')).toBe(true);
  });

  it('kubernetes.operator.job.restart.failed: a FAILED job is transient under the grace, then FAILED', () => {
    const restartFailed = { flinkConfiguration: { 'kubernetes.operator.job.restart.failed': 'true' } };
    const failed = settled(flinkDeployment, specPatchOf(plan), {
      spec: restartFailed,
      status: { jobStatus: { state: 'FAILED' } },
    });
    const v = judge({ kind: 'restart', plan, before, resource: failed });
    expect(v).toMatchObject({ outcome: 'pending', transient: [{ key: 'job-failed' }] });
    expect(
      judge({ kind: 'restart', plan, before, resource: failed, transientSince: { 'job-failed': NOW - 200_000 } })
        .outcome,
    ).toBe('failed');
    expect(
      judge({
        kind: 'restart',
        plan,
        before,
        resource: settled(flinkDeployment, specPatchOf(plan), { status: { jobStatus: { state: 'FAILED' } } }),
      }).outcome,
    ).toBe('failed');
  });
});

describe('an ABANDONED savepoint Flink completed, and session jobs after a cluster redeploy', () => {
  const before = flinkDeployment();
  const plan = planFor({ kind: 'savepoint', target: DEP }, before);
  const abandoned = flinkStateSnapshot({
    name: 'orders-enricher-op-abc123',
    state: 'ABANDONED',
    status: { error: 'Job orders-enricher is not running' },
  });
  const jobId = jobIdOf(before);
  const withSavepoint = (triggeredAt: number) =>
    judge({
      kind: 'savepoint',
      plan,
      resource: before,
      snapshot: abandoned,
      deep: true,
      rest: reading(
        jobId,
        { vertices: [] },
        {
          latest: {
            savepoint: {
              id: 9,
              status: 'COMPLETED',
              is_savepoint: true,
              trigger_timestamp: triggeredAt,
              latest_ack_timestamp: triggeredAt + 2000,
              external_path: 's3://flink/savepoints/orders-enricher/savepoint-9',
            },
          },
        },
      ),
    });

  it('asks REST before FAILED, and is COMPLETED with the path Flink reports', () => {
    expect(judge({ kind: 'savepoint', plan, resource: before, snapshot: abandoned, deep: true })).toMatchObject({
      outcome: 'pending',
      rest: { when: 'now', checkpoints: true, jobId },
    });
    const v = withSavepoint(FIXTURE_EPOCH_MS - 595_000);
    expect(v.outcome).toBe('completed');
    if (v.outcome !== 'completed') return;
    expect(v.caveats).toEqual(['the operator stopped tracking it (the job looked not running); Flink completed it']);
    expect(v.proof.verified).toContain('savepoint path s3://flink/savepoints/orders-enricher/savepoint-9');
  });

  it('a savepoint from before the trigger: REST is polled while Flink may finish it, FAILED once the grace has passed', () => {
    const early = withSavepoint(FIXTURE_EPOCH_MS - 700_000);
    expect(early).toMatchObject({
      outcome: 'pending',
      rest: { when: 'poll' },
      transient: [{ key: 'savepoint-abandoned' }],
    });
    const late = judge({
      kind: 'savepoint',
      plan,
      resource: before,
      snapshot: abandoned,
      deep: true,
      transientSince: { 'savepoint-abandoned': NOW - 200_000 },
      rest: reading(jobId, { vertices: [] }, { latest: { savepoint: null } }),
    });
    expect(late.outcome).toBe('failed');
    expect(late.outcome === 'failed' && late.reason).toMatch(/^the savepoint was ABANDONED/);
    // A reading taken before the grace ran out does not decide: REST is read again at once.
    const stale = judge({
      kind: 'savepoint',
      plan,
      resource: before,
      snapshot: abandoned,
      deep: true,
      transientSince: { 'savepoint-abandoned': NOW - 200_000 },
      rest: { ...reading(jobId, { vertices: [] }, { latest: { savepoint: null } }), at: NOW - 100_000 },
    });
    expect(stale).toMatchObject({
      outcome: 'pending',
      rest: { when: 'now' },
      transient: [{ key: 'savepoint-abandoned' }],
    });
    // Without REST it is FAILED at once, as before.
    expect(judge({ kind: 'savepoint', plan, resource: before, snapshot: abandoned }).outcome).toBe('failed');
  });

  it('session job notes: the state of each, and the restore command for one left at Job Not Found', () => {
    const lost = flinkSessionJob({
      status: {
        error: 'Job Not Found',
        jobStatus: {
          state: 'RECONCILING',
          savepointInfo: { lastSavepoint: { location: 's3://sp/clicks-1', timeStamp: 1 } },
        },
      },
    });
    const fine = flinkSessionJob({ name: 'other-job' });
    expect(sessionJobNotes([lost, fine], 'streaming-prod')).toEqual([
      'sessionjob streaming-prod/clickstream-sessionizer: RECONCILING, Job Not Found — bring it back with `/flink restore sessionjob:streaming-prod/clickstream-sessionizer --from s3://sp/clicks-1`',
      'sessionjob streaming-prod/other-job: RUNNING',
    ]);
    // On a cluster without HA a stateful job the operator has not looked at since cannot resume: said at once.
    expect(
      sessionJobNotes(
        [fine, flinkSessionJob({ name: 'stateless-job', spec: { job: { upgradeMode: 'stateless' } } })],
        'streaming-prod',
        false,
      ),
    ).toEqual([
      'sessionjob streaming-prod/other-job: RUNNING as last reported; it stopped with its cluster, which has no HA, so it cannot resume — once it shows Job Not Found, bring it back with `/flink restore sessionjob:streaming-prod/other-job --from <path>`',
      'sessionjob streaming-prod/stateless-job: RUNNING',
    ]);
  });
});
