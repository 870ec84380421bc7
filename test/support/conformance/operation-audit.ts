// The audit half of the operation store conformance suite (docs/audit.md#what-each-operation-writes): every
// implementation writes a change's audit events in the commit itself, seq without gaps across racing writers, none
// for a commit that did not happen. Run against Redis (test/integration/store) and memory (test/unit/store/memory).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditLog, OperationAuditing } from '../../../src/app/ports/audit-log.js';
import type { OperationStore } from '../../../src/app/ports/operation-store.js';
import type { AuditEvent } from '../../../src/domain/kit/audit/event.js';
import { verifyChain } from '../../../src/domain/kit/audit/verify.js';
import { AuditTrail } from '../../../src/audit/trail.js';
import { newOp, T0, to } from './operation-store.js';
import { createLogger } from '../../../src/log.js';

export interface OperationAuditHarness {
  /** `n` stores over the same data, each writing its audit events through `auditing`, racing for real. */
  stores(n: number, auditing: OperationAuditing): OperationStore[];
  /** The chain those stores append to. */
  log: AuditLog;
  cleanup(): Promise<void>;
}

/** The trail's drafts, with every event it was told was written, in order. */
function recordingTrail(log: AuditLog): OperationAuditing & { seen: AuditEvent[] } {
  const trail = new AuditTrail({ log, logger: createLogger('silent') });
  const seen: AuditEvent[] = [];
  return { drafts: (r, e) => trail.drafts(r, e), written: (events) => void seen.push(...events), seen };
}

async function chainOf(log: AuditLog): Promise<AuditEvent[]> {
  return log.readAfter(0, 10_000);
}

export function describeOperationAuditConformance(
  name: string,
  factory: (now: () => number) => Promise<OperationAuditHarness>,
): void {
  describe(`operation store audit conformance: ${name}`, () => {
    let h: OperationAuditHarness;
    let clock: number;
    beforeEach(async () => {
      clock = T0;
      h = await factory(() => clock);
    });
    afterEach(async () => h.cleanup());

    it('writes one event per audited transition, in order, chained, and says so once each', async () => {
      const trail = recordingTrail(h.log);
      const [store] = h.stores(1, trail) as [OperationStore];
      await store.create({ ...newOp('op-audit0001'), team: 'T0ACME' }, 'U0REQ');
      const steps = [
        to('AWAITING_APPROVAL', 'bot', 'system'),
        { type: 'approval', name: 'approved', actor: 'U0LEAD', detail: { countsFor: ['prod'], remaining: 0 } } as const,
        to('QUEUED', 'bot', 'U0LEAD'),
        { type: 'waiting', name: 'waiting', actor: 'worker', detail: { behind: 'op-other0001' } } as const,
        to('SUBMITTING', 'worker'),
        to('SUBMITTED', 'worker'),
        to('COMPLETED', 'worker'),
      ];
      for (const entry of steps) {
        clock += 1000;
        expect((await store.apply('op-audit0001', () => ({ entries: [entry] }))).ok).toBe(true);
      }
      const chain = await chainOf(h.log);
      expect(chain.map((e) => e.action)).toEqual([
        'requested',
        'awaiting_approval',
        'approved',
        'queued',
        'submitting',
        'submitted',
        'completed',
      ]);
      expect(chain.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
      expect(chain[2]).toMatchObject({
        actor: { user: 'U0LEAD', team: 'T0ACME' },
        op: { id: 'op-audit0001', kind: 'restart', cluster: 'default', namespace: 'streaming-prod', name: 'orders' },
        at: new Date(T0 + 2000).toISOString(),
      });
      expect(verifyChain(chain.map((e) => JSON.stringify(e)))).toEqual({ ok: true, count: 7, first: 1, last: 7 });
      expect(trail.seen).toEqual(chain);
    });

    it('gives racing writers one chain without a gap, and writes nothing for a commit that lost', async () => {
      const trail = recordingTrail(h.log);
      const stores = h.stores(4, trail);
      const ids = stores.map((_s, i) => `op-race${String(i).padStart(5, '0')}`);
      await Promise.all(stores.map((s, i) => s.create(newOp(ids[i] as string), 'U0REQ')));
      // Every store moves every operation at once: per operation one wins each step, the others are refused.
      const outcomes = await Promise.all(
        stores.flatMap((s) =>
          ids.map((id) => s.transition(id, { from: ['ACCEPTED'], to: 'QUEUED', actor: 'U0REQ', role: 'bot' })),
        ),
      );
      expect(outcomes.filter((o) => o.ok)).toHaveLength(ids.length);
      const chain = await chainOf(h.log);
      expect(chain.map((e) => e.seq)).toEqual(Array.from({ length: 2 * ids.length }, (_x, i) => i + 1));
      expect(
        chain
          .filter((e) => e.action === 'queued')
          .map((e) => e.op?.id)
          .sort(),
      ).toEqual([...ids].sort());
      expect(verifyChain(chain.map((e) => JSON.stringify(e))).ok).toBe(true);
      expect(new Set(trail.seen.map((e) => e.id)).size).toBe(chain.length);
    });

    it('records 80 operations requested at once through one store, each with its event', async () => {
      const trail = recordingTrail(h.log);
      const [store] = h.stores(1, trail) as [OperationStore];
      const ids = Array.from({ length: 80 }, (_x, i) => `op-burst${String(i).padStart(4, '0')}`);
      const created = await Promise.all(ids.map((id) => store.create(newOp(id), 'U0REQ')));
      expect(created.every((c) => c.ok)).toBe(true);
      expect((await store.getMany(ids)).map((r) => r.id)).toEqual(ids);
      const chain = await chainOf(h.log);
      expect(chain.map((e) => e.op?.id).sort()).toEqual([...ids].sort());
      expect(verifyChain(chain.map((e) => JSON.stringify(e)))).toMatchObject({ ok: true, count: 80 });
    });

    it('attributes what a process did to it, in the team of unknown for a record without one', async () => {
      const trail = recordingTrail(h.log);
      const [store] = h.stores(1, trail) as [OperationStore];
      await store.create(newOp('op-audit0002'), 'U0REQ');
      const cancel = await store.transition('op-audit0002', {
        from: ['ACCEPTED'],
        to: 'CANCELLED',
        actor: 'sweep',
        role: 'bot',
        detail: { reason: 'the bot stopped before the card' },
      });
      expect(cancel.ok).toBe(true);
      const [, cancelled] = await chainOf(h.log);
      expect(cancelled).toMatchObject({
        action: 'cancelled',
        actor: { user: 'sweep', team: 'unknown' },
        decision: { reason: 'the bot stopped before the card', from: 'ACCEPTED' },
      });
    });
  });
}
