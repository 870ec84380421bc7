// Approver DMs (docs/policy.md#reaching-approvers): every eligible approver gets one DM with the card's buttons, a
// decision anywhere updates every copy, the requester and non-approvers get none, `notify: channel` sends none
// (real Bolt, Redis, notifier; simulated Slack and cluster).
import { describe, expect, it } from 'vitest';
import { approvalBlockId } from '../../src/slack/blocks/index.js';
import type { SimMessage } from '@flink-chatops/sim/slack-api';
import { notifierKeys } from '../../src/store/keys.js';
import { USERS, testPolicy, useBotEnvs, type BotEnv } from '../support/bot-env.js';
import { eventually } from '../support/poll.js';

const bots = useBotEnvs();
const PROD_SCALE = 'scale streaming-prod/orders 5 --reason "backlog"';
const LEADS = [USERS.lead1, USERS.lead2];

const actionsOf = (m: SimMessage | undefined) =>
  ((m?.blocks ?? []) as { type?: string }[]).filter((b) => b.type === 'actions') as {
    block_id?: string;
    elements: { action_id: string; value: string }[];
  }[];

/** The user's DMs once there are `n` of them. */
async function dmsOf(env: BotEnv, user: string, n: number): Promise<SimMessage[]> {
  return env.sim.waitFor(() => (env.sim.dms(user).length >= n ? env.sim.dms(user) : undefined), 10_000);
}

/** Every DM round of the operation settled (sent or decided not to be): the notifier is done with its DMs. */
async function roundSettled(env: BotEnv, opId: string, seq: number): Promise<void> {
  const key = notifierKeys(env.redis.prefix).dmCopies(opId);
  // Settling is a Redis write with no event of its own: looked for as env.waitForJob looks for a job.
  await eventually(
    `round ${seq} of ${opId} to be settled`,
    async () => (await env.redis.redis.hget(key, `round:${seq}`)) === '1',
    { intervalMs: 10 },
  );
}

describe('approver DMs', () => {
  it('DMs every eligible lead once with working buttons; a DM approval updates the card and every other DM', async () => {
    const env = await bots.start();
    const record = await env.request(PROD_SCALE, USERS.alice);
    expect(record.state).toBe('AWAITING_APPROVAL');
    const seq = record.history.find((e) => e.name === 'AWAITING_APPROVAL')?.seq ?? 0;
    const [dm1] = await dmsOf(env, USERS.lead1, 1);
    const [dm2] = await dmsOf(env, USERS.lead2, 1);
    await roundSettled(env, record.id, seq);
    for (const dm of [dm1, dm2]) {
      expect(dm?.text).toContain(record.id);
      expect(dm?.metadata).toEqual({ event_type: 'flink_chatops', event_payload: { op: record.id, seq: `dm:${seq}` } });
      const [actions] = actionsOf(dm);
      expect(actions?.block_id).toBe(approvalBlockId(record.plan?.digest ?? ''));
      expect(actions?.elements.map((e) => [e.action_id, e.value])).toEqual([
        ['flink_ops_approve', record.id],
        ['flink_ops_reject', record.id],
      ]);
      // A link to the card: its permalink in the channel.
      expect(JSON.stringify(dm?.blocks)).toContain(`/archives/${env.channel}/p${record.card?.ts.replace('.', '')}`);
    }
    // Nobody else: not the requester, not someone in no approving group.
    expect(env.sim.dms(USERS.alice)).toEqual([]);
    expect(env.sim.dms(USERS.bob)).toEqual([]);

    const channel = env.sim.dmChannel(USERS.lead2) ?? '';
    const click = await env.click('approve', record, USERS.lead2, {
      at: { channel, ts: dm2?.ts ?? '', message: dm2 as unknown as Record<string, unknown> },
    });
    expect((await click.reply()).text).toContain(`You approved ${record.id}`);
    const queued = await env.waitForState(record.id, ['QUEUED']);
    expect(queued.approvals.map((a) => a.user)).toEqual([USERS.lead2]);
    expect(JSON.stringify((await env.cardIn(queued, 'QUEUED')).blocks)).not.toContain('flink_ops_approve');
    // Every copy loses its buttons and shows the outcome; still one DM each.
    for (const lead of LEADS) {
      const updated = await env.sim.waitFor(
        () => env.sim.dms(lead).find((m) => actionsOf(m).length === 0 && m.text.includes('decided')),
        10_000,
      );
      expect(updated.text).toContain(record.id);
      expect(JSON.stringify(updated.blocks)).toContain('Approved by');
      expect(env.sim.dms(lead)).toHaveLength(1);
    }
  });

  it('a reject in the channel updates the DMs too', async () => {
    const env = await bots.start();
    const record = await env.request(PROD_SCALE, USERS.alice);
    await Promise.all(LEADS.map((lead) => dmsOf(env, lead, 1)));
    await (await env.click('reject', record, USERS.lead1)).reply();
    await env.waitForState(record.id, ['REJECTED']);
    for (const lead of LEADS) {
      const updated = await env.sim.waitFor(() => env.sim.dms(lead).find((m) => actionsOf(m).length === 0), 10_000);
      expect(JSON.stringify(updated.blocks)).toContain('REJECTED');
    }
  });

  it('break-glass: every eligible approver gets a notice without buttons, linking the card', async () => {
    const breakGlass = { groups: ['oncall'], environments: ['production'], reviewWithin: '24h' };
    const env = await bots.start({ policy: (channel) => ({ ...testPolicy(channel), breakGlass }) });
    const record = await env.request(
      'scale streaming-prod/orders 5 --reason "orders lag, paging" --break-glass',
      USERS.alice,
    );
    expect(record.state).toBe('QUEUED');
    for (const lead of LEADS) {
      const [notice] = await dmsOf(env, lead, 1);
      expect(notice?.text).toContain(`${record.id}: BREAK-GLASS`);
      expect(actionsOf(notice)).toEqual([]);
      const shown = JSON.stringify(notice?.blocks);
      expect(shown).toContain('orders lag, paging');
      expect(shown).toContain('review is due after it ends');
      expect(shown).toContain(`/archives/${env.channel}/p`);
    }
    expect(env.sim.dms(USERS.alice)).toEqual([]);
    expect(env.sim.dms(USERS.bob)).toEqual([]);
  });

  it('with notify: channel, only the card: no DM at all', async () => {
    const env = await bots.start({
      policy: (channel) => ({
        ...testPolicy(channel),
        approval: { ...(testPolicy(channel).approval as object), notify: 'channel' },
      }),
    });
    const record = await env.request(PROD_SCALE, USERS.alice);
    const seq = record.history.find((e) => e.name === 'AWAITING_APPROVAL')?.seq ?? 0;
    await roundSettled(env, record.id, seq);
    for (const user of [...LEADS, USERS.alice, USERS.bob]) expect(env.sim.dms(user)).toEqual([]);
  });
});
