// The record seal and the declared-fields guard (docs/lifecycle.md#record-integrity).
import { describe, expect, it } from 'vitest';
import { RecordKey } from '../../../src/config/record-key.js';
import type { OperationRecord } from '../../../src/domain/engines/operation.js';
import { undeclaredWrites } from '../../../src/domain/engines/planning/declared-fields.js';
import { integrityProblem, resealed, sealedContent } from '../../../src/domain/engines/record-seal.js';
import type { Target } from '../../../src/domain/model/target.js';

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

describe('the declared-fields guard', () => {
  const patch = (spec: Record<string, unknown>) => ({
    type: 'patch' as const,
    patch: { metadata: { annotations: { 'flink-chatops/operation-id': 'op-x' } }, spec },
  });

  it('a scale may write its parallelism and the bot annotations, nothing else', () => {
    expect(undeclaredWrites('scale', undefined, patch({ job: { parallelism: 9 } }), target)).toEqual([]);
    expect(
      undeclaredWrites(
        'scale',
        undefined,
        patch({ job: { parallelism: 9 }, image: 'evil:1', podTemplate: { spec: { containers: [] } } }),
        target,
      ),
    ).toEqual(['spec.image', 'spec.podTemplate.spec.containers']);
  });

  it('config writes any key under flinkConfiguration; a foreign annotation is refused', () => {
    expect(undeclaredWrites('config', undefined, patch({ flinkConfiguration: { 'a.b': '1' } }), target)).toEqual([]);
    const foreign = { type: 'patch' as const, patch: { metadata: { annotations: { 'other/x': 'y' } } } };
    expect(undeclaredWrites('config', undefined, foreign, target)).toEqual(['metadata.annotations.other/x']);
  });

  it("an undo writes what the undone kind's undo restores (undo of a suspend, judged as resume)", () => {
    const change = patch({ job: { state: 'running', upgradeMode: 'savepoint' } });
    expect(undeclaredWrites('undo', 'resume', change, target)).toEqual([]);
    expect(undeclaredWrites('undo', 'resume', patch({ image: 'x' }), target)).toEqual(['spec.image']);
  });
});
