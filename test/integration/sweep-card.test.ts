// The sweep's recovery of a stale ACCEPTED record never doubles a card (docs/lifecycle.md#the-sweep): a bot stalled
// behind a Retry-After keeps the card claim and its card is the only one, a card a stopped bot did post is found
// and kept, and a bot that lost its claim while it waited posts nothing once its wait ends. The real Bolt app
// (bot-env), the real Sweep and finisher, the simulated Slack answering 429 with Retry-After.
import { Redis } from 'ioredis';
import { expect, it } from 'vitest';
import type { RecordedCall } from '@flink-chatops/sim/slack-api';
import { DEFAULT_CLUSTER } from '../../src/config.js';
import { OperationService } from '../../src/app/operations.js';
import { Sweep } from '../../src/app/sweep.js';
import { createLogger } from '../../src/log.js';
import { acceptedFinisher } from '../../src/roles/bot.js';
import { SlackCardPoster } from '../../src/slack/card-poster.js';
import { FetchResponder } from '../../src/slack/slack-ports.js';
import { CardsInFlight } from '../../src/store/cards-in-flight.js';
import { OperationStore } from '../../src/store/operations.js';
import { eventually } from '../support/poll.js';
import { USERS, useBotEnvs, type BotEnv } from '../support/bot-env.js';
import { leftAccepted } from '../support/left-accepted.js';

const hooks = useBotEnvs();
const silent = createLogger('silent');

/** The operation a chat.postMessage call was about, by its metadata. */
function opOf(call: RecordedCall): string | undefined {
  const metadata = call.args.metadata as { event_payload?: { op?: unknown } } | undefined;
  return typeof metadata?.event_payload?.op === 'string' ? metadata.event_payload.op : undefined;
}

const postsOf = (env: BotEnv, id: string) =>
  env.sim.calls.filter((c) => c.method === 'chat.postMessage' && opOf(c) === id);
const cardsOf = (env: BotEnv, id: string) => env.sim.messages(env.channel).filter((m) => m.text.includes(id));

/** The next chat.postMessage the simulated Slack answers 429: the id of the operation whose card it was. */
function rateLimitedCard(env: BotEnv): Promise<string> {
  return new Promise((resolve) => {
    const stop = env.sim.on('call', (call) => {
      const id = opOf(call);
      if (call.method !== 'chat.postMessage' || call.fault !== 'ratelimited' || id === undefined) return;
      stop();
      resolve(id);
    });
  });
}

/** Sends the command through the Bolt app with its card post answered 429 (`retryAfterSec`); the operation's id. */
async function stalledRequest(env: BotEnv, text: string, retryAfterSec: number): Promise<string> {
  env.sim.faults.rateLimit('chat.postMessage', { times: 1, retryAfterSec });
  const limited = rateLimitedCard(env);
  const sent = await env.command(text, USERS.alice);
  expect(sent.status).toBe(200);
  // A refusal (nothing recorded) is answered through the response_url: then there is no card to wait for.
  const refused = sent.reply().then((reply) => Promise.reject(new Error(`the command was answered: ${reply.text}`)));
  return Promise.race([limited, refused]);
}

/**
 * Another bot replica's sweep, a minute ahead of the bot's clock (the record is stale to it), finishing records with
 * the bot's own services; `shortcut: false` leaves out its look at the claim before it claims the record (as when it
 * looked a moment before the bot took the claim), so only the claim itself stands between it and a second card.
 */
function sweeper(env: BotEnv, opts: { shortcut?: boolean } = {}): Sweep {
  const cards = new CardsInFlight(env.redis.redis, env.config.redis.prefix);
  const finisher = acceptedFinisher(
    new OperationService(env.bot.deps, env.bot.identity.botName),
    new FetchResponder(),
    silent,
    opts.shortcut === false ? undefined : cards,
  );
  const now = () => env.bot.deps.now() + 60_000;
  return new Sweep({
    store: new OperationStore(env.redis.redis, { prefix: env.config.redis.prefix, now }),
    queues: { clusters: [DEFAULT_CLUSTER], of: () => env.queue },
    leases: env.bot.deps.leases,
    logger: silent,
    now,
    accepted: finisher,
  });
}

it("a bot waiting out a Retry-After keeps its card's claim: the sweeps meanwhile post nothing, its card is the one", async () => {
  const env = await hooks.start({ overrides: { sweep: false, notifier: false } });
  const id = await stalledRequest(env, 'scale streaming-prod/fraud-detection 5 --reason "slow card"', 2);
  const cards = new CardsInFlight(env.redis.redis, env.config.redis.prefix);
  expect(await cards.inFlight(id)).toBe(true);
  expect((await sweeper(env).run()).resumed).toEqual([]);
  // Past the shortcut the sweep claims the record, and the card claim still stops its post.
  expect((await sweeper(env, { shortcut: false }).run()).resumed).toEqual([id]);
  expect((await env.record(id)).state).toBe('ACCEPTED');
  expect(postsOf(env, id)).toHaveLength(1);
  // The bot's wait ends: its post goes out, once, and its decision is recorded with it.
  const record = await env.waitFor(id, (r) => r.card !== undefined, 'its card recorded');
  expect(record.state).toBe('AWAITING_APPROVAL');
  expect(cardsOf(env, id).map((m) => m.ts)).toEqual([record.card?.ts]);
  expect(postsOf(env, id)).toHaveLength(2);
  expect((await sweeper(env, { shortcut: false }).run()).resumed).toEqual([]);
  expect(cardsOf(env, id)).toHaveLength(1);
});

it('a card its bot posted before it stopped is found by its metadata: recorded and decided, not posted again', async () => {
  const env = await hooks.start({ overrides: { sweep: false, notifier: false } });
  const like = await env.request('scale streaming-prod/fraud-detection 6 --reason "posted then died"', USERS.alice);
  const stale = await leftAccepted(env, like, 'cmd-posted');
  // The stopped bot's card went out; its decision never did.
  const posted = await env.bot.deps.cards.postCard(stale);
  if (!posted.ok) throw new Error(`the card was not posted: ${posted.error}`);
  expect((await sweeper(env).run()).resumed).toEqual([stale.id]);
  const record = await env.record(stale.id);
  expect(record.state).toBe('AWAITING_APPROVAL');
  expect(record.card).toEqual({ channel: env.channel, ts: posted.ts });
  expect(postsOf(env, stale.id)).toHaveLength(1);
  expect(cardsOf(env, stale.id)).toHaveLength(1);
});

it('a bot that lost its claim while it waited (stalled past the TTL) posts nothing: the sweep posted the card', async () => {
  const env = await hooks.start({ overrides: { sweep: false, notifier: false } });
  const like = await env.request('scale streaming-prod/fraud-detection 7 --reason "lost claim"', USERS.alice);
  // This bot's claims go through a Redis connection of their own, cut while it waits: its claim lapses.
  const own = new Redis(env.redis.url, { maxRetriesPerRequest: null });
  try {
    let swept: string[] = [];
    const cards = new CardsInFlight(env.redis.redis, env.config.redis.prefix);
    const limited = rateLimitedCard(env);
    const stalled = new SlackCardPoster(env.bot.client, env.config.slack.command, env.bot.deps.now, {
      inFlight: new CardsInFlight(own, env.config.redis.prefix, 300),
      // Its Retry-After: the sweep runs while it lasts.
      sleep: async () => {
        const id = await limited;
        own.disconnect();
        await eventually('the stalled claim lapsed', async () => !(await cards.inFlight(id)));
        swept = (await sweeper(env).run()).resumed;
        await own.connect();
      },
    });
    env.sim.faults.rateLimit('chat.postMessage', { times: 1, retryAfterSec: 60 });
    const service = new OperationService({ ...env.bot.deps, cards: stalled }, env.bot.identity.botName);
    const outcome = await service.request({ intent: like.intent, requester: USERS.alice, channel: env.channel });
    if (outcome.type !== 'recorded') throw new Error(`the request was ${outcome.type}`);
    const id = outcome.record.id;
    expect(swept).toEqual([id]);
    // The bot left the operation to the sweep: not cancelled, decided, with the sweep's card.
    expect(outcome.record.state).toBe('AWAITING_APPROVAL');
    const record = await env.record(id);
    expect(cardsOf(env, id).map((m) => m.ts)).toEqual([record.card?.ts]);
    expect(postsOf(env, id)).toHaveLength(2);
  } finally {
    own.disconnect();
  }
});

// Last in the file: the bot's 60 s wait outlives the test (the test ends once the sweeps have run with the claim held).
it('a bot stalled behind a 60 s Retry-After holds its claim: no sweep posts its card meanwhile', async () => {
  const env = await hooks.start({ overrides: { sweep: false, notifier: false } });
  const id = await stalledRequest(env, 'scale streaming-prod/fraud-detection 4 --reason "long wait"', 60);
  const cards = new CardsInFlight(env.redis.redis, env.config.redis.prefix);
  for (const shortcut of [true, false, true]) {
    expect(await cards.inFlight(id)).toBe(true);
    await sweeper(env, { shortcut }).run();
  }
  // The bot neither gave the card up (a cancel) nor lost its claim; nobody else posted.
  const record = await env.record(id);
  expect(record.state).toBe('ACCEPTED');
  expect(record.history.map((e) => e.name)).toEqual(['ACCEPTED']);
  expect(await cards.inFlight(id)).toBe(true);
  expect(postsOf(env, id)).toHaveLength(1);
  expect(cardsOf(env, id)).toEqual([]);
});
