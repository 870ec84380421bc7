// Limiter (src/concurrency/limiter.ts): at most `limit` tasks run at once, the rest in arrival order; a failing task
// frees its slot; a bad limit is refused.
import { describe, expect, it } from 'vitest';
import { Limiter } from '../../../src/concurrency/limiter.js';

describe('Limiter', () => {
  it('runs at most `limit` at once and starts the waiting ones in the order they came', async () => {
    const limiter = new Limiter(3);
    const releases: (() => void)[] = [];
    const started: number[] = [];
    let peak = 0;
    const tasks = Array.from({ length: 10 }, (_x, i) =>
      limiter.run(async () => {
        started.push(i);
        peak = Math.max(peak, limiter.load.running);
        await new Promise<void>((resolve) => releases.push(resolve));
        return i;
      }),
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([0, 1, 2]);
    expect(limiter.load).toEqual({ running: 3, waiting: 7 });
    while (started.length < 10 || releases.length > 0) {
      releases.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await Promise.all(tasks)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(peak).toBe(3);
    expect(limiter.load).toEqual({ running: 0, waiting: 0 });
  });

  it('frees the slot of a task that fails, and passes its error on', async () => {
    const limiter = new Limiter(1);
    await expect(limiter.run(() => Promise.reject(new Error('planning failed')))).rejects.toThrow('planning failed');
    expect(await limiter.run(async () => 'next')).toBe('next');
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses a limit of %s', (limit) => {
    expect(() => new Limiter(limit)).toThrow(`limit must be a positive integer, got ${limit}`);
  });
});
