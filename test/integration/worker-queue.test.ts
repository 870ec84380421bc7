// The queue of operations (docs/lifecycle.md#queue-order-and-leases) against real Redis, and the small pure helpers of
// the worker.
import { DEFAULT_CLUSTER } from '../../src/config.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EvidenceVerdict } from '../../src/domain/kit/evidence/types.js';
import type { Plan } from '../../src/domain/model/plan.js';
import { jobIdOf, OperationQueue, parseJobId } from '../../src/queue/queue.js';
import { trimBefore } from '../../src/worker/submit.js';
import { progressOf } from '../../src/worker/verify.js';
import { judgedKind } from '../../src/domain/kinds/index.js';
import { redisForTest, type TestRedis } from '../support/redis.js';

describe('job ids', () => {
  it.each([
    ['op-abc123', 1, 'op-abc123.1'],
    ['op-0a1b2c3d4e', 12, 'op-0a1b2c3d4e.12'],
  ])('%s at revision %i → %s, and back', (opId, revision, jobId) => {
    expect(jobIdOf(opId, revision)).toBe(jobId);
    expect(parseJobId(jobId)).toEqual({ opId, revision });
  });

  it.each([
    ['abc', 1, /not an operation id/],
    ['op-abc123', 0, /positive integer/],
    ['op-abc123', 1.5, /positive integer/],
  ])('refuses %s at revision %s', (opId, revision, message) => {
    expect(() => jobIdOf(opId, revision)).toThrow(message);
  });

  it.each(['op-abc123', 'op-abc123.x', '12', '', undefined])('%s is not one of our job ids', (id) => {
    expect(parseJobId(id)).toBeUndefined();
  });
});

describe('OperationQueue', () => {
  let r: TestRedis;
  let queue: OperationQueue;
  beforeEach(async () => {
    r = await redisForTest('wq');
    queue = new OperationQueue({ connection: r.redis, prefix: r.prefix, cluster: DEFAULT_CLUSTER });
  });
  afterEach(async () => {
    await queue.close();
    await r.cleanup();
  });

  it('keeps its keys under the hash tag, and the job carries the op id only', async () => {
    await queue.enqueue('op-abc123', 1);
    const keys = await r.redis.keys(`*${r.prefix}*`);
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.every((k) => k.startsWith(`{${r.prefix}}:flink-ops.default:`))).toBe(true);
    expect((await queue.queue.getJob('op-abc123.1'))?.data).toEqual({ opId: 'op-abc123' });
  });

  it('enqueueing the same op and revision twice keeps one job', async () => {
    await queue.enqueue('op-abc123', 1);
    await queue.enqueue('op-abc123', 1);
    expect(await queue.queue.getJobCounts('waiting', 'delayed')).toEqual({ waiting: 1, delayed: 0 });
    expect(await queue.hasLiveJob('op-abc123', 1)).toBe(true);
    expect(await queue.hasLiveJob('op-abc123', 2)).toBe(false);
  });

  it('a delayed job is live and can be promoted; a waiting one cannot', async () => {
    await queue.enqueue('op-abc123', 1, { delayMs: 60_000 });
    expect(await queue.jobState('op-abc123.1')).toBe('delayed');
    expect(await queue.hasLiveJob('op-abc123', 1)).toBe(true);
    expect(await queue.promote('op-abc123.1')).toBe(true);
    expect(await queue.jobState('op-abc123.1')).toBe('waiting');
    expect(await queue.promote('op-abc123.1')).toBe(false);
    expect(await queue.promote('op-nothere0.1')).toBe(false);
  });

  it('removeFinished leaves live jobs alone', async () => {
    await queue.enqueue('op-abc123', 1);
    expect(await queue.removeFinished('op-abc123.1')).toBe(false);
    expect(await queue.jobState('op-abc123.1')).toBe('waiting');
  });
});

describe('evidence helpers', () => {
  const patchPlan = (patch: Record<string, unknown>): Plan => ({ change: { type: 'patch', patch } }) as unknown as Plan;

  it.each(['suspend', 'resume', 'upgrade', 'scale'] as const)(
    'an undo whose plan records judgedAs %s is judged as a %s',
    (kind) => {
      expect(judgedKind('undo', { ...patchPlan({}), judgedAs: kind })).toBe(kind);
    },
  );

  it('other kinds are judged as themselves; an undo plan without judgedAs is an error', () => {
    expect(judgedKind('restart', patchPlan({}))).toBe('restart');
    expect(() => judgedKind('undo', patchPlan({ spec: { restartNonce: 3 } }))).toThrow(/judgedAs/);
  });

  const criterion = (name: string, met: boolean) => ({ name, met, observed: null, source: 's', at: 1 });
  const pending = (...criteria: ReturnType<typeof criterion>[]): EvidenceVerdict => ({
    outcome: 'pending',
    criteria,
    blocking: [],
    notes: [],
  });

  it.each([
    [
      'old deployment state before the operator reconciled ours',
      pending(criterion('generation-observed', false), criterion('job-running', true)),
      [],
      [],
    ],
    [
      'generation observed but still reconciling',
      pending(
        criterion('generation-observed', true),
        criterion('reconciled-deployed', false),
        criterion('job-running', true),
      ),
      [],
      [],
    ],
    [
      'reconciled: what holds now is progress',
      pending(
        criterion('generation-observed', true),
        criterion('reconciled-deployed', true),
        criterion('job-running', true),
      ),
      [],
      ['generation-observed', 'reconciled-deployed', 'job-running'],
    ],
    [
      'already recorded criteria are not repeated',
      pending(
        criterion('generation-observed', true),
        criterion('reconciled-deployed', true),
        criterion('job-running', true),
      ),
      ['generation-observed', 'reconciled-deployed'],
      ['job-running'],
    ],
    [
      'kinds without a generation (savepoint) record as they go',
      pending(criterion('snapshot-completed', false), criterion('no-blocking-warnings', true)),
      [],
      ['no-blocking-warnings'],
    ],
  ])('%s', (_what, verdict, already, expected) => {
    expect(progressOf(verdict, new Set(already)).map((c) => c.name)).toEqual(expected);
  });

  it('the target as read before the call is trimmed to what evidence compares against', () => {
    const before = trimBefore({
      metadata: { name: 'orders', uid: 'u1', generation: 4, managedFields: [{ big: true }] },
      spec: { image: 'flink:1.20', job: { state: 'running', upgradeMode: 'savepoint', jarURI: 'local:///x.jar' } },
      status: {
        jobStatus: { jobId: 'j1', state: 'RUNNING', upgradeSavepointPath: 's3://sp/1' },
        clusterInfo: { big: true },
      },
    });
    expect(before).toEqual({
      metadata: { name: 'orders', uid: 'u1', generation: 4 },
      spec: { job: { state: 'running', upgradeMode: 'savepoint' } },
      status: { jobStatus: { jobId: 'j1', state: 'RUNNING', upgradeSavepointPath: 's3://sp/1' } },
    });
  });
});
