import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { inChainTurn } from '../../../src/store/chain-turn.js';

/** A connection that never connects: the turns only use it as a key. */
const connections: Redis[] = [];
function connection(): Redis {
  const redis = new Redis({ lazyConnect: true });
  connections.push(redis);
  return redis;
}
afterEach(() => {
  for (const c of connections.splice(0)) c.disconnect();
});

/** A piece of work that records when it starts and ends, and ends when told. */
function step(log: string[], name: string) {
  let finish!: (ok: boolean) => void;
  const ended = new Promise<boolean>((resolve) => (finish = resolve));
  const work = async () => {
    log.push(`${name} starts`);
    const ok = await ended;
    log.push(`${name} ends`);
    if (!ok) throw new Error(`${name} failed`);
    return name;
  };
  return { work, finish };
}

/** Lets every promise callback that is already due run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('inChainTurn', () => {
  it('runs the writes of one connection and chain one after another, in the order they came', async () => {
    const redis = connection();
    const log: string[] = [];
    const [a, b, c] = ['a', 'b', 'c'].map((name) => step(log, name)) as [
      ReturnType<typeof step>,
      ...ReturnType<typeof step>[],
    ];
    const runs = [a, b!, c!].map((s) => inChainTurn(redis, 'chain', s.work));
    await settle();
    expect(log).toEqual(['a starts']);
    c!.finish(true);
    b!.finish(true);
    await settle();
    expect(log).toEqual(['a starts']);
    a.finish(true);
    expect(await Promise.all(runs)).toEqual(['a', 'b', 'c']);
    expect(log).toEqual(['a starts', 'a ends', 'b starts', 'b ends', 'c starts', 'c ends']);
  });

  it('gives the next write its turn after one that failed, and hands the failure to its caller only', async () => {
    const redis = connection();
    const log: string[] = [];
    const [a, b] = [step(log, 'a'), step(log, 'b')];
    const first = inChainTurn(redis, 'chain', a.work);
    const second = inChainTurn(redis, 'chain', b.work);
    a.finish(false);
    await expect(first).rejects.toThrow('a failed');
    b.finish(true);
    expect(await second).toBe('b');
  });

  it('lets other connections and other chains write at the same time', async () => {
    const [one, two] = [connection(), connection()];
    const log: string[] = [];
    const steps = [step(log, 'one/x'), step(log, 'two/x'), step(log, 'one/y')];
    const runs = [
      inChainTurn(one, 'x', steps[0]!.work),
      inChainTurn(two, 'x', steps[1]!.work),
      inChainTurn(one, 'y', steps[2]!.work),
    ];
    await settle();
    expect([...log].sort()).toEqual(['one/x starts', 'one/y starts', 'two/x starts']);
    for (const s of steps) s.finish(true);
    expect(await Promise.all(runs)).toEqual(['one/x', 'two/x', 'one/y']);
  });
});
