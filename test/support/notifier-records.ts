// Operations for notifier tests: created through the real OperationStore, their card posted the way the command
// handler does, then moved through the entries bot and worker append; plus the simulated Slack and notifiers.
import type { Redis } from 'ioredis';
import type { Config } from '../../src/config.js';
import type { EntryInput, OperationRecord } from '../../src/domain/engines/operation.js';
import type { OperationState } from '../../src/domain/model/lifecycle.js';
import type { Target } from '../../src/domain/model/target.js';
import { createLogger } from '../../src/log.js';
import { startSimSlack, type SimMessage, type SimSlack, type SimSlackOptions } from '@flink-chatops/sim/slack-api';
import { carriedBy, renderCard, threadReplyWanted } from '../../src/slack/blocks/index.js';
import { DeliveryState, postField } from '../../src/store/delivery.js';
import {
  createNotifierClient,
  METADATA_EVENT_TYPE,
  Notifier,
  NOTIFIER_GROUP,
  type NotifierOptions,
  type WebClient,
} from '../../src/notifier/notifier.js';
import { storeKeys } from '../../src/store/keys.js';
import { DEFAULT_RETENTION_MS, type NewOperation, type OperationStore } from '../../src/store/operations.js';

export const TOKEN = 'xoxb-notifier-test';
export const OPS = 'C0OPS';
export const INCIDENTS = 'C0INCIDENTS';
export const REQUESTER = 'U0ALICE';
export const LEAD = 'U0LEAD';
export const ORDERS: Target = { kind: 'FlinkDeployment', namespace: 'streaming-prod', name: 'orders' };
/** The client's timeout in tests: short, so a lost response is noticed quickly. */
export const TEST_TIMEOUT_MS = 400;

export async function startTestSlack(postsPerSecond = Infinity, extra: SimSlackOptions = {}): Promise<SimSlack> {
  return startSimSlack({
    botToken: TOKEN,
    users: [
      { id: REQUESTER, name: 'alice' },
      { id: LEAD, name: 'lead' },
    ],
    channels: [
      { id: OPS, name: 'ops' },
      { id: INCIDENTS, name: 'incidents' },
    ],
    chatPostMessagePerChannelPerSecond: postsPerSecond,
    ...extra,
  });
}

export function testClient(sim: SimSlack): WebClient {
  const slack: Config['slack'] = {
    botToken: TOKEN,
    signingSecret: undefined,
    appToken: undefined,
    allowedTeams: undefined,
    commandsPerMinute: 0,
    apiUrl: sim.apiUrl,
    command: '/flink',
    socketMode: false,
  };
  return createNotifierClient({ slack }, { timeoutMs: TEST_TIMEOUT_MS, logger: createLogger('silent') });
}

/** A notifier with test-sized timings; every option can be overridden. */
export function testNotifier(
  base: Pick<NotifierOptions, 'redis' | 'prefix' | 'store'>,
  sim: SimSlack,
  extra: Partial<NotifierOptions> = {},
): Notifier {
  return new Notifier({
    ...base,
    client: testClient(sim),
    consumer: `test-${Math.random().toString(36).slice(2, 8)}`,
    channelIntervalMs: 20,
    claimIdleMs: 600,
    blockMs: 200,
    holdMs: 50,
    lockTtlMs: 3_000,
    requestTimeoutMs: TEST_TIMEOUT_MS,
    settleMs: 100,
    logger: createLogger(process.env.NOTIFIER_TEST_LOG ?? 'silent'),
    ...extra,
  });
}

export function scaleOperation(id: string, extra: Partial<NewOperation> = {}): NewOperation {
  return {
    id,
    kind: 'scale',
    intent: { kind: 'scale', target: ORDERS, parallelism: 8, incidentChannels: extra.incidentChannels ?? [] },
    target: ORDERS,
    requester: REQUESTER,
    channel: OPS,
    incidentChannels: [],
    ...extra,
  };
}

/** Records the operation as ACCEPTED (the bot's first step). */
export async function createOperation(store: OperationStore, fields: NewOperation): Promise<OperationRecord> {
  const created = await store.create(fields, fields.requester);
  if (!created.ok) throw new Error(`${fields.id}: ${created.reason}`);
  return created.record;
}

/** What the command handler does right after ACCEPTED: posts the card and stores `{channel, ts}`. */
export async function postCard(store: OperationStore, client: WebClient, id: string): Promise<OperationRecord> {
  const record = await store.get(id);
  if (record === undefined) throw new Error(`${id} not found`);
  const card = renderCard(record, { now: Date.now(), command: '/flink' });
  const posted = await client.chat.postMessage({
    channel: record.channel,
    text: card.text,
    blocks: card.blocks as never,
  });
  const result = await store.apply(id, () => ({
    set: { card: { channel: record.channel, ts: String(posted.ts) } },
    entries: [],
  }));
  if (!result.ok) throw new Error(result.reason);
  return result.record;
}

export const to = (
  name: OperationState,
  role: 'bot' | 'worker' | 'sweep',
  detail?: Record<string, unknown>,
): EntryInput => ({
  type: 'state',
  name,
  actor: role === 'bot' ? REQUESTER : role,
  role,
  ...(detail === undefined ? {} : { detail }),
});

/** Appends entries in one atomic step, as a writer does. */
export async function step(store: OperationStore, id: string, ...entries: EntryInput[]): Promise<OperationRecord> {
  const result = await store.apply(id, () => ({ entries }));
  if (!result.ok) throw new Error(result.reason);
  return result.record;
}

const criterion = (name: string, observed: unknown, source: string) => ({
  name,
  met: true,
  observed,
  source,
  at: Date.now(),
});

/** An approved prod scale, as bot and worker write it: each element is one atomic step. */
export const APPROVED_SCALE: EntryInput[][] = [
  [to('AWAITING_APPROVAL', 'bot')],
  [{ type: 'approval', name: 'approved', actor: LEAD, detail: { remaining: 0 } }, to('QUEUED', 'bot')],
  [{ type: 'waiting', name: 'behind', actor: 'worker', detail: { behind: 'op-ahead0001' } }],
  [to('SUBMITTING', 'worker')],
  [to('SUBMITTED', 'worker', { generation: 4 })],
  [
    {
      type: 'evidence',
      name: 'observation',
      actor: 'worker',
      detail: { criteria: [criterion('generation-reconciled', 4, 'status.observedGeneration')] },
    },
  ],
  [
    {
      type: 'evidence',
      name: 'observation',
      actor: 'worker',
      detail: { criteria: [criterion('job-running', 'RUNNING', 'status.jobStatus.state')] },
    },
  ],
  [to('COMPLETED', 'worker')],
];

/** The seqs that get a thread reply, by the renderers' own rule. */
export function wantedSeqs(record: OperationRecord): number[] {
  return record.history.filter(threadReplyWanted).map((e) => e.seq);
}

/**
 * The wanted seqs less those the notifier left out on purpose (docs/lifecycle.md#the-thread: a reply behind its
 * channel whose news a later reply carries), read from the delivery marks; each left-out one must have its carrier.
 */
export async function expectedReplySeqs(redis: Redis, prefix: string, record: OperationRecord): Promise<number[]> {
  const { marks } = await new DeliveryState(redis, prefix, DEFAULT_RETENTION_MS).read(record.id);
  const wanted = record.history.filter(threadReplyWanted);
  const leftOut = wanted.filter((e) => marks.get(postField(e.seq))?.mark?.state === 'skipped');
  for (const e of leftOut)
    if (carriedBy(record, e) === undefined) throw new Error(`${record.id}: reply ${e.seq} left out, none carries it`);
  return wanted.filter((e) => !leftOut.includes(e)).map((e) => e.seq);
}

/** Our replies in a thread: [op, seq] from their metadata, in thread order (the parent left out). */
export function replyKeys(sim: SimSlack, channel: string, ts: string): { op: unknown; seq: unknown; text: string }[] {
  return sim
    .replies(channel, ts)
    .slice(1)
    .filter((m: SimMessage) => m.metadata?.event_type === METADATA_EVENT_TYPE)
    .map((m) => ({ op: m.metadata?.event_payload.op, seq: m.metadata?.event_payload.seq, text: m.text }));
}

/** The state the card names now (`State: X` in its blocks), or undefined. */
export function cardState(sim: SimSlack, channel: string, ts: string): string | undefined {
  const card = sim.messages(channel).find((m) => m.ts === ts);
  return /State: ([A-Z_]+)/.exec(JSON.stringify(card?.blocks ?? []))?.[1];
}

/** Entries of the notifier group delivered and not yet acknowledged. */
export async function pendingCount(redis: Redis, prefix: string): Promise<number> {
  const reply = (await redis.call('XPENDING', storeKeys(prefix).events, NOTIFIER_GROUP)) as [number, ...unknown[]];
  return Number(reply[0]);
}

/** Every entry of the stream was delivered to the group and acknowledged. */
export async function allAcked(redis: Redis, prefix: string): Promise<boolean> {
  const groups = (await redis.call('XINFO', 'GROUPS', storeKeys(prefix).events)) as unknown[][];
  const group = groups.map((g) => Object.fromEntries(chunk(g))).find((g) => g.name === NOTIFIER_GROUP);
  const last = (await redis.xrevrange(storeKeys(prefix).events, '+', '-', 'COUNT', 1))[0]?.[0];
  return group !== undefined && group['last-delivered-id'] === last && Number(group.pending) === 0;
}

function chunk(flat: unknown[]): [string, unknown][] {
  const out: [string, unknown][] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([String(flat[i]), flat[i + 1]]);
  return out;
}

/** Successful chat.postMessage calls into one thread, in call order. */
export function threadPosts(sim: SimSlack, channel: string, ts: string) {
  return sim.calls.filter(
    (c) => c.method === 'chat.postMessage' && c.args.channel === channel && c.args.thread_ts === ts && c.status === 200,
  );
}
