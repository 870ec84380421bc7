// RECORD_RETENTION and EVENT_RETENTION (docs/configuration.md#retention), as loadConfig reads them, and the operation
// store trimming its event stream by the configured age against real Redis.
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { parseRetention } from '../../../src/config/retention.js';
import { OperationStore } from '../../../src/store/operations.js';
import { storeKeys } from '../../../src/store/keys.js';
import { newOp } from '../../support/conformance/operation-store.js';
import { redisForTest, type TestRedis } from '../../support/redis.js';

const DAY = 24 * 60 * 60 * 1000;
const slack = { SLACK_BOT_TOKEN: 'xoxb-1-2-abc', SLACK_SIGNING_SECRET: 'shh' };
const load = (env: Record<string, string>) => loadConfig({ ...slack, ...env }, 'all');

describe('retention variables', () => {
  it('default to 35 days of records and 7 days of events', () => {
    const result = load({});
    expect(result.ok && result.config.retention).toEqual({ recordsMs: 35 * DAY, eventsMs: 7 * DAY });
  });

  it('take days and the usual units', () => {
    const result = load({ RECORD_RETENTION: '400d', EVENT_RETENTION: '72h' });
    expect(result.ok && result.config.retention).toEqual({ recordsMs: 400 * DAY, eventsMs: 3 * DAY });
    expect(parseRetention('35d')).toEqual({ ok: true, ms: 35 * DAY });
  });

  it.each([
    [{ RECORD_RETENTION: '29d' }, 'RECORD_RETENTION: is shorter than the minimum, 30d (got "29d")'],
    [{ EVENT_RETENTION: '12h' }, 'EVENT_RETENTION: is shorter than the minimum, 1d (got "12h")'],
    [
      { RECORD_RETENTION: 'a year' },
      'RECORD_RETENTION: is not a duration; write <n>d or <n>h, e.g. 35d (got "a year")',
    ],
    [
      { RECORD_RETENTION: '30d', EVENT_RETENTION: '31d' },
      'EVENT_RETENTION: may not be longer than RECORD_RETENTION (the stream points at records)',
    ],
  ])('refuses %o with one line naming the variable', (env, line) => {
    const result = load(env);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problems).toContain(line);
  });
});

describe('the event stream trimmed by EVENT_RETENTION', () => {
  let t: TestRedis;
  afterEach(async () => t.cleanup());

  /** 150 operations recorded, then one more two days later; the stream's length after it. */
  async function lengthAfterTwoDays(
    eventRetentionMs?: number,
  ): Promise<{ before: number; after: number; last: string }> {
    t = await redisForTest('ret');
    let now = Date.UTC(2030, 0, 1);
    const store = new OperationStore(t.redis, {
      prefix: t.prefix,
      now: () => now,
      ...(eventRetentionMs === undefined ? {} : { eventRetentionMs }),
    });
    const stream = storeKeys(t.prefix).events;
    for (let i = 1; i <= 150; i++) await store.create(newOp(`op-old${String(i).padStart(3, '0')}`), 'test');
    const before = await t.redis.xlen(stream);
    now += 2 * DAY;
    await store.create(newOp('op-new001'), 'test');
    const last = (await t.redis.xrevrange(stream, '+', '-', 'COUNT', 1))[0]?.[1].join(' ') ?? '';
    return { before, after: await t.redis.xlen(stream), last };
  }

  it('one day: the next write drops the older entries (whole stream nodes, as MINID ~ does)', async () => {
    const { before, after, last } = await lengthAfterTwoDays(DAY);
    expect(before).toBe(150);
    expect(after).toBeLessThan(before);
    expect(last).toContain('op-new001');
  });

  it('the default, seven days: nothing two days old goes', async () => {
    const { before, after } = await lengthAfterTwoDays();
    expect(after).toBe(before + 1);
  });
});
