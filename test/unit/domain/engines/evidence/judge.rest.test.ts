// The REST part of the evidence (docs/deep-verification.md#what-it-proves), judged on readings: asked for once operator
// status is settled, then criteria with values, paths and times; what REST contradicts is not COMPLETED; unreachable
// lowers the depth.
import { describe, expect, it } from 'vitest';
import {
  DEP,
  judge,
  metMap,
  NOW,
  secondsAfter,
  settled,
  specPatchOf,
  warning,
} from '../../../../support/evidence-fixtures.js';
import { flinkDeployment, planFor } from '../../../../support/fixtures.js';

const before = flinkDeployment();
const plan = planFor({ kind: 'scale', target: DEP, parallelism: 8 }, before);
const done = settled(flinkDeployment, specPatchOf(plan));
const jobId = String((done.status as { jobStatus: { jobId: string } }).jobStatus.jobId);
const vertices = (statuses: string[], parallelism = 8) =>
  statuses.map((status, i) => ({ name: `v${i}`, parallelism, status, tasks: { [status]: parallelism } }));
const reading = (job: unknown, extra: Record<string, unknown> = {}) => ({
  reachable: true as const,
  jobId,
  job,
  at: NOW,
  ...extra,
});

describe('Flink REST in the evidence', () => {
  it('asks for a reading of the current job once operator status holds, and is not COMPLETED before it', () => {
    const v = judge({ kind: 'scale', plan, before, resource: done, deep: true });
    // The fixture checkpoints every 60 s: the checkpoints are read too, for the "checkpoint after the change" note.
    expect(v).toMatchObject({
      outcome: 'pending',
      rest: { when: 'now', clusterId: 'orders-enricher', jobId, checkpoints: true },
    });
    expect(v).toMatchObject({ rest: { exceptions: false } });
    // Task failovers after the change: the root exceptions are read too, for the notes.
    expect(
      judge({
        kind: 'scale',
        plan,
        before,
        resource: done,
        deep: true,
        events: [warning('JobException', { message: 'boom' })],
      }),
    ).toMatchObject({ rest: { when: 'now', exceptions: true } });
    // A reading of an older job counts as none.
    expect(
      judge({
        kind: 'scale',
        plan,
        before,
        resource: done,
        deep: true,
        rest: { ...reading({}), jobId: 'f'.repeat(32) },
      }),
    ).toMatchObject({ rest: { when: 'now' } });
  });

  it('COMPLETED with every vertex RUNNING at the requested parallelism, with the source of each', () => {
    const v = judge({
      kind: 'scale',
      plan,
      before,
      resource: done,
      deep: true,
      rest: reading({ 'start-time': secondsAfter(20), vertices: vertices(['RUNNING', 'RUNNING']) }),
    });
    expect(v.outcome).toBe('completed');
    expect(metMap(v)).toMatchObject({ 'rest:tasks-running': true, 'rest:parallelism-applied': true });
    if (v.outcome !== 'completed') return;
    expect(v.proof.verified).toContain(`8 on every vertex (Flink REST /jobs/${jobId} vertices[].parallelism)`);
    expect(v.proof.notVerified.join(' ')).not.toContain('per-vertex parallelism');
  });

  it('a vertex waiting for slots or at another parallelism keeps it pending, polling REST again', () => {
    // Flink reports the vertex RUNNING as soon as one of its subtasks runs; its `tasks` show the others waiting.
    const partly = { name: 'v1', parallelism: 8, status: 'RUNNING', tasks: { RUNNING: 6, SCHEDULED: 2, CREATED: 0 } };
    const waiting = judge({
      kind: 'scale',
      plan,
      before,
      resource: done,
      deep: true,
      rest: reading({ vertices: [...vertices(['RUNNING']), partly] }),
    });
    expect(waiting).toMatchObject({ outcome: 'pending', rest: { when: 'poll' } });
    expect(waiting.criteria.find((c) => c.name === 'rest:tasks-running')).toMatchObject({
      met: false,
      observed: 'v1: 6 of 8 subtasks RUNNING, 2 SCHEDULED',
      source: `Flink REST /jobs/${jobId} vertices[].tasks`,
    });
    expect(waiting.criteria.find((c) => c.name === 'rest:parallelism-applied')).toMatchObject({
      met: false,
      observed: 'v1: 8 (2 of its subtasks not running)',
    });
    // No subtask counts: the status alone proves nothing.
    const bare = judge({
      kind: 'scale',
      plan,
      before,
      resource: done,
      deep: true,
      rest: reading({ vertices: [{ name: 'v0', parallelism: 8, status: 'RUNNING' }] }),
    });
    expect(bare.criteria.find((c) => c.name === 'rest:tasks-running')).toMatchObject({
      met: false,
      observed: 'v0: RUNNING, no subtask counts reported',
    });
    const off = judge({
      kind: 'scale',
      plan,
      before,
      resource: done,
      deep: true,
      rest: reading({ vertices: vertices(['RUNNING'], 4) }),
    });
    expect(off.criteria.find((c) => c.name === 'rest:parallelism-applied')).toMatchObject({
      met: false,
      observed: 'v0: 4',
    });
  });

  it('unreachable: COMPLETED on operator status, saying why the depth is lower', () => {
    const v = judge({
      kind: 'scale',
      plan,
      before,
      resource: done,
      deep: true,
      rest: { reachable: false, why: 'the role lacks services/proxy: forbidden', at: NOW },
    });
    expect(v.outcome).toBe('completed');
    expect(v.outcome === 'completed' && v.proof.notVerified).toContain(
      'REST not reachable (the role lacks services/proxy: forbidden): the proof stops at operator status',
    );
  });

  it('root exceptions since the new job started are notes', () => {
    const exceptions = {
      exceptionHistory: {
        entries: [
          { exceptionName: 'java.io.IOException: gone', timestamp: secondsAfter(25) },
          { exceptionName: 'old', timestamp: secondsAfter(1) },
        ],
      },
    };
    const v = judge({
      kind: 'scale',
      plan,
      before,
      resource: done,
      deep: true,
      rest: reading({ 'start-time': secondsAfter(20), vertices: vertices(['RUNNING']) }, { exceptions }),
    });
    expect(v.outcome === 'completed' && v.notes).toContainEqual(
      `1 root exception(s) since the new job started, the latest: java.io.IOException: gone (Flink REST /jobs/${jobId}/exceptions)`,
    );
  });

  it('without deep verification nothing is asked of REST (operator status alone, as before)', () => {
    expect(judge({ kind: 'scale', plan, before, resource: done }).outcome).toBe('completed');
  });
});
