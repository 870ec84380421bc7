// The tests' polling helper: what it resolves with, what counts as "not yet", and what a timeout says.
import { describe, expect, it } from 'vitest';
import { eventually, GiveUp, holds } from '../../support/poll.js';

/** A check that gives `values` one per call (an Error is thrown), then keeps giving the last one. */
function sequence(...values: unknown[]) {
  let calls = 0;
  const check = async () => {
    const value = values[Math.min(calls++, values.length - 1)];
    if (value instanceof Error) throw value;
    return value;
  };
  return { check, calls: () => calls };
}

describe('eventually', () => {
  it('resolves with the first truthy value, checking again until there is one', async () => {
    const s = sequence(undefined, false, 0, '', { id: 'op-1' }, { id: 'op-2' });
    expect(await eventually('the record', s.check, { intervalMs: 1 })).toEqual({ id: 'op-1' });
    expect(s.calls()).toBe(5);
  });

  it('takes a synchronous check; one that holds at once is called once', async () => {
    let calls = 0;
    expect(await eventually('a number', () => ++calls * 42)).toBe(42);
    expect(calls).toBe(1);
  });

  it('counts a thrown error as "not yet"', async () => {
    const s = sequence(new Error('ECONNREFUSED'), new Error('ECONNREFUSED'), 'PONG');
    expect(await eventually('PONG', s.check, { intervalMs: 1 })).toBe('PONG');
    expect(s.calls()).toBe(3);
  });

  it('times out naming what it waited for and the last value seen', async () => {
    const started = Date.now();
    const waited = eventually('3 replies', () => 0, { timeoutMs: 40, intervalMs: 5 });
    await expect(waited).rejects.toThrow('timed out after 40 ms waiting for 3 replies; last seen: 0');
    expect(Date.now() - started).toBeGreaterThanOrEqual(40);
  });

  it('times out naming the last error: an expect in the check (holds) says what it saw', async () => {
    const s = sequence({ state: 'QUEUED' }, { state: 'SUBMITTED' });
    const completed = holds(async () => expect(((await s.check()) as { state: string }).state).toBe('COMPLETED'));
    await expect(eventually('op-1 to complete', completed, { timeoutMs: 40, intervalMs: 5 })).rejects.toThrow(
      /^timed out after 40 ms waiting for op-1 to complete; last seen: error: expected 'SUBMITTED' to be 'COMPLETED'/,
    );
  });

  it('holds: true once the assertions pass', async () => {
    const s = sequence(1, 2, 3);
    const three = holds(async () => expect(await s.check()).toBe(3));
    expect(await eventually('3', three, { intervalMs: 1 })).toBe(true);
    expect(s.calls()).toBe(3);
  });

  it('stops at once when the check gives up', async () => {
    let calls = 0;
    const exited = () => {
      calls++;
      throw new GiveUp('the process exited with 1');
    };
    await expect(eventually('/readyz to pass', exited, { timeoutMs: 60_000 })).rejects.toThrow(
      'gave up waiting for /readyz to pass: the process exited with 1',
    );
    expect(calls).toBe(1);
  });
});
