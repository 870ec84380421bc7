// The break-glass index conformance suite: the same worklist tests for every BreakGlassIndex implementation
// (docs/policy.md#break-glass; Redis in test/integration/store, memory in test/unit/store/memory).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BreakGlassIndex } from '../../../src/app/ports/break-glass.js';

export interface BreakGlassHarness {
  index: BreakGlassIndex;
  cleanup(): Promise<void>;
}

export function describeBreakGlassConformance(name: string, factory: () => Promise<BreakGlassHarness>): void {
  describe(`break-glass index conformance: ${name}`, () => {
    let h: BreakGlassHarness;
    beforeEach(async () => {
      h = await factory();
    });
    afterEach(async () => h.cleanup());

    it('lists what was added, oldest first, and forgets what was removed', async () => {
      expect(await h.index.list()).toEqual([]);
      await h.index.add('op-glass0b', 2_000);
      await h.index.add('op-glass0a', 1_000);
      await h.index.add('op-glass0c', 3_000);
      expect(await h.index.list()).toEqual([
        { id: 'op-glass0a', at: 1_000 },
        { id: 'op-glass0b', at: 2_000 },
        { id: 'op-glass0c', at: 3_000 },
      ]);
      await h.index.remove('op-glass0b');
      await h.index.remove('op-notthere');
      expect((await h.index.list()).map((i) => i.id)).toEqual(['op-glass0a', 'op-glass0c']);
    });

    it('holds an id once: adding it again moves it to its new time; equal times list by id', async () => {
      await h.index.add('op-glass0b', 1_000);
      await h.index.add('op-glass0a', 1_000);
      await h.index.add('op-glass0c', 500);
      await h.index.add('op-glass0c', 4_000);
      expect(await h.index.list()).toEqual([
        { id: 'op-glass0a', at: 1_000 },
        { id: 'op-glass0b', at: 1_000 },
        { id: 'op-glass0c', at: 4_000 },
      ]);
    });
  });
}
