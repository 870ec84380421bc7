// Waiting for the simulated Slack to reach a state: a predicate checked now and after every event, never polled.

/**
 * Resolves with the predicate's first truthy value, checked at once and on each event `subscribe` wires up (it
 * returns the unsubscribers); rejects with `message()` after `timeoutMs`, or with what the predicate threw.
 */
export function waitUntil<T>(
  predicate: () => T | undefined | null | false,
  subscribe: (check: () => void) => (() => void)[],
  timeoutMs: number,
  message: () => string,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let offs: (() => void)[] = [];
    let done = false;
    const finish = (): void => {
      done = true;
      offs.forEach((off) => off());
      clearTimeout(timer);
    };
    const timer = setTimeout(() => {
      finish();
      reject(new Error(message()));
    }, timeoutMs);
    const check = (): void => {
      if (done) return;
      try {
        const value = predicate();
        if (value === undefined || value === null || value === false) return;
        finish();
        resolve(value);
      } catch (error) {
        finish();
        reject(error as Error);
      }
    };
    check();
    if (!done) offs = subscribe(check);
  });
}
