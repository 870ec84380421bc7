// The retention every store shares (src/store/retention.ts): at least 30 days, 35 unless told otherwise.
import { describe, expect, it } from 'vitest';
import { checkedRetention, DEFAULT_RETENTION_MS, MIN_RETENTION_MS } from '../../../src/store/retention.js';

describe('checkedRetention', () => {
  it('defaults to 35 days and keeps a longer one', () => {
    expect(checkedRetention()).toBe(DEFAULT_RETENTION_MS);
    expect(DEFAULT_RETENTION_MS).toBe(35 * 24 * 3_600_000);
    expect(checkedRetention(400 * 24 * 3_600_000)).toBe(400 * 24 * 3_600_000);
  });

  it('refuses less than 30 days, and what is not a number, saying what it got', () => {
    expect(checkedRetention(MIN_RETENTION_MS)).toBe(MIN_RETENTION_MS);
    expect(() => checkedRetention(MIN_RETENTION_MS - 1)).toThrow(/at least 2592000000 \(30 days\), got 2591999999/);
    expect(() => checkedRetention(Number.NaN)).toThrow(/got NaN/);
  });
});
