// The in-memory delivery state: the conformance suite on a clock the test moves, plus retention on that clock.
import { describe, expect, it } from 'vitest';
import { postField } from '../../../../src/store/delivery.js';
import { MemoryDeliveryState } from '../../../../src/store/memory/delivery.js';
import { describeDeliveryConformance } from '../../../support/conformance/delivery.js';

describeDeliveryConformance('memory', async () => {
  let clock = 1_000_000;
  const state = new MemoryDeliveryState({ now: () => clock });
  return {
    state,
    async lockExpired() {
      // The suite's short lock lasts 150 ms; a minute on the clock outlives it.
      clock += 60_000;
    },
    cleanup: async () => undefined,
  };
});

describe('MemoryDeliveryState', () => {
  it("keeps an operation's marks for the retention after its last write, then forgets them all", async () => {
    let clock = 0;
    const state = new MemoryDeliveryState({ now: () => clock, retentionMs: 1_000 });
    await state.setMark('op-retain01', postField(2), { state: 'done', ts: '1.1' });
    clock = 900;
    await state.raiseRendered('op-retain01', 3);
    clock = 1_800;
    expect((await state.read('op-retain01')).marks.size).toBe(1);
    clock = 1_900;
    expect(await state.read('op-retain01')).toEqual({ renderedSeq: 0, permalink: undefined, marks: new Map() });
  });
});
