// The installation-wide pace (src/store/pacing.ts, lua/paceChannel.lua) against the real Redis: replicas are
// separate connections with their own SharedPacer; whatever their interleaving, calls on one key never overlap and
// each starts at least the interval after the previous one ended.
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { notifierKeys } from '../../src/store/keys.js';
import { SharedPacer } from '../../src/store/pacing.js';
import { runScript } from '../../src/store/scripts.js';
import { redisForTest, type TestRedis } from '../support/redis.js';

let t: TestRedis;
const extra: Redis[] = [];

beforeEach(async () => {
  t = await redisForTest('pace');
});
afterEach(async () => {
  for (const r of extra.splice(0)) r.disconnect();
  await t.cleanup();
});

function replica(intervalMs: number, turnTtlMs = 5_000): SharedPacer {
  const redis = new Redis(t.url, { maxRetriesPerRequest: null });
  extra.push(redis);
  return SharedPacer.channels(redis, t.prefix, { intervalMs, turnTtlMs });
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Call {
  who: number;
  start: number;
  end: number;
}

describe('the shared channel pace', () => {
  it('never lets two calls on one channel from four replicas overlap or start within the interval of the previous end', async () => {
    const intervalMs = 40;
    const replicas = Array.from({ length: 4 }, () => replica(intervalMs));
    const calls: Call[] = [];
    // Each replica queues 8 calls at once; each call takes 0–25 ms (the latency of a Slack call).
    await Promise.all(
      replicas.flatMap((pacer, who) =>
        Array.from({ length: 8 }, () =>
          pacer.run('C0PACE', async () => {
            const start = performance.now();
            await pause(Math.random() * 25);
            calls.push({ who, start, end: performance.now() });
          }),
        ),
      ),
    );
    expect(calls).toHaveLength(32);
    calls.sort((a, b) => a.start - b.start);
    const gaps = calls.slice(1).map((c, i) => c.start - (calls[i] as Call).end);
    // Redis' clock and performance.now() differ by rounding only.
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(intervalMs - 1);
    // Every replica got turns (no one starves while the others keep posting).
    expect(new Set(calls.map((c) => c.who)).size).toBe(4);
  });

  it("keeps one process' calls on a channel in the order they asked", async () => {
    const pacer = replica(5);
    const order: number[] = [];
    await Promise.all(Array.from({ length: 6 }, (_, i) => pacer.run('C0ORDER', async () => void order.push(i))));
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('paces channels independently', async () => {
    const [a, b] = [replica(300), replica(300)];
    await a.run('C0ONE', async () => undefined);
    const started = performance.now();
    await b.run('C0TWO', async () => undefined);
    expect(performance.now() - started).toBeLessThan(150);
  });

  it("holds every replica's next turn for a Retry-After", async () => {
    const [a, b] = [replica(10), replica(10)];
    // Timed from before the hold is asked for: the hold starts on Redis' clock while holdFor is in flight, so a
    // reading taken after it returns would lose that round trip on a busy machine.
    const asked = performance.now();
    await a.holdFor('C0HOLD', 300);
    let called = 0;
    await b.run('C0HOLD', async () => void (called = performance.now()));
    expect(called - asked).toBeGreaterThanOrEqual(299);
  });

  it('gives the interval back when a turn made no call', async () => {
    const pacer = replica(400);
    await pacer.turn('C0NOCALL', async () => ({ value: undefined, called: false }));
    const started = performance.now();
    await pacer.run('C0NOCALL', async () => undefined);
    expect(performance.now() - started).toBeLessThan(150);
    // A call was made: the next one starts at least the interval after that call ended (both read inside the calls,
    // so no round trip to Redis is counted).
    let ended = 0;
    await pacer.run('C0NOCALL', async () => void (ended = performance.now()));
    let next = 0;
    await pacer.run('C0NOCALL', async () => void (next = performance.now()));
    expect(next - ended).toBeGreaterThanOrEqual(399);
  });

  it("lets a crashed holder's turn lapse after its TTL, and keys the hash under the prefix's hash tag with a TTL", async () => {
    const key = notifierKeys(t.prefix).pace('C0CRASH');
    expect(key.startsWith(`{${t.prefix}}:`)).toBe(true);
    // A replica took the turn and died without ending it (timed from before it took it: its TTL runs from then).
    const started = performance.now();
    expect(await runScript(t.redis, 'paceChannel', [key], ['acquire', 'dead-replica', 10, 300, 5])).toBe(0);
    expect(await t.redis.pttl(key)).toBeGreaterThan(0);
    await replica(10).run('C0CRASH', async () => undefined);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('measures by the Redis clock: a stored next in the future is waited out whatever the local clock says', async () => {
    const key = notifierKeys(t.prefix).pace('C0CLOCK');
    const started = performance.now();
    const [seconds, micros] = await t.redis.time();
    const redisNow = Number(seconds) * 1000 + Number(micros) / 1000;
    await t.redis.hset(key, 'next', (redisNow + 250).toFixed(3));
    await replica(10).run('C0CLOCK', async () => undefined);
    expect(performance.now() - started).toBeGreaterThanOrEqual(240);
  });
});
