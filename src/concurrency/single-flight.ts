// One call in flight per key (docs/operating.md#under-a-burst): callers that ask for a key while its call runs share
// that call's answer instead of making their own. Nothing is kept once it settles; caching is the caller's business.
export class SingleFlight<K, V> {
  private readonly inFlight = new Map<K, Promise<V>>();

  /** `call()` for `key`, unless one is running: then its promise (answer or error) is shared. */
  run(key: K, call: () => Promise<V>): Promise<V> {
    const running = this.inFlight.get(key);
    if (running) return running;
    const started = call().finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, started);
    return started;
  }

  /** Keys with a call running now. */
  get size(): number {
    return this.inFlight.size;
  }
}

/**
 * The shared call, raced against this caller's own signal: one caller giving up never aborts the call the others
 * wait on.
 */
export function withSignal<V>(shared: Promise<V>, signal: AbortSignal | undefined): Promise<V> {
  if (!signal) return shared;
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<V>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    shared.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error as Error);
      },
    );
  });
}
