// The record seal (docs/lifecycle.md#record-integrity).
import { describe, expect, it } from 'vitest';
import { RecordKey } from '../../../../src/config/record-key.js';
import type { OperationRecord } from '../../../../src/domain/engines/operation.js';
import { integrityProblem, resealed, sealedContent } from '../../../../src/domain/engines/record-seal.js';
import type { Target } from '../../../../src/domain/model/target.js';

const target: Target = { kind: 'FlinkDeployment', namespace: 'ns', name: 'orders' };
const key = RecordKey.fromSecret('k'.repeat(32));
const other = RecordKey.fromSecret('o'.repeat(32));

function record(): OperationRecord {
  return {
    id: 'op-abcdef1234',
    version: 1,
    kind: 'scale',
    intent: { kind: 'scale', target, parallelism: 9, incidentChannels: [] },
    target,
    requester: 'U0REQ',
    channel: 'C0',
    incidentChannels: [],
    approvals: [],
    state: 'ACCEPTED',
    createdAt: 0,
    updatedAt: 0,
    reenqueues: 0,
    history: [],
  } as OperationRecord;
}

describe('the record seal', () => {
  it('a new record is sealed and verifies; another key does not verify it', () => {
    const sealed = resealed(undefined, record(), key);
    expect(integrityProblem(sealed, key)).toBeUndefined();
    expect(integrityProblem(sealed, other)).toMatch(/the MAC does not match/);
  });

  it('a legitimate change of the sealed content is sealed again', () => {
    const sealed = resealed(undefined, record(), key);
    const vote = { user: 'U0LEAD', at: 1, planDigest: 'd'.repeat(64), countsFor: ['r'] };
    const next = resealed(sealed, { ...sealed, approvals: [vote] }, key);
    expect(next.mac).not.toBe(sealed.mac);
    expect(integrityProblem(next, key)).toBeUndefined();
  });

  it('a record altered behind the store is never laundered by a later commit', () => {
    const sealed = resealed(undefined, record(), key);
    const forged = { ...sealed, requester: 'U0EVIL' };
    const vote = { user: 'U0LEAD', at: 1, planDigest: 'd'.repeat(64), countsFor: ['r'] };
    const later = resealed(forged, { ...forged, approvals: [vote] }, key);
    expect(later.mac).toBe(sealed.mac);
    expect(integrityProblem(later, key)).toMatch(/the MAC does not match/);
  });

  it('the key never shows: JSON, string and inspection give a placeholder', () => {
    expect(JSON.stringify({ key })).toBe('{"key":"[RECORD_SIGNING_KEY]"}');
    expect(String(key)).toBe('[RECORD_SIGNING_KEY]');
    expect(sealedContent(record())).not.toContain('kkkk');
  });
});
