// sharedRead (docs/alerts.md#cost): of the replicas asking within an interval one reads and shares, the others get its
// reading; a store that fails leaves each replica reading alone, never without a reading.
import { describe, expect, it } from 'vitest';
import type { SharedReadings } from '../../../src/app/ports/shared-readings.js';
import { createLogger } from '../../../src/log.js';
import { MemorySharedReadings } from '../../../src/store/memory/shared-readings.js';
import { lookAgainMs, sharedRead } from '../../../src/worker/shared-read.js';

const T0 = Date.UTC(2030, 2, 1, 12, 0, 0);
const logger = createLogger('silent');

function replicas(readings: SharedReadings | undefined, now: () => number) {
  const reads: string[] = [];
  const replica = (name: string) => () =>
    sharedRead({
      readings,
      key: 'alerts:eu:job',
      intervalMs: 60_000,
      now,
      logger,
      read: async () => {
        reads.push(name);
        return { numRestarts: reads.length, by: name };
      },
    });
  return { reads, a: replica('a'), b: replica('b') };
}

describe('sharedRead', () => {
  it('one read per interval: the replica with the turn reads, the other gets its reading', async () => {
    let now = T0;
    const { reads, a, b } = replicas(new MemorySharedReadings(() => now), () => now);
    expect(await a()).toEqual({ at: T0, value: { numRestarts: 1, by: 'a' } });
    now += 10_000;
    expect(await b()).toEqual({ at: T0, value: { numRestarts: 1, by: 'a' } });
    expect(await a()).toEqual({ at: T0, value: { numRestarts: 1, by: 'a' } });
    expect(reads).toEqual(['a']);
    // The next interval: whoever asks first reads.
    now = T0 + 60_000;
    expect(await b()).toEqual({ at: now, value: { numRestarts: 2, by: 'b' } });
    expect(await a()).toEqual({ at: now, value: { numRestarts: 2, by: 'b' } });
    expect(reads).toEqual(['a', 'b']);
  });

  it('nothing while the holder of the turn has not shared its reading yet', async () => {
    let now = T0;
    const readings = new MemorySharedReadings(() => now);
    expect(await readings.turn('alerts:eu:job', 60_000)).toEqual({ mine: true });
    const { reads, b } = replicas(readings, () => now);
    now += 5_000;
    expect(await b()).toBeUndefined();
    expect(reads).toEqual([]);
    // It asks again once the holder's read is surely over, never later than the next interval.
    expect(lookAgainMs(60_000)).toBe(5_000);
    expect(lookAgainMs(500)).toBe(500);
  });

  it('without a store, or with one that fails, every replica reads on its own', async () => {
    const broken: SharedReadings = {
      turn: async () => Promise.reject(new Error('READONLY You can’t write against a read only replica')),
      put: async () => Promise.reject(new Error('unreachable')),
    };
    for (const readings of [undefined, broken]) {
      const { reads, a, b } = replicas(readings, () => T0);
      expect((await a())?.value).toEqual({ numRestarts: 1, by: 'a' });
      expect((await b())?.value).toEqual({ numRestarts: 2, by: 'b' });
      expect(reads).toEqual(['a', 'b']);
    }
  });
});
