// The writes of one process to one audit chain take turns (docs/audit.md#where-the-chain-is-kept). Every write races
// for the chain's one head, so two writes of one process racing each other only cost each other a round trip, and
// with many at once (a burst of commits) one can lose the race 20 times and fail. Turns are per connection and chain,
// so writers on other connections (other replicas) still race, and the script's compare-and-set still decides.
import type { RedisConnection } from './connection.js';

const tails = new WeakMap<RedisConnection, Map<string, Promise<void>>>();

/** Runs `work` once every earlier turn of the same connection and chain has ended, whether it succeeded or not. */
export function inChainTurn<T>(redis: RedisConnection, chain: string, work: () => Promise<T>): Promise<T> {
  const turns = tails.get(redis) ?? new Map<string, Promise<void>>();
  tails.set(redis, turns);
  const run = (turns.get(chain) ?? Promise.resolve()).then(work);
  const tail = run.then(
    () => undefined,
    () => undefined,
  );
  turns.set(chain, tail);
  void tail.then(() => {
    if (turns.get(chain) === tail) turns.delete(chain);
  });
  return run;
}
