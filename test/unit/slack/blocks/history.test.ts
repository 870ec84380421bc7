// savepoints / exceptions (src/slack/blocks/history.ts), with the data they show: which snapshots and events count
// (domain/model snapshot-history and job-exceptions), their order, the restore command (app/history.ts), and every
// answer within Slack's limits however long the traces and lists.
import { describe, expect, it } from 'vitest';
import { restoreCommand } from '../../../../src/app/history.js';
import type { ExceptionsView, SavepointsView } from '../../../../src/app/views.js';
import { jobExceptions } from '../../../../src/domain/model/job-exceptions.js';
import { snapshotHistory } from '../../../../src/domain/model/snapshot-history.js';
import type { Target } from '../../../../src/domain/model/target.js';
import { renderExceptions, renderSavepoints } from '../../../../src/slack/blocks/index.js';
import { expectValid, visibleText } from '../../../support/blocks.js';

const T: Target = { kind: 'FlinkDeployment', namespace: 'prod', name: 'orders' };
const CTX = { now: Date.parse('2026-11-25T10:00:00Z'), command: '/flink' };

function snap(
  name: string,
  o: {
    ns?: string;
    kind?: string;
    ref?: string;
    state?: string;
    path?: string;
    result?: string;
    created?: string;
    type?: string;
  },
) {
  return {
    metadata: {
      name,
      namespace: o.ns ?? 'prod',
      creationTimestamp: o.created ?? '2026-11-25T08:00:00Z',
      labels: {
        'job-reference.kind': o.kind ?? 'FlinkDeployment',
        'job-reference.name': o.ref ?? 'orders',
        'snapshot.type': o.type ?? 'SAVEPOINT',
        'snapshot.trigger-type': 'MANUAL',
      },
    },
    status: { state: o.state ?? 'COMPLETED', path: o.path, ...(o.result ? { resultTimestamp: o.result } : {}) },
  };
}

describe('snapshotHistory', () => {
  it('keeps only the target (namespace, kind, name), newest first by resultTimestamp else creation time, after the limit', () => {
    const snapshots = [
      snap('a', { path: 's3://b/a', result: '2026-11-25T07:00:00Z' }),
      snap('b', { state: 'IN_PROGRESS', created: '2026-11-25T09:30:00Z' }),
      snap('c', { path: 's3://b/c', result: '2026-11-25T09:00:00Z' }),
      snap('other-ns', { ns: 'dev', path: 's3://b/x', result: '2026-11-25T09:59:00Z' }),
      snap('other-kind', { kind: 'FlinkSessionJob', path: 's3://b/y', result: '2026-11-25T09:59:00Z' }),
      snap('other-name', { ref: 'payments', path: 's3://b/z', result: '2026-11-25T09:59:00Z' }),
    ];
    const resource = { status: { jobStatus: { upgradeSavepointPath: 's3://b/upgrade-1' } } };
    const h = snapshotHistory(T, snapshots, resource, 10);
    expect(h.snapshots.map((s) => s.name)).toEqual(['b', 'c', 'a']);
    expect(h.snapshots[0]).toMatchObject({ timeSource: 'created', state: 'IN_PROGRESS' });
    expect(h.recorded).toBe('s3://b/upgrade-1');
    expect(snapshotHistory(T, snapshots, resource, 2)).toMatchObject({
      total: 3,
      snapshots: [{ name: 'b' }, { name: 'c' }],
    });
  });

  it('flags an unfinished snapshot without backoffLimit (operator 1.16 retries it without end), and renders it so', () => {
    const pending = (name: string, spec: Record<string, unknown>) => ({
      ...snap(name, { state: 'TRIGGER_PENDING', created: '2026-11-25T09:00:00Z' }),
      spec,
      status: { state: 'TRIGGER_PENDING', failures: 4 },
    });
    const h = snapshotHistory(T, [pending('open', {}), pending('limited', { backoffLimit: 2 })], {}, 10);
    expect(Object.fromEntries(h.snapshots.map((s) => [s.name, s.noAttemptLimit]))).toEqual({
      limited: undefined,
      open: true,
    });
    const text = visibleText(renderSavepoints({ target: T, snapshots: h.snapshots, total: 2, limit: 10 }, CTX));
    expect(text).toContain('retrying (4 failures) · no backoffLimit: operator 1.16 retries it without end');
    expect(text.match(/no backoffLimit/g)).toHaveLength(1);
  });

  it('orders within one second by the fraction the operator writes (ISO_INSTANT resultTimestamp, DateTimeUtils.kubernetes)', () => {
    const snapshots = [
      snap('a-earlier', { path: 's3://b/a', result: '2026-11-25T09:00:00.250Z' }),
      snap('b-whole', { path: 's3://b/b', result: '2026-11-25T09:00:00Z' }),
      snap('c-later', { path: 's3://b/c', result: '2026-11-25T09:00:00.900Z' }),
    ];
    const h = snapshotHistory(T, snapshots, {}, 10);
    expect(h.snapshots.map((s) => [s.name, s.at])).toEqual([
      ['c-later', Date.parse('2026-11-25T09:00:00.900Z')],
      ['a-earlier', Date.parse('2026-11-25T09:00:00.250Z')],
      ['b-whole', Date.parse('2026-11-25T09:00:00Z')],
    ]);
  });

  it('restore commands only for paths the parser accepts; never for the last-state placeholder', () => {
    expect(restoreCommand(T, 's3://b/sp-1')).toBe('restore prod/orders --from s3://b/sp-1');
    expect(restoreCommand({ ...T, kind: 'FlinkSessionJob' }, 's3://b/sp-1')).toBe(
      'restore sessionjob:prod/orders --from s3://b/sp-1',
    );
    expect(restoreCommand(T, 'KUBERNETES_OPERATOR_LAST_STATE')).toBeUndefined();
    expect(restoreCommand(T, 's3://b/with space')).toBeUndefined();
  });
});

describe('renderSavepoints', () => {
  const view: SavepointsView = {
    target: T,
    recorded: { path: 's3://b/upgrade-1', restore: 'restore prod/orders --from s3://b/upgrade-1' },
    snapshots: [
      {
        name: 'c',
        type: 'savepoint',
        state: 'COMPLETED',
        path: 's3://b/c',
        at: CTX.now - 60_000,
        timeSource: 'result',
        failures: 0,
        triggerType: 'MANUAL',
        restore: 'restore prod/orders --from s3://b/c',
      },
      {
        name: 'f',
        type: 'savepoint',
        state: 'FAILED',
        at: CTX.now - 120_000,
        timeSource: 'result',
        failures: 3,
        error: '{"type":"x","message":"Savepoint timed out"}',
      },
    ],
    total: 2,
    limit: 10,
  };

  it('shows the operator path first, then each snapshot with state, path, trigger, time and failures; COMPLETED with the restore command', () => {
    const m = renderSavepoints(view, CTX);
    expectValid(m);
    const text = visibleText(m);
    expect(text.indexOf('s3://b/upgrade-1')).toBeLessThan(text.indexOf('s3://b/c'));
    expect(text).toContain('/flink restore prod/orders --from s3://b/upgrade-1');
    expect(text).toContain('/flink restore prod/orders --from s3://b/c');
    expect(text).toContain('3 failures');
    expect(text).toContain('Savepoint timed out');
    expect(text).not.toContain('"message"');
  });

  it('100 snapshots with long paths stay within Slack limits', () => {
    const many = Array.from({ length: 100 }, (_, i) => ({
      ...view.snapshots[0]!,
      name: `s${i}`,
      path: `s3://b/${'p'.repeat(900)}${i}`,
    }));
    const m = renderSavepoints({ ...view, snapshots: many, total: 140, limit: 100 }, CTX);
    expectValid(m);
    expect(visibleText(m)).toMatch(/…and \d+ more/);
  });
});

describe('jobExceptions and renderExceptions', () => {
  const event = (
    n: number,
    at: string,
    o: { reason?: string; type?: string; message?: string; name?: string; count?: number } = {},
  ) => ({
    metadata: { name: `e${n}`, annotations: { 'exception-timestamp': at, 'task-name': `Map (${n}/4)` } },
    involvedObject: {
      kind: o.name === undefined ? 'FlinkDeployment' : 'FlinkSessionJob',
      name: 'orders',
      namespace: 'prod',
    },
    type: o.type ?? 'Warning',
    reason: o.reason ?? 'JobException',
    message: o.message ?? `java.lang.RuntimeException: failure ${n}\n\tat a.b(C.java:1)\n\tat d.e(F.java:2)`,
    count: o.count ?? 1,
    lastTimestamp: at,
  });

  it('JobException warnings of the target newest first, restarts, status.error as its message', () => {
    const events = [
      event(1, '2026-11-25T09:00:00Z'),
      event(3, '2026-11-25T09:40:00Z', { count: 2 }),
      event(2, '2026-11-25T09:20:00Z'),
      event(9, '2026-11-25T09:50:00Z', { name: 'session-job-of-the-same-name' }),
      event(4, '2026-11-25T09:45:00Z', {
        type: 'Normal',
        reason: 'JobStatusChanged',
        message: 'Job status changed from RUNNING to FAILED',
      }),
    ];
    const resource = {
      status: { error: '{"type":"org.apache.flink.runtime.JobException","message":"Recovery is suppressed"}' },
    };
    const found = jobExceptions(T, resource, events, 10);
    expect(found.exceptions.map((e) => e.headline)).toEqual([
      'java.lang.RuntimeException: failure 3',
      'java.lang.RuntimeException: failure 2',
      'java.lang.RuntimeException: failure 1',
    ]);
    expect(found).toMatchObject({
      total: 3,
      failovers: 4,
      error: 'Recovery is suppressed',
      restarts: [{ message: 'Job status changed from RUNNING to FAILED' }],
    });
    expect(found.exceptions[0]?.task).toBe('Map (3/4)');
  });

  it('long traces and many exceptions are cut to Slack limits, saying so', () => {
    const huge = 'x'.repeat(6000);
    const view: ExceptionsView = {
      target: T,
      exceptions: Array.from({ length: 100 }, (_, i) => ({
        at: CTX.now - i * 1000,
        task: `Task ${'t'.repeat(200)} ${i}`,
        headline: `java.lang.OutOfMemoryError: ${huge}`,
        message: `${huge}\n${'\tat x\n'.repeat(500)}`,
        count: 1,
        source: 'events' as const,
      })),
      total: 250,
      limit: 100,
      failovers: 250,
      restarts: Array.from({ length: 30 }, (_, i) => ({
        at: CTX.now - i,
        message: 'Job status changed from RUNNING to RESTARTING',
        count: 1,
      })),
      error: huge,
      jobState: 'RESTARTING',
      notes: ["Flink's REST API is not reachable from the bot"],
      flinkHistory: false,
    };
    const m = renderExceptions(view, CTX);
    expectValid(m);
    const text = visibleText(m);
    expect(text).toContain('more characters');
    expect(text).toContain('more lines not shown');
    expect(text).toMatch(/…and \d+ more/);
  });
});
