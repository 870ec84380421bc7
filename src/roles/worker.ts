// The worker role: Redis, stores, the cluster client and shared watches, policy, the queue worker and the sweep.
import { redisAuditTrail, type AuditTrail } from '../audit/trail.js';
import { PolicyFileSource, type PolicyProvider } from '../app/policy-source.js';
import type { Config } from '../config.js';
import { KubeClusters, type KubeClustersOptions } from '../kube/clusters.js';
import { WatchHub } from '../kube/watch-hub.js';
import { createLogger, type Logger } from '../log.js';
import { OperationQueues } from '../queue/queue.js';
import { createConnection, loggedReplicaWait, redisLogFields, type RedisConnection } from '../store/connection.js';
import { FreezeStore } from '../store/freezes.js';
import { LeaseStore } from '../store/locks.js';
import { WorkerPresence } from '../store/workers.js';
import { OperationStore, type OperationStoreOptions } from '../store/operations.js';
import { DEFAULT_SETTINGS, type RunnerSettings } from '../worker/context.js';
import { Runner } from '../worker/runner.js';
import { Sweep, SWEEP_INTERVAL_MS } from '../app/sweep.js';
import { BreakGlassIndex } from '../store/break-glass.js';
import { OperationWorker } from '../worker/worker.js';
import { AfterCompletedWatcher, type AfterCompletedDeps } from '../worker/after-completed.js';
import { AfterCompletedWatches } from '../store/after-completed.js';
import { RedisAlertStore } from '../store/alerts.js';
import { RedisSharedReadings } from '../store/shared-readings.js';
import { JobAlertWatcher, type JobAlertTiming } from '../worker/job-alerts.js';

export interface WorkerOverrides {
  logger?: Logger;
  now?: () => number;
  /** Instead of config.kubeconfig. */
  kubeconfigPath?: string;
  policy?: PolicyProvider;
  sweepIntervalMs?: number;
  /** Observes every Kubernetes call (metrics, tests). */
  onKubeCall?: KubeClustersOptions['onCall'];
  /** Passed to the operation store (metrics count terminal states through it). */
  onCommitted?: OperationStoreOptions['onCommitted'];
  /** Observes lease waits (QUEUED → holding the lease), in seconds. */
  onLockWait?: (seconds: number) => void;
  /** Observes each revert of a completed change this process records (docs/lifecycle.md#after-completed). */
  onRevert?: AfterCompletedDeps['onRevert'];
  /** How often each cluster's after-COMPLETED watches are read again (default 5 s). */
  afterCompletedRefreshMs?: number;
  /** Observes each post-change regression this process records (docs/lifecycle.md#after-completed). */
  onRegression?: AfterCompletedDeps['onRegression'];
  /** How often a post-change watch reads Flink REST per job (default 30 s; tests shorten it). */
  postChangeRestMs?: number;
  /** The job-alert watch's pace (docs/alerts.md#what-is-watched); tests shorten it. */
  jobAlertTiming?: Partial<JobAlertTiming>;
  settings?: Partial<RunnerSettings>;
  /** Called with each Redis connection this worker opens (benchmarks count commands through it). */
  instrumentRedis?: (connection: RedisConnection) => void;
  /** The process's audit trail (serve shares one between its roles); default one on this worker's Redis. */
  audit?: AuditTrail;
  /** Where that default trail writes its audit lines; default the worker's logger (docs/audit.md#on-stdout). */
  auditLines?: Logger;
}

/** What a worker process runs for one of its clusters. */
export interface ClusterWorker {
  cluster: string;
  runner: Runner;
  watches: WatchHub;
  worker: OperationWorker;
  afterCompleted: AfterCompletedWatcher;
  alerts: JobAlertWatcher;
}

export interface RunningWorker {
  /** The first cluster's runner and watches (the only ones in a single-cluster installation). */
  runner: Runner;
  watches: WatchHub;
  /** Every cluster this worker executes (WORKER_CLUSTERS). */
  clusters: ClusterWorker[];
  sweep: Sweep;
  close(): Promise<void>;
}

/** Starts a worker process's parts; `close()` stops taking work, hands in-flight operations back and disconnects. */
export async function startWorker(config: Config, overrides: WorkerOverrides = {}): Promise<RunningWorker> {
  const logger = overrides.logger ?? createLogger(config.logLevel);
  const now = overrides.now ?? Date.now;
  const prefix = config.redis.prefix;
  const redis = createConnection(config.redis, 'worker');
  const blocking = createConnection(config.redis, 'worker');
  for (const connection of [redis, blocking]) {
    connection.on('error', (error: Error) => logger.warn({ err: error }, 'Redis connection error; reconnecting'));
    overrides.instrumentRedis?.(connection);
  }
  const closers: (() => Promise<unknown> | void)[] = [() => disconnect(redis), () => disconnect(blocking)];
  try {
    const clusters = KubeClusters.load(config.clusters, overrides.kubeconfigPath ?? config.kubeconfig, {
      impersonate: config.kubeImpersonate,
      ...(overrides.onKubeCall ? { onCall: overrides.onKubeCall } : {}),
    });
    const replicas = loggedReplicaWait(redis, config.redis, logger, 'a submission or audit write');
    const audit =
      overrides.audit ??
      redisAuditTrail(redis, {
        prefix,
        retentionMs: config.retention.recordsMs,
        logger,
        ...(overrides.auditLines ? { lines: overrides.auditLines } : {}),
        now,
        replicas,
      });
    const store = new OperationStore(redis, {
      prefix,
      now,
      replicas,
      audit,
      retentionMs: config.retention.recordsMs,
      eventRetentionMs: config.retention.eventsMs,
      ...(config.recordKey ? { recordKey: config.recordKey } : {}),
      ...(overrides.onCommitted ? { onCommitted: overrides.onCommitted } : {}),
    });
    const leases = new LeaseStore(redis, { prefix, now });
    const freezes = new FreezeStore(redis, { prefix, now });
    const queues = new OperationQueues({ connection: redis, prefix, clusters: config.clusters.worker });
    closers.unshift(() => queues.close());
    const settings: RunnerSettings = {
      ...DEFAULT_SETTINGS,
      leaseTtlMs: config.leaseTtlMs,
      verifyTimeoutMs: config.verifyTimeoutMs,
      verifyTimeoutSavepointMs: config.verifyTimeoutSavepointMs,
      failureGraceMs: config.failureGraceMs,
      ...overrides.settings,
    };
    // Cluster names in the policy are checked by the bot, which sees every cluster; a worker inside one cluster
    // (CLUSTER_NAME, no KUBE_CONTEXTS) knows only its own.
    const policy =
      overrides.policy ??
      new PolicyFileSource(config.policyFile, {
        onLoad: audit.policyLoaded,
      });
    const shared = {
      store,
      leases,
      freezes,
      policy,
      logger,
      settings,
      now,
      nonce: monotonicNonce(now),
      ...(config.recordKey ? { recordKey: config.recordKey } : {}),
      ...(overrides.onLockWait ? { onLockWait: overrides.onLockWait } : {}),
    };
    const afterWatches = new AfterCompletedWatches(redis, prefix);
    const alertStore = new RedisAlertStore(redis, prefix);
    // One Flink REST read per job and interval however many worker replicas watch it (docs/alerts.md#cost).
    const readings = new RedisSharedReadings(redis, prefix);
    const parts: ClusterWorker[] = [];
    for (const name of config.clusters.worker) {
      // One runner, shared watches and BullMQ worker per cluster: each writes only to its own cluster
      // (docs/deployment.md#several-clusters).
      const { kubeConfig, kube, rest, crds } = clusters.get(name);
      const watches = new WatchHub({
        kubeConfig,
        list: (kind, namespace) => kube.listCollection(kind, namespace),
        logger,
      });
      closers.unshift(() => watches.close());
      const afterCompleted = new AfterCompletedWatcher({
        store,
        watches: afterWatches,
        hub: watches,
        cluster: name,
        logger,
        now,
        actor: settings.actor,
        kube,
        ...(rest ? { rest } : {}),
        readings,
        policy,
        failureGraceMs: settings.failureGraceMs,
        ...(overrides.postChangeRestMs ? { restEveryMs: overrides.postChangeRestMs } : {}),
        ...(overrides.onRegression ? { onRegression: overrides.onRegression } : {}),
        ...(overrides.onRevert ? { onRevert: overrides.onRevert } : {}),
        ...(overrides.afterCompletedRefreshMs ? { refreshMs: overrides.afterCompletedRefreshMs } : {}),
      });
      closers.unshift(() => afterCompleted.close());
      const alerts = new JobAlertWatcher({
        store: alertStore,
        hub: watches,
        list: (kind, namespace) => kube.listCollection(kind, namespace),
        rest,
        readings,
        policy,
        cluster: name,
        several: config.clusters.names.length > 1,
        logger,
        now,
        failureGraceMs: settings.failureGraceMs,
        ...(overrides.jobAlertTiming ? { timing: overrides.jobAlertTiming } : {}),
      });
      closers.unshift(() => alerts.close());
      const runner = new Runner({
        ...shared,
        kube,
        rest,
        crds,
        watches,
        queue: queues.named(name),
        cluster: name,
        afterCompleted,
      });
      const worker = new OperationWorker({
        connection: blocking,
        prefix,
        cluster: name,
        concurrency: config.workerConcurrency,
        lockDurationMs: config.leaseTtlMs,
        runner,
        logger,
      });
      closers.unshift(() => worker.close());
      parts.push({ cluster: name, runner, watches, worker, afterCompleted, alerts });
    }
    const sweep = new Sweep({
      store,
      queues,
      leases,
      logger,
      now,
      breakGlass: { store, index: new BreakGlassIndex(redis, prefix), policy, logger },
    });
    closers.unshift(() => sweep.stop());
    // The installed CRDs are read before the first operation is taken, then again as they age
    // (docs/deployment.md#operator-versions); a reading that fails says so and refuses nothing.
    await Promise.all(config.clusters.worker.map((name) => clusters.get(name).crds.catalog()));
    for (const part of parts) await part.worker.start();
    for (const part of parts) await part.afterCompleted.start();
    for (const part of parts) await part.alerts.start();
    const stopPresence = new WorkerPresence(redis, prefix).keep(config.clusters.worker, (error) =>
      logger.warn({ err: error }, 'could not renew the worker presence'),
    );
    closers.unshift(stopPresence);
    sweep.start(overrides.sweepIntervalMs ?? SWEEP_INTERVAL_MS);
    logger.info(
      {
        ...redisLogFields(config.redis),
        prefix,
        clusters: config.clusters.worker,
        concurrency: config.workerConcurrency,
        leaseTtlMs: config.leaseTtlMs,
      },
      'worker started',
    );
    const first = parts[0] as ClusterWorker;
    let closing: Promise<void> | undefined;
    return {
      runner: first.runner,
      watches: first.watches,
      clusters: parts,
      sweep,
      close: () => (closing ??= closeAll(closers, logger)),
    };
  } catch (error) {
    await closeAll(closers, logger);
    throw error;
  }
}

/** Closes in order (worker first, Redis last); one failing step does not keep the others open. */
async function closeAll(closers: (() => Promise<unknown> | void)[], logger: Logger): Promise<void> {
  for (const close of closers) {
    try {
      await close();
    } catch (error) {
      logger.warn({ err: error }, 'a part of the worker did not close cleanly');
    }
  }
  logger.info('worker stopped');
}

async function disconnect(redis: RedisConnection): Promise<void> {
  try {
    await redis.quit();
  } catch {
    redis.disconnect();
  }
}

/** Nonces that never repeat within a process, even for two re-plans in the same millisecond. */
function monotonicNonce(now: () => number): () => number {
  let last = 0;
  return () => (last = Math.max(now(), last + 1));
}
