// The audit webhook's signature and retry schedule (docs/audit.md#the-webhook).
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { backoffMs, signature } from '../../../src/audit/webhook.js';

describe('signature', () => {
  it('is sha256= and the hex HMAC-SHA256 of the body with the secret', () => {
    const body = '{"schema":"flink-chatops.audit/v1","seq":1}';
    const expected = createHmac('sha256', 'hook-secret').update(body).digest('hex');
    expect(signature(body, 'hook-secret')).toBe(`sha256=${expected}`);
    expect(signature(body, 'hook-secret')).toMatch(/^sha256=[0-9a-f]{64}$/);
  });

  it('changes with one character of the body or of the secret', () => {
    const base = signature('{"seq":1}', 'k');
    expect(signature('{"seq":2}', 'k')).not.toBe(base);
    expect(signature('{"seq":1}', 'K')).not.toBe(base);
  });

  it('signs the UTF-8 bytes of the body', () => {
    const body = '{"name":"Zoë"}';
    const expected = createHmac('sha256', 'k').update(Buffer.from(body, 'utf8')).digest('hex');
    expect(signature(body, 'k')).toBe(`sha256=${expected}`);
  });
});

describe('backoffMs', () => {
  const noJitter = () => 0;

  it('starts at 1 s and doubles, capped at 60 s', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 20, 1000].map((n) => backoffMs(n, undefined, noJitter))).toEqual([
      1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000, 60_000, 60_000,
    ]);
  });

  it('jitters down by up to a fifth, never above the schedule', () => {
    expect(backoffMs(1, undefined, () => 0.999_999)).toBe(800);
    expect(backoffMs(3, undefined, () => 0.5)).toBe(3600);
    for (let i = 0; i < 100; i++) {
      const ms = backoffMs(7);
      expect(ms).toBeGreaterThan(48_000);
      expect(ms).toBeLessThanOrEqual(60_000);
    }
  });

  it('follows a given schedule', () => {
    const fast = { firstMs: 10, maxMs: 50 };
    expect([1, 2, 3, 4].map((n) => backoffMs(n, fast, noJitter))).toEqual([10, 20, 40, 50]);
  });
});
