// The shared-readings conformance suite: the same turn-taking tests for every SharedReadings implementation
// (docs/alerts.md#cost; Redis in test/integration/store, memory in test/unit/store/memory). Both run on the real
// clock, so a turn's end is awaited, never assumed.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SharedReadings } from '../../../src/app/ports/shared-readings.js';
import { eventually } from '../poll.js';

export interface SharedReadingsHarness {
  readings: SharedReadings;
  cleanup(): Promise<void>;
}

const READING = {
  at: 1_700_000_000_000,
  value: { jobId: 'a'.repeat(32), numRestarts: 2, checkpoints: { counts: {} } },
};

export function describeSharedReadingsConformance(name: string, factory: () => Promise<SharedReadingsHarness>): void {
  describe(`shared readings conformance: ${name}`, () => {
    let h: SharedReadingsHarness;
    beforeEach(async () => {
      h = await factory();
    });
    afterEach(async () => h.cleanup());

    it('the first caller takes the turn; the others get nothing until it puts its reading, then that reading', async () => {
      expect(await h.readings.turn('job-a', 60_000)).toEqual({ mine: true });
      expect(await h.readings.turn('job-a', 60_000)).toEqual({ mine: false });
      await h.readings.put('job-a', READING, 120_000);
      expect(await h.readings.turn('job-a', 60_000)).toEqual({ mine: false, reading: READING });
      // Another key has a turn of its own.
      expect(await h.readings.turn('job-b', 60_000)).toEqual({ mine: true });
    });

    it('of many callers at once exactly one takes the turn', async () => {
      const turns = await Promise.all(Array.from({ length: 12 }, () => h.readings.turn('job-c', 60_000)));
      expect(turns.filter((t) => t.mine)).toHaveLength(1);
    });

    it('the turn ends with its interval: the next caller takes it and still finds the last reading kept', async () => {
      expect(await h.readings.turn('job-d', 150)).toEqual({ mine: true });
      await h.readings.put('job-d', READING, 60_000);
      expect(await h.readings.turn('job-d', 150)).toEqual({ mine: false, reading: READING });
      await eventually('the turn to end', async () => (await h.readings.turn('job-d', 60_000)).mine);
      expect(await h.readings.turn('job-d', 60_000)).toEqual({ mine: false, reading: READING });
    });

    it('a reading goes once kept for its time, even while the turn lasts', async () => {
      expect(await h.readings.turn('job-e', 60_000)).toEqual({ mine: true });
      await h.readings.put('job-e', READING, 150);
      expect(await h.readings.turn('job-e', 60_000)).toEqual({ mine: false, reading: READING });
      await eventually('the reading to go', async () => !('reading' in (await h.readings.turn('job-e', 60_000))));
      expect(await h.readings.turn('job-e', 60_000)).toEqual({ mine: false });
    });
  });
}
