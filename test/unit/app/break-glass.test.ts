// Break-glass on the in-memory stores: the request skips the approval and is indexed before it is recorded; after it
// ends an approver of the skipped rule (never its requester) reviews it; overdue ones are reminded once a day.
import { describe, expect, it } from 'vitest';
import { countOverdueReviews, ORPHAN_AFTER_MS, remindDueReviews } from '../../../src/app/break-glass-due.js';
import type { OperationRecord } from '../../../src/domain/engines/operation.js';
import { ALICE, BOB, LEAD, memoryBot, PROD, recorded, type MemoryBot } from '../../support/memory-bot.js';

const HOUR = 3_600_000;

/** The worker's way to the end: QUEUED → SUBMITTING → SUBMITTED → COMPLETED. */
async function runToCompletion(bot: MemoryBot, id: string): Promise<OperationRecord> {
  for (const name of ['SUBMITTING', 'SUBMITTED', 'COMPLETED'] as const) {
    bot.advance(1_000);
    const result = await bot.stores.store.transition(id, {
      from: ['QUEUED', 'SUBMITTING', 'SUBMITTED'],
      to: name,
      actor: 'worker',
      role: 'worker',
    });
    if (!result.ok) throw new Error(result.reason);
  }
  return (await bot.stores.store.get(id)) as OperationRecord;
}

async function breakGlass(bot = memoryBot()) {
  const record = await recorded(bot, {
    kind: 'scale',
    target: PROD,
    parallelism: 8,
    breakGlass: true,
    reason: 'INC-7: consumer lag',
  });
  return { bot, record };
}

describe('break-glass requests', () => {
  it('queue at once for on-call, skipping the lead rule, and enter the review worklist', async () => {
    const { bot, record } = await breakGlass();
    expect(record.state).toBe('QUEUED');
    expect(record.decision?.breakGlass).toMatchObject({
      skippedRequirements: [{ rule: 'prod-needs-a-lead', approvals: 1, from: ['leads'] }],
    });
    expect(await bot.stores.breakGlass.list()).toEqual([{ id: record.id, at: record.createdAt }]);
    expect(bot.enqueued.map((e) => e.opId)).toEqual([record.id]);
  });

  it('are refused for someone outside the break-glass groups, with nothing recorded or indexed', async () => {
    const bot = memoryBot();
    const outcome = await bot.operations.request({
      intent: { kind: 'restart', target: PROD, incidentChannels: [], breakGlass: true, reason: 'x' },
      requester: LEAD,
      channel: 'C0OPS',
    });
    expect(outcome).toMatchObject({
      type: 'refused',
      message: expect.stringContaining('is not allowed to use --break-glass here'),
    });
    expect(await bot.stores.breakGlass.list()).toEqual([]);
    expect(await bot.stores.store.recent(5)).toEqual([]);
  });
});

describe('BreakGlassReviews.review', () => {
  it('waits for the end, refuses the requester and non-approvers, then records one review and leaves the worklist', async () => {
    const { bot, record } = await breakGlass();
    expect(await bot.reviews.review(record.id, LEAD)).toMatchObject({
      type: 'refused',
      message: expect.stringContaining('is QUEUED now: review it after it has ended'),
    });
    const done = await runToCompletion(bot, record.id);
    expect((await bot.reviews.dueFor(LEAD)).map((r) => r.id)).toEqual([done.id]);
    expect(await bot.reviews.dueFor(ALICE)).toEqual([]);
    expect(await bot.reviews.review(done.id, ALICE)).toMatchObject({
      type: 'refused',
      message: expect.stringContaining('one of its approvers reviews it, not you'),
    });
    expect(await bot.reviews.review(done.id, BOB)).toMatchObject({
      type: 'refused',
      message: expect.stringContaining('only members of leads'),
    });

    const reviewed = await bot.reviews.review(done.id, LEAD);
    expect(reviewed).toMatchObject({
      type: 'done',
      record: { state: 'COMPLETED' },
      message: `${done.id}: break-glass reviewed by <@${LEAD}>; thank you`,
    });
    expect((await bot.stores.store.get(done.id))?.history.at(-1)).toMatchObject({
      name: 'reviewed',
      actor: LEAD,
      detail: { reviewerGroups: ['leads'] },
    });
    expect(await bot.stores.breakGlass.list()).toEqual([]);
    expect(await bot.reviews.review(done.id, LEAD)).toMatchObject({
      type: 'refused',
      message: expect.stringContaining('was already reviewed'),
    });
  });
});

describe('overdue reviews', () => {
  it('are counted past reviewWithin and reminded once a day, whoever sweeps', async () => {
    const { bot, record } = await breakGlass();
    const done = await runToCompletion(bot, record.id);
    const deps = {
      store: bot.stores.store,
      index: bot.stores.breakGlass,
      policy: bot.deps.policy,
      logger: bot.deps.logger,
    };
    const due = done.updatedAt + HOUR + 1;
    expect(await countOverdueReviews(deps, due - 2)).toBe(0);
    expect(await countOverdueReviews(deps, due)).toBe(1);
    expect(await remindDueReviews(deps, due)).toEqual([done.id]);
    expect(await remindDueReviews(deps, due + HOUR)).toEqual([]);
    expect(await remindDueReviews(deps, due + 25 * HOUR)).toEqual([done.id]);
    const notes = (await bot.stores.store.get(done.id))?.history.filter((e) => e.name === 'review-due') ?? [];
    expect(notes.map((e) => e.detail.message)).toEqual([
      expect.stringContaining('leads: please review it'),
      expect.stringContaining('nobody has reviewed it'),
    ]);
  });

  it('drops an index entry whose request never became a record, once it is old enough to be sure', async () => {
    const bot = memoryBot();
    const deps = {
      store: bot.stores.store,
      index: bot.stores.breakGlass,
      policy: bot.deps.policy,
      logger: bot.deps.logger,
    };
    await bot.stores.breakGlass.add('op-neverrecorded', bot.now() - ORPHAN_AFTER_MS - 1);
    await bot.stores.breakGlass.add('op-beingrecorded', bot.now() - 1_000);
    expect(await remindDueReviews(deps, bot.now())).toEqual([]);
    expect((await bot.stores.breakGlass.list()).map((i) => i.id)).toEqual(['op-beingrecorded']);
  });
});
