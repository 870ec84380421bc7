// The bot end to end through signed HTTP: requests become QUEUED or wait for approval; approve, reject and cancel
// clicks with eligibility, self-approval, double clicks and stale digests (real Bolt, Redis, simulated Slack and cluster).
import { describe, expect, it } from 'vitest';
import { USERS, type BotEnv, useBotEnvs } from '../support/bot-env.js';

const bots = useBotEnvs();
let env: BotEnv | undefined;

const PROD_SCALE = 'scale streaming-prod/orders 5 --reason "backlog"';

async function awaitingApproval(): Promise<{ env: BotEnv; opId: string }> {
  env = await bots.start();
  const record = await env.request(PROD_SCALE, USERS.alice);
  expect(record.state).toBe('AWAITING_APPROVAL');
  return { env, opId: record.id };
}

describe('requests', () => {
  it('runs a dev operation without approval: QUEUED and its BullMQ job waiting', async () => {
    env = await bots.start();
    const record = await env.request('scale streaming-dev/orders 3', USERS.bob);
    expect(record).toMatchObject({
      state: 'QUEUED',
      requester: USERS.bob,
      channel: env.channel,
      card: { channel: env.channel },
    });
    expect(record.plan?.diff).toEqual([{ path: 'spec.job.parallelism', before: 2, after: 3 }]);
    expect(record.history.map((h) => h.name)).toEqual(['ACCEPTED', 'QUEUED']);
    expect(await env.waitForJob(record.id, 1)).toBe('waiting');
  });

  it('asks for approval in production, with the expiry of the policy and the namespace incident channel', async () => {
    const { env: e, opId } = await awaitingApproval();
    const record = await e.record(opId);
    expect(record.decision).toMatchObject({
      outcome: 'needs-approval',
      requirements: [{ rule: 'prod-needs-a-lead', approvals: 1, from: ['leads'] }],
    });
    expect((record.expiresAt ?? 0) - (record.history[1]?.at ?? 0)).toBeGreaterThan(30 * 60_000 - 1000);
    expect((record.expiresAt ?? 0) - (record.history[1]?.at ?? 0)).toBeLessThanOrEqual(30 * 60_000);
    expect(record.incidentChannels).toEqual(['C0INCIDENTS']);
    expect(await e.jobState(opId, 1)).toBe('unknown');
    const card = e.sim.messages(e.channel).find((m) => m.ts === record.card?.ts);
    expect(card?.metadata).toEqual({ event_type: 'flink_chatops', event_payload: { op: opId, seq: 1 } });
  });
});

describe('approvals', () => {
  it.each([
    ['a lead listed by id', USERS.lead1],
    ['a lead through the Slack user group', USERS.lead2],
  ])('queues a production operation approved by %s', async (_name, lead) => {
    const { env: e, opId } = await awaitingApproval();
    const click = await e.click('approve', await e.record(opId), lead);
    expect(click.status).toBe(200);
    expect(click.body).toBe('');
    expect((await click.reply()).text).toContain(`You approved ${opId}`);
    const record = await e.record(opId);
    expect(record.state).toBe('QUEUED');
    expect(record.approvals).toEqual([
      expect.objectContaining({ user: lead, countsFor: ['prod-needs-a-lead'], planDigest: record.plan?.digest }),
    ]);
    expect(record.history.filter((h) => h.type === 'approval')).toEqual([
      expect.objectContaining({ name: 'approved', actor: lead }),
    ]);
    expect(await e.waitForJob(opId, 1)).toBe('waiting');
    // The notifier edits the card: no Approve/Reject any more, only Cancel until it is submitted.
    const actions = JSON.stringify((await e.cardIn(record, 'QUEUED')).blocks);
    expect(actions).not.toContain('flink_ops_approve');
    expect(actions).toContain('flink_ops_cancel');
  });

  it.each([
    ['self-approval', USERS.alice, 'you requested this operation; someone else must approve it'],
    ['someone outside the approving groups', USERS.bob, 'you are not in leads, whose approval this operation needs'],
  ])('refuses %s privately and changes nothing', async (_name, user, why) => {
    const { env: e, opId } = await awaitingApproval();
    const before = await e.record(opId);
    const reply = await (await e.click('approve', before, user)).reply();
    expect(reply.text).toContain(why);
    expect(reply.body).toMatchObject({ response_type: 'ephemeral', replace_original: false });
    expect(await e.record(opId)).toEqual(before);
  });

  it('counts a double click once; each person counts for every rule their groups satisfy', async () => {
    env = await bots.start();
    const e = env;
    const requested = await e.request(
      'upgrade streaming-prod/orders --image flink:1.20.1 --mode stateless --reason "hotfix"',
      USERS.alice,
    );
    expect(requested.decision?.requirements.map((r) => [r.rule, r.approvals])).toEqual([
      ['prod-needs-a-lead', 1],
      ['stateless-in-prod-needs-two', 2],
    ]);
    const [first, second] = await Promise.all([
      e.click('approve', requested, USERS.lead1),
      e.click('approve', requested, USERS.lead1),
    ]);
    const texts = [(await first!.reply()).text, (await second!.reply()).text];
    expect(
      texts.filter((t) =>
        t.includes(`You approved ${requested.id}; still needed: 1 more from leads (rule stateless-in-prod-needs-two)`),
      ),
    ).toHaveLength(1);
    expect(texts.filter((t) => t.includes(`you already approved ${requested.id}`))).toHaveLength(1);
    const once = await e.record(requested.id);
    expect(once.state).toBe('AWAITING_APPROVAL');
    expect(once.approvals.map((a) => [a.user, a.countsFor])).toEqual([
      [USERS.lead1, ['prod-needs-a-lead', 'stateless-in-prod-needs-two']],
    ]);
    expect(once.history.filter((h) => h.type === 'approval')).toHaveLength(1);

    await (await e.click('approve', once, USERS.lead2)).reply();
    const queued = await e.record(requested.id);
    expect(queued.state).toBe('QUEUED');
    expect(queued.history.at(-1)?.detail).toMatchObject({ approvedBy: [USERS.lead1, USERS.lead2] });
  });

  it('refuses a click made on a card with another plan digest, without counting it', async () => {
    const { env: e, opId } = await awaitingApproval();
    const before = await e.record(opId);
    const reply = await (
      await e.click('approve', before, USERS.lead1, { blockId: 'approval:0000000000000000' })
    ).reply();
    expect(reply.text).toContain('the plan changed; review the updated card');
    expect(await e.record(opId)).toEqual(before);
  });

  it('answers a click on a decided operation with its state, changing nothing', async () => {
    const { env: e, opId } = await awaitingApproval();
    await (await e.click('approve', await e.record(opId), USERS.lead1)).reply();
    const queued = await e.record(opId);
    const reply = await (await e.click('approve', queued, USERS.lead2)).reply();
    expect(reply.text).toContain(`${opId} is already decided (QUEUED)`);
    expect(await e.record(opId)).toEqual(queued);
  });
});

describe('reject and cancel', () => {
  it('rejects when an eligible approver clicks Reject', async () => {
    const { env: e, opId } = await awaitingApproval();
    const reply = await (await e.click('reject', await e.record(opId), USERS.lead1)).reply();
    expect(reply.text).toContain(`You rejected ${opId}`);
    const record = await e.record(opId);
    expect(record.state).toBe('REJECTED');
    expect(record.history.at(-1)).toMatchObject({ type: 'state', name: 'REJECTED', actor: USERS.lead1 });
  });

  it.each([
    ['the requester', USERS.alice, 'use Cancel to withdraw it'],
    ['someone outside the approving groups', USERS.bob, 'you are not in leads'],
  ])('refuses a Reject by %s', async (_name, user, why) => {
    const { env: e, opId } = await awaitingApproval();
    const before = await e.record(opId);
    expect((await (await e.click('reject', before, user)).reply()).text).toContain(why);
    expect(await e.record(opId)).toEqual(before);
  });

  it('cancels by the requester, from the button and from /flink cancel', async () => {
    const { env: e, opId } = await awaitingApproval();
    expect((await (await e.click('cancel', await e.record(opId), USERS.alice)).reply()).text).toContain(
      `${opId} is cancelled`,
    );
    expect(await e.record(opId)).toMatchObject({ state: 'CANCELLED' });

    const queued = await e.request('scale streaming-dev/orders 4', USERS.alice);
    const sent = await e.command(`cancel ${queued.id}`, USERS.alice);
    expect((await sent.reply()).text).toContain(`${queued.id} is cancelled`);
    expect((await e.record(queued.id)).history.at(-1)).toMatchObject({
      name: 'CANCELLED',
      actor: USERS.alice,
      detail: { from: 'QUEUED' },
    });
  });

  it('refuses a cancel by anyone else, and a cancel after the decision', async () => {
    const { env: e, opId } = await awaitingApproval();
    const before = await e.record(opId);
    const byLead = await (await e.click('cancel', before, USERS.lead1)).reply();
    expect(byLead.text).toContain(`only <@${USERS.alice}>, who requested ${opId}, can cancel it`);
    expect(await e.record(opId)).toEqual(before);
    await (await e.click('reject', before, USERS.lead1)).reply();
    const late = await (await e.command(`cancel ${opId}`, USERS.alice)).reply();
    expect(late.text).toContain(`${opId} is REJECTED now and can no longer be cancelled`);
  });
});
