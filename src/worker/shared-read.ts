// One Flink REST reading per job and interval for the whole installation (docs/alerts.md#cost): the replica that
// takes the turn reads and shares what it read; the others use that. Without the store (it is down, or none is
// given) each replica reads on its own, as it would alone: alerts and post-change watches keep working.
import type { SharedReadings } from '../app/ports/shared-readings.js';
import type { Logger } from '../log.js';

/** A reading's value is kept this many intervals, so a replica a little late still finds it. */
const KEEP_INTERVALS = 2;
/** The turn's holder reads within its REST timeout (3 s), so its reading is there this much later. */
const LOOK_AGAIN_MS = 5_000;

/** How long a replica that found the turn taken and nothing shared yet waits before it asks again. */
export function lookAgainMs(intervalMs: number): number {
  return Math.min(LOOK_AGAIN_MS, intervalMs);
}

export interface SharedReadOptions<T> {
  readings: SharedReadings | undefined;
  key: string;
  intervalMs: number;
  now: () => number;
  logger: Logger;
  /** This replica's own read, when it has the turn. */
  read: () => Promise<T>;
}

/**
 * The job's reading for this interval: this replica's own (it took the turn), or the one another replica put;
 * undefined while the turn's holder has not put its reading yet (ask again a little later).
 */
export async function sharedRead<T>(opts: SharedReadOptions<T>): Promise<{ at: number; value: T } | undefined> {
  const { readings, key, intervalMs, logger } = opts;
  let share = false;
  if (readings !== undefined) {
    try {
      const turn = await readings.turn(key, intervalMs);
      if (!turn.mine) return turn.reading as { at: number; value: T } | undefined;
      share = true;
    } catch (error) {
      logger.warn({ err: error, key }, 'could not share a Flink REST reading; reading it alone');
    }
  }
  const value = await opts.read();
  const at = opts.now();
  if (share && readings !== undefined) {
    // JSON drops an undefined value: the others then read `value` as undefined too.
    void readings
      .put(key, { at, value }, KEEP_INTERVALS * intervalMs)
      .catch((error: unknown) => logger.warn({ err: error, key }, 'could not share a Flink REST reading'));
  }
  return { at, value };
}
