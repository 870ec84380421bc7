// The in-memory operation store: the conformance suite, plus what only a clock-driven twin shows (records expire).
import { describe, expect, it } from 'vitest';
import type { Target } from '../../../../src/domain/model/target.js';
import { MemoryOperationStore } from '../../../../src/store/memory/operations.js';
import { describeOperationStoreConformance } from '../../../support/conformance/operation-store.js';
import { describeOperationAuditConformance } from '../../../support/conformance/operation-audit.js';
import { MemoryAuditLog } from '../../../../src/store/memory/audit-log.js';

describeOperationStoreConformance('memory', async (now) => {
  const store = new MemoryOperationStore({ now });
  return {
    store,
    make: (opts) => store.replica({ now, ...opts }),
    // Nothing interleaves inside a commit, so racers are replicas whose reads and commits interleave between awaits.
    racers: (n) => Array.from({ length: n }, () => store.replica({ now })),
    cleanup: async () => undefined,
  };
});

describeOperationAuditConformance('memory', async (now) => {
  const log = new MemoryAuditLog({ now });
  const store = new MemoryOperationStore({ now });
  return {
    stores: (n, auditing) => Array.from({ length: n }, () => store.replica({ now, audit: { auditing, log } })),
    log,
    cleanup: async () => undefined,
  };
});

describe('MemoryOperationStore', () => {
  const target: Target = { kind: 'FlinkDeployment', namespace: 'streaming-prod', name: 'orders' };
  const DAY = 24 * 60 * 60 * 1000;

  it('lets a terminal record expire after the retention on its clock, an active one never', async () => {
    let clock = 1_000_000;
    const store = new MemoryOperationStore({ now: () => clock, retentionMs: 30 * DAY });
    const fields = (id: string) => ({
      id,
      kind: 'restart' as const,
      intent: { kind: 'restart' as const, target, incidentChannels: [] },
      target,
      requester: 'U0REQ',
      channel: 'C0OPS',
      incidentChannels: [],
    });
    await store.create(fields('op-expire1'), 'U0REQ');
    await store.create(fields('op-active1'), 'U0REQ');
    await store.transition('op-expire1', { from: ['ACCEPTED'], to: 'DENIED', actor: 'system', role: 'bot' });
    clock += 30 * DAY - 1;
    expect((await store.get('op-expire1'))?.state).toBe('DENIED');
    clock += 1;
    expect(await store.get('op-expire1')).toBeUndefined();
    expect(await store.getMany(['op-expire1', 'op-active1'])).toMatchObject([{ id: 'op-active1' }]);
    expect(await store.apply('op-expire1', () => ({ entries: [] }))).toEqual({
      ok: false,
      reason: 'op-expire1 not found',
    });
  });
});
