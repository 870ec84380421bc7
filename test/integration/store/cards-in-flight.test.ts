// The card claim on Redis (docs/lifecycle.md#the-sweep): one holder at a time, kept past its TTL while the holder
// works, and a holder that lost it (stalled past the TTL) cannot confirm it again nor remove its new holder's.
import { Redis } from 'ioredis';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { CardsInFlight } from '../../../src/store/cards-in-flight.js';
import { eventually } from '../../support/poll.js';
import { redisForTest, type TestRedis } from '../../support/redis.js';

const TTL_MS = 300;
let t: TestRedis;

beforeEach(async () => {
  t = await redisForTest('cards');
});
afterEach(async () => {
  await t.cleanup();
});

/** A promise and the function that settles it. */
function gate<T = void>(): { promise: Promise<T>; open: (value: T) => void } {
  let open: (value: T) => void = () => undefined;
  const promise = new Promise<T>((resolve) => (open = resolve));
  return { promise, open };
}

it('one holder at a time: a second poster runs nothing while the first holds it, and may once it is given up', async () => {
  const cards = new CardsInFlight(t.redis, t.prefix, TTL_MS);
  const first = gate();
  const started = gate();
  const holding = cards.hold('op-1', async () => (started.open(), first.promise.then(() => 'posted')));
  await started.promise;
  let ran = false;
  expect(await cards.hold('op-1', async () => (ran = true))).toEqual({ held: false });
  expect(ran).toBe(false);
  expect(await cards.inFlight('op-1')).toBe(true);
  // Another operation's claim is its own.
  expect(await cards.hold('op-2', async () => 'other')).toEqual({ held: true, value: 'other' });
  first.open();
  expect(await holding).toEqual({ held: true, value: 'posted' });
  expect(await cards.inFlight('op-1')).toBe(false);
  expect(await cards.hold('op-1', async () => 'again')).toEqual({ held: true, value: 'again' });
});

it('a holder waiting long (a Retry-After) keeps its claim past the TTL, and confirms it before posting', async () => {
  const cards = new CardsInFlight(t.redis, t.prefix, TTL_MS);
  const waited = gate();
  const holding = cards.hold('op-1', async (claim) => {
    await waited.promise;
    return claim.confirm();
  });
  // Four TTLs of waiting: the claim must be there at every look (Redis announces no expiry, so it is polled).
  const until = Date.now() + 4 * TTL_MS;
  await eventually('four TTLs passed with the claim held throughout', async () => {
    if (!(await cards.inFlight('op-1'))) throw new Error('the claim lapsed while its holder waited');
    return Date.now() > until;
  });
  expect(await cards.hold('op-1', async () => 'second')).toEqual({ held: false });
  waited.open();
  expect(await holding).toEqual({ held: true, value: true });
});

it('a holder that stalled past the TTL cannot confirm its claim, nor take its new holder claim away', async () => {
  const stalledRedis = new Redis(t.url, { maxRetriesPerRequest: null });
  try {
    const stalled = new CardsInFlight(stalledRedis, t.prefix, TTL_MS);
    const sweep = new CardsInFlight(t.redis, t.prefix, 30_000);
    const started = gate();
    const wake = gate();
    const holding = stalled.hold('op-1', async (claim) => {
      started.open();
      await wake.promise;
      return claim.confirm();
    });
    await started.promise;
    // Its renewals cannot reach Redis: the claim lapses on Redis' clock, and another poster takes it.
    stalledRedis.disconnect();
    await eventually('the stalled claim lapsed', async () => !(await sweep.inFlight('op-1')));
    const sweepDone = gate();
    const sweepStarted = gate();
    const sweeping = sweep.hold('op-1', async () => (sweepStarted.open(), sweepDone.promise));
    await sweepStarted.promise;
    await stalledRedis.connect();
    wake.open();
    expect(await holding).toEqual({ held: true, value: false });
    // Its release (in `hold`'s end) left the new holder's claim alone.
    expect(await sweep.inFlight('op-1')).toBe(true);
    expect(await stalled.hold('op-1', async () => 'again')).toEqual({ held: false });
    sweepDone.open();
    await sweeping;
    expect(await sweep.inFlight('op-1')).toBe(false);
  } finally {
    stalledRedis.disconnect();
  }
});

it('a claim that cannot be taken (Redis unreachable) runs nothing and says so', async () => {
  const away = new Redis(t.url, { maxRetriesPerRequest: 0, lazyConnect: true });
  away.disconnect();
  let ran = false;
  await expect(new CardsInFlight(away, t.prefix).hold('op-1', async () => (ran = true))).rejects.toThrow();
  expect(ran).toBe(false);
});
