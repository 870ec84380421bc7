// The audit lines on stdout (src/audit/stdout.ts): one pino line per event, `audit: true`, the event whole under
// `event`, through the project's own logger and its redaction, at info whatever the level but silent.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { auditLine } from '../../../src/audit/stdout.js';
import { hashOf, sealEvent, type AuditEvent } from '../../../src/domain/kit/audit/event.js';
import { createLogger, forOperation } from '../../../src/log.js';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  return { lines, stream };
}

/** An event with every field, and values a careless logger would touch: a token-like string, nested secrets' names. */
function submitted(): AuditEvent {
  const first = sealEvent({
    id: 'aud-00000000000000000001',
    at: '2025-03-14T09:26:53.589Z',
    actor: { user: 'U0ALICE', team: 'T0ACME' },
    action: 'requested',
  });
  return sealEvent(
    {
      id: 'aud-3f09c2a1d45e6b7f8091',
      at: '2025-03-14T09:27:00.000Z',
      actor: { user: 'U0ALICE', team: 'T0ACME', enterprise: 'E0GRID', name: 'Alice' },
      action: 'submitted',
      op: { id: 'op-1', kind: 'scale', cluster: 'prod', namespace: 'flink', name: 'orders', uid: 'u-1', reason: 'x' },
      change: {
        patch: [{ op: 'replace', path: '/spec/job/parallelism', value: 4 }],
        before: { resourceVersion: '10', generation: 3 },
        after: { resourceVersion: '11', generation: 4 },
        note: 'asked with xoxb-not-a-real-token in the text',
      },
      decision: { rule: 'scale-up', approvals: ['U0LEAD1'] },
    },
    first,
  );
}

describe('auditLine', () => {
  it('writes one info line with audit: true, msg "audit" and the event whole and unchanged', () => {
    const { lines, stream } = capture();
    const event = submitted();
    auditLine(createLogger('info', stream), event);
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0] as string) as Record<string, unknown>;
    expect(line).toMatchObject({ level: 'info', msg: 'audit', audit: true, app: 'flink-chatops' });
    expect(line.event).toStrictEqual(event);
    const shipped = line.event as AuditEvent;
    expect(hashOf(shipped)).toBe(event.hash);
  });

  it('keeps the event whole on a child logger with an opId, and leaves the caller’s object as it was', () => {
    const { lines, stream } = capture();
    const event = submitted();
    const copy = structuredClone(event);
    auditLine(forOperation(createLogger('info', stream), 'op-1'), event);
    const line = JSON.parse(lines[0] as string) as Record<string, unknown>;
    expect(line.opId).toBe('op-1');
    expect(line.event).toStrictEqual(copy);
    expect(event).toStrictEqual(copy);
  });

  it('writes at info even when LOG_LEVEL is quieter, and nothing when it is silent', () => {
    const quiet = capture();
    const logger = createLogger('error', quiet.stream);
    logger.info('not shown');
    auditLine(logger, submitted());
    auditLine(logger, submitted());
    expect(quiet.lines.map((l) => (JSON.parse(l) as { level: string; msg: string }).msg)).toEqual(['audit', 'audit']);
    expect(JSON.parse(quiet.lines[0] as string)).toMatchObject({ level: 'info', audit: true });
    const silent = capture();
    auditLine(createLogger('silent', silent.stream), submitted());
    expect(silent.lines).toEqual([]);
  });
});
