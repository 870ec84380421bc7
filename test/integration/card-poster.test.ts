// The card is posted once: 429s are waited out, a post whose answer was lost is found again by its metadata, and
// with the card claims (docs/lifecycle.md#the-sweep) a poster posts only while it holds the operation's claim; the
// sweep's recovery (`resuming`) takes a card already in the channel instead of posting one.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startSimSlack, type SimSlack } from '@flink-chatops/sim/slack-api';
import { SlackCardPoster, type CardPosterOptions } from '../../src/slack/card-poster.js';
import { createSlackClient } from '../../src/slack-client/client.js';
import { CardsInFlight } from '../../src/store/cards-in-flight.js';
import { notifierKeys } from '../../src/store/keys.js';
import { acceptedRecord } from '../support/records.js';
import { redisForTest, type TestRedis } from '../support/redis.js';

const CHANNEL = 'C0CARDS';
let sim: SimSlack;
let t: TestRedis;

beforeEach(async () => {
  sim = await startSimSlack({ botToken: 'xoxb-cards', channels: [{ id: CHANNEL, name: 'cards' }] });
  t = await redisForTest('card-poster');
});
afterEach(async () => {
  await sim.close();
  await t.cleanup();
});

function poster(waits: number[] = [], opts: CardPosterOptions = {}, now = Date.now) {
  const client = createSlackClient(
    { slack: { botToken: 'xoxb-cards', apiUrl: sim.apiUrl } as never },
    { timeoutMs: 300 },
  );
  return new SlackCardPoster(client, '/flink', now, { sleep: async (ms) => void waits.push(ms), ...opts });
}

const posts = () => sim.calls.filter((c) => c.method === 'chat.postMessage');
const cardsOf = (id: string) => sim.messages(CHANNEL).filter((m) => m.text.includes(id));

it('waits out 429s (Retry-After) and posts the card once', async () => {
  sim.faults.rateLimit('chat.postMessage', { times: 2, retryAfterSec: 2 });
  const waits: number[] = [];
  const record = { ...acceptedRecord(), channel: CHANNEL };
  const outcome = await poster(waits).postCard(record);
  expect(outcome.ok).toBe(true);
  expect(waits).toEqual([2000, 2000]);
  expect(sim.messages(CHANNEL).filter((m) => m.text.includes(record.id))).toHaveLength(1);
});

it('a lost answer is resolved by the card found in the channel: no second card', async () => {
  sim.faults.timeoutNext('chat.postMessage');
  const record = { ...acceptedRecord(), channel: CHANNEL };
  const outcome = await poster().postCard(record);
  const cards = sim.messages(CHANNEL).filter((m) => m.text.includes(record.id));
  expect(cards).toHaveLength(1);
  expect(outcome).toEqual({ ok: true, ts: cards[0]?.ts });
});

it('not_in_channel is reported as such, with no retry', async () => {
  sim.faults.failNext('chat.postMessage', 'not_in_channel');
  const outcome = await poster().postCard({ ...acceptedRecord(), channel: CHANNEL });
  expect(outcome).toEqual({ ok: false, error: 'not_in_channel' });
  expect(sim.calls.filter((c) => c.method === 'chat.postMessage')).toHaveLength(1);
});

it('waits out a minute-long Retry-After (two of them) rather than give the card up', async () => {
  sim.faults.rateLimit('chat.postMessage', { times: 2, retryAfterSec: 60 });
  const waits: number[] = [];
  const record = { ...acceptedRecord(), channel: CHANNEL };
  expect((await poster(waits).postCard(record)).ok).toBe(true);
  expect(waits).toEqual([60_000, 60_000]);
  expect(cardsOf(record.id)).toHaveLength(1);
});

it('resuming: the card its bot posted before it stopped is the outcome, and nothing is posted', async () => {
  const record = { ...acceptedRecord(), channel: CHANNEL };
  const later = () => record.createdAt + 25_000;
  const first = await poster([], {}, later).postCard(record);
  expect(first.ok).toBe(true);
  const resumed = await poster([], { inFlight: new CardsInFlight(t.redis, t.prefix) }, later).postCard(record, {
    resuming: true,
  });
  expect(resumed).toEqual(first);
  expect(posts()).toHaveLength(1);
  expect(cardsOf(record.id)).toHaveLength(1);
});

it('resuming with no card in the channel posts it; with the channel unreadable it posts nothing', async () => {
  const record = { ...acceptedRecord(), channel: CHANNEL };
  const other = { ...acceptedRecord({ id: 'op-othercard01' }), channel: CHANNEL };
  // Another operation's card in the channel is not this one's.
  await poster().postCard(other);
  sim.faults.failNext('conversations.history', 'internal_error');
  const unreadable = await poster().postCard(record, { resuming: true });
  expect(unreadable).toEqual({ ok: false, error: 'card_lookup_failed', leave: true });
  expect(cardsOf(record.id)).toHaveLength(0);
  const posted = await poster().postCard(record, { resuming: true });
  expect(posted).toEqual({ ok: true, ts: cardsOf(record.id)[0]?.ts });
  expect(cardsOf(record.id)).toHaveLength(1);
});

it('with the claim held by another poster nothing is posted, and the operation is left to it', async () => {
  const record = { ...acceptedRecord(), channel: CHANNEL };
  const cards = new CardsInFlight(t.redis, t.prefix);
  let release = (): void => undefined;
  let started = (): void => undefined;
  const holding = new Promise<void>((resolve) => (started = resolve));
  const other = cards.hold(record.id, () => new Promise<void>((resolve) => ((release = resolve), started())));
  await holding;
  for (const opts of [{}, { resuming: true }]) {
    const outcome = await poster([], { inFlight: cards }).postCard(record, opts);
    expect(outcome).toEqual({ ok: false, error: 'card_in_flight', leave: true });
  }
  expect(sim.calls.filter((c) => c.method !== 'auth.test')).toEqual([]);
  release();
  await other;
  expect((await poster([], { inFlight: cards }).postCard(record)).ok).toBe(true);
  expect(await cards.inFlight(record.id)).toBe(false);
});

it('a poster whose claim lapsed during its Retry-After does not post when the wait ends', async () => {
  sim.faults.rateLimit('chat.postMessage', { times: 1, retryAfterSec: 60 });
  const record = { ...acceptedRecord(), channel: CHANNEL };
  const cards = new CardsInFlight(t.redis, t.prefix, 30_000);
  const key = notifierKeys(t.prefix).cardInFlight(record.id);
  // The wait is the test's: during it the claim goes (as when its holder stalls past the TTL) and another takes it.
  const stalled = poster([], {
    inFlight: cards,
    sleep: async () => {
      await t.redis.del(key);
      await t.redis.set(key, 'the-sweep', 'PX', 30_000);
    },
  });
  expect(await stalled.postCard(record)).toEqual({ ok: false, error: 'card_claim_lost', leave: true });
  expect(posts()).toHaveLength(1);
  expect(cardsOf(record.id)).toHaveLength(0);
  // The new holder's claim is untouched.
  expect(await t.redis.get(key)).toBe('the-sweep');
});

it("under Slack's 2025 limits outside the Marketplace, resuming finds a card 20 messages deep after one Retry-After", async () => {
  // One conversations.history a minute, 15 messages a page (the simulated Slack's nonMarketplaceReads); the poster's
  // waits move the simulated Slack's clock, so a minute's Retry-After passes at once.
  await sim.close();
  let clock = Date.now();
  sim = await startSimSlack({
    botToken: 'xoxb-cards',
    users: [{ id: 'U0ALICE', name: 'alice' }],
    channels: [{ id: CHANNEL, name: 'cards' }],
    nonMarketplaceReads: true,
    now: () => clock,
  });
  const waits: number[] = [];
  const sleep = async (ms: number) => {
    waits.push(ms);
    clock += ms;
  };
  const record = { ...acceptedRecord(), channel: CHANNEL };
  const later = () => record.createdAt + 25_000;
  const first = await poster([], {}, later).postCard(record);
  for (let i = 0; i < 20; i++) sim.postAsUser(CHANNEL, 'U0ALICE', `chatter ${i}`);
  const resumed = await poster(waits, { sleep }, later).postCard(record, { resuming: true });
  expect(resumed).toEqual(first);
  expect(posts()).toHaveLength(1);
  expect(waits).toEqual([60_000]);
  const reads = sim.calls.filter((c) => c.method === 'conversations.history');
  expect(reads.map((c) => c.status)).toEqual([200, 429, 200]);
});
