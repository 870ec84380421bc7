// Flink REST readings shared by the worker replicas (docs/alerts.md#cost): the turn to read a key is a key with the
// interval as its TTL, taken with SET NX in the same script that hands everyone else the last reading.
import type { ReadingTurn, SharedReading, SharedReadings } from '../app/ports/shared-readings.js';
import type { RedisConnection } from './connection.js';
import { storeKeys, type StoreKeys } from './keys.js';
import { runScript } from './scripts.js';

export class RedisSharedReadings implements SharedReadings {
  private readonly keys: StoreKeys;

  constructor(
    private readonly redis: RedisConnection,
    prefix: string,
  ) {
    this.keys = storeKeys(prefix);
  }

  async turn(key: string, intervalMs: number): Promise<ReadingTurn> {
    const keys = [this.keys.readingTurn(key), this.keys.reading(key)];
    const [took, json] = (await runScript(this.redis, 'takeReadingTurn', keys, [readingTtlMs(intervalMs)])) as [
      number,
      string | null | undefined,
    ];
    if (took === 1) return { mine: true };
    return typeof json === 'string' ? { mine: false, reading: JSON.parse(json) as SharedReading } : { mine: false };
  }

  async put(key: string, reading: SharedReading, keepMs: number): Promise<void> {
    await this.redis.set(this.keys.reading(key), JSON.stringify(reading), 'PX', readingTtlMs(keepMs));
  }
}

/** A TTL Redis takes: a whole number of ms, at least 1 (the memory twin rounds the same way). */
export function readingTtlMs(ms: number): number {
  return Math.max(1, Math.ceil(ms));
}
