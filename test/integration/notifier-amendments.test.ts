// Thread replies edited in place (src/notifier/amendments.ts, docs/lifecycle.md#the-thread): the end of a quiet
// post-change watch is added to the verdict's reply with one chat.update, never as a reply of its own; a second
// notifier does not edit it again; an edit Slack refuses is given up, not retried. Real Redis, the real notifier and
// WebClient against the simulated Slack.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SimSlack } from '@flink-chatops/sim/slack-api';
import { HEALTHY_NOTE } from '../../src/domain/kit/evidence/regression.js';
import type { Notifier, WebClient } from '../../src/notifier/notifier.js';
import { OperationStore } from '../../src/store/operations.js';
import {
  allAcked,
  APPROVED_SCALE,
  createOperation,
  postCard,
  replyKeys,
  scaleOperation,
  startTestSlack,
  step,
  testClient,
  testNotifier,
  threadPosts,
} from '../support/notifier-records.js';
import { eventually } from '../support/poll.js';
import { redisForTest, type TestRedis } from '../support/redis.js';

let t: TestRedis;
let sim: SimSlack;
let store: OperationStore;
let client: WebClient;
let notifiers: Notifier[];

beforeEach(async () => {
  t = await redisForTest('ntf-amend');
  sim = await startTestSlack();
  store = new OperationStore(t.redis, { prefix: t.prefix });
  client = testClient(sim);
  notifiers = [];
});
afterEach(async () => {
  await Promise.all(notifiers.map((n) => n.stop()));
  await sim.close();
  await t.cleanup();
});

async function notifier(): Promise<Notifier> {
  const n = testNotifier({ redis: t.redis, prefix: t.prefix, store }, sim);
  notifiers.push(n);
  await n.start();
  return n;
}

const settled = () => eventually('every entry acknowledged', () => allAcked(t.redis, t.prefix), { timeoutMs: 15_000 });
const healthy = {
  type: 'note',
  name: HEALTHY_NOTE,
  actor: 'worker',
  detail: { watchAfter: '10m', watchAfterMs: 600_000 },
} as const;

/** A completed operation with its card, delivered: the thread has its replies. */
async function completed(id: string) {
  await createOperation(store, scaleOperation(id));
  const { card } = await postCard(store, client, id);
  for (const entries of APPROVED_SCALE) await step(store, id, ...entries);
  if (!card) throw new Error('no card');
  const verdict = await sim.waitFor(
    () => replyKeys(sim, card.channel, card.ts).find((r) => r.text.includes('COMPLETED')),
    15_000,
  );
  await settled();
  return { card, verdict };
}

const updatesOf = (ts: string) => sim.calls.filter((c) => c.method === 'chat.update' && c.args.ts === ts);
const replyTs = (channel: string, card: string, seq: unknown) =>
  sim.replies(channel, card).find((m) => m.metadata?.event_payload.seq === seq)?.ts ?? '';

describe('an amended reply', () => {
  it('the verdict reply is edited once to end with the healthy line; no reply of its own, none by a second notifier', async () => {
    await notifier();
    const { card, verdict } = await completed('op-amend00001');
    const posts = threadPosts(sim, card.channel, card.ts).length;
    await step(store, 'op-amend00001', healthy);
    const ts = replyTs(card.channel, card.ts, verdict.seq);
    await sim.waitFor(() => updatesOf(ts).find((c) => c.status === 200), 15_000);
    await settled();
    const edited = sim.replies(card.channel, card.ts).find((m) => m.ts === ts);
    expect(JSON.stringify(edited?.blocks)).toContain('Healthy for 10 min after the change');
    expect(JSON.stringify(edited?.blocks)).toContain('*COMPLETED*');
    expect(threadPosts(sim, card.channel, card.ts)).toHaveLength(posts);

    // Another replica going over the same operation (a later entry wakes it) edits nothing again.
    await notifier();
    await step(store, 'op-amend00001', { type: 'command', name: 'unlock', actor: 'U0LEAD', detail: { reason: 'x' } });
    await sim.waitFor(() => threadPosts(sim, card.channel, card.ts).length === posts + 1, 15_000);
    await settled();
    expect(updatesOf(ts)).toHaveLength(1);
  });

  it('an edit Slack refuses is given up and logged, and the thread gets nothing else for it', async () => {
    await notifier();
    const { card, verdict } = await completed('op-amend00002');
    const posts = threadPosts(sim, card.channel, card.ts).length;
    sim.faults.failNext('chat.update', 'message_not_found', 5);
    await step(store, 'op-amend00002', healthy);
    const ts = replyTs(card.channel, card.ts, verdict.seq);
    await sim.waitFor(() => updatesOf(ts).find((c) => c.response.error === 'message_not_found'), 15_000);
    await settled();
    await step(store, 'op-amend00002', { type: 'command', name: 'unlock', actor: 'U0LEAD', detail: { reason: 'x' } });
    await sim.waitFor(() => threadPosts(sim, card.channel, card.ts).length === posts + 1, 15_000);
    await settled();
    expect(updatesOf(ts)).toHaveLength(1);
    const reply = sim.replies(card.channel, card.ts).find((m) => m.ts === ts);
    expect(JSON.stringify(reply?.blocks)).not.toContain('Healthy');
  });
});
