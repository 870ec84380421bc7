// The shared-readings port: one Flink REST reading of a job per interval for the whole installation, whichever worker
// replica takes the turn, the others using what it read (docs/alerts.md#cost). store/shared-readings.ts on Redis,
// store/memory/shared-readings.ts in memory.

/** What one replica read, as it put it: when (its clock, ms) and the reading, JSON. */
export interface SharedReading {
  at: number;
  value: unknown;
}

export type ReadingTurn =
  /** Nobody took the turn for this key within the interval: the caller reads now and puts what it read. */
  | { mine: true }
  /** Another replica holds the turn; the last reading put for the key (none while that one still reads). */
  | { mine: false; reading?: SharedReading };

export interface SharedReadings {
  /** The turn to read `key`: the first caller holds it for `intervalMs`, every other caller gets the last reading. */
  turn(key: string, intervalMs: number): Promise<ReadingTurn>;
  /** What the turn's holder read, kept for `keepMs`. */
  put(key: string, reading: SharedReading, keepMs: number): Promise<void>;
}
