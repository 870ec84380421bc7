// The in-memory twin of the shared Flink REST readings (store/shared-readings.ts, lua/takeReadingTurn.lua), on an
// injected clock.
import type { ReadingTurn, SharedReading, SharedReadings } from '../../app/ports/shared-readings.js';
import { readingTtlMs } from '../shared-readings.js';
import { viaJson } from './sorted.js';

export class MemorySharedReadings implements SharedReadings {
  /** key → when the turn ends. */
  private readonly turns = new Map<string, number>();
  private readonly readings = new Map<string, { reading: SharedReading; until: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  async turn(key: string, intervalMs: number): Promise<ReadingTurn> {
    const now = this.now();
    if ((this.turns.get(key) ?? -Infinity) <= now) {
      this.turns.set(key, now + readingTtlMs(intervalMs));
      return { mine: true };
    }
    const kept = this.readings.get(key);
    return kept !== undefined && kept.until > now ? { mine: false, reading: viaJson(kept.reading) } : { mine: false };
  }

  async put(key: string, reading: SharedReading, keepMs: number): Promise<void> {
    this.readings.set(key, { reading: viaJson(reading), until: this.now() + readingTtlMs(keepMs) });
  }
}
