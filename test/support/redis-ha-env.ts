// A bot (the real Bolt app of startBot) and workers (startWorker in-process, or `serve --role worker` processes)
// that reach Redis only through Sentinel or Cluster mode (REDIS_SENTINELS / REDIS_CLUSTER_NODES), with the demo
// simulated cluster and the simulated Slack; the test side watches the same keys through its own HA client.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { stringify } from 'yaml';
import { loadConfig, type Config } from '../../src/config.js';
import type { OperationRecord } from '../../src/domain/engines/operation.js';
import { isTerminal, type OperationState } from '../../src/domain/model/lifecycle.js';
import { createLogger } from '../../src/log.js';
import type { SimCluster } from '@flink-chatops/sim/kube/cluster';
import { DEFAULT_RATE_LIMITS, startSimSlack, type SimMessage, type SimSlack } from '@flink-chatops/sim/slack-api';
import { ACTION_IDS } from '../../src/slack/blocks/index.js';
import { startBot, type RunningBot } from '../../src/roles/bot.js';
import { startWorker, type RunningWorker } from '../../src/roles/worker.js';
import { waitForEvents } from '../../src/store/events.js';
import { OperationStore } from '../../src/store/operations.js';
import { clockFrom, INCIDENTS, SECRET, testPolicy, TOKEN, USERS, WEDNESDAY } from './bot-env.js';
import type { HaRedis } from './redis-ha.js';
import { uniquePrefix } from './redis.js';
import { cardClickBody, postSigned, slashCommandBody } from './slack.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

export const LEASE_TTL_MS = 5000;

export interface WorkerChild {
  child: ChildProcess;
  lines: string[];
  exited: Promise<number | null>;
}

export interface HaEnv {
  prefix: string;
  channel: string;
  sim: SimSlack;
  bot: RunningBot;
  /** Test-side connections through the HA client (commands, and one for blocking reads). */
  redis: Redis;
  store: OperationStore;
  workers: RunningWorker[];
  children: WorkerChild[];
  /** The environment every role of this test is configured with. */
  appEnv(role: 'bot' | 'worker'): Record<string, string>;
  startWorker(extra?: Record<string, string>): Promise<RunningWorker>;
  /** `node bin/flink-chatops.js serve --role worker` with this env; resolves once it logged "worker started". */
  spawnWorker(extra?: Record<string, string>): Promise<WorkerChild>;
  /** Sends an operation command as `user`; resolves with the record once it left ACCEPTED. */
  request(text: string, user?: string): Promise<OperationRecord>;
  approve(record: OperationRecord, user: string): Promise<void>;
  waitFor(
    opId: string,
    predicate: (r: OperationRecord) => boolean,
    what: string,
    timeoutMs?: number,
  ): Promise<OperationRecord>;
  waitForState(opId: string, states: OperationState[], timeoutMs?: number): Promise<OperationRecord>;
  waitTerminal(opId: string, timeoutMs?: number): Promise<OperationRecord>;
  /** The card as Slack shows it once edited to `state`. */
  cardIn(record: OperationRecord, state: OperationState, timeoutMs?: number): Promise<SimMessage>;
  close(): Promise<void>;
}

export async function startHaEnv(ha: HaRedis, cluster: SimCluster, label: string): Promise<HaEnv> {
  const prefix = uniquePrefix(label);
  const channel = `C0HA${prefix.slice(-6).toUpperCase()}`;
  const sim = await startSimSlack({
    botToken: TOKEN,
    botName: 'flink-ops',
    users: Object.values(USERS).map((id) => ({ id, name: id.toLowerCase() })),
    channels: [
      { id: channel, name: `test-${channel.toLowerCase()}` },
      { id: INCIDENTS, name: 'incidents' },
    ],
    usergroups: [{ id: 'S0LEADS', handle: 'leads', users: [USERS.lead2] }],
    chatPostMessagePerChannelPerSecond: Infinity,
    // 20 operations at once edit cards faster than chat.update's 50/min; this test is about Redis, not Slack's tiers.
    rateLimits: Object.fromEntries(Object.keys(DEFAULT_RATE_LIMITS).map((method) => [method, Infinity])),
  });
  const dir = await mkdtemp(join(tmpdir(), 'ha-env-'));
  const policyFile = join(dir, 'policy.yaml');
  await writeFile(policyFile, stringify(testPolicy(channel)));
  const base: Record<string, string> = {
    ...ha.env(),
    REDIS_PREFIX: prefix,
    KUBECONFIG: cluster.kubeconfigPath,
    POLICY_FILE: policyFile,
    PORT: '0',
    LOG_LEVEL: 'silent',
  };
  const appEnv = (role: 'bot' | 'worker'): Record<string, string> =>
    role === 'bot'
      ? { ...base, SLACK_BOT_TOKEN: TOKEN, SLACK_SIGNING_SECRET: SECRET, SLACK_API_URL: sim.apiUrl }
      : {
          ...base,
          LEASE_TTL: `${LEASE_TTL_MS / 1000}s`,
          VERIFY_TIMEOUT: '30s',
          VERIFY_TIMEOUT_SAVEPOINT: '30s',
          FAILURE_GRACE: '2s',
          WORKER_CONCURRENCY: '8',
        };
  const configOf = (env: Record<string, string>, role: 'bot' | 'worker'): Config => {
    const loaded = loadConfig(env, role);
    if (!loaded.ok) throw new Error(`config: ${loaded.problems.join('; ')}`);
    return loaded.config;
  };
  const logLevel = process.env.HA_TEST_LOG ?? 'silent';
  const redis = ha.client();
  const blocking = ha.client();
  const store = new OperationStore(redis, { prefix });
  const workers: RunningWorker[] = [];
  const children: WorkerChild[] = [];
  const bot = await startBot(configOf(appEnv('bot'), 'bot'), {
    logger: createLogger(logLevel),
    now: clockFrom(WEDNESDAY),
    // 20 operations' cards and replies in one channel: Slack's 1 post/s pace would make this a 2-minute test.
    slackPace: { channelIntervalMs: 20, cardEditWindowMs: 100 },
  });
  let sends = 0;
  let closing: Promise<void> | undefined;

  const env: HaEnv = {
    prefix,
    channel,
    sim,
    bot,
    redis,
    store,
    workers,
    children,
    appEnv,
    async startWorker(extra = {}) {
      const worker = await startWorker(configOf({ ...appEnv('worker'), ...extra }, 'worker'), {
        logger: createLogger(logLevel),
      });
      workers.push(worker);
      return worker;
    },
    async spawnWorker(extra = {}) {
      const child = spawn(process.execPath, ['bin/flink-chatops.js', 'serve', '--role', 'worker'], {
        cwd: REPO,
        env: {
          PATH: process.env.PATH ?? '',
          RECORD_SIGNING_KEY: process.env.RECORD_SIGNING_KEY ?? '',
          ...appEnv('worker'),
          LOG_LEVEL: 'info',
          ...extra,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const lines: string[] = [];
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      const started: WorkerChild = { child, lines, exited };
      children.push(started);
      await new Promise<void>((resolve, reject) => {
        createInterface({ input: child.stdout }).on('line', (line) => {
          lines.push(line);
          if (line.includes('"worker started"')) resolve();
        });
        createInterface({ input: child.stderr }).on('line', (line) => lines.push(line));
        void exited.then((code) =>
          reject(new Error(`the worker process exited (${code}) before it started:\n${lines.slice(-10).join('\n')}`)),
        );
      });
      return started;
    },
    async request(text, user = USERS.alice) {
      const before = sim.messages(channel).length;
      const id = `cmd-${++sends}`;
      const responseUrl = sim.responseUrl(id, { channel, user });
      const res = await postSigned(
        bot.url as string,
        slashCommandBody({ text, user_id: user, channel_id: channel, response_url: responseUrl }),
        SECRET,
      );
      if (res.status !== 200) throw new Error(`"${text}" was answered ${res.status}: ${await res.text()}`);
      const card = await sim
        .waitFor(() => sim.messages(channel)[before], 10_000)
        .catch(() => {
          const said = sim.responses.find((r) => r.id === id);
          throw new Error(`"${text}" posted no card; the bot said: ${JSON.stringify(said?.body)}`);
        });
      const opId = /op-[a-z0-9]{6,12}/.exec(card.text)?.[0];
      if (!opId) throw new Error(`the card names no operation: ${card.text}`);
      // A running worker may take it further at once: wait only until it left ACCEPTED.
      return env.waitFor(opId, (r) => r.state !== 'ACCEPTED', 'to leave ACCEPTED');
    },
    async approve(record, user) {
      const body = cardClickBody(sim, record, { user, actionId: ACTION_IDS.approve, responseId: `click-${++sends}` });
      const res = await postSigned(bot.url as string, body, SECRET);
      if (res.status !== 200) throw new Error(`the approval was answered ${res.status}`);
    },
    async waitFor(opId, predicate, what, timeoutMs = 20_000) {
      // Woken by the operation's events; a 500 ms block bounds each wait, so a failover (or an event lost with
      // a dead primary) only delays the next look at the record.
      const deadline = Date.now() + timeoutMs;
      let after = '$';
      let last: OperationRecord | undefined;
      for (;;) {
        last = (await store.get(opId)) ?? undefined;
        if (last && predicate(last)) return last;
        if (Date.now() > deadline) {
          const seen = last
            ? `${last.state}; ${last.history.map((e) => `${e.type}:${e.name}`).join(' → ')}`
            : 'no record';
          throw new Error(`timed out after ${timeoutMs} ms waiting for ${opId}: ${what} — last seen: ${seen}`);
        }
        const events = await waitForEvents(blocking, prefix, after, 500).catch(() => []);
        after = events.at(-1)?.id ?? after;
      }
    },
    waitForState(opId, states, timeoutMs) {
      return env.waitFor(opId, (r) => states.includes(r.state), states.join('|'), timeoutMs);
    },
    waitTerminal(opId, timeoutMs) {
      return env.waitFor(opId, (r) => isTerminal(r.state), 'a terminal state', timeoutMs);
    },
    cardIn(record, state, timeoutMs = 20_000) {
      const ts = record.card?.ts;
      if (ts === undefined) throw new Error(`${record.id} has no card`);
      const shows = (m: SimMessage) => m.ts === ts && JSON.stringify(m.blocks ?? []).includes(`State: ${state}`);
      return sim.waitFor(() => sim.messages(record.card?.channel ?? channel).find(shows), timeoutMs);
    },
    close() {
      closing ??= (async () => {
        for (const c of children) if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGKILL');
        await Promise.all(children.map((c) => c.exited));
        for (const w of workers) await w.close();
        await bot.close();
        await sim.close();
        // Keys of this prefix go with the HA Redis itself (stopped after the file).
        redis.disconnect();
        blocking.disconnect();
        await rm(dir, { recursive: true, force: true });
      })();
      return closing;
    },
  };
  return env;
}
