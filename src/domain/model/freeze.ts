// When a manual freeze holds (docs/policy.md#freezes): until `unlock`, or until the end `lock --for` gave it.

/** The longest `lock --for` takes: a freeze meant to last longer is one to lift by hand. */
export const MAX_FREEZE_MS = 30 * 24 * 3_600_000;

/** It holds at `now`: it has no end, or its end is still ahead. */
export function freezeInForce(freeze: { until?: number }, now: number): boolean {
  return freeze.until === undefined || freeze.until > now;
}
