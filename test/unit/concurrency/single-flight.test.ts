// SingleFlight (src/concurrency/single-flight.ts): concurrent callers of one key share one call, answer or error;
// once it settles the next caller makes a new one; a caller's signal ends only its own wait.
import { describe, expect, it } from 'vitest';
import { SingleFlight, withSignal } from '../../../src/concurrency/single-flight.js';

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('SingleFlight', () => {
  it('shares one call among the callers of a key while it runs, and calls again after it settled', async () => {
    const flight = new SingleFlight<string, number>();
    const first = deferred<number>();
    let calls = 0;
    const call = () => {
      calls += 1;
      return first.promise;
    };
    const waiting = Array.from({ length: 50 }, () => flight.run('U1', call));
    const other = flight.run('U2', async () => 7);
    expect(flight.size).toBe(2);
    first.resolve(42);
    expect(await Promise.all(waiting)).toEqual(Array.from({ length: 50 }, () => 42));
    expect(await other).toBe(7);
    expect(calls).toBe(1);
    expect(flight.size).toBe(0);
    expect(await flight.run('U1', async () => 43)).toBe(43);
  });

  it('gives every caller the error of the shared call, and forgets it', async () => {
    const flight = new SingleFlight<string, number>();
    const failing = deferred<number>();
    const a = flight.run('k', () => failing.promise);
    const b = flight.run('k', () => Promise.resolve(1));
    failing.reject(new Error('users.info: ratelimited'));
    await expect(a).rejects.toThrow('ratelimited');
    await expect(b).rejects.toThrow('ratelimited');
    expect(await flight.run('k', () => Promise.resolve(2))).toBe(2);
  });
});

describe('withSignal', () => {
  it("ends one caller's wait on its abort while the shared call goes on for the others", async () => {
    const shared = deferred<string>();
    const controller = new AbortController();
    const mine = withSignal(shared.promise, controller.signal);
    const theirs = withSignal(shared.promise, undefined);
    controller.abort(new Error('request cancelled'));
    await expect(mine).rejects.toThrow('request cancelled');
    shared.resolve('object');
    expect(await theirs).toBe('object');
    const aborted = new AbortController();
    aborted.abort(new Error('already gone'));
    await expect(withSignal(Promise.resolve('x'), aborted.signal)).rejects.toThrow('already gone');
  });
});
