// The operation service on the in-memory stores: a request becomes a recorded, carded and decided operation (or a
// refusal with nothing recorded); cancel by the requester only.
import { describe, expect, it } from 'vitest';
import { ALICE, BOB, DEV, intent, LEAD, memoryBot, OPS, PROD, recorded } from '../../support/memory-bot.js';

const states = (history: { type: string; name: string }[]) =>
  history.filter((e) => e.type === 'state').map((e) => e.name);

describe('OperationService.request', () => {
  it('records, cards and queues an operation no rule holds back, and puts it on its cluster queue', async () => {
    const bot = memoryBot();
    const record = await recorded(bot, { kind: 'scale', target: DEV, parallelism: 8 });
    expect(record).toMatchObject({ state: 'QUEUED', requester: ALICE, channel: OPS, card: { channel: OPS } });
    expect(states(record.history)).toEqual(['ACCEPTED', 'QUEUED']);
    expect(record.plan?.change).toMatchObject({ type: 'patch', patch: { spec: { job: { parallelism: 8 } } } });
    expect(bot.cards.map((c) => c.id)).toEqual([record.id]);
    expect(bot.enqueued).toEqual([{ opId: record.id, revision: 1, cluster: undefined }]);
    expect(await bot.stores.store.head(DEV)).toBe(record.id);
  });

  it('sends a production change to approval with the rule it needs and the approval deadline', async () => {
    const bot = memoryBot();
    const record = await recorded(bot, { kind: 'scale', target: PROD, parallelism: 8, reason: 'backlog' });
    expect(record.state).toBe('AWAITING_APPROVAL');
    expect(record.decision).toMatchObject({
      outcome: 'needs-approval',
      requirements: [{ rule: 'prod-needs-a-lead', approvals: 1, from: ['leads'] }],
    });
    expect(record.expiresAt).toBe(bot.now() + 30 * 60_000);
    expect(bot.enqueued).toEqual([]);
    expect(await bot.stores.store.expiredAwaitingApproval(bot.now() + 30 * 60_000)).toEqual([record.id]);
  });

  it('denies (recorded, carded, never queued) an operation on a frozen target, naming the freeze', async () => {
    const bot = memoryBot();
    await bot.stores.freezes.freeze(DEV, { by: LEAD, reason: 'quarter-end', at: bot.now() });
    const record = await recorded(bot, { kind: 'restart', target: DEV });
    expect(record.state).toBe('DENIED');
    expect(record.decision?.outcome === 'deny' ? record.decision.reasons.join(' ') : '').toContain('quarter-end');
    expect(bot.enqueued).toEqual([]);
    expect(await bot.stores.store.head(DEV)).toBeUndefined();
  });

  it('refuses what cannot become an operation and records nothing', async () => {
    const bot = memoryBot();
    const outcomes = await Promise.all([
      bot.operations.request({
        intent: intent({ kind: 'restart', target: { ...DEV, namespace: 'not-managed' } }),
        requester: ALICE,
        channel: OPS,
      }),
      bot.operations.request({
        intent: intent({ kind: 'restart', target: { ...DEV, name: 'missing' } }),
        requester: ALICE,
        channel: OPS,
      }),
      bot.operations.request({
        intent: intent({ kind: 'scale', target: DEV, parallelism: 4 }),
        requester: ALICE,
        channel: OPS,
      }),
    ]);
    expect(outcomes.map((o) => o.type)).toEqual(['refused', 'refused', 'refused']);
    expect(outcomes[1]).toMatchObject({ message: expect.stringContaining('there is no FlinkDeployment') });
    expect(await bot.stores.store.recent(10)).toEqual([]);
    expect(bot.cards).toEqual([]);
  });

  it('cancels the operation when its card cannot be posted, and tells the requester to invite the bot', async () => {
    const bot = memoryBot();
    bot.nextCard = { ok: false, error: 'not_in_channel' };
    const outcome = await bot.operations.request({
      intent: intent({ kind: 'restart', target: DEV }),
      requester: ALICE,
      channel: OPS,
    });
    expect(outcome).toMatchObject({
      type: 'cancelled',
      record: { state: 'CANCELLED' },
      message: expect.stringContaining('/invite @flink-chatops'),
    });
    const [stored] = await bot.stores.store.recent(1);
    expect(stored?.history.at(-1)).toMatchObject({
      name: 'CANCELLED',
      actor: 'system',
      detail: { reason: `the bot cannot post in <#${OPS}> (not_in_channel)` },
    });
    expect(bot.enqueued).toEqual([]);
  });
});

describe('OperationService.cancel', () => {
  it('lets the requester cancel before submission, out of the target order', async () => {
    const bot = memoryBot();
    const record = await recorded(bot, { kind: 'restart', target: DEV });
    expect(await bot.operations.cancel(record.id, BOB)).toEqual({
      type: 'refused',
      message: expect.stringContaining(`only <@${ALICE}>`),
    });
    const done = await bot.operations.cancel(record.id, ALICE);
    expect(done).toMatchObject({ type: 'done', record: { state: 'CANCELLED' }, message: `${record.id} is cancelled` });
    expect(await bot.stores.store.head(DEV)).toBeUndefined();
    expect(await bot.operations.cancel(record.id, ALICE)).toMatchObject({
      type: 'refused',
      message: `${record.id} is CANCELLED now and can no longer be cancelled`,
    });
    expect(await bot.operations.cancel('op-nothing1', ALICE)).toEqual({
      type: 'refused',
      message: 'there is no operation op-nothing1',
    });
  });
});
