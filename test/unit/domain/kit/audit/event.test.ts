// The audit event (src/domain/kit/audit/event.ts): the action list, the hash over canonical JSON, sealing into the
// chain, ids, and strict reading that names the first field out of shape.
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  AUDIT_ACTIONS,
  AUDIT_SCHEMA,
  GENESIS_HASH,
  hashOf,
  newAuditId,
  readEvent,
  sealEvent,
  type AuditDraft,
  type AuditEvent,
} from '../../../../../src/domain/kit/audit/event.js';

const AT = '2025-03-14T09:26:53.589Z';
const draft = (over: Partial<AuditDraft> = {}): AuditDraft => ({
  id: 'aud-00112233445566778899',
  at: AT,
  actor: { user: 'U0ALICE', team: 'T0ACME' },
  action: 'requested',
  ...over,
});

const full: AuditDraft = draft({
  actor: { user: 'U0ALICE', team: 'T0ACME', enterprise: 'E0GRID', name: 'alice' },
  action: 'submitted',
  op: {
    id: 'op-k3j5h2m9q1',
    kind: 'scale',
    cluster: 'prod-eu',
    namespace: 'streaming-prod',
    name: 'orders',
    uid: '6f1c2d3e-0000-4000-8000-000000000001',
    reason: 'Black Friday',
    incident: 'INC-42',
  },
  change: { patch: [{ op: 'replace', path: '/spec/job/parallelism', value: 8 }], before: { generation: 3 } },
  decision: { rule: 'prod-needs-a-lead', approvals: ['U0LEAD1'] },
  evidence: { summary: 'all 3 vertices at parallelism 8' },
});

describe('the audit actions', () => {
  it('are exactly the closed list of the audit trail, in order', () => {
    expect(AUDIT_ACTIONS).toEqual([
      'requested',
      'denied',
      'awaiting_approval',
      'approved',
      'approval_refused',
      'rejected',
      'expired',
      'cancelled',
      'scheduled',
      'queued',
      'submitting',
      'submitted',
      'uncertain',
      'completed',
      'failed',
      'timed_out',
      'aborted',
      'break_glass',
      'reviewed',
      'reverted',
      'frozen',
      'unfrozen',
      'policy_loaded',
      'policy_rejected',
      'gitops_paused',
      'gitops_resumed',
    ]);
  });

  it.each(AUDIT_ACTIONS)('%s seals and reads back', (action) => {
    expect(readEvent(sealEvent(draft({ action }))).ok).toBe(true);
  });
});

describe('hashOf', () => {
  it('is the hex SHA-256 of the canonical JSON of the event without its hash', () => {
    const event = sealEvent(draft());
    const canonical =
      '{"action":"requested","actor":{"team":"T0ACME","user":"U0ALICE"},"at":"2025-03-14T09:26:53.589Z",' +
      `"id":"aud-00112233445566778899","prevHash":"${GENESIS_HASH}","schema":"flink-chatops.audit/v1","seq":1}`;
    const expected = createHash('sha256').update(canonical, 'utf8').digest('hex');
    expect(event.hash).toBe(expected);
    expect(hashOf(event)).toBe(expected);
  });

  it('does not depend on the order of members, and changes with any field', () => {
    const event = sealEvent(full);
    const reordered = JSON.parse(JSON.stringify(Object.fromEntries(Object.entries(event).reverse()))) as AuditEvent;
    expect(hashOf(reordered)).toBe(event.hash);
    expect(hashOf({ ...event, seq: 2 })).not.toBe(event.hash);
    expect(hashOf({ ...event, op: { ...event.op!, name: 'payments' } })).not.toBe(event.hash);
    expect(hashOf({ ...event, evidence: { summary: 'all 3 vertices at parallelism 9' } })).not.toBe(event.hash);
  });
});

describe('sealEvent', () => {
  it('starts a chain at seq 1 on the genesis hash, and links each next event to the one before', () => {
    const first = sealEvent(draft());
    expect(GENESIS_HASH).toBe('0000000000000000000000000000000000000000000000000000000000000000');
    expect(first).toMatchObject({ schema: AUDIT_SCHEMA, seq: 1, prevHash: GENESIS_HASH });
    const second = sealEvent(draft({ id: 'aud-ffffffffffffffffffff', action: 'approved' }), first);
    expect(second).toMatchObject({ seq: 2, prevHash: first.hash, action: 'approved' });
    const third = sealEvent(draft({ id: 'aud-0000000000000000000a' }), { seq: 41, hash: second.hash });
    expect(third).toMatchObject({ seq: 42, prevHash: second.hash });
    expect(new Set([first.hash, second.hash, third.hash]).size).toBe(3);
  });

  it('writes fields in the schema order and leaves absent ones out, so a JSON line reads back to the same hash', () => {
    const event = sealEvent(draft({ op: undefined }), undefined);
    expect(Object.keys(event)).toEqual(['schema', 'id', 'seq', 'at', 'actor', 'action', 'prevHash', 'hash']);
    expect(Object.keys(sealEvent(full))).toEqual([
      'schema',
      'id',
      'seq',
      'at',
      'actor',
      'action',
      'op',
      'change',
      'decision',
      'evidence',
      'prevHash',
      'hash',
    ]);
    const line = JSON.parse(JSON.stringify(sealEvent(full))) as AuditEvent;
    expect(hashOf(line)).toBe(line.hash);
  });

  it('keeps its own copy: changing the draft afterwards does not change the sealed event', () => {
    const mine = draft({ change: { replicas: 2 } });
    const event = sealEvent(mine);
    mine.actor.user = 'U0MALLORY';
    (mine.change as { replicas: number }).replicas = 3;
    expect(event.actor.user).toBe('U0ALICE');
    expect(event.change).toEqual({ replicas: 2 });
    expect(hashOf(event)).toBe(event.hash);
  });

  it.each([
    ['an unknown action', draft({ action: 'deleted' as never }), 'sealEvent: action: unknown action "deleted"'],
    ['a local time', draft({ at: '2025-03-14T10:26:53+01:00' }), 'sealEvent: at: must be a UTC time'],
    ['a malformed id', draft({ id: 'op-123' }), 'sealEvent: id: must be "aud-" and 20 lowercase hex characters'],
    ['an empty actor', draft({ actor: { user: '', team: 'T' } }), 'sealEvent: actor.user: must not be empty'],
    ['a change that is not JSON', draft({ change: { at: new Date(0) } as never }), 'sealEvent: change.at'],
  ])('refuses a draft with %s, naming the field', (_name, bad, message) => {
    expect(() => sealEvent(bad)).toThrow(message);
  });
});

describe('readEvent', () => {
  const valid = JSON.parse(JSON.stringify(sealEvent(full))) as Record<string, unknown>;
  const without = (field: string) => Object.fromEntries(Object.entries(valid).filter(([key]) => key !== field));

  it('accepts an event with every optional field, returning it as it is', () => {
    expect(readEvent(valid)).toEqual({ ok: true, event: valid });
    expect(readEvent(sealEvent(draft())).ok).toBe(true);
  });

  it.each([
    ['not an object', 'requested', 'the event must be a JSON object'],
    ['a list', [valid], 'the event must be a JSON object'],
    ['null', null, 'the event must be a JSON object'],
    ['an unknown action', { ...valid, action: 'deleted' }, 'action: unknown action "deleted"'],
    ['an action of the wrong type', { ...valid, action: 7 }, 'action: must be a string'],
    ['another schema', { ...valid, schema: 'flink-chatops.audit/v2' }, 'schema: must be "flink-chatops.audit/v1"'],
    ['no schema', without('schema'), 'schema: missing'],
    ['no id', without('id'), 'id: missing'],
    ['no seq', without('seq'), 'seq: missing'],
    ['no at', without('at'), 'at: missing'],
    ['no actor', without('actor'), 'actor: missing'],
    ['no prevHash', without('prevHash'), 'prevHash: missing'],
    ['no hash', without('hash'), 'hash: missing'],
    ['a seq as text', { ...valid, seq: '3' }, 'seq: must be a number'],
    ['a fractional seq', { ...valid, seq: 2.5 }, 'seq: must be a whole number'],
    ['seq 0', { ...valid, seq: 0 }, 'seq: must be 1 or more'],
    ['an impossible date', { ...valid, at: '2025-02-30T00:00:00.000Z' }, 'at: must be a UTC time'],
    ['a date without time', { ...valid, at: '2025-03-14' }, 'at: must be a UTC time'],
    ['an actor without team', { ...valid, actor: { user: 'U1' } }, 'actor.team: missing'],
    [
      'an unknown actor field',
      { ...valid, actor: { user: 'U1', team: 'T1', mail: 'a@b' } },
      'actor.mail: unknown field',
    ],
    ['an op without kind', { ...valid, op: { ...(valid.op as object), kind: undefined } }, 'op.kind: missing'],
    ['an op uid as number', { ...valid, op: { ...(valid.op as object), uid: 5 } }, 'op.uid: must be a string'],
    ['an op of null', { ...valid, op: null }, 'op: must be an object'],
    ['a change as a list', { ...valid, change: [1] }, 'change: must be an object'],
    ['a decision as text', { ...valid, decision: 'allowed' }, 'decision: must be an object'],
    ['an unknown field', { ...valid, comment: 'hi' }, 'comment: unknown field'],
    ['an upper-case hash', { ...valid, hash: (valid.hash as string).toUpperCase() }, 'hash: must be 64 lowercase hex'],
    ['a short prevHash', { ...valid, prevHash: 'abc' }, 'prevHash: must be 64 lowercase hex'],
  ])('refuses %s, naming the field', (_name, value, problem) => {
    const result = readEvent(value);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problem).toContain(problem);
  });
});

describe('newAuditId', () => {
  it('is aud- and 20 hex characters of the given random bytes', () => {
    expect(newAuditId((size) => Uint8Array.from({ length: size }, (_, i) => i * 17))).toBe('aud-00112233445566778899');
    const ids = new Set(Array.from({ length: 200 }, () => newAuditId((size) => randomBytes(size))));
    expect(ids.size).toBe(200);
    for (const id of ids) expect(readEvent(sealEvent(draft({ id }))).ok).toBe(true);
  });

  it('refuses a random source that gives too few bytes', () => {
    expect(() => newAuditId(() => new Uint8Array(3))).toThrow('newAuditId: the random source gave 3 bytes');
  });
});
