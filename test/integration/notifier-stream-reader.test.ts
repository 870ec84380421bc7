// The notifier when a blocking read of the event stream is never answered (docs/configuration.md#redis-modes): after
// a failover ioredis resends the read, and that resent read can stay unanswered while the socket looks alive. A
// proxy in front of the real Redis reproduces it; the notifier must notice at the read's deadline, read on a fresh
// socket, and deliver every reply once, including those of entries the lost read was handed.
import { Redis } from 'ioredis';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { SimSlack } from '@flink-chatops/sim/slack-api';
import type { Notifier } from '../../src/notifier/notifier.js';
import { OperationStore } from '../../src/store/operations.js';
import {
  allAcked,
  APPROVED_SCALE,
  cardState,
  createOperation,
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
import { startRedisProxy, type RedisProxy } from '../support/redis-proxy.js';

let t: TestRedis;
let sim: SimSlack;
let proxy: RedisProxy;
let proxied: Redis;
let notifier: Notifier | undefined;

beforeEach(async () => {
  t = await redisForTest('ntlost');
  sim = await startTestSlack();
  proxy = await startRedisProxy(t.url);
  proxied = new Redis(proxy.url, { maxRetriesPerRequest: null });
});

afterEach(async () => {
  await notifier?.stop();
  proxied.disconnect();
  await proxy.close();
  await sim.close();
  await t.cleanup();
});

it('a blocking read whose reply never comes: read again on a fresh socket at its deadline, every reply once', async () => {
  const store = new OperationStore(t.redis, { prefix: t.prefix });
  // Claims of idle entries would hide a stuck reader after a minute; this test must see the reader recover itself.
  notifier = testNotifier({ redis: proxied, prefix: t.prefix, store }, sim, {
    claimIdleMs: 600_000,
    readDeadlineGraceMs: 500,
  });
  await notifier.start();
  await createOperation(store, scaleOperation('op-lostread01'));
  const { card } = await postCard(store, testClient(sim), 'op-lostread01');
  if (card === undefined) throw new Error('no card');

  // Nothing in flight: from here on only the reader can wake the notifier up.
  await eventually('the card entries acknowledged', () => allAcked(t.redis, t.prefix));
  proxy.loseNextBlockingRead();
  await eventually('a blocking read lost', () => proxy.swallowed === 1);
  const opened = proxy.connections;
  // The first entries go to the lost read (handed to this consumer, reply dropped); the rest come after it.
  for (const entries of APPROVED_SCALE) await step(store, 'op-lostread01', ...entries);
  const record = await store.get('op-lostread01');
  if (record === undefined) throw new Error('the record vanished');
  const wanted = wantedSeqs(record);

  await sim.waitFor(
    () =>
      replyKeys(sim, card.channel, card.ts).length >= wanted.length &&
      cardState(sim, card.channel, card.ts) === 'COMPLETED',
    15_000,
  );
  await eventually('every entry acknowledged', () => allAcked(t.redis, t.prefix), { timeoutMs: 15_000 });
  expect(replyKeys(sim, card.channel, card.ts).map((r) => r.seq)).toEqual(wanted);
  expect(threadPosts(sim, card.channel, card.ts)).toHaveLength(wanted.length);
  expect(proxy.connections, 'a fresh socket for the reads after the lost one').toBeGreaterThan(opened);
});
