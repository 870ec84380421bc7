// The audit trail of a process (src/audit/trail.ts): events of no operation change get an id and a time, go into the
// chain and out as one stdout line each (with the opId when they name an operation); a chain that cannot be written
// is an error line, never a thrown fault for the caller of recordQuietly.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { AuditTrail, policyLoadRecord } from '../../../src/audit/trail.js';
import type { AuditLog } from '../../../src/app/ports/audit-log.js';
import { verifyChain } from '../../../src/domain/kit/audit/verify.js';
import { createLogger } from '../../../src/log.js';
import { MemoryAuditLog } from '../../../src/store/memory/audit-log.js';
import { acceptedRecord } from '../../support/records.js';

const NOW = Date.UTC(2030, 0, 7, 9, 0, 0);

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, logger: createLogger('warn', stream) };
}

describe('AuditTrail', () => {
  it('records a policy load with the file and its SHA-256, writes its line, and chains what follows', async () => {
    const log = new MemoryAuditLog({ now: () => NOW });
    const { lines, logger } = capture();
    const trail = new AuditTrail({ log, logger, now: () => NOW });
    const sha256 = 'ab'.repeat(32);
    const loaded = await trail.record(policyLoadRecord({ path: '/etc/p.yaml', accepted: true, sha256, problems: [] }));
    expect(loaded).toMatchObject({
      seq: 1,
      action: 'policy_loaded',
      at: new Date(NOW).toISOString(),
      actor: { user: 'system', team: 'unknown' },
      decision: { file: '/etc/p.yaml', sha256 },
    });
    expect(loaded.id).toMatch(/^aud-[0-9a-f]{20}$/);
    const rejected = await trail.record(
      policyLoadRecord({ path: '/etc/p.yaml', accepted: false, sha256, problems: ['rules[0].name: missing'] }),
    );
    expect(rejected).toMatchObject({ seq: 2, action: 'policy_rejected', prevHash: loaded.hash });
    expect(rejected.decision).toMatchObject({ problems: ['rules[0].name: missing'] });
    expect(lines.map((l) => l.event)).toEqual([loaded, rejected]);
    expect(verifyChain([loaded, rejected].map((e) => JSON.stringify(e))).ok).toBe(true);
  });

  it('drafts an operation change with fresh ids and writes each line with the opId', () => {
    const { lines, logger } = capture();
    const trail = new AuditTrail({ log: new MemoryAuditLog(), logger });
    const record = acceptedRecord();
    const [first] = trail.drafts(record, record.history);
    const [again] = trail.drafts(record, record.history);
    expect(first?.id).not.toBe(again?.id);
    const sealed = new MemoryAuditLog().appendNow(first!);
    trail.written([sealed]);
    expect(lines).toEqual([expect.objectContaining({ opId: record.id, audit: true, event: sealed })]);
  });

  it("writes the lines where `lines` says (the sandbox's file), none to the process's logger", async () => {
    const process = capture();
    const file = capture();
    const trail = new AuditTrail({ log: new MemoryAuditLog(), logger: process.logger, lines: file.logger });
    const record = acceptedRecord();
    const sealed = new MemoryAuditLog().appendNow(trail.drafts(record, record.history)[0]!);
    trail.written([sealed]);
    const frozen = await trail.record({ actor: { user: 'U0ALICE', team: 'T0ACME' }, action: 'frozen' });
    expect(file.lines).toEqual([
      expect.objectContaining({ opId: record.id, audit: true, event: sealed }),
      expect.objectContaining({ audit: true, event: frozen }),
    ]);
    expect(process.lines).toEqual([]);
  });

  it('logs an event it could not append as an error, naming the action, when asked quietly', async () => {
    const { lines, logger } = capture();
    const broken: AuditLog = {
      append: () => Promise.reject(new Error('READONLY You can not write against a read only replica.')),
      head: () => Promise.reject(new Error('unused')),
      readAfter: () => Promise.reject(new Error('unused')),
      range: () => ({ [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new Error('unused')) }) }),
    };
    const trail = new AuditTrail({ log: broken, logger });
    await trail.recordQuietly({ actor: { user: 'U0ALICE', team: 'T0ACME' }, action: 'frozen' });
    expect(lines).toEqual([
      expect.objectContaining({ level: 'error', action: 'frozen', msg: 'could not append an audit event' }),
    ]);
  });
});
