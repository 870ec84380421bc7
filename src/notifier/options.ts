// The notifier's options, and the delivery machinery made from them (pacers, delivery marks, approver DMs).
import type { ApproverDirectory } from '../app/approvers.js';
import type { OperationStore } from '../app/ports/index.js';
import type { Logger } from '../log.js';
import * as blocks from '../slack/blocks/index.js';
import type { WebClient } from '../slack-client/client.js';
import type { RedisConnection } from '../store/connection.js';
import { DeliveryState } from '../store/delivery.js';
import { DmCopies } from '../store/dm-copies.js';
import { DEFAULT_RETENTION_MS } from '../store/operations.js';
import { ApproverDms } from './approver-dms.js';
import { OperationDelivery, type NotifierRenderers } from './delivery.js';
import { SharedPacer, type PostPacer } from './pacer.js';
import { DEFAULT_SLACK_TIMEOUT_MS, SlackCalls } from './slack-calls.js';

export interface NotifierOptions {
  redis: RedisConnection;
  prefix: string;
  store: OperationStore;
  /** Built by `createNotifierClient`: no retries of its own, 429s rejected, a timeout. */
  client: WebClient;
  /** How long delivery marks and DM copies are kept: the records' retention (RECORD_RETENTION; default 35 days). */
  retentionMs?: number;
  /** Unique per process (e.g. `<hostname>-<pid>`): the consumer name in the group. */
  consumer: string;
  /** The slash command shown in messages (default `/flink`). */
  command?: string;
  /**
   * Posts to one channel start at least this many ms after the previous one ended, installation-wide: every replica
   * (and the card poster of the request path, when given the same pacer) shares the pace through Redis (default 1000).
   */
  channelIntervalMs?: number;
  /** The channels' pace, when the process shares one with the card poster; default: one made from channelIntervalMs. */
  pacer?: PostPacer;
  /** Edits of one card: at most one per this many ms, installation-wide; a burst in between is one edit (default 1000). */
  cardEditWindowMs?: number;
  /** Entries another consumer left unacknowledged this long are taken over (default 30 s). */
  claimIdleMs?: number;
  logger?: Logger;
  /** Clock for what messages show (RenderContext.now); waits and marks use the real clock. */
  now?: () => number;
  /** Default: the Block Kit renderers of src/slack/blocks. */
  renderers?: NotifierRenderers;
  /** XREADGROUP BLOCK, ms (default 2000). */
  blockMs?: number;
  /** A read unanswered this long after its BLOCK ran out is taken as lost and read again (default 5 s). */
  readDeadlineGraceMs?: number;
  /** First delay before looking again at an operation without a card or held by another replica (default 250 ms). */
  holdMs?: number;
  /** Per-operation lock TTL, renewed every third of it (default 30 s). */
  lockTtlMs?: number;
  /** The client's timeout; another consumer's pending post is resolved only after it (default 10 s). */
  requestTimeoutMs?: number;
  /** How long Slack may still apply a post after its call failed, before we look for it (default 1 s). */
  settleMs?: number;
  /** Awaited before each operation's delivery: the acks of a burst go out first (docs/operating.md#under-a-burst). */
  giveWay?: () => Promise<void>;
  /**
   * A thread reply that waited this long for its channel's turn is behind: one a later reply carries (SUBMITTED, once
   * the outcome is in) is left out (default 5 s; docs/lifecycle.md#the-thread).
   */
  behindMs?: number;
  /** Operations delivered at once by this process (default 32). */
  maxConcurrentOps?: number;
  /** Who approves what (policy and user groups): with it, approvers get DMs (approver-dms.ts); without, none. */
  approvers?: ApproverDirectory;
}

/** The delivery of one notifier: its pacers (shared through Redis), delivery marks, Slack calls and approver DMs. */
export function createDelivery(opts: NotifierOptions, log: Logger, holdMs: number): OperationDelivery {
  const settleMs = opts.settleMs ?? 1_000;
  const requestTimeoutMs = opts.requestTimeoutMs ?? DEFAULT_SLACK_TIMEOUT_MS;
  // A turn outlives the call it was taken for (its timeout), so only a crashed holder's turn lapses.
  const turnTtlMs = requestTimeoutMs + settleMs + 1_000;
  const onError = (error: unknown): void =>
    log.warn({ err: error }, 'ending a pacing turn failed; it lapses on its own');
  const retentionMs = opts.retentionMs ?? DEFAULT_RETENTION_MS;
  const state = new DeliveryState(opts.redis, opts.prefix, retentionMs);
  const slack = new SlackCalls(opts.client, log);
  const pacer =
    opts.pacer ??
    SharedPacer.channels(opts.redis, opts.prefix, {
      intervalMs: opts.channelIntervalMs ?? 1_000,
      turnTtlMs,
      onError,
    });
  const copies = new DmCopies(opts.redis, opts.prefix, retentionMs);
  const dmDeps = {
    state,
    copies,
    slack,
    pacer,
    store: opts.store,
    consumer: opts.consumer,
    now: Date.now,
    renderNow: opts.now ?? Date.now,
  };
  return new OperationDelivery({
    store: opts.store,
    state,
    slack,
    pacer,
    ...(opts.approvers
      ? {
          dms: new ApproverDms({
            ...dmDeps,
            directory: opts.approvers,
            command: opts.command ?? '/flink',
            staleMs: requestTimeoutMs + settleMs,
          }),
        }
      : {}),
    cardEdits: SharedPacer.cardEdits(opts.redis, opts.prefix, {
      intervalMs: opts.cardEditWindowMs ?? 1_000,
      turnTtlMs,
      onError,
    }),
    render: opts.renderers ?? blocks,
    consumer: opts.consumer,
    command: opts.command ?? '/flink',
    now: Date.now,
    renderNow: opts.now ?? Date.now,
    logger: log,
    holdMs: holdMs,
    lockTtlMs: positive('lockTtlMs', opts.lockTtlMs ?? 30_000),
    settleMs,
    staleMs: requestTimeoutMs + settleMs,
    ...(opts.behindMs === undefined ? {} : { behindMs: opts.behindMs }),
  });
}

export function positive(name: string, value: number): number {
  if (!(Number.isFinite(value) && value > 0))
    throw new Error(`notifier option ${name} must be a positive number, got ${value}`);
  return value;
}
