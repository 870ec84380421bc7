// The in-memory audit log: the conformance suite the Redis store passes too, plus its exact trimming (Redis' is
// approximate by design).
import { describe, expect, it } from 'vitest';
import { MemoryAuditLog, MemoryAuditPosition } from '../../../../src/store/memory/audit-log.js';
import { describeAuditLogConformance } from '../../../support/conformance/audit-log.js';

describeAuditLogConformance('memory', async (now) => {
  const position = new MemoryAuditPosition();
  const log = new MemoryAuditLog({ now, position });
  // One object holds the chain; racers still interleave between their awaits.
  return { log, position, racers: (n) => Array.from({ length: n }, () => log), cleanup: async () => undefined };
});

describe('MemoryAuditLog', () => {
  const DAY = 24 * 60 * 60 * 1000;
  const T0 = Date.UTC(2030, 2, 1, 12, 0, 0);
  const draft = (at: number, n: number) => ({
    id: `aud-${n.toString(16).padStart(20, '0')}`,
    at: new Date(at).toISOString(),
    actor: { user: 'U0LEAD', team: 'T0TEAM' },
    action: 'frozen' as const,
  });

  it('drops exactly the old events up to the position at the next append, and refuses a short retention', async () => {
    let clock = T0;
    const position = new MemoryAuditPosition();
    const log = new MemoryAuditLog({ now: () => clock, retentionMs: 30 * DAY, position });
    for (let i = 1; i <= 4; i++) await log.append(draft(T0, i));
    await position.advance(2);
    clock = T0 + 30 * DAY + 1;
    await log.append(draft(clock, 5));
    expect((await log.readAfter(0, 10)).map((e) => e.seq)).toEqual([3, 4, 5]);
    expect(() => new MemoryAuditLog({ retentionMs: DAY })).toThrow('at least');
  });

  it('commits each append before it yields, so callers that do not await still get one seq each', async () => {
    const log = new MemoryAuditLog({ now: () => T0 });
    const pending = [log.append(draft(T0, 1)), log.append(draft(T0, 2))];
    expect(await log.head()).toMatchObject({ seq: 2 });
    expect((await Promise.all(pending)).map((e) => e.seq)).toEqual([1, 2]);
  });

  it('hands out copies: changing a returned event changes nothing held', async () => {
    const log = new MemoryAuditLog({ now: () => T0 });
    const event = await log.append(draft(T0, 1));
    event.actor.user = 'U0MALLORY';
    expect((await log.readAfter(0, 1))[0]?.actor.user).toBe('U0LEAD');
  });
});
