// Test harness for the bot: a real Redis prefix, the simulated cluster, the simulated Slack Web API, a policy file,
// the real Bolt app from startBot, and helpers that send signed slash commands and clicks and await their effects.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { stringify } from 'yaml';
import { DEFAULT_CLUSTER, loadConfig, type Config } from '../../src/config.js';
import type { OperationRecord } from '../../src/domain/engines/operation.js';
import type { OperationState } from '../../src/domain/model/lifecycle.js';
import { createLogger } from '../../src/log.js';
import { jobIdOf, OperationQueue } from '../../src/queue/queue.js';
import { startSimCluster, type SimCluster } from '@flink-chatops/sim/kube/cluster';
import {
  startSimSlack,
  type SimChannel,
  type SimMessage,
  type SimSlack,
  type SimSocketDelivery,
  type SimSocketFailure,
} from '@flink-chatops/sim/slack-api';
import { ACTION_IDS } from '../../src/slack/blocks/index.js';
import { startBot, type BotOverrides, type RunningBot } from '../../src/roles/bot.js';
import { waitForEvents } from '../../src/store/events.js';
import { eventually } from './poll.js';
import { expectAttributedWrites } from './attribution.js';
import { redisForTest, type TestRedis } from './redis.js';
import { simVersionOptions } from './sim-versions.js';
import {
  cardClickBody,
  postSigned,
  slashCommandBody,
  socketEnvelope,
  type ClickedMessage,
  type PostSignedOptions,
} from './slack.js';

export const SECRET = 'bot-test-signing-secret';
export const TOKEN = 'xoxb-bot-test';
export const APP_TOKEN = 'xapp-1-A0SIMAPP-bot-test';
/** Socket Mode in tests: the client's ping timeout, which is also how long it waits before reconnecting. */
export const TEST_SOCKET_PING_TIMEOUT_MS = 1_500;

/** How the bot under test hears from Slack: signed HTTP requests, or envelopes over Socket Mode. */
export type Transport = 'http' | 'socket';
export const TRANSPORTS: Transport[] = ['http', 'socket'];
export const USERS = {
  alice: 'U0ALICE', // oncall: may request in streaming-prod
  lead1: 'U0LEAD1', // leads, listed by id
  lead2: 'U0LEAD2', // leads, through the Slack user group S0LEADS
  bob: 'U0BOB', // in no group
} as const;
/**
 * A Slack Connect member of the test's shared channel: their own workspace is another one
 * (docs/configuration.md#who-may-use-the-bot).
 */
export const GUEST = { id: 'U0GUEST', team: 'T0OTHER' } as const;
export const INCIDENTS = 'C0INCIDENTS';

/** Wednesday 2026-11-25 10:00 UTC: outside the example policy's Friday freeze, whatever day the tests run. */
export const WEDNESDAY = Date.parse('2026-11-25T10:00:00Z');
/** Friday 2026-11-27 16:00 Europe/Berlin (15:00 UTC): inside the Friday freeze. */
export const FRIDAY_AFTERNOON = Date.parse('2026-11-27T15:00:00Z');

/** A clock that starts at `base` and moves with real time (record times stay ordered). */
export function clockFrom(base: number): () => number {
  const start = Date.now();
  return () => base + (Date.now() - start);
}

/** examples/policy.yaml with the test users; the test's channel defaults to streaming-prod. */
export function testPolicy(channel: string): Record<string, unknown> {
  return {
    version: 1,
    groups: { leads: { users: [USERS.lead1], usergroups: ['S0LEADS'] }, oncall: { users: [USERS.alice] } },
    namespaces: [
      {
        name: 'streaming-prod',
        environment: 'production',
        requesters: ['oncall', 'leads'],
        incidentChannel: INCIDENTS,
      },
      { name: 'streaming-dev' },
    ],
    channels: { [channel]: { defaultNamespace: 'streaming-prod' } },
    rules: [
      {
        name: 'prod-needs-a-lead',
        when: {
          namespaces: ['streaming-prod'],
          operations: ['suspend', 'restart', 'scale', 'upgrade', 'restore', 'undo'],
        },
        require: { approvals: 1, from: ['leads'] },
      },
      {
        name: 'stateless-in-prod-needs-two',
        when: { namespaces: ['streaming-prod'], upgradeModes: ['stateless'] },
        require: { approvals: 2, from: ['leads'] },
      },
      {
        name: 'friday-freeze',
        when: {
          namespaces: ['streaming-prod'],
          schedule: { days: ['fri'], from: '15:00', to: '23:59', timezone: 'Europe/Berlin' },
        },
        deny: 'No production changes on Friday afternoons',
      },
    ],
    approval: { ttl: '30m', allowSelfApproval: false, requireReason: ['production'] },
    config: {
      allow: ['execution.checkpointing.*', 'restart-strategy.*', 'taskmanager.memory.*', 'job.autoscaler.enabled'],
      deny: ['high-availability*', 'kubernetes.operator.*'],
    },
    limits: { taskManagerMemory: '16g', taskManagerCpu: 8, parallelism: 512 },
  };
}

export async function startTestCluster(): Promise<SimCluster> {
  const cluster = await startSimCluster({ port: 0, seed: 'demo', speed: 'fast', ...simVersionOptions() });
  await cluster.seeded;
  return cluster;
}

export interface BotEnvOptions {
  /** Default: WEDNESDAY, moving. */
  now?: () => number;
  /** The test's channel; the bot is a member unless `botMember: false`. */
  channel?: Partial<SimChannel>;
  /** No policy file at all. */
  noPolicy?: boolean;
  /** The policy for the test's channel; default `testPolicy`. */
  policy?: (channel: string) => Record<string, unknown>;
  /** More environment for the bot's config (e.g. KUBE_CONTEXTS). */
  env?: Record<string, string>;
  overrides?: BotOverrides;
  /** 'socket': SLACK_APP_TOKEN is set and commands, clicks and Home opens come over the simulated Socket Mode. */
  transport?: Transport;
  /** Runs once the simulated Slack is up, before the bot starts; what it returns is added to the bot's environment. */
  beforeBot?: (sim: SimSlack) => Promise<Record<string, string>>;
}

export interface Sent {
  /** HTTP: the response's status. Socket Mode: 200 once the envelope is acknowledged, 0 when Slack gave it up. */
  status: number;
  /** HTTP: the response body. Socket Mode: the ack's payload as JSON, '' when empty (as Bolt's HTTP answer). */
  body: string;
  /** performance.now() when the HTTP response (or the ack) arrived. */
  answeredAt: number;
  /** Socket Mode: the envelope as the simulated Slack delivered it. */
  envelopeId?: string;
  /** Socket Mode: the error Slack showed the person when no ack came in time (the envelope is never sent again). */
  failed?: SimSocketFailure;
  /** The private (or in-channel) answer through the response_url. */
  reply(): Promise<{ text: string; body: Record<string, unknown> }>;
}

export interface BotEnv {
  bot: RunningBot;
  sim: SimSlack;
  redis: TestRedis;
  config: Config;
  channel: string;
  transport: Transport;
  queue: OperationQueue;
  /** performance.now() of each simulated Slack API call, by call seq. */
  callTimes: Map<number, number>;
  /** `fields`: more of the payload, e.g. an Enterprise Grid install's `enterprise_id`. */
  command(
    text: string,
    user?: string,
    opts?: PostSignedOptions,
    fields?: Record<string, string | undefined>,
  ): Promise<Sent>;
  /** Sends an operation command and resolves once its card is posted (within `cardTimeoutMs`, default 10 s) and its
   * state left ACCEPTED. */
  request(text: string, user?: string, cardTimeoutMs?: number): Promise<OperationRecord>;
  /** `teamId`: the clicker's own team (default the sim's). */
  /** `at`: click the buttons of another copy of the card (e.g. an approver's DM) instead of the card. */
  click(
    action: keyof typeof ACTION_IDS,
    record: OperationRecord,
    user: string,
    opts?: { blockId?: string; post?: PostSignedOptions; teamId?: string; enterpriseId?: string; at?: ClickedMessage },
  ): Promise<Sent>;
  record(opId: string): Promise<OperationRecord>;
  waitForState(opId: string, states: OperationState[], timeoutMs?: number): Promise<OperationRecord>;
  /** Resolves with the record once `predicate` holds, checked after each history entry of any operation. */
  waitFor(
    opId: string,
    predicate: (record: OperationRecord) => boolean,
    what: string,
    timeoutMs?: number,
  ): Promise<OperationRecord>;
  /** The card as Slack shows it, once the notifier has edited it to `state` (its blocks say `State: <state>`). */
  cardIn(record: OperationRecord, state: OperationState): Promise<SimMessage>;
  operationCount(): Promise<number>;
  /** The user opens the app's Home tab (an Events API request or an `events_api` envelope, by transport). */
  openHome(user: string): Promise<{ status: number; ms: number }>;
  jobState(opId: string, revision: number): Promise<string>;
  /** The BullMQ job of `opId` at `revision` once it exists (enqueueing follows the QUEUED commit). */
  waitForJob(opId: string, revision: number): Promise<string>;
  close(): Promise<void>;
}

let counter = 0;

export async function startBotEnv(
  cluster: Pick<SimCluster, 'kubeconfigPath'>,
  opts: BotEnvOptions = {},
): Promise<BotEnv> {
  const redis = await redisForTest('bot');
  const channel =
    opts.channel?.id ?? `C0T${(++counter).toString(36).toUpperCase()}${redis.prefix.slice(-4).toUpperCase()}`;
  const transport = opts.transport ?? 'http';
  const socketMode = transport === 'socket';
  const sim = await startSimSlack({
    botToken: TOKEN,
    appToken: APP_TOKEN,
    botName: 'flink-ops',
    users: [
      ...Object.values(USERS).map((id) => ({ id, name: id.toLowerCase() })),
      { id: GUEST.id, name: 'guest', team_id: GUEST.team },
    ],
    channels: [
      { id: channel, name: `test-${channel.toLowerCase()}`, ...opts.channel },
      { id: INCIDENTS, name: 'incidents' },
    ],
    usergroups: [{ id: 'S0LEADS', handle: 'leads', users: [USERS.lead2] }],
    chatPostMessagePerChannelPerSecond: Infinity,
  });
  const callTimes = new Map<number, number>();
  sim.on('call', (call) => callTimes.set(call.seq, performance.now()));
  const dir = await mkdtemp(join(tmpdir(), 'bot-policy-'));
  const policyFile = join(dir, 'policy.yaml');
  if (!opts.noPolicy) await writeFile(policyFile, stringify((opts.policy ?? testPolicy)(channel)));
  const loaded = loadConfig(
    {
      SLACK_BOT_TOKEN: TOKEN,
      ...(socketMode ? { SLACK_APP_TOKEN: APP_TOKEN } : { SLACK_SIGNING_SECRET: SECRET }),
      SLACK_API_URL: sim.apiUrl,
      PORT: '0',
      REDIS_URL: redis.url,
      REDIS_PREFIX: redis.prefix,
      KUBECONFIG: cluster.kubeconfigPath,
      POLICY_FILE: policyFile,
      LOG_LEVEL: 'silent',
      ...opts.env,
      ...(opts.beforeBot ? await opts.beforeBot(sim) : {}),
    },
    'bot',
  );
  if (!loaded.ok) throw new Error(loaded.problems.join('\n'));
  const config = loaded.config;
  const bot = await startBot(config, {
    logger: createLogger(process.env.BOT_TEST_LOG ?? 'silent'),
    now: opts.now ?? clockFrom(WEDNESDAY),
    ...(socketMode ? { socketPingTimeoutMs: TEST_SOCKET_PING_TIMEOUT_MS } : {}),
    ...opts.overrides,
  });
  const queue = new OperationQueue({ connection: redis.redis, prefix: redis.prefix, cluster: DEFAULT_CLUSTER });
  const blocking = new Redis(redis.url, { maxRetriesPerRequest: null });
  let sends = 0;
  let closing: Promise<void> | undefined;

  const send = async (body: string, responseId: string, postOpts?: PostSignedOptions): Promise<Sent> => {
    const reply = async () => {
      const found = await sim.waitFor(
        () => sim.responses.find((r) => r.id === responseId),
        10_000,
        `the answer to ${responseId}`,
      );
      const replyBody = typeof found.body === 'string' ? { text: found.body } : found.body;
      return { text: String(replyBody.text ?? ''), body: replyBody };
    };
    if (socketMode) {
      // Signature options have no meaning here: Socket Mode requests are not signed.
      const envelope = socketEnvelope(body);
      const delivered = sim.socket.deliver(envelope.type, envelope.payload, { timeoutMs: 20_000 });
      const delivery = sim.socket.deliveries.at(-1);
      const ack = await delivered.catch((error: unknown) => {
        // Slack gave it up (no ack in time): the person saw an error; the caller reads `failed`.
        if (delivery?.failed === undefined) throw error;
      });
      if (!ack) {
        const { envelopeId, failed } = delivery as SimSocketDelivery & { failed: { error: SimSocketFailure } };
        return { status: 0, body: '', answeredAt: performance.now(), envelopeId, failed: failed.error, reply };
      }
      const text = Object.keys(ack.payload).length === 0 ? '' : JSON.stringify(ack.payload);
      return { status: 200, body: text, answeredAt: performance.now(), envelopeId: ack.envelopeId, reply };
    }
    const res = await postSigned(bot.url as string, body, SECRET, postOpts);
    const answeredAt = performance.now();
    const text = await res.text();
    return { status: res.status, body: text, answeredAt, reply };
  };

  const env: BotEnv = {
    bot,
    sim,
    redis,
    config,
    channel,
    transport,
    queue,
    callTimes,
    async command(text, user = USERS.alice, postOpts, fields = {}) {
      const id = `cmd-${++sends}`;
      const responseUrl = sim.responseUrl(id, { channel, user });
      const sent = await send(
        slashCommandBody({ ...fields, text, user_id: user, channel_id: channel, response_url: responseUrl }),
        id,
        postOpts,
      );
      // Slack shows a 200's ack body as the command's own ephemeral, which its response_url may replace or delete.
      const ack = sent.status === 200 ? ackShown(sent.body) : undefined;
      if (ack !== undefined) sim.commandAck(responseUrl, ack, text);
      return sent;
    },
    async request(text, user = USERS.alice, cardTimeoutMs = 10_000) {
      const before = sim.messages(channel).length;
      const sent = await env.command(text, user);
      if (sent.status !== 200) throw new Error(`the command was answered ${sent.status}`);
      const card = await sim.waitFor(() => sim.messages(channel)[before], cardTimeoutMs, `the card of "${text}"`);
      const opId = /op-[a-z0-9]{6,12}/.exec(card.text)?.[0];
      if (!opId) throw new Error(`the card names no operation: ${card.text}`);
      return env.waitForState(opId, ['DENIED', 'AWAITING_APPROVAL', 'SCHEDULED', 'QUEUED', 'CANCELLED']);
    },
    async click(action, record, user, opts = {}) {
      const id = `click-${++sends}`;
      const body = cardClickBody(sim, record, {
        user,
        actionId: ACTION_IDS[action],
        responseId: id,
        ...(opts.blockId ? { blockId: opts.blockId } : {}),
        ...(opts.teamId ? { teamId: opts.teamId } : {}),
        ...(opts.enterpriseId ? { enterpriseId: opts.enterpriseId } : {}),
        ...(opts.at ? { at: opts.at } : {}),
      });
      return send(body, id, opts.post);
    },
    async record(opId) {
      const record = await bot.deps.store.get(opId);
      if (!record) throw new Error(`no record ${opId}`);
      return record;
    },
    async waitForState(opId, states, timeoutMs = 10_000) {
      return env.waitFor(opId, (record) => states.includes(record.state), states.join('|'), timeoutMs);
    },
    async waitFor(opId, predicate, what, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      let after = '0-0';
      for (;;) {
        const record = await bot.deps.store.get(opId);
        if (record && predicate(record)) return record;
        if (Date.now() > deadline) throw new Error(`${opId} did not reach ${what} (is ${record?.state ?? 'missing'})`);
        const events = await waitForEvents(blocking, redis.prefix, after, 500);
        after = events.at(-1)?.id ?? after;
      }
    },
    async cardIn(record, state) {
      const ts = record.card?.ts;
      if (ts === undefined) throw new Error(`${record.id} has no card`);
      const shows = (m: SimMessage) => m.ts === ts && JSON.stringify(m.blocks ?? []).includes(`State: ${state}`);
      return sim.waitFor(() => sim.messages(channel).find(shows), 10_000);
    },
    async operationCount() {
      return (await bot.deps.store.recent(100)).length;
    },
    openHome(user) {
      return sim.openHome(user, socketMode ? 'socket' : { url: bot.url as string, signingSecret: SECRET });
    },
    async jobState(opId, revision) {
      return queue.jobState(jobIdOf(opId, revision));
    },
    async waitForJob(opId, revision) {
      // BullMQ announces no new job to a bystander: its state is looked at until there is one.
      const state = async () => {
        const s = await queue.jobState(jobIdOf(opId, revision));
        return s === 'unknown' ? undefined : s;
      };
      return eventually(`a BullMQ job for ${opId} at revision ${revision}`, state, { intervalMs: 10 });
    },
    close() {
      // Idempotent: a test may close its env itself, and the file's hooks close it again.
      closing ??= (async () => {
        await queue.close();
        blocking.disconnect();
        await bot.close();
        await sim.close();
        await redis.cleanup();
        await rm(dir, { recursive: true, force: true });
      })();
      return closing;
    },
  };
  return env;
}

/** What bot test files share: one demo cluster per file, and every env a test starts is closed after that test. */
export interface BotTestHooks {
  readonly cluster: SimCluster;
  start(opts?: BotEnvOptions): Promise<BotEnv>;
}

export function useBotEnvs(): BotTestHooks {
  let cluster: SimCluster | undefined;
  const open: BotEnv[] = [];
  beforeAll(async () => {
    cluster = await startTestCluster();
  });
  afterAll(async () => {
    await cluster?.close();
    // Every write of the bots and workers in the file named its field manager.
    if (cluster) expectAttributedWrites(cluster);
  });
  afterEach(async () => {
    for (const env of open.splice(0)) await env.close();
  });
  return {
    get cluster() {
      if (!cluster) throw new Error('no simulated cluster outside the tests');
      return cluster;
    },
    async start(opts) {
      const env = await startBotEnv(this.cluster, opts);
      open.push(env);
      return env;
    },
  };
}

/** What Slack shows from an ack body: nothing for an empty one, else its text (and blocks). */
function ackShown(body: string): { text: string; blocks?: unknown[] } | undefined {
  if (body.trim() === '') return undefined;
  try {
    const parsed = JSON.parse(body) as { text?: unknown; blocks?: unknown };
    const blocks = Array.isArray(parsed.blocks) ? (parsed.blocks as unknown[]) : undefined;
    if (typeof parsed.text !== 'string' && blocks === undefined) return undefined;
    return { text: typeof parsed.text === 'string' ? parsed.text : '', ...(blocks ? { blocks } : {}) };
  } catch {
    return { text: body };
  }
}
