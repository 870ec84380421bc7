// The bot role's composition root: Redis, stores, queue, Kubernetes client, policy source, Slack ports, the notifier
// and the Bolt app.
import { Limiter } from '../concurrency/limiter.js';
import { QuietGate } from '../concurrency/quiet-gate.js';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { App, CustomRoute } from '@slack/bolt';
import { ApprovalService } from '../app/approvals.js';
import { APPROVAL_TIMER_POLL_MS, ApprovalTimers } from '../app/approval-timers.js';
import { FreezeCommands } from '../app/commands.js';
import { HomeService } from '../app/home.js';
import { BreakGlassReviews } from '../app/break-glass.js';
import { BreakGlassIndex } from '../store/break-glass.js';
import type { BotDeps } from '../app/context.js';
import { OperationService } from '../app/operations.js';
import type { Responder } from '../app/ports/index.js';
import { QueryService } from '../app/queries.js';
import { Sweep, SWEEP_INTERVAL_MS, type AcceptedFinisher } from '../app/sweep.js';
import type { Config } from '../config.js';
import { createLogger, type Logger } from '../log.js';
import { OperationQueues } from '../queue/queue.js';
import { createConnection, redisLogFields, type RedisConnection } from '../store/connection.js';
import { createBotApp } from '../slack/app.js';
import { redisDeliveryClaims } from '../slack/redelivery.js';
import { SocketLink } from '../slack/socket-link.js';
import type { HandlerDeps } from '../slack/command-handler.js';
import { startDelivery } from './bot-delivery.js';
import { botDeps, type DepsOverrides } from './bot-deps.js';
import { usersInfoTeams, WorkspaceGuard } from '../slack/workspace-guard.js';
import { HomePublisher } from '../slack/home-publisher.js';
import { publishHomeNow } from '../slack/home-handler.js';
import { CommandRate } from '../store/command-rate.js';
import { CardsInFlight } from '../store/cards-in-flight.js';
import type { OperationRecord } from '../domain/engines/operation.js';
import { FetchResponder, resolveBotIdentity, type BotIdentity } from '../slack/slack-ports.js';
import { createSlackClient, SLACK_CALL_TIMEOUT_MS, type WebClient } from '../slack-client/client.js';
import { SharedPacer } from '../store/pacing.js';
import { SeenSignatures } from '../store/seen-signatures.js';
import { slackAgent } from '../slack-client/proxy.js';
import type { SlackCallObserver } from '../slack-client/instrument.js';

/** Slash commands planned at once, the others waiting their turn after their ack (docs/operating.md#under-a-burst). */
export const PLANNING_CONCURRENCY = 16;
/** Planning starts once no ack has gone out for this long (docs/operating.md#under-a-burst)… */
export const PLANNING_QUIET_MS = 20;
/** …or once a command has waited this long after its ack, whichever comes first. */
export const PLANNING_MAX_HOLD_MS = 1_000;

export interface BotOverrides extends DepsOverrides {
  logger?: Logger;
  /** ms; policy schedules, expiry and record times (tests inject a fixed day). */
  now?: () => number;
  responder?: Responder;
  customRoutes?: CustomRoute[];
  /** Socket Mode: the link /readyz follows (serve makes it before the bot starts); one of its own otherwise. */
  socketLink?: SocketLink;
  /** Socket Mode: the client's ping timeout, which is also its reconnect delay (Slack's default 5 s; tests shorten it). */
  socketPingTimeoutMs?: number;
  onAck?: (seconds: number) => void;
  /** Observes every Slack Web API call of this role (metrics). */
  onSlackCall?: SlackCallObserver;
  /** The interface the HTTP receiver listens on (default: all; the sandbox keeps it on loopback). */
  host?: string;
  /** false: no sweep in this process (tests that drive the sweep themselves). */
  sweep?: boolean;
  /** false: no notifier in this process (card edits, thread replies and digests are then another process's job). */
  notifier?: boolean;
  /** The notifier's consumer name; default `<hostname>-<pid>`, so a restarted pod first finishes its own entries. */
  consumer?: string;
  /**
   * Posts to one channel (cards and replies, every replica together) at most one per `channelIntervalMs` (default
   * 1000, docs/lifecycle.md#delivery-and-pacing), edits of one card one per `cardEditWindowMs` (default 1000); tests
   * shorten them.
   */
  slackPace?: { channelIntervalMs?: number; cardEditWindowMs?: number };
  /** How long planning waits for the acks of a burst (default PLANNING_QUIET_MS, PLANNING_MAX_HOLD_MS). */
  planningQuiet?: { quietMs: number; maxHoldMs: number };
  /** How often due reminders and escalations are looked for (default 5 s; tests shorten it). */
  approvalTimerPollMs?: number;
  /** false: this process does not look for due reminders and escalations (another process does). */
  approvalTimers?: boolean;
}

export interface RunningBot {
  /** `http://127.0.0.1:<port>/slack/events` in HTTP mode. */
  url?: string;
  /** Socket Mode: the link to Slack (connected or not). */
  socket?: SocketLink;
  port?: number;
  app: App;
  identity: BotIdentity;
  deps: BotDeps;
  redis: RedisConnection;
  client: WebClient;
  close(): Promise<void>;
}

/** Starts the Slack side of the bot role; everything it opened is closed by `close()`, in reverse order. */
export async function startBot(config: Config, overrides: BotOverrides = {}): Promise<RunningBot> {
  const logger = overrides.logger ?? createLogger(config.logLevel);
  const now = overrides.now ?? Date.now;
  const closers: (() => Promise<unknown>)[] = [];
  const close = async (): Promise<void> => {
    for (const fn of closers.reverse())
      await fn().catch((error: unknown) => logger.warn({ err: error }, 'error while closing the bot'));
  };
  try {
    const redis = createConnection(config.redis, 'producer');
    redis.on('error', (error: Error) => logger.warn({ err: error }, 'Redis connection error; reconnecting'));
    closers.push(async () => redis.quit());
    const client = createSlackClient(config, {
      logger,
      ...(overrides.onSlackCall ? { onCall: overrides.onSlackCall } : {}),
    });
    const identity = await resolveBotIdentity(client);
    const queues = overrides.enqueuer
      ? undefined
      : new OperationQueues({ connection: redis, prefix: config.redis.prefix, clusters: config.clusters.names });
    if (queues) closers.push(() => queues.close());
    // One pace per channel for the whole installation, shared by the card poster and the notifier
    // (docs/lifecycle.md#delivery-and-pacing).
    const pacer = SharedPacer.channels(redis, config.redis.prefix, {
      intervalMs: overrides.slackPace?.channelIntervalMs ?? 1_000,
      turnTtlMs: SLACK_CALL_TIMEOUT_MS + 2_000,
      onError: (error) => logger.warn({ err: error }, 'ending a pacing turn failed; it lapses on its own'),
    });
    const deps = botDeps(config, { ...overrides, logger, now }, redis, client, queues, pacer);
    // Planning and Slack delivery give way to the acks of a burst (docs/operating.md#under-a-burst).
    const quiet = new QuietGate(
      overrides.planningQuiet?.quietMs ?? PLANNING_QUIET_MS,
      overrides.planningQuiet?.maxHoldMs ?? PLANNING_MAX_HOLD_MS,
    );
    const handlers: HandlerDeps = {
      operations: new OperationService(deps, identity.botName),
      approvals: new ApprovalService(deps),
      freezes: new FreezeCommands(deps),
      queries: new QueryService(deps),
      home: new HomeService(deps),
      breakGlass: new BreakGlassReviews({
        ...deps,
        index: deps.breakGlass ?? new BreakGlassIndex(redis, config.redis.prefix),
      }),
      policy: deps.policy,
      clusters: config.clusters.names,
      responder: overrides.responder ?? new FetchResponder(undefined, slackAgent(config.proxy)),
      command: config.slack.command,
      logger,
      now,
      ...(overrides.onAck ? { onAck: overrides.onAck } : {}),
      guard: workspaceGuard(config, identity, client, now),
      commandRate: { perMinute: config.slack.commandsPerMinute, counts: new CommandRate(redis, config.redis.prefix) },
      homes: new HomePublisher((slack, user) => publishHomeNow(handlers, slack, user)),
      planning: new Limiter(PLANNING_CONCURRENCY),
      quiet,
    };
    if (overrides.notifier !== false) {
      // Started before the app and so stopped after it: updates of the last requests still go out.
      closers.push(
        await startDelivery(config, deps, redis, {
          pacer,
          giveWay: () => quiet.quiet(),
          ...(overrides.consumer === undefined ? {} : { consumer: overrides.consumer }),
          ...(overrides.onSlackCall === undefined ? {} : { onSlackCall: overrides.onSlackCall }),
          ...(overrides.slackPace?.cardEditWindowMs === undefined
            ? {}
            : { cardEditWindowMs: overrides.slackPace.cardEditWindowMs }),
        }),
      );
    }
    // Reminders and escalation (docs/policy.md#reaching-approvers), due from the records themselves; every replica
    // looks, one wins each.
    if (overrides.approvalTimers !== false) {
      const timers = new ApprovalTimers({ store: deps.store, policy: deps.policy, logger, now });
      timers.start(overrides.approvalTimerPollMs ?? APPROVAL_TIMER_POLL_MS);
      closers.push(() => timers.stop());
    }
    if (queues && overrides.sweep !== false) {
      // Every process sweeps (expiry, lost jobs: docs/lifecycle.md#the-sweep); the sweep's effects are idempotent
      // across replicas.
      const accepted = acceptedFinisher(
        handlers.operations,
        handlers.responder,
        logger,
        new CardsInFlight(redis, config.redis.prefix),
      );
      const breakGlass = {
        store: deps.store,
        index: deps.breakGlass ?? new BreakGlassIndex(redis, config.redis.prefix),
        policy: deps.policy,
        logger,
      };
      const sweep = new Sweep({ store: deps.store, queues, leases: deps.leases, logger, now, accepted, breakGlass });
      sweep.start(SWEEP_INTERVAL_MS);
      closers.push(async () => sweep.stop());
    }
    const socketLink = config.slack.socketMode ? (overrides.socketLink ?? new SocketLink()) : undefined;
    const socket = socketLink && {
      link: socketLink,
      claims: redisDeliveryClaims(redis, config.redis.prefix),
      ...(overrides.socketPingTimeoutMs === undefined ? {} : { pingTimeoutMs: overrides.socketPingTimeoutMs }),
    };
    // The replay check runs before each ack: on a connection of its own it never waits behind the commands of the
    // work that follows earlier acks (docs/operating.md#under-a-burst).
    const signatureConnection = () => {
      const own = createConnection(config.redis, 'producer');
      own.on('error', (error: Error) => logger.warn({ err: error }, 'Redis connection error; reconnecting'));
      closers.push(async () => own.quit());
      return own;
    };
    const app = createBotApp({
      config,
      identity,
      handlers,
      logger,
      ...(overrides.customRoutes ? { customRoutes: overrides.customRoutes } : {}),
      ...(socket ? { socket } : { seen: new SeenSignatures(signatureConnection(), config.redis.prefix) }),
    });
    const started = await (overrides.host && !config.slack.socketMode
      ? app.start({ port: config.port, host: overrides.host })
      : app.start(config.port));
    closers.push(() => app.stop());
    const port = config.slack.socketMode ? undefined : ((started as Server).address() as AddressInfo).port;
    const url = port === undefined ? undefined : `http://127.0.0.1:${port}/slack/events`;
    logger.info(
      { port, socketMode: config.slack.socketMode, ...redisLogFields(config.redis), bot: identity.botUserId },
      'bot started',
    );
    return {
      ...(url ? { url, port } : {}),
      ...(socketLink ? { socket: socketLink } : {}),
      app,
      identity,
      deps,
      redis,
      client,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * SLACK_ALLOWED_TEAMS (docs/configuration.md#who-may-use-the-bot), else the bot token's own team and enterprise
 * (auth.test).
 */
function workspaceGuard(config: Config, identity: BotIdentity, client: WebClient, now: () => number): WorkspaceGuard {
  const own = [identity.teamId, identity.enterpriseId].filter((id): id is string => id !== undefined);
  return new WorkspaceGuard(new Set(config.slack.allowedTeams ?? own), usersInfoTeams(client), now);
}

/** The sweep's recovery of a record left ACCEPTED: card and decision, or CANCELLED and the requester told once. */
export function acceptedFinisher(
  operations: OperationService,
  responder: Responder,
  logger: Logger,
  cards?: Pick<CardsInFlight, 'inFlight'>,
): AcceptedFinisher {
  return {
    ...(cards ? { cardInFlight: (record: OperationRecord) => cards.inFlight(record.id) } : {}),
    async finish(record) {
      const outcome = await operations.resumeAccepted(record);
      if (outcome.type !== 'cancelled') return;
      if (!record.responseUrl)
        return logger.warn(
          { opId: record.id },
          'cancelled a stale ACCEPTED operation; no response_url to tell its requester',
        );
      await responder.respond(record.responseUrl, { text: outcome.message, response_type: 'ephemeral' });
    },
  };
}
