// Approve and Reject on the in-memory stores: eligibility, one vote per person, the plan digest, the approval
// window, the drift re-check against the cluster, and quorum (docs/policy.md).
import { describe, expect, it } from 'vitest';
import { flinkDeployment } from '../../support/fixtures.js';
import {
  ALICE,
  BOB,
  digestOf,
  LEAD,
  LEAD2,
  memoryBot,
  PROD,
  recorded,
  UNIT_POLICY,
  unitPolicy,
} from '../../support/memory-bot.js';

async function awaiting(bot = memoryBot()) {
  const record = await recorded(bot, { kind: 'scale', target: PROD, parallelism: 8, reason: 'backlog' });
  expect(record.state).toBe('AWAITING_APPROVAL');
  return {
    bot,
    record,
    click: (user: string, digestPrefix: string | undefined = digestOf(record)) => ({
      opId: record.id,
      user,
      digestPrefix,
    }),
  };
}

describe('ApprovalService.approve', () => {
  it('queues the operation once a lead approves, recording who, and puts it on the queue', async () => {
    const { bot, record, click } = await awaiting();
    const outcome = await bot.approvals.approve(click(LEAD));
    expect(outcome).toMatchObject({
      type: 'done',
      record: { state: 'QUEUED' },
      message: `You approved ${record.id}; it has every approval it needs and is queued`,
    });
    const stored = await bot.stores.store.get(record.id);
    expect(stored?.approvals).toEqual([
      { user: LEAD, at: bot.now(), planDigest: record.plan?.digest, countsFor: ['prod-needs-a-lead'] },
    ]);
    expect(stored?.history.slice(-2).map((e) => `${e.type}:${e.name}:${e.actor}`)).toEqual([
      `approval:approved:${LEAD}`,
      `state:QUEUED:${LEAD}`,
    ]);
    expect(bot.enqueued).toEqual([{ opId: record.id, revision: 1, cluster: undefined }]);
    expect(await bot.approvals.approve(click(LEAD2))).toEqual({
      type: 'refused',
      message: `${record.id} is already decided (QUEUED); nothing was changed`,
    });
  });

  it('refuses the requester, someone outside the groups, and a click on an older plan, changing nothing', async () => {
    const { bot, record, click } = await awaiting();
    const refusals = [
      await bot.approvals.approve(click(ALICE)),
      await bot.approvals.approve(click(BOB)),
      await bot.approvals.approve(click(LEAD, 'deadbeefdeadbeef')),
    ];
    expect(refusals.map((r) => r.type)).toEqual(['refused', 'refused', 'refused']);
    expect(refusals[2]).toEqual({
      type: 'refused',
      message: `${record.id}: the plan changed; review the updated card`,
    });
    expect((await bot.stores.store.get(record.id))?.version).toBe(record.version);
  });

  it('counts each person once towards a quorum of two', async () => {
    const twoLeads = {
      ...UNIT_POLICY,
      rules: [
        {
          name: 'prod-needs-two',
          when: { namespaces: ['streaming-prod'] },
          require: { approvals: 2, from: ['leads'] },
        },
      ],
    };
    const { bot, record, click } = await awaiting(memoryBot({ policy: unitPolicy(twoLeads) }));
    expect(await bot.approvals.approve(click(LEAD))).toMatchObject({
      type: 'done',
      record: { state: 'AWAITING_APPROVAL' },
      message: expect.stringContaining('still needed: 1 more from leads'),
    });
    expect(await bot.approvals.approve(click(LEAD))).toEqual({
      type: 'refused',
      message: `you already approved ${record.id}`,
    });
    expect(await bot.approvals.approve(click(LEAD2))).toMatchObject({ type: 'done', record: { state: 'QUEUED' } });
  });

  it('refuses once the approval window has closed', async () => {
    const { bot, record, click } = await awaiting();
    bot.advance(30 * 60_000);
    expect(await bot.approvals.approve(click(LEAD))).toEqual({
      type: 'refused',
      message: `the approval window of ${record.id} has closed; request it again`,
    });
  });

  it('aborts instead of counting when someone else changed the target since the plan', async () => {
    const { bot, record, click } = await awaiting();
    // Someone scaled it by hand: generation 4, not made by this bot.
    bot.cluster.put(flinkDeployment({ namespace: PROD.namespace, generation: 4, spec: { job: { parallelism: 6 } } }));
    const outcome = await bot.approvals.approve(click(LEAD));
    expect(outcome).toMatchObject({ type: 'done', record: { state: 'ABORTED' } });
    expect(outcome.type === 'done' && outcome.message).toContain(`${record.id} was not approved and is aborted`);
    expect(bot.enqueued).toEqual([]);
  });
});

describe('ApprovalService.reject', () => {
  it('lets a lead reject, never the requester; then nothing can approve it', async () => {
    const { bot, record, click } = await awaiting();
    expect((await bot.approvals.reject(click(ALICE))).type).toBe('refused');
    expect(await bot.approvals.reject(click(LEAD))).toMatchObject({
      type: 'done',
      record: { state: 'REJECTED' },
      message: `You rejected ${record.id}`,
    });
    expect(await bot.approvals.approve(click(LEAD2))).toEqual({
      type: 'refused',
      message: `${record.id} is already decided (REJECTED); nothing was changed`,
    });
    expect(await bot.stores.store.activeIds()).toEqual([]);
  });
});
