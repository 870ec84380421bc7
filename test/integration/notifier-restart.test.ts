// The notifier across failures: a restart mid-way, a post whose response is lost, a crash that left a post
// pending, a dead consumer's entries, and two replicas at once — never a reply twice, never one lost.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SimSlack } from '@flink-chatops/sim/slack-api';
import { DeliveryState, postField } from '../../src/store/delivery.js';
import {
  METADATA_EVENT_TYPE,
  NOTIFIER_GROUP,
  type Notifier,
  type NotifierOptions,
  type WebClient,
} from '../../src/notifier/notifier.js';
import { storeKeys } from '../../src/store/keys.js';
import { DEFAULT_RETENTION_MS, OperationStore } from '../../src/store/operations.js';
import {
  allAcked,
  APPROVED_SCALE,
  cardState,
  createOperation,
  INCIDENTS,
  pendingCount,
  postCard,
  replyKeys,
  scaleOperation,
  startTestSlack,
  step,
  testClient,
  testNotifier,
  threadPosts,
  wantedSeqs,
} from '../support/notifier-records.js';
import { eventually } from '../support/poll.js';
import { redisForTest, type TestRedis } from '../support/redis.js';

let t: TestRedis;
let sim: SimSlack;
let store: OperationStore;
let client: WebClient;
let notifiers: Notifier[];

function newNotifier(extra: Partial<NotifierOptions> = {}): Notifier {
  const notifier = testNotifier({ redis: t.redis, prefix: t.prefix, store }, sim, extra);
  notifiers.push(notifier);
  return notifier;
}

async function startNotifier(extra: Partial<NotifierOptions> = {}): Promise<Notifier> {
  const notifier = newNotifier(extra);
  await notifier.start();
  return notifier;
}

async function withCard(id: string, incidentChannels: string[] = []) {
  await createOperation(store, scaleOperation(id, { incidentChannels }));
  const record = await postCard(store, client, id);
  if (record.card === undefined) throw new Error('no card');
  return record.card;
}

async function runSteps(id: string, steps = APPROVED_SCALE) {
  for (const entries of steps) await step(store, id, ...entries);
  const record = await store.get(id);
  if (record === undefined) throw new Error(`${id} vanished`);
  return record;
}

const settled = () => eventually('every entry acknowledged', () => allAcked(t.redis, t.prefix), { timeoutMs: 15_000 });

/** Each wanted seq exactly once, in order, and no more posts into the thread than replies. */
function expectExactlyOnce(card: { channel: string; ts: string }, wanted: number[]): void {
  expect(replyKeys(sim, card.channel, card.ts).map((r) => r.seq)).toEqual(wanted);
  expect(threadPosts(sim, card.channel, card.ts)).toHaveLength(wanted.length);
}

beforeEach(async () => {
  t = await redisForTest('ntfr');
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

describe('restarts', () => {
  it('a notifier stopped mid-way and a new one under another name: no reply twice, none lost', async () => {
    const first = await startNotifier({ channelIntervalMs: 300 });
    const card = await withCard('op-restart001', [INCIDENTS]);
    const record = await runSteps('op-restart001');
    const wanted = wantedSeqs(record);
    await sim.waitFor(() => replyKeys(sim, card.channel, card.ts).length >= 2);
    await first.stop();
    const before = replyKeys(sim, card.channel, card.ts).length;
    expect(before).toBeLessThan(wanted.length);

    await startNotifier();
    await sim.waitFor(
      () =>
        replyKeys(sim, card.channel, card.ts).length >= wanted.length &&
        cardState(sim, card.channel, card.ts) === 'COMPLETED',
      15_000,
    );
    await settled();
    expectExactlyOnce(card, wanted);
    expect(sim.messages(INCIDENTS).map((m) => m.metadata?.event_payload.seq)).toEqual(['digest-start', 'digest-end']);
  });

  it('resolves a post whose response was lost through conversations.replies, and does not post it again', async () => {
    const card = await withCard('op-timeout001');
    sim.faults.timeoutNext('chat.postMessage');
    await startNotifier();
    const record = await runSteps('op-timeout001');
    const wanted = wantedSeqs(record);
    await sim.waitFor(() => replyKeys(sim, card.channel, card.ts).length >= wanted.length, 15_000);
    await settled();

    const lost = sim.calls.find((c) => c.fault === 'timeout');
    expect(lost?.method).toBe('chat.postMessage');
    const lookup = sim.calls.find((c) => c.method === 'conversations.replies' && c.seq > (lost?.seq ?? 0));
    expect(lookup?.args).toMatchObject({ channel: card.channel, ts: card.ts });
    expect(String(lookup?.args.include_all_metadata)).toBe('true');
    expectExactlyOnce(card, wanted);
  });

  it('resolves a post a crashed process left pending: found in the thread, not posted again', async () => {
    const card = await withCard('op-crashed001');
    const record = await runSteps('op-crashed001', APPROVED_SCALE.slice(0, 3));
    const [first] = wantedSeqs(record);
    if (first === undefined) throw new Error('no wanted entry');
    // The dead process: marked pending, posted, died before storing the ts.
    const state = new DeliveryState(t.redis, t.prefix, DEFAULT_RETENTION_MS);
    await state.setMark(record.id, postField(first), { state: 'pending', at: Date.now() - 60_000, by: 'dead-process' });
    await client.chat.postMessage({
      channel: card.channel,
      thread_ts: card.ts,
      text: `${record.id}: posted before the crash`,
      metadata: { event_type: METADATA_EVENT_TYPE, event_payload: { op: record.id, seq: first } },
    });

    await startNotifier();
    const wanted = wantedSeqs(record);
    await sim.waitFor(() => replyKeys(sim, card.channel, card.ts).length >= wanted.length);
    await settled();
    expectExactlyOnce(card, wanted);
    expect(replyKeys(sim, card.channel, card.ts)[0]?.text).toContain('posted before the crash');
    expect((await state.mark(record.id, postField(first))).mark).toMatchObject({ state: 'done' });
  });

  it("claims a dead consumer's pending entries and finishes them", async () => {
    const card = await withCard('op-claimed001');
    const record = await runSteps('op-claimed001');
    const events = storeKeys(t.prefix).events;
    await t.redis.call('XGROUP', 'CREATE', events, NOTIFIER_GROUP, '0', 'MKSTREAM');
    await t.redis.call('XREADGROUP', 'GROUP', NOTIFIER_GROUP, 'dead-consumer', 'COUNT', 1000, 'STREAMS', events, '>');
    expect(await pendingCount(t.redis, t.prefix)).toBe(record.history.length);

    await startNotifier({ claimIdleMs: 300 });
    const wanted = wantedSeqs(record);
    await sim.waitFor(
      () =>
        replyKeys(sim, card.channel, card.ts).length >= wanted.length &&
        cardState(sim, card.channel, card.ts) === 'COMPLETED',
      15_000,
    );
    await settled();
    expectExactlyOnce(card, wanted);
  });
});

describe('replicas', () => {
  it('two notifiers on one stream deliver three operations exactly once each', async () => {
    await Promise.all([startNotifier(), startNotifier()]);
    const ids = ['op-replica001', 'op-replica002', 'op-replica003'];
    const cards = await Promise.all(ids.map((id) => withCard(id, [INCIDENTS])));
    const records = await Promise.all(ids.map((id) => runSteps(id)));
    await sim.waitFor(
      () =>
        records.every((r, i) => replyKeys(sim, cards[i]!.channel, cards[i]!.ts).length >= wantedSeqs(r).length) &&
        sim.messages(INCIDENTS).length >= 6,
      20_000,
    );
    await settled();
    records.forEach((r, i) => {
      expectExactlyOnce(cards[i]!, wantedSeqs(r));
      expect(cardState(sim, cards[i]!.channel, cards[i]!.ts)).toBe('COMPLETED');
    });
    expect(sim.messages(INCIDENTS)).toHaveLength(6);
  });
});
