// The sweep finishes records left ACCEPTED by a bot that died (docs/lifecycle.md#the-sweep): racing sweeps finish one
// exactly once, and one whose card cannot be posted is CANCELLED with its requester told once. Records are made as the
// bot makes them.
import { DEFAULT_CLUSTER } from '../../src/config.js';
import { expect, it } from 'vitest';
import { OperationService } from '../../src/app/operations.js';
import { Sweep } from '../../src/app/sweep.js';
import { createLogger } from '../../src/log.js';
import { acceptedFinisher } from '../../src/roles/bot.js';
import { FetchResponder } from '../../src/slack/slack-ports.js';
import { OperationStore } from '../../src/store/operations.js';
import { CardsInFlight } from '../../src/store/cards-in-flight.js';
import { USERS, useBotEnvs, type BotEnv } from '../support/bot-env.js';
import { leftAccepted } from '../support/left-accepted.js';

const hooks = useBotEnvs();
const silent = createLogger('silent');

function sweeper(env: BotEnv, finished: string[]): Sweep {
  const cards = new CardsInFlight(env.redis.redis, env.config.redis.prefix);
  const inner = acceptedFinisher(
    new OperationService(env.bot.deps, env.bot.identity.botName),
    new FetchResponder(),
    silent,
    cards,
  );
  // The sweep's clock is a minute ahead of the bot's (the record is stale to it); its store writes with the same
  // clock, so a claim is fresh to the other sweeps, as it is in production where processes share the time.
  const now = () => env.bot.deps.now() + 60_000;
  return new Sweep({
    store: new OperationStore(env.redis.redis, { prefix: env.config.redis.prefix, now }),
    queues: { clusters: [DEFAULT_CLUSTER], of: () => env.queue },
    leases: env.bot.deps.leases,
    logger: silent,
    now,
    accepted: {
      finish: async (record) => (finished.push(record.id), inner.finish(record)),
      cardInFlight: (record) => cards.inFlight(record.id),
    },
  });
}

it('two sweeps racing over a stale ACCEPTED record: one card, one decision', async () => {
  const env = await hooks.start({ overrides: { sweep: false, notifier: false } });
  const like = await env.request('scale streaming-prod/fraud-detection 5 --reason "sweep race"', USERS.alice);
  const stale = await leftAccepted(env, like, 'cmd-race');
  const finished: string[] = [];
  const reports = await Promise.all([sweeper(env, finished).run(), sweeper(env, finished).run()]);
  expect(finished).toEqual([stale.id]);
  expect(reports.flatMap((r) => r.resumed)).toEqual([stale.id]);
  const record = await env.record(stale.id);
  expect(record.state).toBe('AWAITING_APPROVAL');
  expect(
    env.sim
      .messages(env.channel)
      .filter((m) => m.text.includes(stale.id))
      .map((m) => m.ts),
  ).toEqual([record.card?.ts]);
  // A later sweep finds nothing left to do.
  expect((await sweeper(env, finished).run()).resumed).toEqual([]);
});

it('a stale ACCEPTED record whose card cannot be posted is CANCELLED and its requester told once', async () => {
  const env = await hooks.start({ overrides: { sweep: false, notifier: false } });
  const like = await env.request('scale streaming-prod/fraud-detection 6 --reason "sweep cancel"', USERS.alice);
  const stale = await leftAccepted(env, like, 'cmd-cancel');
  env.sim.faults.failNext('chat.postMessage', 'channel_not_found');
  const finished: string[] = [];
  await sweeper(env, finished).run();
  const record = await env.record(stale.id);
  expect(record.state).toBe('CANCELLED');
  const told = env.sim.responses.filter((r) => r.id === 'cmd-cancel');
  expect(told).toHaveLength(1);
  expect(JSON.stringify(told[0]?.body)).toContain(`${stale.id} was cancelled`);
  await sweeper(env, finished).run();
  expect(finished).toEqual([stale.id]);
  expect(env.sim.responses.filter((r) => r.id === 'cmd-cancel')).toHaveLength(1);
});

it("a record whose card is still waiting for the channel's turn is not stale: the sweep leaves it to its bot", async () => {
  const env = await hooks.start({ overrides: { sweep: false, notifier: false } });
  const like = await env.request('scale streaming-prod/fraud-detection 7 --reason "slow card"', USERS.alice);
  const slow = await leftAccepted(env, like, 'cmd-slow');
  const cards = new CardsInFlight(env.redis.redis, env.config.redis.prefix);
  const finished: string[] = [];
  let release = (): void => undefined;
  const posting = cards.hold(slow.id, () => new Promise<void>((resolve) => (release = resolve)));
  expect(await cards.inFlight(slow.id)).toBe(true);
  expect((await sweeper(env, finished).run()).resumed).toEqual([]);
  expect((await env.record(slow.id)).state).toBe('ACCEPTED');
  // Once that bot is done (or dead and its mark lapsed), the record is the sweep's again.
  release();
  await posting;
  expect(await cards.inFlight(slow.id)).toBe(false);
  expect((await sweeper(env, finished).run()).resumed).toEqual([slow.id]);
  expect(finished).toEqual([slow.id]);
});
