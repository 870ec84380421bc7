// The Redis operation store: atomic transitions, history = event stream, FIFO order, indexes, retention, keys.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newOperationId, type EntryInput, type OperationState } from '../../src/domain/model/operation.js';
import { OP_ID_PATTERN } from '../../src/domain/model/intent-base.js';
import type { Target } from '../../src/domain/model/target.js';
import { EVENTS_MAX_AGE_MS, readEvents } from '../../src/store/events.js';
import { FreezeStore } from '../../src/store/freezes.js';
import { LeaseStore } from '../../src/store/locks.js';
import { OperationStore, type NewOperation } from '../../src/store/operations.js';
import { redisForTest, type TestRedis } from '../support/redis.js';

const DAY = 24 * 60 * 60 * 1000;
const T0 = Date.UTC(2030, 0, 7, 9, 0, 0);
const orders: Target = { kind: 'FlinkDeployment', namespace: 'streaming-prod', name: 'orders' };
const clicks: Target = { kind: 'FlinkSessionJob', namespace: 'streaming-dev', name: 'clicks' };

function newOp(id: string, target: Target = orders): NewOperation {
  return { id, kind: 'restart', intent: { kind: 'restart', target, incidentChannels: [] }, target, requester: 'U0REQ', channel: 'C0OPS', incidentChannels: [] };
}

const to = (name: OperationState, role: 'bot' | 'worker' | 'sweep', actor: string = role): EntryInput => ({ type: 'state', name, actor, role });

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

describe('create and get', () => {
  it('writes ACCEPTED with its first entry, reads it back, and refuses a taken id', async () => {
    const created = await store.create({ ...newOp('op-create1'), responseUrl: 'https://hooks.slack.test/1' }, 'U0REQ');
    expect(created.ok).toBe(true);
    const record = await store.get('op-create1');
    expect(record).toEqual(created.ok ? created.record : undefined);
    expect(record).toMatchObject({ version: 1, state: 'ACCEPTED', createdAt: T0, updatedAt: T0, approvals: [], reenqueues: 0 });
    expect(record?.history).toEqual([{ seq: 1, type: 'state', name: 'ACCEPTED', actor: 'U0REQ', at: T0, detail: { from: '(new)' } }]);
    expect(await store.create(newOp('op-create1'), 'U0OTHER')).toEqual({ ok: false, reason: 'exists' });
    expect((await store.get('op-create1'))?.requester).toBe('U0REQ');
    expect(await store.get('op-missing1')).toBeUndefined();
  });

  it('refuses a malformed id and a short retention with clear messages', async () => {
    await expect(store.create(newOp('OP-1'), 'U0REQ')).rejects.toThrow('"OP-1" is not an operation id');
    expect(() => new OperationStore(t.redis, { prefix: t.prefix, retentionMs: 29 * DAY })).toThrow('at least');
  });
});

describe('transitions', () => {
  it('commits a legal transition with its entry, state and version', async () => {
    await store.create(newOp('op-legal1'), 'U0REQ');
    clock += 5;
    const result = await store.transition('op-legal1', { from: ['ACCEPTED'], to: 'QUEUED', actor: 'U0REQ', role: 'bot', detail: { decision: 'allow' } });
    expect(result).toMatchObject({ ok: true, entries: [{ seq: 2, type: 'state', name: 'QUEUED', at: T0 + 5, detail: { decision: 'allow', from: 'ACCEPTED' } }] });
    expect(await store.get('op-legal1')).toMatchObject({ state: 'QUEUED', version: 2, updatedAt: T0 + 5 });
  });

  it.each([
    { name: 'an illegal transition', entry: to('SUBMITTED', 'worker'), reason: 'ACCEPTED → SUBMITTED is not a legal transition' },
    { name: 'the wrong writer', entry: to('QUEUED', 'worker'), reason: 'ACCEPTED → QUEUED is written by the bot, not the worker' },
  ])('refuses $name and writes nothing', async ({ entry, reason }) => {
    await store.create(newOp('op-illegal'), 'U0REQ');
    const before = await t.redis.get(`{${t.prefix}}:op:op-illegal`);
    const eventsBefore = await t.redis.xlen(`{${t.prefix}}:events`);
    const result = await store.apply('op-illegal', () => ({ set: { reenqueues: 3 }, entries: [entry] }));
    expect(result).toMatchObject({ ok: false, reason: `op-illegal is ACCEPTED now; ${reason}` });
    expect(await t.redis.get(`{${t.prefix}}:op:op-illegal`)).toBe(before);
    expect(await t.redis.xlen(`{${t.prefix}}:events`)).toBe(eventsBefore);
  });

  it('lets exactly one of 100 racing replicas (100 connections) win a transition', async () => {
    await store.create(newOp('op-race01'), 'U0REQ');
    const connections = Array.from({ length: 100 }, () => new Redis(t.url, { maxRetriesPerRequest: null }));
    try {
      const targets = ['QUEUED', 'DENIED', 'AWAITING_APPROVAL', 'CANCELLED'] as const;
      const results = await Promise.all(
        connections.map((c, i) =>
          new OperationStore(c, { prefix: t.prefix }).transition('op-race01', { from: ['ACCEPTED'], to: targets[i % 4] as OperationState, actor: `bot-${i}`, role: 'bot' }),
        ),
      );
      const winners = results.filter((r) => r.ok);
      expect(winners).toHaveLength(1);
      const won = (await store.get('op-race01'))!;
      for (const loser of results.filter((r) => !r.ok)) {
        expect(loser.ok || loser.reason).toMatch(new RegExp(`^op-race01 is ${won.state} now; ACCEPTED → [A-Z_]+ no longer applies$`));
      }
      expect(won.history.map((e) => e.name)).toEqual(['ACCEPTED', won.state]);
      expect((await readEvents(t.redis, t.prefix)).filter((e) => e.op === 'op-race01')).toHaveLength(2);
    } finally {
      for (const c of connections) c.disconnect();
    }
  });

  it('re-reads and decides again when another replica commits in between', async () => {
    await store.create(newOp('op-retry1'), 'U0REQ');
    const other = new OperationStore(t.redis, { prefix: t.prefix, now: () => clock });
    const seen: number[] = [];
    // Both read version 1 on one connection; the other's commit is sent first, so ours must re-read.
    const [theirs, mine] = await Promise.all([
      other.apply('op-retry1', () => ({ entries: [{ type: 'note', name: 'meanwhile', actor: 'U0X' }] })),
      store.apply('op-retry1', (current) => {
        seen.push(current.version);
        return { entries: [{ type: 'note', name: 'mine', actor: 'U0REQ' }] };
      }),
    ]);
    expect(theirs.ok).toBe(true);
    expect(seen).toEqual([1, 2]);
    expect(mine.ok && mine.record.history.map((e) => `${e.seq}:${e.name}`)).toEqual(['1:ACCEPTED', '2:meanwhile', '3:mine']);
  });

  it('appends non-state entries without changing the state', async () => {
    await store.create(newOp('op-notes1'), 'U0REQ');
    await step('op-notes1', to('AWAITING_APPROVAL', 'bot'));
    const record = await step(
      'op-notes1',
      { type: 'approval', name: 'approved', actor: 'U0LEAD', detail: { countsFor: ['prod-needs-a-lead'] } },
      { type: 'note', name: 'card-posted', actor: 'system' },
    );
    expect(record).toMatchObject({ state: 'AWAITING_APPROVAL', version: 3 });
    expect(record.history.slice(2)).toEqual([
      { seq: 3, type: 'approval', name: 'approved', actor: 'U0LEAD', at: T0 + 2000, detail: { countsFor: ['prod-needs-a-lead'] } },
      { seq: 4, type: 'note', name: 'card-posted', actor: 'system', at: T0 + 2000, detail: {} },
    ]);
  });

  it('returns the refusal of decide and writes nothing', async () => {
    await store.create(newOp('op-refuse'), 'U0REQ');
    expect(await store.apply('op-refuse', () => ({ refuse: 'the plan changed' }))).toMatchObject({ ok: false, reason: 'the plan changed' });
    expect(await store.apply('op-absent1', () => ({ entries: [] }))).toEqual({ ok: false, reason: 'op-absent1 not found' });
    expect((await store.get('op-refuse'))?.version).toBe(1);
  });
});

describe('the event stream', () => {
  it('holds exactly the histories of interleaved operations, in order', async () => {
    const ids = ['op-stream1', 'op-stream2', 'op-stream3'];
    for (const id of ids) await store.create(newOp(id, id === 'op-stream2' ? clicks : orders), 'U0REQ');
    await step('op-stream1', to('QUEUED', 'bot'));
    await step('op-stream2', to('AWAITING_APPROVAL', 'bot'), { type: 'note', name: 'card', actor: 'system', detail: { ts: '1.2' } });
    await step('op-stream1', to('SUBMITTING', 'worker'));
    await step('op-stream3', to('DENIED', 'bot', 'U0REQ'));
    await step('op-stream2', { type: 'approval', name: 'approved', actor: 'U0LEAD' }, to('QUEUED', 'bot', 'U0LEAD'));
    await step('op-stream1', to('UNCERTAIN', 'worker'), { type: 'retry', name: 'read-back', actor: 'worker' }, to('SUBMITTED', 'worker'));
    await step('op-stream1', { type: 'evidence', name: 'generation-reconciled', actor: 'worker', detail: { observed: 7 } }, to('COMPLETED', 'worker'));

    const events = await readEvents(t.redis, t.prefix, { count: 1000 });
    expect(events.map((e) => e.at)).toEqual([...events.map((e) => e.at)].sort((a, b) => a - b));
    for (const id of ids) {
      const history = (await store.get(id))!.history;
      const streamed = events.filter((e) => e.op === id).map(({ seq, type, name, actor, at, detail }) => ({ seq, type, name, actor, at, detail }));
      expect(streamed).toEqual(history);
    }
    expect(events).toHaveLength(3 + 1 + 2 + 1 + 1 + 2 + 3 + 2);
    expect(events.every((e) => e.id.startsWith(`${e.at}-`))).toBe(true);
  });

  it('is trimmed by age (7 days), never by count', async () => {
    const notes = (n: number): EntryInput[] => Array.from({ length: n }, (_, i) => ({ type: 'note', name: `n${i}`, actor: 'system' }));
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

describe('FIFO order per target', () => {
  it('follows first QUEUED, drops out on re-plan to approval and on terminal, rejoins at the back', async () => {
    for (const id of ['op-fifo0a', 'op-fifo0b', 'op-fifo0c']) await store.create(newOp(id), 'U0REQ');
    await step('op-fifo0a', to('QUEUED', 'bot'));
    await step('op-fifo0b', to('AWAITING_APPROVAL', 'bot'));
    await step('op-fifo0c', to('QUEUED', 'bot'));
    const b1 = await step('op-fifo0b', to('QUEUED', 'bot', 'U0LEAD'));
    expect(await store.orderOf(orders)).toEqual(['op-fifo0a', 'op-fifo0c', 'op-fifo0b']);
    expect(await store.head(orders)).toBe('op-fifo0a');

    const replanned = await store.apply('op-fifo0b', () => ({
      set: { approvals: [{ user: 'U0LEAD', at: 1, planDigest: 'd', countsFor: ['r'] }], expiresAt: T0 + DAY },
      entries: [{ type: 'replanned', name: 'after op-fifo0a', actor: 'worker' }, to('AWAITING_APPROVAL', 'worker')],
    }));
    expect(replanned.ok && replanned.record.approvals).toEqual([]);
    expect(await store.orderOf(orders)).toEqual(['op-fifo0a', 'op-fifo0c']);
    const b2 = await step('op-fifo0b', to('QUEUED', 'bot', 'U0LEAD'));
    expect(b2.firstQueuedSeq).toBeGreaterThan(b1.firstQueuedSeq!);
    expect((await store.get('op-fifo0b'))?.firstQueuedSeq).toBe(b2.firstQueuedSeq);
    expect(await store.orderOf(orders)).toEqual(['op-fifo0a', 'op-fifo0c', 'op-fifo0b']);

    await step('op-fifo0a', to('SUBMITTING', 'worker'), to('SUBMITTED', 'worker'));
    expect(await store.head(orders)).toBe('op-fifo0a');
    await step('op-fifo0a', to('COMPLETED', 'worker'));
    await step('op-fifo0c', { type: 'command', name: 'cancel', actor: 'U0REQ' }, to('CANCELLED', 'bot', 'U0REQ'));
    expect(await store.orderOf(orders)).toEqual(['op-fifo0b']);
    expect(await store.orderOf(clicks)).toEqual([]);
  });
});

describe('indexes and queries', () => {
  it('answers recent, by target, by state and expired approvals', async () => {
    const plan = [
      { id: 'op-query0a', target: orders },
      { id: 'op-query0b', target: clicks },
      { id: 'op-query0c', target: orders },
    ];
    for (const { id, target } of plan) {
      clock += 10;
      await store.create(newOp(id, target), 'U0REQ');
    }
    await store.apply('op-query0a', () => ({ set: { expiresAt: T0 + 100 }, entries: [to('AWAITING_APPROVAL', 'bot')] }));
    await store.apply('op-query0b', () => ({ set: { expiresAt: T0 + 300 }, entries: [to('AWAITING_APPROVAL', 'bot')] }));
    await step('op-query0c', to('QUEUED', 'bot'));

    expect((await store.recent(2)).map((r) => r.id)).toEqual(['op-query0c', 'op-query0b']);
    expect((await store.recentForTarget(orders, 10)).map((r) => r.id)).toEqual(['op-query0c', 'op-query0a']);
    expect((await store.activeIds()).sort()).toEqual(['op-query0a', 'op-query0b', 'op-query0c']);
    expect((await store.byState('AWAITING_APPROVAL')).sort()).toEqual(['op-query0a', 'op-query0b']);
    expect(await store.byState('QUEUED')).toEqual(['op-query0c']);
    expect(await store.expiredAwaitingApproval(T0 + 99)).toEqual([]);
    expect(await store.expiredAwaitingApproval(T0 + 1000)).toEqual(['op-query0a', 'op-query0b']);
    expect(await store.namespacesOfRecentOperations()).toEqual(['streaming-dev', 'streaming-prod']);

    await store.transition('op-query0a', { from: ['AWAITING_APPROVAL'], to: 'EXPIRED', actor: 'sweep', role: 'sweep' });
    expect(await store.expiredAwaitingApproval(T0 + 1000)).toEqual(['op-query0b']);
    expect((await store.activeIds()).sort()).toEqual(['op-query0b', 'op-query0c']);
    await expect(store.recent(0)).rejects.toThrow('limit must be a positive integer');
  });

  it('keeps terminal records with a TTL of the retention, active ones without, and trims indexes by age', async () => {
    await store.create(newOp('op-keep01'), 'U0REQ');
    await store.create(newOp('op-done01', clicks), 'U0REQ');
    await step('op-done01', to('DENIED', 'bot'));
    const ttl = await t.redis.pttl(`{${t.prefix}}:op:op-done01`);
    expect(ttl).toBeGreaterThan(34 * DAY);
    expect(ttl).toBeLessThanOrEqual(35 * DAY);
    expect(await t.redis.pttl(`{${t.prefix}}:op:op-keep01`)).toBe(-1);

    clock = T0 + 36 * DAY;
    await store.create(newOp('op-later1', orders), 'U0REQ');
    expect((await store.recent(10)).map((r) => r.id)).toEqual(['op-later1']);
    expect((await store.recentForTarget(orders, 10)).map((r) => r.id)).toEqual(['op-later1']);
    expect(await store.namespacesOfRecentOperations()).toEqual(['streaming-prod']);
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
