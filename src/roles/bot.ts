// The bot role's composition root: Redis, stores, queue, Kubernetes client, policy source, Slack ports, the notifier
// and the Bolt app.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { App, CustomRoute } from '@slack/bolt';
import type { Redis } from 'ioredis';
import { ApprovalService } from '../app/approvals.js';
import { FreezeCommands } from '../app/commands.js';
import { HomeService } from '../app/home.js';
import { MembershipSource, type BotDeps } from '../app/context.js';
import { OperationService } from '../app/operations.js';
import { PolicyFileSource, type PolicyProvider } from '../app/policy-source.js';
import type { Enqueuer, Responder } from '../app/ports.js';
import { QueryService } from '../app/queries.js';
import { Sweep, SWEEP_INTERVAL_MS, type AcceptedFinisher } from '../app/sweep.js';
import { KubeClusters, type KubeClustersOptions } from '../kube/clusters.js';
import { redactUrl, type Config } from '../config.js';
import { createLogger, type Logger } from '../log.js';
import { OperationQueues, producerConnection } from '../queue/queue.js';
import { FreezeStore } from '../store/freezes.js';
import { LeaseStore } from '../store/locks.js';
import { WorkerPresence } from '../store/workers.js';
import { OperationStore, type OperationStoreOptions } from '../store/operations.js';
import { createBotApp } from '../slack/app.js';
import type { HandlerDeps } from '../slack/command-handler.js';
import { createNotifierClient, Notifier } from '../notifier/notifier.js';
import { SlackCardPoster } from '../slack/card-poster.js';
import { FetchResponder, resolveBotIdentity, usergroupMembers, type BotIdentity } from '../slack/slack-ports.js';
import { createSlackClient, type WebClient } from '../slack-client/client.js';
import type { SlackCallObserver } from '../slack-client/instrument.js';

export interface BotOverrides {
  logger?: Logger;
  /** ms; policy schedules, expiry and record times (tests inject a fixed day). */
  now?: () => number;
  random?: (size: number) => Uint8Array;
  /** A kubeconfig file other than `config.kubeconfig`. */
  kubeconfigPath?: string;
  policy?: PolicyProvider;
  /** Instead of the BullMQ queue. */
  enqueuer?: Enqueuer;
  responder?: Responder;
  customRoutes?: CustomRoute[];
  onAck?: (seconds: number) => void;
  onKubeCall?: KubeClustersOptions['onCall'];
  /** Observes every Slack Web API call of this role (metrics). */
  onSlackCall?: SlackCallObserver;
  /** The interface the HTTP receiver listens on (default: all; the sandbox keeps it on loopback). */
  host?: string;
  /** false: no sweep in this process (tests that drive the sweep themselves). */
  sweep?: boolean;
  /** false: no notifier in this process (card edits, thread replies and digests are then another process's job). */
  notifier?: boolean;
  /** Passed to the operation store (metrics count terminal states through it). */
  onCommitted?: OperationStoreOptions['onCommitted'];
  /** The notifier's consumer name; default `<hostname>-<pid>`, so a restarted pod first finishes its own entries. */
  consumer?: string;
}

export interface RunningBot {
  /** `http://127.0.0.1:<port>/slack/events` in HTTP mode. */
  url?: string;
  port?: number;
  app: App;
  identity: BotIdentity;
  deps: BotDeps;
  redis: Redis;
  client: WebClient;
  close(): Promise<void>;
}

/** Starts the Slack side of the bot role; everything it opened is closed by `close()`, in reverse order. */
export async function startBot(config: Config, overrides: BotOverrides = {}): Promise<RunningBot> {
  const logger = overrides.logger ?? createLogger(config.logLevel);
  const now = overrides.now ?? Date.now;
  const closers: (() => Promise<unknown>)[] = [];
  const close = async (): Promise<void> => {
    for (const fn of closers.reverse()) await fn().catch((error: unknown) => logger.warn({ err: error }, 'error while closing the bot'));
  };
  try {
    const redis = producerConnection(config.redis.url);
    closers.push(async () => redis.quit());
    const client = createSlackClient(config, { logger, ...(overrides.onSlackCall ? { onCall: overrides.onSlackCall } : {}) });
    const identity = await resolveBotIdentity(client);
    const queues = overrides.enqueuer ? undefined : new OperationQueues({ connection: redis, prefix: config.redis.prefix, clusters: config.clusters.names });
    if (queues) closers.push(() => queues.close());
    const deps = botDeps(config, { ...overrides, logger, now }, redis, client, queues);
    const handlers: HandlerDeps = {
      operations: new OperationService(deps, identity.botName),
      approvals: new ApprovalService(deps),
      freezes: new FreezeCommands(deps),
      queries: new QueryService(deps),
      home: new HomeService(deps),
      policy: deps.policy,
      clusters: config.clusters.names,
      responder: overrides.responder ?? new FetchResponder(),
      command: config.slack.command,
      logger,
      now,
      ...(overrides.onAck ? { onAck: overrides.onAck } : {}),
    };
    if (overrides.notifier !== false) {
      // Started before the app and so stopped after it: updates of the last requests still go out.
      const notifier = await startNotifier(config, deps, redis, overrides.consumer, overrides.onSlackCall);
      closers.push(() => notifier.stop());
    }
    if (queues && overrides.sweep !== false) {
      // SPEC §9: every process sweeps (expiry, lost jobs); the sweep's effects are idempotent across replicas.
      const accepted = acceptedFinisher(handlers.operations, handlers.responder, logger);
      const sweep = new Sweep({ store: deps.store, queues, leases: deps.leases, logger, now, accepted });
      sweep.start(SWEEP_INTERVAL_MS);
      closers.push(async () => sweep.stop());
    }
    const app = createBotApp({ config, identity, handlers, logger, ...(overrides.customRoutes ? { customRoutes: overrides.customRoutes } : {}) });
    const started = await (overrides.host && !config.slack.socketMode ? app.start({ port: config.port, host: overrides.host }) : app.start(config.port));
    closers.push(() => app.stop());
    const port = config.slack.socketMode ? undefined : ((started as Server).address() as AddressInfo).port;
    const url = port === undefined ? undefined : `http://127.0.0.1:${port}/slack/events`;
    logger.info({ port, socketMode: config.slack.socketMode, redis: redactUrl(config.redis.url), bot: identity.botUserId }, 'bot started');
    return { ...(url ? { url, port } : {}), app, identity, deps, redis, client, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The sweep's recovery of a record left ACCEPTED: card and decision, or CANCELLED and the requester told once. */
export function acceptedFinisher(operations: OperationService, responder: Responder, logger: Logger): AcceptedFinisher {
  return {
    async finish(record) {
      const outcome = await operations.resumeAccepted(record);
      if (outcome.type !== 'cancelled') return;
      if (!record.responseUrl) return logger.warn({ opId: record.id }, 'cancelled a stale ACCEPTED operation; no response_url to tell its requester');
      await responder.respond(record.responseUrl, { text: outcome.message, response_type: 'ephemeral' });
    },
  };
}

async function startNotifier(config: Config, deps: BotDeps, redis: Redis, consumer?: string, onSlackCall?: SlackCallObserver): Promise<Notifier> {
  const notifier = new Notifier({
    redis,
    prefix: config.redis.prefix,
    store: deps.store,
    client: createNotifierClient(config, { logger: deps.logger, ...(onSlackCall ? { onCall: onSlackCall } : {}) }),
    consumer: consumer ?? `${hostname()}-${process.pid}`,
    command: config.slack.command,
    logger: deps.logger,
    now: deps.now,
  });
  await notifier.start();
  return notifier;
}

function botDeps(
  config: Config,
  o: BotOverrides & { logger: Logger; now: () => number },
  redis: Redis,
  client: WebClient,
  queues: OperationQueues | undefined,
): BotDeps {
  const prefix = config.redis.prefix;
  // Every cluster's clients, made at its first request; the health gate reads Flink REST through each API
  // server's service proxy with the same credentials (SPEC §3a, §5a).
  const clusters = KubeClusters.load(config.clusters, o.kubeconfigPath ?? config.kubeconfig, o.onKubeCall ? { onCall: o.onKubeCall } : {});
  const enqueuer: Enqueuer = o.enqueuer ?? {
    enqueue: async (opId, revision, target) => {
      await (queues as OperationQueues).of(target).enqueue(opId, revision);
    },
  };
  return {
    store: new OperationStore(redis, { prefix, now: o.now, ...(o.onCommitted ? { onCommitted: o.onCommitted } : {}) }),
    freezes: new FreezeStore(redis, { prefix, now: o.now }),
    leases: new LeaseStore(redis, { prefix, now: o.now }),
    clusters,
    workers: new WorkerPresence(redis, prefix),
    policy: o.policy ?? new PolicyFileSource(config.policyFile, { clusters: config.clusters.names }),
    membership: new MembershipSource(usergroupMembers(client), o.now),
    enqueuer,
    cards: new SlackCardPoster(client, config.slack.command, o.now),
    logger: o.logger,
    now: o.now,
    random: o.random ?? ((size) => randomBytes(size)),
  };
}
