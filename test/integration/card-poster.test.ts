// The card is posted once: 429s are waited out, and a post whose answer was lost is found again by its metadata.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startSimSlack, type SimSlack } from '@flink-chatops/sim/slack-api';
import { SlackCardPoster } from '../../src/slack/card-poster.js';
import { createSlackClient } from '../../src/slack-client/client.js';
import { acceptedRecord } from '../support/records.js';

const CHANNEL = 'C0CARDS';
let sim: SimSlack;

beforeEach(async () => {
  sim = await startSimSlack({ botToken: 'xoxb-cards', channels: [{ id: CHANNEL, name: 'cards' }] });
});
afterEach(async () => {
  await sim.close();
});

function poster(waits: number[] = []) {
  const client = createSlackClient(
    { slack: { botToken: 'xoxb-cards', apiUrl: sim.apiUrl } as never },
    { timeoutMs: 300 },
  );
  return new SlackCardPoster(client, '/flink', Date.now, { sleep: async (ms) => void waits.push(ms) });
}

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
