// The tests' one polling helper, for state that announces no change (a Redis key, a process's HTTP endpoint, a
// simulator's request log). Waits on events — store subscriptions, emitters, stream reads — are not polling and stay.
import { setTimeout as sleep } from 'node:timers/promises';

export interface PollOptions {
  /** How long to keep checking; default 10 s. */
  timeoutMs?: number;
  /** The pause between two checks; default 20 ms. */
  intervalMs?: number;
}

/** What `eventually` resolves with: the check's value, once it is truthy. */
export type Truthy<T> = Exclude<T, undefined | null | false | 0 | ''>;

/**
 * Thrown by a check to stop waiting at once, when what is awaited can no longer come (the process exited): any
 * other error only means "not yet".
 */
export class GiveUp extends Error {}

/** The last value or error, short enough for a failure message. */
function described(last: { value: unknown } | { error: unknown }): string {
  if ('error' in last) return `error: ${last.error instanceof Error ? last.error.message : String(last.error)}`;
  const text = JSON.stringify(last.value) ?? String(last.value);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

/**
 * Calls `check` until it returns a truthy value, and resolves with that value. A check that throws counts as "not
 * yet" (a connection refused, an `expect` that does not hold yet) unless it throws GiveUp. After `timeoutMs` rejects
 * with an Error that names `what` and the last value or error the check gave.
 */
export async function eventually<T>(
  what: string,
  check: () => T | Promise<T>,
  options: PollOptions = {},
): Promise<Truthy<T>> {
  const { timeoutMs = 10_000, intervalMs = 20 } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let last: { value: unknown } | { error: unknown };
    try {
      const value = await check();
      if (value) return value as Truthy<T>;
      last = { value };
    } catch (error) {
      if (error instanceof GiveUp) throw new Error(`gave up waiting for ${what}: ${error.message}`, { cause: error });
      last = { error };
    }
    if (Date.now() >= deadline) {
      const cause = 'error' in last ? { cause: last.error } : {};
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last seen: ${described(last)}`, cause);
    }
    await sleep(intervalMs);
  }
}

/** A check out of assertions: true once `assert` stops throwing, so a timeout names the last failed expectation. */
export function holds(assert: () => void | Promise<void>): () => Promise<true> {
  return async () => {
    await assert();
    return true;
  };
}
