// The operation store conformance suite: the same behaviour tests for every OperationStore implementation
// (Redis in test/integration/store, memory in test/unit/store/memory), as bullmq runs one suite per backend.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NewOperation, OperationStore } from '../../../src/app/ports/operation-store.js';
import type { EntryInput, HistoryEntry, OperationRecord } from '../../../src/domain/engines/operation.js';
import type { OperationState } from '../../../src/domain/model/lifecycle.js';
import type { Target } from '../../../src/domain/model/target.js';

/** A store's own options the suite varies: a retention, an observer. */
export interface StoreOptions {
  retentionMs?: number;
  onCommitted?: (record: OperationRecord, entries: readonly HistoryEntry[]) => void;
}

/** The store plus its test seam: the target's whole FIFO order (consumers only ever read its head). */
export type OrderedStore = OperationStore & { orderOf(target: Target): Promise<string[]> };

export interface OperationStoreHarness {
  /** A store on `now`, the clock the suite moves. */
  store: OrderedStore;
  /** Another store over the same data (another replica) with its own options, on the same clock and connection. */
  make(opts: StoreOptions): OrderedStore;
  /** `n` stores over the same data that race each other for real (on Redis: one connection each). */
  racers(n: number): OperationStore[];
  cleanup(): Promise<void>;
}

// The records the suite writes, shared with the Redis store's own tests (test/integration/operation-store.test.ts).
export const DAY = 24 * 60 * 60 * 1000;
export const T0 = Date.UTC(2030, 0, 7, 9, 0, 0);
export const orders: Target = { kind: 'FlinkDeployment', namespace: 'streaming-prod', name: 'orders' };
export const clicks: Target = { kind: 'FlinkSessionJob', namespace: 'streaming-dev', name: 'clicks' };

export function newOp(id: string, target: Target = orders): NewOperation {
  return {
    id,
    kind: 'restart',
    intent: { kind: 'restart', target, incidentChannels: [] },
    target,
    requester: 'U0REQ',
    channel: 'C0OPS',
    incidentChannels: [],
  };
}

export const to = (name: OperationState, role: 'bot' | 'worker' | 'sweep', actor: string = role): EntryInput => ({
  type: 'state',
  name,
  actor,
  role,
});

export function describeOperationStoreConformance(
  name: string,
  factory: (now: () => number) => Promise<OperationStoreHarness>,
): void {
  describe(`operation store conformance: ${name}`, () => {
    let h: OperationStoreHarness;
    let store: OrderedStore;
    let clock: number;
    beforeEach(async () => {
      clock = T0;
      h = await factory(() => clock);
      store = h.store;
    });
    afterEach(async () => h.cleanup());

    async function step(id: string, ...entries: EntryInput[]): Promise<OperationRecord> {
      clock += 1000;
      const result = await store.apply(id, () => ({ entries }));
      if (!result.ok) throw new Error(result.reason);
      return result.record;
    }

    describe('create and get', () => {
      it('writes ACCEPTED with its first entry, reads it back, and refuses a taken id', async () => {
        const created = await store.create(
          { ...newOp('op-create1'), responseUrl: 'https://hooks.slack.test/1' },
          'U0REQ',
        );
        expect(created.ok).toBe(true);
        const record = await store.get('op-create1');
        expect(record).toEqual(created.ok ? created.record : undefined);
        expect(record).toMatchObject({
          version: 1,
          state: 'ACCEPTED',
          createdAt: T0,
          updatedAt: T0,
          approvals: [],
          reenqueues: 0,
        });
        expect(record?.history).toEqual([
          { seq: 1, type: 'state', name: 'ACCEPTED', actor: 'U0REQ', at: T0, detail: { from: '(new)' } },
        ]);
        expect(await store.create(newOp('op-create1'), 'U0OTHER')).toEqual({ ok: false, reason: 'exists' });
        expect((await store.get('op-create1'))?.requester).toBe('U0REQ');
        expect(await store.get('op-missing1')).toBeUndefined();
      });

      it('refuses a malformed id and a short retention with clear messages', async () => {
        await expect(store.create(newOp('OP-1'), 'U0REQ')).rejects.toThrow('"OP-1" is not an operation id');
        expect(() => h.make({ retentionMs: 29 * DAY })).toThrow('at least');
      });

      it('hands out copies: changing a record read does not change the stored one', async () => {
        await store.create(newOp('op-copy01'), 'U0REQ');
        const read = await store.get('op-copy01');
        read?.history.push({ seq: 2, type: 'note', name: 'local', actor: 'x', at: 0, detail: {} });
        expect((await store.get('op-copy01'))?.history).toHaveLength(1);
      });

      it('reads many in the order asked, leaving out ids without a record', async () => {
        for (const id of ['op-many0a', 'op-many0b']) await store.create(newOp(id), 'U0REQ');
        expect((await store.getMany(['op-many0b', 'op-nothing', 'op-many0a'])).map((r) => r.id)).toEqual([
          'op-many0b',
          'op-many0a',
        ]);
        expect(await store.getMany([])).toEqual([]);
      });
    });

    describe('transitions', () => {
      it('commits a legal transition with its entry, state and version', async () => {
        await store.create(newOp('op-legal1'), 'U0REQ');
        clock += 5;
        const result = await store.transition('op-legal1', {
          from: ['ACCEPTED'],
          to: 'QUEUED',
          actor: 'U0REQ',
          role: 'bot',
          detail: { decision: 'allow' },
        });
        expect(result).toMatchObject({
          ok: true,
          entries: [
            { seq: 2, type: 'state', name: 'QUEUED', at: T0 + 5, detail: { decision: 'allow', from: 'ACCEPTED' } },
          ],
        });
        expect(await store.get('op-legal1')).toMatchObject({ state: 'QUEUED', version: 2, updatedAt: T0 + 5 });
      });

      it('refuses a transition from a state the record is no longer in', async () => {
        await store.create(newOp('op-moved01'), 'U0REQ');
        await step('op-moved01', to('AWAITING_APPROVAL', 'bot'));
        const result = await store.transition('op-moved01', {
          from: ['ACCEPTED'],
          to: 'QUEUED',
          actor: 'U0REQ',
          role: 'bot',
        });
        expect(result).toMatchObject({
          ok: false,
          reason: 'op-moved01 is AWAITING_APPROVAL now; ACCEPTED → QUEUED no longer applies',
          record: { version: 2 },
        });
      });

      it.each([
        {
          name: 'an illegal transition',
          entry: to('SUBMITTED', 'worker'),
          reason: 'ACCEPTED → SUBMITTED is not a legal transition',
        },
        {
          name: 'the wrong writer',
          entry: to('QUEUED', 'worker'),
          reason: 'ACCEPTED → QUEUED is written by the bot, not the worker',
        },
      ])('refuses $name and writes nothing', async ({ entry, reason }) => {
        await store.create(newOp('op-illegal'), 'U0REQ');
        const before = await store.get('op-illegal');
        const result = await store.apply('op-illegal', () => ({ set: { reenqueues: 3 }, entries: [entry] }));
        expect(result).toMatchObject({ ok: false, reason: `op-illegal is ACCEPTED now; ${reason}` });
        expect(await store.get('op-illegal')).toEqual(before);
      });

      it('lets exactly one of 20 racing replicas win a transition; the others are told what happened', async () => {
        await store.create(newOp('op-race01'), 'U0REQ');
        const targets = ['QUEUED', 'DENIED', 'AWAITING_APPROVAL', 'CANCELLED'] as const;
        const results = await Promise.all(
          h.racers(20).map((racer, i) =>
            racer.transition('op-race01', {
              from: ['ACCEPTED'],
              to: targets[i % 4] as OperationState,
              actor: `bot-${i}`,
              role: 'bot',
            }),
          ),
        );
        expect(results.filter((r) => r.ok)).toHaveLength(1);
        const won = (await store.get('op-race01')) as OperationRecord;
        for (const loser of results.filter((r) => !r.ok)) {
          expect(loser.ok || loser.reason).toMatch(
            new RegExp(`^op-race01 is ${won.state} now; ACCEPTED → [A-Z_]+ no longer applies$`),
          );
        }
        expect(won.history.map((e) => e.name)).toEqual(['ACCEPTED', won.state]);
      });

      it('re-reads and decides again when another replica commits in between', async () => {
        await store.create(newOp('op-retry1'), 'U0REQ');
        const other = h.make({});
        const seen: number[] = [];
        // Both read version 1; the other's commit lands first, so ours must read again and decide on version 2.
        const [theirs, mine] = await Promise.all([
          other.apply('op-retry1', () => ({ entries: [{ type: 'note', name: 'meanwhile', actor: 'U0X' }] })),
          store.apply('op-retry1', (current) => {
            seen.push(current.version);
            return { entries: [{ type: 'note', name: 'mine', actor: 'U0REQ' }] };
          }),
        ]);
        expect(theirs.ok).toBe(true);
        expect(seen).toEqual([1, 2]);
        expect(mine.ok && mine.record.history.map((e) => `${e.seq}:${e.name}`)).toEqual([
          '1:ACCEPTED',
          '2:meanwhile',
          '3:mine',
        ]);
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
          {
            seq: 3,
            type: 'approval',
            name: 'approved',
            actor: 'U0LEAD',
            at: T0 + 2000,
            detail: { countsFor: ['prod-needs-a-lead'] },
          },
          { seq: 4, type: 'note', name: 'card-posted', actor: 'system', at: T0 + 2000, detail: {} },
        ]);
        expect(await store.get('op-notes1')).toEqual(record);
      });

      it('returns the refusal of decide and writes nothing', async () => {
        await store.create(newOp('op-refuse'), 'U0REQ');
        expect(await store.apply('op-refuse', () => ({ refuse: 'the plan changed' }))).toMatchObject({
          ok: false,
          reason: 'the plan changed',
        });
        expect(await store.apply('op-absent1', () => ({ entries: [] }))).toEqual({
          ok: false,
          reason: 'op-absent1 not found',
        });
        expect((await store.get('op-refuse'))?.version).toBe(1);
      });

      it('tells its observer about each committed change once, and a failing observer fails no commit', async () => {
        const seen: string[] = [];
        const observed = h.make({
          onCommitted: (record, entries) => seen.push(`${record.state}:${entries.map((e) => e.name).join(',')}`),
        });
        await observed.create(newOp('op-observe'), 'U0REQ');
        await observed.transition('op-observe', { from: ['ACCEPTED'], to: 'QUEUED', actor: 'U0REQ', role: 'bot' });
        await observed.apply('op-observe', () => ({ refuse: 'no' }));
        expect(seen).toEqual(['QUEUED:QUEUED']);
        const broken = h.make({
          onCommitted: () => {
            throw new Error('observer down');
          },
        });
        expect(
          await broken.apply('op-observe', () => ({ entries: [{ type: 'note', name: 'still', actor: 'x' }] })),
        ).toMatchObject({ ok: true });
      });
    });

    describe('FIFO order per target', () => {
      it('follows first QUEUED, drops out on re-plan to approval and on terminal, rejoins at the back', async () => {
        for (const id of ['op-fifo0a', 'op-fifo0b', 'op-fifo0c']) await store.create(newOp(id), 'U0REQ');
        expect(await store.head(orders)).toBeUndefined();
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
        expect(b2.firstQueuedSeq).toBeGreaterThan(b1.firstQueuedSeq as number);
        expect((await store.get('op-fifo0b'))?.firstQueuedSeq).toBe(b2.firstQueuedSeq);
        expect(await store.orderOf(orders)).toEqual(['op-fifo0a', 'op-fifo0c', 'op-fifo0b']);

        await step('op-fifo0a', to('SUBMITTING', 'worker'), to('SUBMITTED', 'worker'));
        expect(await store.head(orders)).toBe('op-fifo0a');
        await step('op-fifo0a', to('COMPLETED', 'worker'));
        await step('op-fifo0c', { type: 'command', name: 'cancel', actor: 'U0REQ' }, to('CANCELLED', 'bot', 'U0REQ'));
        expect(await store.orderOf(orders)).toEqual(['op-fifo0b']);
        expect(await store.orderOf(clicks)).toEqual([]);
      });

      it('hands out order tickets across targets, each target keeping its own order', async () => {
        await store.create(newOp('op-tick0a'), 'U0REQ');
        await store.create(newOp('op-tick0b', clicks), 'U0REQ');
        const a = await step('op-tick0a', to('QUEUED', 'bot'));
        const b = await step('op-tick0b', to('QUEUED', 'bot'));
        expect(b.firstQueuedSeq).toBeGreaterThan(a.firstQueuedSeq as number);
        expect(await store.head(orders)).toBe('op-tick0a');
        expect(await store.head(clicks)).toBe('op-tick0b');
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
        await store.apply('op-query0a', () => ({
          set: { expiresAt: T0 + 100 },
          entries: [to('AWAITING_APPROVAL', 'bot')],
        }));
        await store.apply('op-query0b', () => ({
          set: { expiresAt: T0 + 300 },
          entries: [to('AWAITING_APPROVAL', 'bot')],
        }));
        await step('op-query0c', to('QUEUED', 'bot'));

        expect((await store.recent(2)).map((r) => r.id)).toEqual(['op-query0c', 'op-query0b']);
        expect((await store.recentForTarget(orders, 10)).map((r) => r.id)).toEqual(['op-query0c', 'op-query0a']);
        expect((await store.recentForTarget(orders, 1)).map((r) => r.id)).toEqual(['op-query0c']);
        expect((await store.activeIds()).sort()).toEqual(['op-query0a', 'op-query0b', 'op-query0c']);
        expect((await store.byState('AWAITING_APPROVAL')).sort()).toEqual(['op-query0a', 'op-query0b']);
        expect(await store.byState('QUEUED')).toEqual(['op-query0c']);
        expect(await store.expiredAwaitingApproval(T0 + 99)).toEqual([]);
        expect(await store.expiredAwaitingApproval(T0 + 1000)).toEqual(['op-query0a', 'op-query0b']);
        expect(await store.namespacesOfRecentOperations()).toEqual(['streaming-dev', 'streaming-prod']);

        await store.transition('op-query0a', {
          from: ['AWAITING_APPROVAL'],
          to: 'EXPIRED',
          actor: 'sweep',
          role: 'sweep',
        });
        expect(await store.expiredAwaitingApproval(T0 + 1000)).toEqual(['op-query0b']);
        expect((await store.activeIds()).sort()).toEqual(['op-query0b', 'op-query0c']);
        await expect(store.recent(0)).rejects.toThrow('limit must be a positive integer');
        await expect(store.recentForTarget(orders, 1.5)).rejects.toThrow('limit must be a positive integer');
        await expect(store.byState('COMPLETED' as 'QUEUED')).rejects.toThrow('byState covers non-terminal states only');
      });

      it('keeps an approval deadline only while AWAITING_APPROVAL', async () => {
        await store.create(newOp('op-window1'), 'U0REQ');
        await store.apply('op-window1', () => ({
          set: { expiresAt: T0 + 100 },
          entries: [to('AWAITING_APPROVAL', 'bot')],
        }));
        await store.apply('op-window1', () => ({
          entries: [{ type: 'approval', name: 'approved', actor: 'U0LEAD' }, to('QUEUED', 'bot', 'U0LEAD')],
        }));
        expect(await store.expiredAwaitingApproval(T0 + 1000)).toEqual([]);
      });

      it('trims the indexes by age: past the retention only what was written since is listed', async () => {
        await store.create(newOp('op-keep01'), 'U0REQ');
        await store.create(newOp('op-done01', clicks), 'U0REQ');
        await step('op-done01', to('DENIED', 'bot'));

        clock = T0 + 36 * DAY;
        await store.create(newOp('op-later1', orders), 'U0REQ');
        expect((await store.recent(10)).map((r) => r.id)).toEqual(['op-later1']);
        expect((await store.recentForTarget(orders, 10)).map((r) => r.id)).toEqual(['op-later1']);
        expect(await store.namespacesOfRecentOperations()).toEqual(['streaming-prod']);
        // An operation still active is kept however old (only terminal records expire).
        expect((await store.get('op-keep01'))?.state).toBe('ACCEPTED');
        expect(await store.activeIds()).toContain('op-keep01');
      });
    });
  });
}
