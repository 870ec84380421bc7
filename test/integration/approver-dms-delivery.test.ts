// Approver DMs through the notifier's failures (docs/lifecycle.md#delivery-and-pacing): a DM a dead process left
// pending, a DM whose response was lost, a 429, and a notifier that reads every entry again: never a DM twice; a
// decision updates the copies.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { approverDirectory } from '../../src/app/approvers.js';
import { MembershipSource } from '../../src/app/context.js';
import { staticPolicy } from '../../src/app/policy-source.js';
import { validatePolicy } from '../../src/domain/engines/policy/validate.js';
import { NOTIFIER_GROUP, type Notifier } from '../../src/notifier/notifier.js';
import { startSimSlack, type SimMessage, type SimSlack } from '@flink-chatops/sim/slack-api';
import { DeliveryState, dmField } from '../../src/store/delivery.js';
import { storeKeys } from '../../src/store/keys.js';
import { DEFAULT_RETENTION_MS, OperationStore } from '../../src/store/operations.js';
import {
  allAcked,
  createOperation,
  OPS,
  postCard,
  REQUESTER,
  scaleOperation,
  step,
  testClient,
  testNotifier,
  to,
  TOKEN,
} from '../support/notifier-records.js';
import { eventually } from '../support/poll.js';
import { redisForTest, type TestRedis } from '../support/redis.js';

const LEADS = ['U0LEADA', 'U0LEADB', 'U0LEADC'];
const RULE = { rule: 'prod-needs-a-lead', approvals: 1, from: ['leads'] };
/** The AWAITING_APPROVAL entry: after ACCEPTED (seq 1). */
const ROUND = 2;

let t: TestRedis;
let sim: SimSlack;
let store: OperationStore;
const notifiers: Notifier[] = [];

beforeEach(async () => {
  t = await redisForTest('dm-delivery');
  store = new OperationStore(t.redis, { prefix: t.prefix });
  sim = await startSimSlack({
    botToken: TOKEN,
    users: [{ id: REQUESTER, name: 'alice' }, ...LEADS.map((id) => ({ id, name: id.toLowerCase() }))],
    channels: [{ id: OPS, name: 'ops' }],
    chatPostMessagePerChannelPerSecond: Infinity,
  });
});

afterEach(async () => {
  for (const n of notifiers.splice(0)) await n.stop();
  await sim.close();
  await t.cleanup();
});

async function startNotifier(): Promise<Notifier> {
  const valid = validatePolicy({
    version: 1,
    groups: { leads: { users: LEADS } },
    namespaces: [{ name: 'streaming-prod' }],
    rules: [{ name: RULE.rule, require: { approvals: 1, from: ['leads'] } }],
  });
  if (!valid.ok) throw new Error(valid.errors.join('\n'));
  const approvers = approverDirectory(staticPolicy(valid.policy), new MembershipSource(async () => []));
  const notifier = testNotifier({ redis: t.redis, prefix: t.prefix, store }, sim, { approvers, consumer: 'dm-test' });
  notifiers.push(notifier);
  await notifier.start();
  return notifier;
}

/** An operation awaiting approval by the leads, its card posted. */
async function awaiting(id: string): Promise<void> {
  await createOperation(
    store,
    scaleOperation(id, { decision: { outcome: 'needs-approval', checks: [], requirements: [RULE] } }),
  );
  await postCard(store, testClient(sim), id);
}

const settled = () =>
  eventually('every entry delivered and acknowledged', () => allAcked(t.redis, t.prefix), { timeoutMs: 15_000 });
const hasButtons = (m: SimMessage) => JSON.stringify(m.blocks ?? []).includes('"actions"');

describe('approver DMs across failures', () => {
  it('a DM a dead process left pending is never sent again; the others go out once, also when every entry is read again', async () => {
    await awaiting('op-dmcrash01');
    const state = new DeliveryState(t.redis, t.prefix, DEFAULT_RETENTION_MS);
    await state.setMark('op-dmcrash01', dmField(ROUND, LEADS[0] ?? ''), {
      state: 'pending',
      at: Date.now() - 60_000,
      by: 'dead-process',
    });
    await step(store, 'op-dmcrash01', to('AWAITING_APPROVAL', 'bot'));
    const first = await startNotifier();
    await sim.waitFor(() => sim.dms(LEADS[1] ?? '').length === 1 && sim.dms(LEADS[2] ?? '').length === 1, 10_000);
    await settled();
    expect(sim.dms(LEADS[0] ?? '')).toEqual([]);
    expect((await state.mark('op-dmcrash01', dmField(ROUND, LEADS[0] ?? ''))).mark).toMatchObject({
      state: 'failed',
      error: 'unknown_outcome',
    });

    // A successor that reads the whole stream again (its group rewound) sends nothing twice.
    await first.stop();
    await t.redis.xgroup('SETID', storeKeys(t.prefix).events, NOTIFIER_GROUP, '0');
    await startNotifier();
    await step(store, 'op-dmcrash01', to('REJECTED', 'bot'));
    for (const lead of LEADS.slice(1)) await sim.waitFor(() => sim.dms(lead).find((m) => !hasButtons(m)), 10_000);
    await settled();
    expect(LEADS.map((lead) => sim.dms(lead).length)).toEqual([0, 1, 1]);
    expect(sim.dms(LEADS[1] ?? '')[0]?.text).toContain('op-dmcrash01: decided: REJECTED');
  });

  it('a re-plan back to AWAITING_APPROVAL: the old copies say so, and the new plan goes out to each lead once', async () => {
    await awaiting('op-dmreplan1');
    await step(store, 'op-dmreplan1', to('AWAITING_APPROVAL', 'bot'));
    await startNotifier();
    await sim.waitFor(() => LEADS.every((lead) => sim.dms(lead).length === 1), 10_000);
    await step(
      store,
      'op-dmreplan1',
      { type: 'replanned', name: 'replanned', actor: 'system', detail: { after: ['op-ahead0001'], revision: 2 } },
      to('AWAITING_APPROVAL', 'bot'),
    );
    await sim.waitFor(() => LEADS.every((lead) => sim.dms(lead).length === 2), 10_000);
    await settled();
    for (const lead of LEADS) {
      const [old, renewed] = sim.dms(lead);
      expect(old?.text).toContain('op-dmreplan1: decided: Re-planned');
      expect(renewed?.text).toBe('op-dmreplan1: your approval is requested for scale streaming-prod/orders');
      expect(renewed?.metadata?.event_payload).toEqual({ op: 'op-dmreplan1', seq: 'dm:4' });
    }
  });

  it('a DM whose response was lost is not posted again; a 429 is waited out; each lead has one DM', async () => {
    await awaiting('op-dmlost001');
    sim.faults.timeoutNext('chat.postMessage');
    sim.faults.rateLimit('chat.postMessage', { times: 1, retryAfterSec: 1 });
    await step(store, 'op-dmlost001', to('AWAITING_APPROVAL', 'bot'));
    await startNotifier();
    await sim.waitFor(() => LEADS.every((lead) => sim.dms(lead).length === 1), 15_000);
    await settled();
    expect(sim.calls.some((c) => c.fault === 'timeout' && c.method === 'chat.postMessage')).toBe(true);
    expect(LEADS.map((lead) => sim.dms(lead).length)).toEqual([1, 1, 1]);
    expect(sim.dms(REQUESTER)).toEqual([]);
  });
});
