// The in-memory freeze store: the conformance suite, plus its exact trimming (Redis' is approximate by design).
import { describe, expect, it } from 'vitest';
import type { Target } from '../../../../src/domain/model/target.js';
import { MemoryFreezeStore } from '../../../../src/store/memory/freezes.js';
import { describeFreezeConformance } from '../../../support/conformance/freezes.js';

describeFreezeConformance('memory', async (now) => {
  const freezes = new MemoryFreezeStore({ now });
  // One object holds the data; racers still interleave between their awaits.
  return { freezes, racers: (n) => Array.from({ length: n }, () => freezes), cleanup: async () => undefined };
});

describe('MemoryFreezeStore', () => {
  const DAY = 24 * 60 * 60 * 1000;
  const orders: Target = { kind: 'FlinkDeployment', namespace: 'streaming-prod', name: 'orders' };

  it('drops every audit entry older than the retention at the next write, and refuses a short retention', async () => {
    let clock = 1_000_000;
    const freezes = new MemoryFreezeStore({ now: () => clock, retentionMs: 30 * DAY });
    await freezes.freeze(orders, { by: 'U0LEAD', reason: 'old', at: clock });
    clock += 30 * DAY + 1;
    await freezes.unfreeze(orders, 'U0LEAD');
    expect((await freezes.auditLog(10)).map((e) => e.what)).toEqual(['unfreeze']);
    expect(() => new MemoryFreezeStore({ retentionMs: DAY })).toThrow('at least');
  });
});
