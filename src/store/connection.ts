// Every Redis connection of the project is made here (docs/configuration.md#redis-modes): standalone (REDIS_URL),
// Sentinel (REDIS_SENTINELS, ioredis' own Sentinel client) or Cluster (REDIS_CLUSTER_NODES, ioredis' Cluster client).
// The stores, BullMQ's Queue and Worker and the notifier all use these connections. On a Cluster every key we and
// BullMQ write carries the one hash tag `{REDIS_PREFIX}` (store/keys.ts), so every script and MULTI runs on one slot:
// the Cluster gives failover, not sharding.
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import { parseRedisUrl, redactUrl, type RedisSettings } from '../config.js';
import { SentinelRedis } from './sentinel-client.js';

/** A connection of any mode: the stores use only commands both clients have (scripts, MULTI, streams, …). */
export type RedisConnection = Redis | Cluster;

/**
 * `worker`: BullMQ workers, blocking reads and the worker's stores; commands wait through a reconnect or failover
 * (`maxRetriesPerRequest: null`, which BullMQ insists on for blocking connections). `producer`: request paths
 * (the bot, health and metrics); a command fails after two reconnect attempts instead of hanging while Redis is away.
 */
export type ConnectionUse = 'worker' | 'producer';

/** Which client the factory makes and with what options; made without connecting, so tests can check it. */
export type ConnectionPlan =
  | { readonly kind: 'standalone'; readonly url: string; readonly options: RedisOptions }
  | { readonly kind: 'sentinel'; readonly options: RedisOptions }
  | { readonly kind: 'cluster'; readonly nodes: { host: string; port: number }[]; readonly options: ClusterOptions };

function retriesFor(use: ConnectionUse): Pick<RedisOptions, 'maxRetriesPerRequest'> {
  return { maxRetriesPerRequest: use === 'worker' ? null : 2 };
}

/**
 * After a failover that did not drop our connection (a manual `SENTINEL FAILOVER`), the old primary answers
 * writes with READONLY: reconnect, which asks the sentinels again, and resend the command.
 */
function reconnectOnReadonly(error: Error): 2 | false {
  return error.message.startsWith('READONLY') ? 2 : false;
}

/** The client class and options for `settings` and `use`; `extra` (e.g. lazyConnect) goes to every data connection. */
export function connectionPlan(settings: RedisSettings, use: ConnectionUse, extra: RedisOptions = {}): ConnectionPlan {
  const retries = retriesFor(use);
  if (settings.mode === 'standalone') {
    // The URL as before: ioredis reads host, port, user, password, db and TLS (rediss://) from it.
    return { kind: 'standalone', url: settings.url, options: { ...extra, ...retries } };
  }
  const url = parseRedisUrl(settings.url);
  if (!url)
    throw new Error(`REDIS_URL is not a redis:// or rediss:// URL (got ${JSON.stringify(redactUrl(settings.url))})`);
  const auth = {
    ...(url.username ? { username: url.username } : {}),
    ...(url.password ? { password: url.password } : {}),
  };
  if (settings.mode === 'sentinel') {
    return {
      kind: 'sentinel',
      options: {
        ...extra,
        ...retries,
        ...auth,
        sentinels: settings.sentinels.map(({ host, port }) => ({ host, port })),
        name: settings.sentinelMaster,
        role: 'master',
        db: url.db,
        // rediss:// means TLS to the master and to the sentinels alike (a TLS deployment runs both on TLS ports).
        ...(url.tls ? { tls: {}, enableTLSForSentinelMode: true, sentinelTLS: {} } : {}),
        // Subscribes to the sentinels' +switch-master: a promotion is followed at once, not at the next error.
        failoverDetector: true,
        reconnectOnError: reconnectOnReadonly,
      },
    };
  }
  const { lazyConnect, ...perNode } = extra;
  return {
    kind: 'cluster',
    nodes: settings.clusterNodes.map(({ host, port }) => ({ host, port })),
    options: {
      ...(lazyConnect === undefined ? {} : { lazyConnect }),
      // Every command on the primary that owns the slot (reads included: the store reads its own writes).
      scaleReads: 'master',
      redisOptions: { ...perNode, ...retries, ...auth, ...(url.tls ? { tls: {} } : {}) },
      // With TLS, connect to the names the cluster announces, not their resolved addresses, so certificates match.
      ...(url.tls
        ? {
            dnsLookup: (address: string, callback: (error: Error | null, address: string) => void) =>
              callback(null, address),
          }
        : {}),
    },
  };
}

/** A new connection to the Redis of `settings`; it connects in the background like any ioredis client. */
export function createConnection(
  settings: RedisSettings,
  use: ConnectionUse,
  extra: RedisOptions = {},
): RedisConnection {
  const plan = connectionPlan(settings, use, extra);
  switch (plan.kind) {
    case 'standalone':
      return new Redis(plan.url, plan.options);
    case 'sentinel':
      // Heals the end its failover detector can cause while reconnecting (sentinel-client.ts).
      return new SentinelRedis(plan.options);
    case 'cluster':
      return new Cluster(plan.nodes, plan.options);
  }
}

/**
 * A deadline for blocking reads on a connection of their own: a read whose reply has not come `graceMs` after its
 * BLOCK ran out resolves empty (ioredis' `blockingTimeout`). With `maxRetriesPerRequest: null` ioredis resends a
 * read cut by a failover, and that resent read can stay unanswered for good (seen with Sentinel); without a deadline
 * the reader would wait forever (docs/configuration.md#redis-modes).
 */
export function blockingReadDeadline(graceMs: number): Pick<RedisOptions, 'blockingTimeout' | 'blockingTimeoutGrace'> {
  // blockingTimeout only switches the deadline on: a read with `BLOCK ms` gets ms + grace.
  return { blockingTimeout: graceMs, blockingTimeoutGrace: graceMs };
}

/** A second connection like `connection` (same mode, server and credentials), e.g. for blocking reads. */
export function duplicateConnection(
  connection: RedisConnection,
  use: ConnectionUse,
  extra: Pick<RedisOptions, 'blockingTimeout' | 'blockingTimeoutGrace'> = {},
): RedisConnection {
  if (connection instanceof Cluster) {
    return connection.duplicate([], {
      redisOptions: { ...connection.options.redisOptions, ...retriesFor(use), ...extra },
    });
  }
  return connection.duplicate({ ...retriesFor(use), ...extra });
}

/** Where Redis is, for log lines: never a password. */
export function redisLogFields(settings: RedisSettings): Record<string, unknown> {
  const nodes = (list: readonly { host: string; port: number }[]) => list.map((n) => `${n.host}:${n.port}`).join(',');
  if (settings.mode === 'sentinel')
    return { redis: 'sentinel', sentinels: nodes(settings.sentinels), master: settings.sentinelMaster };
  if (settings.mode === 'cluster') return { redis: 'cluster', nodes: nodes(settings.clusterNodes) };
  return { redis: redactUrl(settings.url) };
}

/** How long a decisive write waits for a replica's acknowledgement before going on without it. */
export const REPLICA_WAIT_MS = 1000;

/** Waits after the writes that decide a submission (OperationStore: → SUBMITTING, → SUBMITTED). */
export interface ReplicaWait {
  /** `key`: a key of the slot just written (any key with the `{prefix}` tag; Cluster routing needs one). */
  afterWrite(key: string): Promise<void>;
}

export interface ReplicaWaitOptions {
  timeoutMs?: number;
  /** A WAIT that saw no replica acknowledge in time, or failed: logged, never fatal (the write is done). */
  onShort: (event: { acked: number; timeoutMs: number } | { error: unknown }) => void;
  now?: () => number;
}

/** A primary found without replicas is not waited on for this long, then asked again (a replica may have joined). */
export const NO_REPLICA_RECHECK_MS = 30_000;

/**
 * `WAIT 1 <timeout>` (docs/configuration.md#redis-modes) after the writes that decide a submission, where a replica
 * exists, so a failover cannot forget that a change was sent. A primary without replicas (`INFO replication`:
 * connected_slaves 0) is not waited on: a standalone server is asked at the first decisive write, any other when a WAIT
 * came back unacknowledged (e.g. the new primary after a failover), and asked again every NO_REPLICA_RECHECK_MS.
 *
 * WAIT counts the writes of the connection it is sent on, so it must go down the very socket the write went down.
 * Standalone and Sentinel clients have one socket. An ioredis Cluster keeps one socket per node and sends a
 * keyless command (WAIT) to a random node; a pipeline, though, goes whole to the node owning its keys' slot. So
 * the WAIT is pipelined behind a harmless read (EXISTS) of a key of our slot: both go to that slot's
 * primary, over the socket the commit used, and the WAIT is answered after the replica acknowledged or the timeout.
 * (WAIT inside MULTI would not block, hence a plain pipeline.) While it waits, that connection's other commands
 * queue behind it; the timeout is short next to LEASE_TTL, so lease renewals are only delayed, never missed.
 */
export function replicaWait(
  connection: RedisConnection,
  settings: RedisSettings,
  options: ReplicaWaitOptions,
): ReplicaWait {
  const timeoutMs = options.timeoutMs ?? REPLICA_WAIT_MS;
  const now = options.now ?? Date.now;
  // Until when the primary is known to have no replica (none configured, or a failover left the new one alone).
  let noReplicaUntil = 0;
  /** `connected_slaves` of the primary that owns `key` (a keyed pipeline goes to that node on a Cluster too). */
  const replicas = async (key: string): Promise<number> => {
    const replies = await connection.pipeline().exists(key).info('replication').exec();
    return Number(/^connected_slaves:(\d+)/m.exec(String(replies?.[1]?.[1] ?? ''))?.[1] ?? 0);
  };
  return {
    async afterWrite(key) {
      if (now() < noReplicaUntil) return;
      try {
        if (settings.mode === 'standalone' && noReplicaUntil === 0 && (await replicas(key)) === 0) {
          noReplicaUntil = now() + NO_REPLICA_RECHECK_MS;
          return;
        }
        const replies = await connection.pipeline().exists(key).wait(1, timeoutMs).exec();
        const [error, acked] = replies?.[1] ?? [new Error('no reply to WAIT'), 0];
        if (error) throw error;
        if (Number(acked) >= 1) return;
        // Nobody acknowledged: a replica that is slow (worth saying) or none at all (a failover's new primary).
        if ((await replicas(key)) === 0) noReplicaUntil = now() + NO_REPLICA_RECHECK_MS;
        else options.onShort({ acked: Number(acked), timeoutMs });
      } catch (error) {
        options.onShort({ error });
      }
    },
  };
}

/** `replicaWait` whose short waits are logged as a warning saying what a failover now could lose. */
export function loggedReplicaWait(
  connection: RedisConnection,
  settings: RedisSettings,
  logger: { warn(fields: Record<string, unknown>, message: string): void },
  what: string,
): ReplicaWait {
  return replicaWait(connection, settings, {
    onShort: (event) =>
      logger.warn(
        { ...('error' in event ? { err: event.error } : event), ...redisLogFields(settings) },
        `no Redis replica acknowledged ${what} in time; a failover now could lose it`,
      ),
  });
}
