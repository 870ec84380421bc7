// Pacing across replicas (docs/lifecycle.md#delivery-and-pacing; issue 15, Deliver 4): three bot replicas (three
// startBot on one Redis prefix and one simulated Slack) take 60 operations in one channel, requests spread over their
// three HTTP endpoints; every chat.postMessage to that channel — the cards the request path posts and the notifiers'
// thread replies — is timed at the simulated Slack, and no two are closer than the channel's pace.
//
// The pace is a parameter (channelIntervalMs, 1000 ms in production). 60 operations at 1/s would post ≥ 90 messages
// and take over 90 s, so this test runs the pace at 250 ms: "at most 1 post per 250 ms window" here is the same
// property as "at most 1 post per 1 s window" in production, time scaled by 4. The simulated Slack enforces that
// pace itself (4 posts/s, burst 1) and answers 429 to anything faster; no post may be refused.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { startBot, type RunningBot } from '../../src/roles/bot.js';
import { startSimCluster, type SimCluster } from '@flink-chatops/sim/kube/cluster';
import { startSimSlack, type SimSlack } from '@flink-chatops/sim/slack-api';
import { clockFrom, SECRET, testPolicy, TOKEN, USERS, WEDNESDAY } from '../support/bot-env.js';
import { allAcked } from '../support/notifier-records.js';
import { eventually } from '../support/poll.js';
import { redisForTest, type TestRedis } from '../support/redis.js';
import { postSigned, slashCommandBody } from '../support/slack.js';

const CHANNEL = 'C0PACING';
const INTERVAL_MS = 250;
const OPERATIONS = 60;
const REPLICAS = 3;
/** Timer and clock rounding between Redis' TIME and this process' performance.now(). */
const TOLERANCE_MS = 2;

let cluster: SimCluster;
let sim: SimSlack;
let t: TestRedis;
let dir: string;
const bots: RunningBot[] = [];
const postsByBot = [0, 0, 0];
/** performance.now() when the simulated Slack received each chat.postMessage to CHANNEL, and how it answered. */
const received: { at: number; status: number; thread: boolean }[] = [];

beforeAll(async () => {
  cluster = await startSimCluster({ port: 0, seed: 'demo', speed: 'fast' });
  await cluster.seeded;
  t = await redisForTest('pace3');
  sim = await startSimSlack({
    botToken: TOKEN,
    botName: 'flink-ops',
    users: Object.values(USERS).map((id) => ({ id, name: id.toLowerCase() })),
    channels: [{ id: CHANNEL, name: 'pacing' }],
    chatPostMessagePerChannelPerSecond: 1000 / INTERVAL_MS,
    chatPostMessageBurst: 1,
    // 60 cards need at least 60 edits within a few seconds, past chat.update's 50/min: that limit (and its
    // Retry-After, which holds an operation's next round back) is not what this test measures.
    rateLimits: { 'chat.update': Infinity },
  });
  sim.on('call', (call: { method: string; args: Record<string, unknown>; status: number }) => {
    if (call.method === 'chat.postMessage' && call.args.channel === CHANNEL) {
      received.push({ at: performance.now(), status: call.status, thread: call.args.thread_ts !== undefined });
    }
  });
  dir = await mkdtemp(join(tmpdir(), 'pacing-policy-'));
  const policyFile = join(dir, 'policy.yaml');
  const policy = testPolicy(CHANNEL) as { channels: Record<string, unknown>; rules: unknown[] };
  // streaming-dev needs no approval: a scale is QUEUED (the card only); a restart is DENIED (card + a thread reply).
  policy.channels = { [CHANNEL]: { defaultNamespace: 'streaming-dev' } };
  policy.rules = [
    ...policy.rules,
    {
      name: 'no-dev-restarts',
      when: { namespaces: ['streaming-dev'], operations: ['restart'] },
      deny: 'no restarts in this test',
    },
  ];
  await writeFile(policyFile, stringify(policy));
  const loaded = loadConfig(
    {
      SLACK_BOT_TOKEN: TOKEN,
      SLACK_SIGNING_SECRET: SECRET,
      SLACK_API_URL: sim.apiUrl,
      PORT: '0',
      REDIS_URL: t.url,
      REDIS_PREFIX: t.prefix,
      KUBECONFIG: cluster.kubeconfigPath,
      POLICY_FILE: policyFile,
      LOG_LEVEL: 'silent',
      // One person sends all 60 commands: this measures the channel's pace, not one person's command limit.
      COMMAND_RATE_LIMIT: '0',
    },
    'bot',
  );
  if (!loaded.ok) throw new Error(loaded.problems.join('\n'));
  const now = clockFrom(WEDNESDAY);
  for (let i = 0; i < REPLICAS; i++) {
    bots.push(
      await startBot(loaded.config, {
        logger: createLogger(process.env.BOT_TEST_LOG ?? 'silent'),
        now,
        consumer: `replica-${i}`,
        // No worker runs here: QUEUED operations stay queued.
        enqueuer: { enqueue: async () => undefined, enqueueAt: async () => undefined },
        // The sweep's ACCEPTED recovery is not under test (and a card waiting its turn must not look abandoned).
        sweep: false,
        slackPace: { channelIntervalMs: INTERVAL_MS, cardEditWindowMs: INTERVAL_MS },
        onSlackCall: (method, status) => {
          if (method === 'chat.postMessage' && status === 'ok') postsByBot[i] = (postsByBot[i] ?? 0) + 1;
        },
      }),
    );
  }
}, 60_000);

afterAll(async () => {
  for (const bot of bots) await bot.close();
  await sim?.close();
  await cluster?.close();
  await t?.cleanup();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('pacing across bot replicas', () => {
  it(`three replicas posting ${OPERATIONS} operations into one channel never exceed its pace in total`, async () => {
    const started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: OPERATIONS }, async (_, i) => {
        const bot = bots[i % REPLICAS] as RunningBot;
        const text = i % 2 === 0 ? `scale streaming-dev/orders ${(i % 7) + 3}` : 'restart streaming-dev/orders';
        const body = slashCommandBody({
          text,
          user_id: USERS.alice,
          channel_id: CHANNEL,
          response_url: sim.responseUrl(`cmd-${i}`, { channel: CHANNEL, user: USERS.alice }),
        });
        return (await postSigned(bot.url as string, body, SECRET)).status;
      }),
    );
    expect(answers.every((status) => status === 200)).toBe(true);

    // Every operation's card (posted by the replica that took the request), and the DENIED reply of each restart
    // (posted by whichever replica's notifier took the entry).
    const cards = OPERATIONS;
    const replies = OPERATIONS / 2;
    const ok = () => received.filter((r) => r.status === 200);
    await sim.waitFor(() => ok().length >= cards + replies || undefined, 55_000);
    // Nothing more comes (nothing posted twice): every operation has its card recorded (the request path is done
    // with it), and the notifiers have handled and acknowledged every entry of the stream — no post is left to make.
    const carded = async () =>
      (await (bots[0] as RunningBot).deps.store.recent(2 * OPERATIONS)).filter(
        (r) => r.card?.ts !== undefined && r.state !== 'ACCEPTED',
      ).length === cards;
    await eventually('every card recorded', carded, { timeoutMs: 15_000 });
    await eventually('every notifier entry acknowledged', () => allAcked(t.redis, t.prefix), { timeoutMs: 15_000 });
    const elapsedMs = performance.now() - started;

    const top = sim.messages(CHANNEL);
    const ops = new Set(top.map((m) => (m.metadata?.event_payload as { op?: string } | undefined)?.op));
    expect(top).toHaveLength(cards);
    expect(ops.size).toBe(cards);
    expect(ok().filter((r) => r.thread)).toHaveLength(replies);
    expect(received.filter((r) => r.status !== 200)).toEqual([]);

    // The measure: in every window of INTERVAL_MS at most one post, i.e. consecutive posts at least INTERVAL_MS apart
    // (in production terms: at most one post per second to the channel, whatever the number of replicas).
    const times = received.map((r) => r.at).sort((a, b) => a - b);
    const gaps = times.slice(1).map((at, i) => at - (times[i] as number));
    const minGap = Math.min(...gaps);
    let busiestSecond = 0;
    for (let i = 0, j = 0; i < times.length; i++) {
      while ((times[i] as number) - (times[j] as number) >= 1000) j++;
      busiestSecond = Math.max(busiestSecond, i - j + 1);
    }
    console.log(
      `pacing: ${times.length} posts to one channel from ${REPLICAS} replicas (bots posted ${postsByBot.join('/')}) in ${(elapsedMs / 1000).toFixed(1)} s; ` +
        `pace ${INTERVAL_MS} ms; smallest gap ${minGap.toFixed(1)} ms, mean gap ${(gaps.reduce((a, b) => a + b, 0) / gaps.length).toFixed(1)} ms; ` +
        `busiest 1 s window ${busiestSecond} posts (limit ${1000 / INTERVAL_MS})`,
    );
    expect(minGap).toBeGreaterThanOrEqual(INTERVAL_MS - TOLERANCE_MS);
    expect(busiestSecond).toBeLessThanOrEqual(1000 / INTERVAL_MS);
    // The posts really came from several replicas.
    expect(postsByBot.filter((n) => n > 0).length).toBeGreaterThanOrEqual(2);
  }, 90_000);
});
