// Deep verification (docs/deep-verification.md#what-it-proves): the worker reads Flink REST through the API server's
// service proxy once operator status is settled; COMPLETED then carries what the job itself reports, and what REST
// contradicts is not COMPLETED.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperationRecord } from '../../src/domain/engines/operation.js';
import type { Target } from '../../src/domain/model/target.js';
import { NS, WorkerEnv } from '../support/worker-env.js';
import { common, criterion, dep, evidenceOf } from '../support/worker-records.js';
import { waitForStatus } from '@flink-chatops/sim/testing/sim';

let env: WorkerEnv;
beforeAll(async () => {
  // A short deadline: the cases that must never complete end TIMED_OUT quickly.
  env = await WorkerEnv.start({ env: { VERIFY_TIMEOUT: '5s', VERIFY_TIMEOUT_SAVEPOINT: '5s' } });
  await env.startWorker();
});
afterAll(async () => {
  await env?.close();
});

const completedDetail = (r: OperationRecord) =>
  r.history.at(-1)?.detail as { verified: string[]; notVerified: string[] };

describe('with Flink REST reachable', () => {
  it('a scale is COMPLETED with every vertex RUNNING at the new parallelism, read from REST', async () => {
    await env.deploy('deep-scale', { parallelism: 2 });
    const done = await env.waitTerminal(
      (await env.request({ kind: 'scale', target: dep('deep-scale'), parallelism: 4, ...common })).id,
    );
    expect(done.state, JSON.stringify(evidenceOf(done).verdict)).toBe('COMPLETED');
    expect(criterion(done, 'rest:tasks-running')).toMatchObject({
      met: true,
      observed: '3 of 3 vertices RUNNING',
      source: expect.stringMatching(/^Flink REST \/jobs\/[0-9a-f]{32} vertices\[\]\.tasks$/),
    });
    expect(criterion(done, 'rest:parallelism-applied')).toMatchObject({ met: true, observed: '4 on every vertex' });
    expect(completedDetail(done).verified.join(' | ')).toContain('4 on every vertex (Flink REST');
    expect(completedDetail(done).notVerified.join(' | ')).not.toContain('per-vertex parallelism');
  });

  it('a scale keeps the vertex baseline it read before the call; a vertex set in the job keeps its parallelism, as a caveat', async () => {
    await env.deploy('deep-shaped', { parallelism: 2, graph: 'Source: events; KeyedProcess; Sink: results [p=1]' });
    const done = await env.waitTerminal(
      (await env.request({ kind: 'scale', target: dep('deep-shaped'), parallelism: 4, ...common })).id,
    );
    expect(done.state, JSON.stringify(evidenceOf(done).verdict)).toBe('COMPLETED');
    const stored = evidenceOf(done);
    expect(stored.oldParallelism).toBe(2);
    expect(stored.baselineVertices?.map((v) => [v.name, v.parallelism])).toEqual([
      ['Source: events', 2],
      ['KeyedProcess', 2],
      ['Sink: results', 1],
    ]);
    expect(stored.baselineVertices?.every((v) => /^[0-9a-f]{32}$/.test(v.id))).toBe(true);
    expect(criterion(done, 'rest:parallelism-applied')).toMatchObject({
      met: true,
      observed: '4 on 2 of 3 vertices, the others as before',
    });
    const detail = done.history.at(-1)?.detail as { caveats: string[]; notes: string[] };
    expect(detail.caveats).toEqual(['Sink: results keeps parallelism 1, set in the job']);
    expect(detail.notes).toContain('Sink: results keeps parallelism 1, set in the job');
  });

  it('a job with a bounded vertex: FINISHED counts as done, and the thread names it', async () => {
    await env.deploy('deep-bounded');
    env.cluster.operator.setScenario(NS, 'deep-bounded', 'bounded-source');
    const done = await env.waitTerminal(
      (await env.request({ kind: 'restart', target: dep('deep-bounded'), ...common })).id,
    );
    expect(done.state, JSON.stringify(evidenceOf(done).verdict)).toBe('COMPLETED');
    expect(criterion(done, 'rest:tasks-running')).toMatchObject({
      met: true,
      observed: expect.stringMatching(/ 1 FINISHED$/),
    });
    expect((done.history.at(-1)?.detail as { notes: string[] }).notes).toContain(
      'Source: bootstrap FINISHED (bounded)',
    );
  });

  it('a savepoint-mode restart of a RESTARTING job falls back to last-state: COMPLETED from its checkpoint, with the caveat', async () => {
    await env.deploy('deep-flapping', { conf: { 'execution.checkpointing.interval': '5s' } });
    env.cluster.operator.setScenario(NS, 'deep-flapping', 'job-restarting');
    await waitForStatus(
      env.cluster.store,
      'flinkdeployments',
      NS,
      'deep-flapping',
      (s) => s.jobStatus?.state === 'RESTARTING',
      'RESTARTING',
    );
    const done = await env.waitTerminal(
      (await env.request({ kind: 'restart', target: dep('deep-flapping'), ...common })).id,
    );
    expect(done.state, JSON.stringify(evidenceOf(done).verdict)).toBe('COMPLETED');
    const detail = done.history.at(-1)?.detail as { caveats: string[] };
    expect(detail.caveats).toContainEqual(
      expect.stringMatching(
        /^the operator fell back to last-state \(the job was RESTARTING\): no savepoint was taken; restored from checkpoint \S+\/chk-\d+$/,
      ),
    );
  });

  it('a savepoint the operator ABANDONED but Flink completed is COMPLETED with the path REST reports', async () => {
    await env.deploy('deep-abandoned');
    env.cluster.operator.setScenario(NS, 'deep-abandoned', 'savepoint-abandoned');
    const done = await env.waitTerminal(
      (await env.request({ kind: 'savepoint', target: dep('deep-abandoned'), ...common })).id,
    );
    expect(done.state, JSON.stringify(evidenceOf(done).verdict)).toBe('COMPLETED');
    expect(criterion(done, 'rest:savepoint-completed')).toMatchObject({
      met: true,
      observed: expect.stringMatching(/savepoint/),
    });
    expect((done.history.at(-1)?.detail as { caveats: string[] }).caveats).toEqual([
      'the operator stopped tracking it (the job looked not running); Flink completed it',
    ]);
  });

  it.each([
    ['resume', { state: 'suspended' as const }, (t: Target) => ({ kind: 'resume', target: t, ...common })],
    ['upgrade', {}, (t: Target) => ({ kind: 'upgrade', target: t, image: 'flink:1.20.1', ...common })],
    [
      'restore',
      {},
      (t: Target) => ({
        kind: 'restore',
        target: t,
        from: `s3://flink-state/${NS}/${t.name}/savepoints/savepoint-0a1b2c`,
        allowNonRestoredState: false,
        ...common,
      }),
    ],
    ['resources', {}, (t: Target) => ({ kind: 'resources', target: t, taskManagerMemory: '4g', ...common })],
    [
      'config',
      {},
      (t: Target) => ({
        kind: 'config',
        target: t,
        action: 'set',
        entries: [{ key: 'execution.checkpointing.interval', value: '30s' }],
        ...common,
      }),
    ],
  ] as const)('%s: COMPLETED carries what REST proved, with its value, path and time', async (kind, setup, intent) => {
    await env.deploy(`deep-${kind}`, setup);
    const done = await env.waitTerminal((await env.request(intent(dep(`deep-${kind}`)) as never)).id);
    expect(done.state, JSON.stringify(evidenceOf(done).verdict)).toBe('COMPLETED');
    const tasks = criterion(done, 'rest:tasks-running');
    expect(tasks).toMatchObject({
      met: true,
      observed: expect.stringMatching(/^\d+ of \d+ vertices RUNNING$/),
      source: expect.stringMatching(/^Flink REST \/jobs\//),
    });
    expect(tasks?.at).toBeGreaterThan(0);
    if (kind === 'restore')
      expect(criterion(done, 'rest:restored-from')).toMatchObject({
        met: true,
        observed: `restored from s3://flink-state/${NS}/deep-restore/savepoints/savepoint-0a1b2c`,
      });
  });

  it('a savepoint-mode restart is COMPLETED only having restored from the savepoint the operator recorded', async () => {
    await env.deploy('deep-restart', { upgradeMode: 'savepoint' });
    const done = await env.waitTerminal(
      (await env.request({ kind: 'restart', target: dep('deep-restart'), ...common })).id,
    );
    expect(done.state, JSON.stringify(evidenceOf(done).verdict)).toBe('COMPLETED');
    expect(criterion(done, 'rest:restored-from')).toMatchObject({
      met: true,
      observed: expect.stringMatching(/^restored from s3:\/\//),
    });
  });

  // Flink reports a vertex RUNNING as soon as one subtask runs (ExecutionJobVertex.getAggregateJobVertexState): only
  // the subtask counts show the two that never got a slot. Before the bot read them, this scale was COMPLETED.
  it('a scale-up with two subtasks never scheduled never COMPLETES: FAILED when Flink fails the job at its slot request timeout', async () => {
    await env.deploy('deep-waiting', { parallelism: 2 });
    env.cluster.operator.setScenario(NS, 'deep-waiting', 'tasks-waiting=2');
    const done = await env.waitTerminal(
      (await env.request({ kind: 'scale', target: dep('deep-waiting'), parallelism: 6, ...common })).id,
    );
    expect(done.state, JSON.stringify(evidenceOf(done).verdict)).toBe('FAILED');
    expect(String(done.history.at(-1)?.detail.reason)).toMatch(
      /^the job FAILED after the redeploy: .*NoResourceAvailableException: Slot request bulk is not fulfillable! Could not allocate the required slot within slot request timeout/,
    );
  });

  it('subtasks waiting for slots within the slot request timeout: TIMED_OUT, naming the subtasks not running', async () => {
    await env.deploy('deep-slots', { parallelism: 2, conf: { 'slot.request.timeout': '1h' } });
    env.cluster.operator.setScenario(NS, 'deep-slots', 'tasks-waiting=2');
    const done = await env.waitTerminal(
      (await env.request({ kind: 'scale', target: dep('deep-slots'), parallelism: 6, ...common })).id,
    );
    expect(done.state, JSON.stringify(evidenceOf(done).verdict)).toBe('TIMED_OUT');
    const summary = String(done.history.at(-1)?.detail.summary);
    expect(summary).toContain('rest:tasks-running (Source: Kafka events: 4 of 6 subtasks RUNNING, 2 SCHEDULED');
    expect(criterion(done, 'rest:parallelism-applied')).toMatchObject({
      met: false,
      observed: expect.stringContaining('Sink: Kafka alerts: 6 (2 of its subtasks not running)'),
    });
  });

  // Flink keeps the restored state's max parallelism (StateAssignmentOperation): a job started at parallelism 2
  // carries 128 into its savepoints, and restoring one at 200 fails the job as it starts. Planning here has no REST
  // reading (nothing refuses it before); before the bot read the cause under Flink's wrapper, the reason was only
  // "Could not start the JobMaster.".
  it('a scale whose restore exceeds the state max parallelism is FAILED naming both numbers', async () => {
    await env.deploy('deep-maxp', { parallelism: 2 });
    const done = await env.waitTerminal(
      (await env.request({ kind: 'scale', target: dep('deep-maxp'), parallelism: 200, ...common })).id,
    );
    expect(done.state, JSON.stringify(evidenceOf(done).verdict)).toBe('FAILED');
    expect(String(done.history.at(-1)?.detail.reason)).toContain(
      'the job FAILED after the redeploy: Could not start the JobMaster., caused by IllegalStateException: The state for task',
    );
    expect(String(done.history.at(-1)?.detail.reason)).toContain(
      'The maximum parallelism (128) of the restored state is lower than the configured parallelism (200)',
    );
  });

  it('a restore that started from another path than the operator recorded is FAILED with both paths', async () => {
    await env.deploy('deep-elsewhere');
    env.cluster.operator.setScenario(NS, 'deep-elsewhere', 'restored-elsewhere');
    const from = `s3://flink-state/${NS}/deep-elsewhere/savepoints/savepoint-0a1b2c`;
    const done = await env.waitTerminal(
      (
        await env.request({
          kind: 'restore',
          target: dep('deep-elsewhere'),
          from,
          allowNonRestoredState: false,
          ...common,
        })
      ).id,
    );
    expect(done.state).toBe('FAILED');
    const reason = String(done.history.at(-1)?.detail.reason);
    expect(reason).toMatch(
      /started without its state: Flink reports it restored from \S+savepoint-someone-elses, but the operator recorded s3:\/\/\S+savepoint-0a1b2c/,
    );
  });
});

describe('a checkpoint after the change, where the policy requires it', () => {
  let strict: WorkerEnv;
  beforeAll(async () => {
    strict = await WorkerEnv.start({
      env: { VERIFY_TIMEOUT: '5s', VERIFY_TIMEOUT_SAVEPOINT: '5s' },
      policyExtra: 'verify:\n  default: { checkpointAfterChange: true }\n',
    });
    await strict.startWorker();
  });
  afterAll(async () => {
    await strict?.close();
  });

  it('is a criterion: met once a checkpoint completes after the restart; with checkpoints failing, never COMPLETED', async () => {
    await strict.deploy('deep-ckpt', { conf: { 'execution.checkpointing.interval': '5s' } });
    const done = await strict.waitTerminal(
      (await strict.request({ kind: 'restart', target: dep('deep-ckpt'), ...common })).id,
    );
    expect(done.state, JSON.stringify(evidenceOf(done).verdict)).toBe('COMPLETED');
    expect(criterion(done, 'rest:checkpoint-after-change')).toMatchObject({
      met: true,
      observed: expect.stringMatching(/^checkpoint \d+ completed \d+ s after the job started$/),
    });
    expect(completedDetail(done).notVerified.join(' | ')).not.toContain('a checkpoint completed after the change');
    await strict.deploy('deep-ckpt-failing', { conf: { 'execution.checkpointing.interval': '5s' } });
    strict.cluster.operator.setScenario(NS, 'deep-ckpt-failing', 'checkpoints-failing');
    const failing = await strict.waitTerminal(
      (await strict.request({ kind: 'restart', target: dep('deep-ckpt-failing'), ...common })).id,
    );
    expect(failing.state).toBe('TIMED_OUT');
    expect(String(failing.history.at(-1)?.detail.summary)).toMatch(
      /rest:checkpoint-after-change \(no checkpoint completed since the job started \(\d+ failed\)\)/,
    );
  });

  it('checkpointing enabled in the job code (no interval configured) is seen through REST and required too', async () => {
    await strict.deploy('deep-ckpt-code', {
      annotations: { 'sim.flink-chatops.io/scenario': 'checkpointing-in-code=2s' },
    });
    const done = await strict.waitTerminal(
      (await strict.request({ kind: 'restart', target: dep('deep-ckpt-code'), ...common })).id,
    );
    expect(done.state, JSON.stringify(evidenceOf(done).verdict)).toBe('COMPLETED');
    expect(criterion(done, 'rest:checkpoint-after-change')).toMatchObject({
      met: true,
      observed: expect.stringMatching(/^checkpoint \d+ completed \d+ s after the job started$/),
    });
  });
});

describe('with the proxy answering 403 (no services/proxy rule)', () => {
  it('the same scale completes on operator status and says why the proof is shallower', async () => {
    await env.deploy('deep-denied', { parallelism: 2 });
    env.cluster.server.faults.inject({ kind: 'error-403', resource: 'services', subresource: 'proxy', times: 50 });
    const done = await env.waitTerminal(
      (await env.request({ kind: 'scale', target: dep('deep-denied'), parallelism: 3, ...common })).id,
    );
    env.cluster.server.faults.clear();
    expect(done.state, JSON.stringify(evidenceOf(done).verdict)).toBe('COMPLETED');
    expect(criterion(done, 'rest:tasks-running')).toBeUndefined();
    expect(completedDetail(done).notVerified.join(' | ')).toMatch(
      /REST not reachable \(the role lacks services\/proxy: .*services\/proxy.*\): the proof stops at operator status/,
    );
  });
});
