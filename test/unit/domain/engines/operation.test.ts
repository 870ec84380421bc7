// The pure change rules the store commits (docs/lifecycle.md#records-and-the-event-stream): applying a decided change
// to a record, and operation ids. The transition table itself is tested in test/unit/domain/model/lifecycle.test.ts.
import { describe, expect, it } from 'vitest';
import {
  applyChange,
  initialRecord,
  newOperationId,
  type OperationRecord,
} from '../../../../src/domain/engines/operation.js';
import { isOrdered, type OperationState } from '../../../../src/domain/model/lifecycle.js';
import { OP_ID_PATTERN } from '../../../../src/domain/kit/language/intent-base.js';

const target = { kind: 'FlinkDeployment', namespace: 'streaming-dev', name: 'orders' } as const;

function record(state: OperationState, extra: Partial<OperationRecord> = {}): OperationRecord {
  const base = initialRecord(
    {
      id: 'op-abc123',
      kind: 'restart',
      intent: { kind: 'restart', target, incidentChannels: [] },
      target,
      requester: 'U1',
      channel: 'C1',
      incidentChannels: [],
      approvals: [],
      reenqueues: 0,
    },
    'U1',
    1000,
  );
  return { ...base, state, ...extra };
}

const approval = { user: 'U2', at: 1, planDigest: 'abc', countsFor: ['r'] };

describe('applyChange', () => {
  it('numbers entries after the history, records the previous state and bumps the version', () => {
    const outcome = applyChange(
      record('ACCEPTED'),
      {
        entries: [
          { type: 'state', name: 'QUEUED', actor: 'U1', role: 'bot', detail: { why: 'allowed' } },
          { type: 'note', name: 'hello', actor: 'U1' },
        ],
      },
      2000,
    );
    expect(outcome).toMatchObject({ ok: true, order: 'join' });
    if (!outcome.ok) return;
    expect(outcome.entries).toEqual([
      { seq: 2, type: 'state', name: 'QUEUED', actor: 'U1', at: 2000, detail: { why: 'allowed', from: 'ACCEPTED' } },
      { seq: 3, type: 'note', name: 'hello', actor: 'U1', at: 2000, detail: {} },
    ]);
    expect(outcome.record).toMatchObject({ version: 2, state: 'QUEUED', updatedAt: 2000 });
    expect(outcome.record.history).toHaveLength(3);
  });

  it.each([
    { from: 'ACCEPTED', to: 'QUEUED', role: 'bot', order: 'join' },
    { from: 'AWAITING_APPROVAL', to: 'QUEUED', role: 'bot', order: 'join' },
    { from: 'QUEUED', to: 'SUBMITTING', role: 'worker', order: 'stay' },
    { from: 'QUEUED', to: 'AWAITING_APPROVAL', role: 'worker', order: 'leave' },
    { from: 'QUEUED', to: 'CANCELLED', role: 'bot', order: 'leave' },
    { from: 'SUBMITTED', to: 'COMPLETED', role: 'worker', order: 'leave' },
    { from: 'ACCEPTED', to: 'DENIED', role: 'bot', order: 'stay' },
    { from: 'ACCEPTED', to: 'SCHEDULED', role: 'bot', order: 'stay' },
    { from: 'SCHEDULED', to: 'QUEUED', role: 'sweep', order: 'join' },
    { from: 'QUEUED', to: 'SCHEDULED', role: 'worker', order: 'leave' },
  ] as const)('$from → $to moves the FIFO order: $order', ({ from, to, role, order }) => {
    const outcome = applyChange(record(from), { entries: [{ type: 'state', name: to, actor: 'x', role }] }, 1);
    expect(outcome).toMatchObject({ ok: true, order });
    expect(isOrdered(to)).toBe(order === 'join' || (order === 'stay' && isOrdered(from)));
  });

  it('voids approvals on entering AWAITING_APPROVAL, even when the change sets some', () => {
    const outcome = applyChange(
      record('AWAITING_APPROVAL', { approvals: [approval] }),
      {
        set: { approvals: [approval], expiresAt: 5 },
        entries: [{ type: 'state', name: 'AWAITING_APPROVAL', actor: 'U1', role: 'bot' }],
      },
      1,
    );
    expect(outcome.ok && outcome.record.approvals).toEqual([]);
    expect(outcome.ok && outcome.record.expiresAt).toBe(5);
  });

  it('checks a chain of transitions step by step and refuses all of it when one step is illegal', () => {
    const chain = applyChange(
      record('ACCEPTED'),
      {
        entries: [
          { type: 'state', name: 'QUEUED', actor: 'U1', role: 'bot' },
          { type: 'state', name: 'COMPLETED', actor: 'w', role: 'worker' },
        ],
      },
      1,
    );
    expect(chain).toEqual({
      ok: false,
      reason: 'op-abc123 is QUEUED now; QUEUED → COMPLETED is not a legal transition',
    });
    const role = applyChange(
      record('QUEUED'),
      { entries: [{ type: 'state', name: 'CANCELLED', actor: 'w', role: 'worker' }] },
      1,
    );
    expect(role).toEqual({
      ok: false,
      reason: 'op-abc123 is QUEUED now; QUEUED → CANCELLED is written by the bot, not the worker',
    });
  });

  it.each([
    {
      name: 'an unknown field',
      change: { set: { state: 'COMPLETED' }, entries: [] },
      message: '"state" cannot be set',
    },
    {
      name: 'an unknown type',
      change: { entries: [{ type: 'shout', name: 'x', actor: 'U1' }] },
      message: 'unknown history entry type "shout"',
    },
    {
      name: 'an unknown state',
      change: { entries: [{ type: 'state', name: 'DONE', actor: 'U1', role: 'bot' }] },
      message: '"DONE" is not an operation state',
    },
    {
      name: 'no role',
      change: { entries: [{ type: 'state', name: 'QUEUED', actor: 'U1' }] },
      message: "needs the writer's role",
    },
    { name: 'no actor', change: { entries: [{ type: 'note', name: 'x', actor: ' ' }] }, message: 'needs an actor' },
    {
      name: 'a non-object detail',
      change: { entries: [{ type: 'note', name: 'x', actor: 'U1', detail: [1] }] },
      message: 'must be a JSON object',
    },
  ])('throws a clear message on $name', ({ change, message }) => {
    expect(() => applyChange(record('ACCEPTED'), change as never, 1)).toThrow(message);
  });
});

describe('newOperationId', () => {
  it('is op- and 10 base36 characters, matching OP_ID_PATTERN', () => {
    const bytes = Uint8Array.from({ length: 10 }, (_, i) => i * 25);
    expect(newOperationId(() => bytes)).toBe('op-0pe3sh6vk9');
    expect(newOperationId(() => bytes)).toMatch(OP_ID_PATTERN);
  });

  it('drops bytes that would bias the alphabet (≥ 252) and asks for more', () => {
    const calls = [Uint8Array.from([255, 252, 0, 35]), Uint8Array.from([253, 1, 2, 3, 4, 5, 6, 7, 8, 9])];
    expect(newOperationId(() => calls.shift() ?? new Uint8Array([0]))).toBe('op-0z12345678');
  });

  it('throws rather than loop when the random source gives nothing usable', () => {
    expect(() => newOperationId(() => new Uint8Array())).toThrow('no usable bytes');
    expect(() => newOperationId(() => Uint8Array.from([255]))).toThrow('no usable bytes');
  });
});
