// The Slack notifier against real Redis, the real OperationStore and the simulated Slack Web API through the real
// WebClient: card edits, thread replies in order with metadata, hold-back, 429 storms, digests and pacing.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SimSlack } from '@flink-chatops/sim/slack-api';
import type { Notifier, NotifierOptions, WebClient } from '../../src/notifier/notifier.js';
import { DeliveryState } from '../../src/store/delivery.js';
import { DEFAULT_RETENTION_MS, OperationStore } from '../../src/store/operations.js';
import {
  allAcked,
  APPROVED_SCALE,
  cardState,
  createOperation,
  INCIDENTS,
  OPS,
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

async function startNotifier(extra: Partial<NotifierOptions> = {}): Promise<Notifier> {
  const notifier = testNotifier({ redis: t.redis, prefix: t.prefix, store }, sim, extra);
  notifiers.push(notifier);
  await notifier.start();
  return notifier;
}

/** ACCEPTED with its card, then every step of `steps`. */
async function runOperation(id: string, steps = APPROVED_SCALE, incidentChannels: string[] = []) {
  await createOperation(store, scaleOperation(id, { incidentChannels }));
  const withCard = await postCard(store, client, id);
  for (const entries of steps) await step(store, id, ...entries);
  const record = await store.get(id);
  if (record?.card === undefined) throw new Error(`${id} lost its card`);
  return { card: withCard.card ?? record.card, record };
}

const settled = () => eventually('every entry acknowledged', () => allAcked(t.redis, t.prefix), { timeoutMs: 15_000 });

beforeEach(async () => {
  t = await redisForTest('ntf');
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

describe('cards and threads', () => {
  it('ends the card on the final state and posts one reply per wanted entry, in seq order, with {op, seq} metadata', async () => {
    await startNotifier();
    const { card, record } = await runOperation('op-run000001');
    const wanted = wantedSeqs(record);
    // Waiting behind another operation, submitted, the verdict; the approval and the observations are on the card.
    expect(wanted).toHaveLength(3);

    await sim.waitFor(
      () =>
        cardState(sim, card.channel, card.ts) === 'COMPLETED' &&
        replyKeys(sim, card.channel, card.ts).length >= wanted.length,
      15_000,
    );
    await settled();

    const replies = replyKeys(sim, card.channel, card.ts);
    expect(replies.map((r) => r.seq)).toEqual(wanted);
    for (const reply of replies) {
      expect(reply.op).toBe(record.id);
      expect(reply.text).toContain(record.id);
    }
    expect(threadPosts(sim, card.channel, card.ts)).toHaveLength(wanted.length);
    expect(cardState(sim, card.channel, card.ts)).toBe('COMPLETED');
  });

  it('leaves the SUBMITTED reply out when it fell behind the channel and the outcome is in: the verdict says it', async () => {
    // A channel paced at 1 post/s, and a reply counted as behind once it waited 300 ms for its turn: the SUBMITTED
    // reply waits a second behind the "waiting" one, the verdict is recorded meanwhile, so one reply carries both.
    await startNotifier({ channelIntervalMs: 1_000, behindMs: 300 });
    const { card, record } = await runOperation('op-behind0001');
    const submitted = record.history.find((e) => e.type === 'state' && e.name === 'SUBMITTED');
    const completed = record.history.find((e) => e.type === 'state' && e.name === 'COMPLETED');
    const wanted = wantedSeqs(record).filter((seq) => seq !== submitted?.seq);
    await sim.waitFor(() => replyKeys(sim, card.channel, card.ts).length >= wanted.length, 15_000);
    await settled();

    const replies = replyKeys(sim, card.channel, card.ts);
    expect(replies.map((r) => r.seq)).toEqual(wanted);
    expect(threadPosts(sim, card.channel, card.ts)).toHaveLength(wanted.length);
    const verdict = sim.replies(card.channel, card.ts).find((m) => m.metadata?.event_payload.seq === completed?.seq);
    const shown = JSON.stringify(verdict?.blocks);
    expect(shown).toContain('*COMPLETED*');
    expect(shown).toMatch(/[Ss]ubmitted by/);
    expect(shown).toContain('generation 4');
    // Left out on purpose, and marked so: a restart does not post it after all.
    const marks = await new DeliveryState(t.redis, t.prefix, DEFAULT_RETENTION_MS).read(record.id);
    expect(marks.marks.get(`post:${submitted?.seq}`)?.mark).toMatchObject({ state: 'skipped' });
  });

  it('posts the SUBMITTED reply of a thread that keeps up, even once the outcome is in', async () => {
    await startNotifier({ channelIntervalMs: 1_000 });
    const { card, record } = await runOperation('op-uptodate01');
    const wanted = wantedSeqs(record);
    await sim.waitFor(() => replyKeys(sim, card.channel, card.ts).length >= wanted.length, 15_000);
    await settled();
    expect(replyKeys(sim, card.channel, card.ts).map((r) => r.seq)).toEqual(wanted);
  });

  it('holds entries back until the card exists, then delivers them', async () => {
    const id = 'op-hold000001';
    await createOperation(store, scaleOperation(id));
    for (const entries of APPROVED_SCALE.slice(0, 3)) await step(store, id, ...entries);
    const entriesBefore = (await store.get(id))?.history.length ?? 0;
    await startNotifier();

    // Read by the notifier, not acknowledged, and nothing sent to Slack.
    await eventually('the entries delivered', async () => (await pendingCount(t.redis, t.prefix)) >= entriesBefore);
    expect(sim.calls.filter((c) => c.method.startsWith('chat.'))).toEqual([]);

    const record = await postCard(store, client, id);
    const card = record.card ?? { channel: '', ts: '' };
    const wanted = wantedSeqs(record);
    await sim.waitFor(
      () =>
        cardState(sim, card.channel, card.ts) === 'QUEUED' &&
        replyKeys(sim, card.channel, card.ts).length >= wanted.length,
    );
    await settled();
    expect(replyKeys(sim, card.channel, card.ts).map((r) => r.seq)).toEqual(wanted);
  });

  it('acknowledges, and sends nothing for, an operation cancelled because its card could not be posted', async () => {
    const id = 'op-nocard0001';
    await createOperation(store, scaleOperation(id));
    await step(store, id, {
      type: 'state',
      name: 'CANCELLED',
      actor: 'system',
      role: 'bot',
      detail: { reason: 'not_in_channel' },
    });
    await startNotifier();
    await settled();
    expect(sim.calls.filter((c) => c.method.startsWith('chat.'))).toEqual([]);
  });

  it('ends the card on the final state through a storm of 429s on chat.update, with edits coalesced', async () => {
    sim.faults.rateLimit('chat.update', { times: 10, retryAfterSec: 1 });
    await startNotifier();
    const [first, ...rest] = APPROVED_SCALE;
    const { card } = await runOperation('op-storm00001', first ? [first] : []);
    // The rest arrives while the storm holds the card back: the edit after it must show the state at send time.
    await sim.waitFor(() => sim.calls.some((c) => c.method === 'chat.update' && c.status === 429));
    const evidence = Array.from({ length: 10 }, (_, i) => [
      { type: 'note' as const, name: 'progress', actor: 'worker', detail: { message: `step ${i}` } },
    ]);
    for (const entries of [...rest.slice(0, -1), ...evidence, ...rest.slice(-1)])
      await step(store, 'op-storm00001', ...entries);
    const record = await store.get('op-storm00001');
    if (record === undefined) throw new Error('gone');

    await sim.waitFor(() => cardState(sim, card.channel, card.ts) === 'COMPLETED', 25_000);
    await settled();

    const updates = sim.calls.filter((c) => c.method === 'chat.update');
    const limited = updates.filter((c) => c.status === 429);
    const applied = updates.filter((c) => c.status === 200);
    expect(limited).toHaveLength(10);
    // Retry-After honoured: no call while the gate was closed.
    for (let i = 1; i < limited.length; i++)
      expect((limited[i]?.at ?? 0) - (limited[i - 1]?.at ?? 0)).toBeGreaterThanOrEqual(990);
    expect((applied[0]?.at ?? 0) - (limited.at(-1)?.at ?? 0)).toBeGreaterThanOrEqual(990);
    expect(applied.length).toBeLessThanOrEqual(2);
    expect(applied.length).toBeLessThan(record.history.length / 4);
    // The thread did not wait for the card.
    expect(replyKeys(sim, card.channel, card.ts).map((r) => r.seq)).toEqual(wantedSeqs(record));
  });
});

describe('incident digests', () => {
  it('posts a start and an end digest exactly once each, with the thread permalink', async () => {
    await startNotifier();
    const { card, record } = await runOperation('op-digest0001', APPROVED_SCALE, [INCIDENTS]);
    await sim.waitFor(
      () => sim.messages(INCIDENTS).length >= 2 && cardState(sim, card.channel, card.ts) === 'COMPLETED',
      15_000,
    );
    await settled();

    const permalink = (await client.chat.getPermalink({ channel: card.channel, message_ts: card.ts })).permalink ?? '';
    expect(permalink).toMatch(/^https:\/\//);
    const digests = sim.messages(INCIDENTS);
    expect(digests.map((m) => m.metadata?.event_payload)).toEqual([
      { op: record.id, seq: 'digest-start' },
      { op: record.id, seq: 'digest-end' },
    ]);
    for (const digest of digests) {
      expect(digest.text).toContain(record.id);
      expect(JSON.stringify(digest.blocks)).toContain(permalink);
    }
    expect(sim.calls.filter((c) => c.method === 'chat.postMessage' && c.args.channel === INCIDENTS)).toHaveLength(2);
  });
});

describe('pacing', () => {
  it.each([
    { name: 'a short test interval', intervalMs: 200, postsPerSecond: Infinity, waits: 5 },
    { name: "the production 1/s under Slack's 1/s limit", intervalMs: 1_000, postsPerSecond: 1, waits: 2 },
  ])(
    'spaces posts to one channel by at least channelIntervalMs ($name)',
    async ({ intervalMs, postsPerSecond, waits }) => {
      await sim.close();
      sim = await startTestSlack(postsPerSecond);
      client = testClient(sim);
      await startNotifier({ channelIntervalMs: intervalMs });
      const waiting = Array.from({ length: waits }, (_, i) => [
        { type: 'waiting' as const, name: 'behind', actor: 'worker', detail: { behind: `op-ahead${i}` } },
      ]);
      const { card, record } = await runOperation('op-pace000001', [
        [{ type: 'state', name: 'QUEUED', actor: 'U0ALICE', role: 'bot' }],
        ...waiting,
      ]);
      const wanted = wantedSeqs(record);
      await sim.waitFor(() => replyKeys(sim, card.channel, card.ts).length >= wanted.length, 15_000);

      const posts = sim.calls.filter(
        (c) => c.method === 'chat.postMessage' && c.args.channel === OPS && c.args.thread_ts === card.ts,
      );
      expect(posts.every((c) => c.status === 200)).toBe(true);
      expect(posts).toHaveLength(wanted.length);
      const gaps = posts.slice(1).map((c, i) => c.at - (posts[i]?.at ?? 0));
      expect(Math.min(...gaps)).toBeGreaterThanOrEqual(intervalMs);
    },
  );
});
