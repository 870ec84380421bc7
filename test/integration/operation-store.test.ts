// What is particular to the Redis operation store: history = the event stream, replicas on their own connections,
// TTLs, keys. The behaviour every implementation shares is in test/integration/store/operation-store-conformance.test.ts.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newOperationId, type EntryInput } from '../../src/domain/engines/operation.js';
import type { OperationState } from '../../src/domain/model/lifecycle.js';
import { OP_ID_PATTERN } from '../../src/domain/kit/language/intent-base.js';
import { targetKey } from '../../src/domain/model/target.js';
import { EVENTS_MAX_AGE_MS, readEvents } from '../../src/store/events.js';
import { FreezeStore } from '../../src/store/freezes.js';
import { LeaseStore } from '../../src/store/locks.js';
import { OperationStore } from '../../src/store/operations.js';
import { clicks, DAY, newOp, orders, T0, to } from '../support/conformance/operation-store.js';
import { redisForTest, type TestRedis } from '../support/redis.js';
import { startTcpForwarder } from '../support/tcp-forwarder.js';
import { viaLocalPort } from '../support/redis-proxy.js';
import { AuditTrail, redisAuditTrail } from '../../src/audit/trail.js';
import { RedisAuditLog } from '../../src/store/audit-log.js';
import { createLogger } from '../../src/log.js';

let t: TestRedis;
let clock: number;
let store: OperationStore;

beforeEach(async () => {
  t = await redisForTest('ops');
  clock = T0;
  store = new OperationStore(t.redis, { prefix: t.prefix, now: () => clock });
});
afterEach(async () => t.cleanup());

async function step(id: string, ...entries: EntryInput[]) {
  clock += 1000;
  const result = await store.apply(id, () => ({ entries }));
  if (!result.ok) throw new Error(result.reason);
  return result.record;
}

describe('commits on Redis', () => {
  it('writes neither the key nor the event stream for a refused change', async () => {
    await store.create(newOp('op-illegal'), 'U0REQ');
    const before = await t.redis.get(`{${t.prefix}}:op:op-illegal`);
    const eventsBefore = await t.redis.xlen(`{${t.prefix}}:events`);
    const result = await store.apply('op-illegal', () => ({
      set: { reenqueues: 3 },
      entries: [to('SUBMITTED', 'worker')],
    }));
    expect(result.ok).toBe(false);
    expect(await t.redis.get(`{${t.prefix}}:op:op-illegal`)).toBe(before);
    expect(await t.redis.xlen(`{${t.prefix}}:events`)).toBe(eventsBefore);
  });

  it('lets exactly one of 100 racing replicas (100 connections) win, and only its entry reaches the stream', async () => {
    await store.create(newOp('op-race01'), 'U0REQ');
    const connections = Array.from({ length: 100 }, () => new Redis(t.url, { maxRetriesPerRequest: null }));
    try {
      const targets = ['QUEUED', 'DENIED', 'AWAITING_APPROVAL', 'CANCELLED'] as const;
      const results = await Promise.all(
        connections.map((c, i) =>
          new OperationStore(c, { prefix: t.prefix }).transition('op-race01', {
            from: ['ACCEPTED'],
            to: targets[i % 4] as OperationState,
            actor: `bot-${i}`,
            role: 'bot',
          }),
        ),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      const won = (await store.get('op-race01'))!;
      expect((await readEvents(t.redis, t.prefix)).filter((e) => e.op === 'op-race01').map((e) => e.name)).toEqual([
        'ACCEPTED',
        won.state,
      ]);
    } finally {
      for (const c of connections) c.disconnect();
    }
  });
});

describe('the event stream', () => {
  it('holds exactly the histories of interleaved operations, in order', async () => {
    const ids = ['op-stream1', 'op-stream2', 'op-stream3'];
    for (const id of ids) await store.create(newOp(id, id === 'op-stream2' ? clicks : orders), 'U0REQ');
    await step('op-stream1', to('QUEUED', 'bot'));
    await step('op-stream2', to('AWAITING_APPROVAL', 'bot'), {
      type: 'note',
      name: 'card',
      actor: 'system',
      detail: { ts: '1.2' },
    });
    await step('op-stream1', to('SUBMITTING', 'worker'));
    await step('op-stream3', to('DENIED', 'bot', 'U0REQ'));
    await step('op-stream2', { type: 'approval', name: 'approved', actor: 'U0LEAD' }, to('QUEUED', 'bot', 'U0LEAD'));
    await step(
      'op-stream1',
      to('UNCERTAIN', 'worker'),
      { type: 'retry', name: 'read-back', actor: 'worker' },
      to('SUBMITTED', 'worker'),
    );
    await step(
      'op-stream1',
      { type: 'evidence', name: 'generation-reconciled', actor: 'worker', detail: { observed: 7 } },
      to('COMPLETED', 'worker'),
    );

    const events = await readEvents(t.redis, t.prefix, { count: 1000 });
    expect(events.map((e) => e.at)).toEqual([...events.map((e) => e.at)].sort((a, b) => a - b));
    for (const id of ids) {
      const history = (await store.get(id))!.history;
      const streamed = events
        .filter((e) => e.op === id)
        .map(({ seq, type, name, actor, at, detail }) => ({ seq, type, name, actor, at, detail }));
      expect(streamed).toEqual(history);
    }
    expect(events).toHaveLength(3 + 1 + 2 + 1 + 1 + 2 + 3 + 2);
    expect(events.every((e) => e.id.startsWith(`${e.at}-`))).toBe(true);
  });

  it('is trimmed by age (7 days), never by count', async () => {
    const notes = (n: number): EntryInput[] =>
      Array.from({ length: n }, (_, i) => ({ type: 'note', name: `n${i}`, actor: 'system' }));
    await store.create(newOp('op-trim01'), 'U0REQ');
    for (let i = 0; i < 5; i++) await step('op-trim01', ...notes(100));
    clock = T0 + EVENTS_MAX_AGE_MS - 60_000;
    await step('op-trim01', ...notes(1));
    const events = `{${t.prefix}}:events`;
    expect(await t.redis.xlen(events)).toBe(1 + 500 + 1);

    clock = T0 + EVENTS_MAX_AGE_MS + 10 * 60_000;
    await step('op-trim01', ...notes(1));
    const kept = await readEvents(t.redis, t.prefix, { count: 1000 });
    const old = kept.filter((e) => e.at < clock - EVENTS_MAX_AGE_MS);
    // MINID ~ drops whole stream nodes (≤ 100 entries each): at most one partial node of old entries survives.
    expect(old.length).toBeLessThanOrEqual(100);
    expect(kept.filter((e) => e.at >= clock - EVENTS_MAX_AGE_MS).map((e) => e.seq)).toEqual([502, 503]);
  });
});

describe('retention', () => {
  it('keeps terminal records with a TTL of the retention and active ones without', async () => {
    await store.create(newOp('op-keep01'), 'U0REQ');
    await store.create(newOp('op-done01', clicks), 'U0REQ');
    await step('op-done01', to('DENIED', 'bot'));
    const ttl = await t.redis.pttl(`{${t.prefix}}:op:op-done01`);
    expect(ttl).toBeGreaterThan(34 * DAY);
    expect(ttl).toBeLessThanOrEqual(35 * DAY);
    expect(await t.redis.pttl(`{${t.prefix}}:op:op-keep01`)).toBe(-1);
    const targetIndex = await t.redis.pttl(`{${t.prefix}}:ops:target:${targetKey(clicks)}`);
    expect(targetIndex).toBeGreaterThan(34 * DAY);
  });
});

describe('ids and keys', () => {
  it('generates 100k unique ids, all matching the pattern', () => {
    const ids = new Set<string>();
    const malformed: string[] = [];
    for (let i = 0; i < 100_000; i++) {
      const id = newOperationId(() => randomBytes(16));
      if (!OP_ID_PATTERN.test(id) || id.length !== 13) malformed.push(id);
      ids.add(id);
    }
    expect(malformed).toEqual([]);
    expect(ids.size).toBe(100_000);
  });

  it('puts the hash tag on every key it writes (operations, order, leases, freezes, audit)', async () => {
    await store.create(newOp('op-keys01'), 'U0REQ');
    await step('op-keys01', to('QUEUED', 'bot'));
    await new LeaseStore(t.redis, { prefix: t.prefix }).tryAcquire(orders, 'op-keys01', 10_000);
    await new FreezeStore(t.redis, { prefix: t.prefix }).freeze(clicks, { by: 'U0LEAD', reason: 'incident', at: T0 });
    const found: string[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await t.redis.scan(cursor, 'MATCH', `*${t.prefix}*`, 'COUNT', 1000);
      cursor = next;
      found.push(...keys);
    } while (cursor !== '0');
    expect(found.length).toBeGreaterThanOrEqual(12);
    for (const key of found) expect(key.startsWith(`{${t.prefix}}:`)).toBe(true);
  });
});

describe('when another replica always moves the audit chain first', () => {
  /**
   * A store whose connection runs through a proxy that, before forwarding each script that writes the chain, lets a
   * rival on its own connection append one event: every commit of the store finds the head moved.
   */
  async function outraced() {
    const logger = createLogger('silent');
    const rival = redisAuditTrail(t.redis, { prefix: t.prefix, logger, now: () => clock });
    const target = new URL(t.url);
    let moved = 0;
    const proxy = await startTcpForwarder(Number(target.port || 6379), target.hostname, (client, upstream) => {
      let forwarded = Promise.resolve();
      client.on('data', (chunk: Buffer) => {
        const text = chunk.toString('latin1');
        const writesChain = /EVAL/i.test(text) && text.includes(`{${t.prefix}}:audit:head`);
        forwarded = forwarded.then(async () => {
          if (writesChain) {
            await rival.record({ actor: { user: 'system', team: 'T0' }, action: 'frozen' });
            moved++;
          }
          upstream.write(chunk);
        });
      });
      upstream.on('data', (chunk: Buffer) => client.write(chunk));
    });
    const connection = new Redis(viaLocalPort(t.url, proxy.port), { maxRetriesPerRequest: 1 });
    const log = new RedisAuditLog(connection, { prefix: t.prefix, now: () => clock });
    const audit = new AuditTrail({ log, logger, now: () => clock });
    const outracedStore = new OperationStore(connection, { prefix: t.prefix, now: () => clock, audit });
    const close = async () => {
      connection.disconnect();
      await proxy.close();
    };
    return { store: outracedStore, log, close, moved: () => moved };
  }

  it('refuses to say a request was recorded when its record could not be written, and writes none of it', async () => {
    const { store: outracedStore, log, close, moved } = await outraced();
    try {
      await expect(outracedStore.create(newOp('op-outraced'), 'U0REQ')).rejects.toThrow(
        'op-outraced was not recorded: the audit chain kept moving (20 attempts)',
      );
      expect(await store.get('op-outraced')).toBeUndefined();
      const chain = await log.readAfter(0, 100);
      // One event of the rival's per script that reached Redis: 20 attempts, and a resend after NOSCRIPT if any.
      expect(moved()).toBeGreaterThanOrEqual(20);
      expect(chain).toHaveLength(moved());
      expect(chain.every((e) => e.action === 'frozen')).toBe(true);
    } finally {
      await close();
    }
  });
});
