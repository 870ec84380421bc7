// The bot role's dependencies: the stores, clusters, policy source, audit trail and Slack ports its application
// services share.
import { randomBytes } from 'node:crypto';
import { redisAuditTrail, type AuditTrail } from '../audit/trail.js';
import { MembershipSource, type BotDeps } from '../app/context.js';
import { PolicyFileSource, type PolicyProvider } from '../app/policy-source.js';
import type { Enqueuer } from '../app/ports/index.js';
import type { Config } from '../config.js';
import { KubeClusters, type KubeClustersOptions } from '../kube/clusters.js';
import type { Logger } from '../log.js';
import type { OperationQueues } from '../queue/queue.js';
import { SlackCardPoster } from '../slack/card-poster.js';
import { channelMembership, usergroupMembers } from '../slack/slack-ports.js';
import type { WebClient } from '../slack-client/client.js';
import { BreakGlassIndex } from '../store/break-glass.js';
import { CardsInFlight } from '../store/cards-in-flight.js';
import { loggedReplicaWait, type RedisConnection } from '../store/connection.js';
import { FreezeStore } from '../store/freezes.js';
import { LeaseStore } from '../store/locks.js';
import { OperationStore, type OperationStoreOptions } from '../store/operations.js';
import type { SharedPacer } from '../store/pacing.js';
import { WorkerPresence } from '../store/workers.js';

/** What tests and `serve` may put in place of the defaults (part of BotOverrides). */
export interface DepsOverrides {
  random?: (size: number) => Uint8Array;
  /** A kubeconfig file other than `config.kubeconfig`. */
  kubeconfigPath?: string;
  policy?: PolicyProvider;
  /** Instead of the BullMQ queue. */
  enqueuer?: Enqueuer;
  onKubeCall?: KubeClustersOptions['onCall'];
  /** Passed to the operation store (metrics count terminal states through it). */
  onCommitted?: OperationStoreOptions['onCommitted'];
  /** The process's audit trail (serve shares one between its roles); default one on this role's Redis. */
  audit?: AuditTrail;
  /** Where that default trail writes its audit lines; default the role's logger (docs/audit.md#on-stdout). */
  auditLines?: Logger;
}

/** Everything the bot's services share, on one Redis connection and the role's Slack client. */
export function botDeps(
  config: Config,
  o: DepsOverrides & { logger: Logger; now: () => number },
  redis: RedisConnection,
  client: WebClient,
  queues: OperationQueues | undefined,
  pacer: SharedPacer,
): BotDeps {
  const prefix = config.redis.prefix;
  // Every cluster's clients, made at its first request; the health gate reads Flink REST through each API
  // server's service proxy with the same credentials (docs/deep-verification.md).
  const clusters = KubeClusters.load(config.clusters, o.kubeconfigPath ?? config.kubeconfig, {
    sharedReads: true,
    ...(o.onKubeCall ? { onCall: o.onKubeCall } : {}),
  });
  const enqueuer: Enqueuer = o.enqueuer ?? {
    enqueue: async (opId, revision, target) => {
      await (queues as OperationQueues).of(target).enqueue(opId, revision);
    },
    enqueueAt: async (opId, revision, target, runAt, now) => {
      await (queues as OperationQueues).of(target).enqueueAt(opId, revision, runAt, now);
    },
  };
  const replicas = loggedReplicaWait(redis, config.redis, o.logger, 'an audit write');
  const audit =
    o.audit ??
    redisAuditTrail(redis, {
      prefix,
      retentionMs: config.retention.recordsMs,
      logger: o.logger,
      ...(o.auditLines ? { lines: o.auditLines } : {}),
      now: o.now,
      replicas,
    });
  return {
    store: new OperationStore(redis, {
      prefix,
      now: o.now,
      replicas,
      retentionMs: config.retention.recordsMs,
      eventRetentionMs: config.retention.eventsMs,
      audit,
      ...(config.recordKey ? { recordKey: config.recordKey } : {}),
      ...(o.onCommitted ? { onCommitted: o.onCommitted } : {}),
    }),
    audit,
    freezes: new FreezeStore(redis, { prefix, now: o.now }),
    leases: new LeaseStore(redis, { prefix, now: o.now }),
    clusters,
    workers: new WorkerPresence(redis, prefix),
    policy:
      o.policy ??
      new PolicyFileSource(config.policyFile, {
        clusters: config.clusters.names,
        onLoad: audit.policyLoaded,
      }),
    membership: new MembershipSource(usergroupMembers(client), o.now),
    channelMembers: channelMembership(client),
    enqueuer,
    cards: new SlackCardPoster(client, config.slack.command, o.now, {
      pacer,
      inFlight: new CardsInFlight(redis, prefix),
    }),
    logger: o.logger,
    now: o.now,
    random: o.random ?? ((size) => randomBytes(size)),
    breakGlass: new BreakGlassIndex(redis, prefix),
  };
}
