// QuietGate (src/concurrency/quiet-gate.ts): what waits for the quiet starts once no noise came for `quietMs`, or
// after `maxHoldMs` at most, in arrival order; without noise nothing waits; bad settings are refused.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { QuietGate } from '../../../src/concurrency/quiet-gate.js';

describe('QuietGate', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  const gate = (quietMs: number, maxHoldMs: number) => new QuietGate(quietMs, maxHoldMs, () => Date.now());

  it('lets through at once when there was no noise', async () => {
    const g = gate(20, 1_000);
    let through = false;
    void g.quiet().then(() => (through = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(through).toBe(true);
    expect(g.holding).toBe(0);
  });

  it('holds until no noise came for quietMs, each noise starting the quiet again', async () => {
    const g = gate(20, 1_000);
    g.noise();
    let through = false;
    void g.quiet().then(() => (through = true));
    await vi.advanceTimersByTimeAsync(15);
    g.noise();
    await vi.advanceTimersByTimeAsync(15);
    expect(through).toBe(false);
    expect(g.holding).toBe(1);
    await vi.advanceTimersByTimeAsync(5);
    expect(through).toBe(true);
    expect(g.holding).toBe(0);
  });

  it('holds no one longer than maxHoldMs under steady noise, releasing in arrival order', async () => {
    const g = gate(20, 100);
    const released: number[] = [];
    g.noise();
    void g.quiet().then(() => released.push(1));
    await vi.advanceTimersByTimeAsync(50);
    g.noise();
    void g.quiet().then(() => released.push(2));
    for (let t = 0; t < 60; t += 10) {
      g.noise();
      await vi.advanceTimersByTimeAsync(10);
    }
    // 110 ms after the first was held: it is through, the second (held 60 ms) still waits.
    expect(released).toEqual([1]);
    for (let t = 0; t < 40; t += 10) {
      g.noise();
      await vi.advanceTimersByTimeAsync(10);
    }
    expect(released).toEqual([1, 2]);
  });

  it('keeps a newcomer behind those already held, even once it is quiet', async () => {
    const g = gate(20, 1_000);
    const released: string[] = [];
    g.noise();
    void g.quiet().then(() => released.push('held'));
    await vi.advanceTimersByTimeAsync(19);
    void g.quiet().then(() => released.push('newcomer'));
    await vi.advanceTimersByTimeAsync(1);
    expect(released).toEqual(['held', 'newcomer']);
  });

  it.each([
    [-1, 10, 'quietMs must be a number ≥ 0, got -1'],
    [10, Number.NaN, 'maxHoldMs must be a number ≥ 0, got NaN'],
  ])('refuses quietMs %s with maxHoldMs %s', (quietMs, maxHoldMs, message) => {
    expect(() => new QuietGate(quietMs, maxHoldMs)).toThrow(message);
  });
});
