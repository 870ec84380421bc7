// The worker role: Redis, stores, the cluster client and shared watches, policy, the queue worker and the sweep.
import type { Redis } from 'ioredis';
import { PolicyFileSource, type PolicyProvider } from '../app/policy-source.js';
import type { Config } from '../config.js';
import { redactUrl } from '../config.js';
import { ClientNodeFlinkClient, loadKubeConfig, type ClientNodeOptions } from '../kube/client-node.js';
import { WatchHub } from '../kube/watch-hub.js';
import { ClientNodeFlinkRest } from '../kube/flink-rest.js';
import { createLogger, type Logger } from '../log.js';
import { OperationQueue, workerConnection } from '../queue/queue.js';
import { FreezeStore } from '../store/freezes.js';
import { LeaseStore } from '../store/locks.js';
import { OperationStore, type OperationStoreOptions } from '../store/operations.js';
import { DEFAULT_SETTINGS, type RunnerSettings } from '../worker/context.js';
import { Runner } from '../worker/runner.js';
import { Sweep, SWEEP_INTERVAL_MS } from '../app/sweep.js';
import { OperationWorker } from '../worker/worker.js';

export interface WorkerOverrides {
  logger?: Logger;
  now?: () => number;
  /** Instead of config.kubeconfig. */
  kubeconfigPath?: string;
  policy?: PolicyProvider;
  sweepIntervalMs?: number;
  /** Observes every Kubernetes call (metrics, tests). */
  onKubeCall?: ClientNodeOptions['onCall'];
  /** Passed to the operation store (metrics count terminal states through it). */
  onCommitted?: OperationStoreOptions['onCommitted'];
  /** Observes lease waits (QUEUED → holding the lease), in seconds. */
  onLockWait?: (seconds: number) => void;
  settings?: Partial<RunnerSettings>;
  /** Called with each Redis connection this worker opens (benchmarks count commands through it). */
  instrumentRedis?: (connection: Redis) => void;
}

export interface RunningWorker {
  runner: Runner;
  sweep: Sweep;
  watches: WatchHub;
  close(): Promise<void>;
}

/** Starts a worker process's parts; `close()` stops taking work, hands in-flight operations back and disconnects. */
export async function startWorker(config: Config, overrides: WorkerOverrides = {}): Promise<RunningWorker> {
  const logger = overrides.logger ?? createLogger(config.logLevel);
  const now = overrides.now ?? Date.now;
  const prefix = config.redis.prefix;
  const redis = workerConnection(config.redis.url);
  const blocking = workerConnection(config.redis.url);
  for (const connection of [redis, blocking]) {
    connection.on('error', (error: Error) => logger.warn({ err: error }, 'Redis connection error; reconnecting'));
    overrides.instrumentRedis?.(connection);
  }
  const closers: (() => Promise<unknown> | void)[] = [() => disconnect(redis), () => disconnect(blocking)];
  try {
    const kubeConfig = loadKubeConfig(overrides.kubeconfigPath ?? config.kubeconfig);
    const kube = new ClientNodeFlinkClient(kubeConfig, overrides.onKubeCall ? { onCall: overrides.onKubeCall } : {});
    // Flink REST through the API server's service proxy, with the same credentials (SPEC §5a).
    const rest = new ClientNodeFlinkRest(kubeConfig, overrides.onKubeCall ? { onCall: ({ status }) => overrides.onKubeCall?.({ method: 'get', resource: 'services/proxy', status }) } : {});
    const watches = new WatchHub({ kubeConfig, list: (kind, namespace) => kube.listCollection(kind, namespace), logger });
    closers.unshift(() => watches.close());
    const store = new OperationStore(redis, { prefix, now, ...(overrides.onCommitted ? { onCommitted: overrides.onCommitted } : {}) });
    const leases = new LeaseStore(redis, { prefix, now });
    const queue = new OperationQueue({ connection: redis, prefix });
    closers.unshift(() => queue.close());
    const settings: RunnerSettings = {
      ...DEFAULT_SETTINGS,
      leaseTtlMs: config.leaseTtlMs,
      verifyTimeoutMs: config.verifyTimeoutMs,
      verifyTimeoutSavepointMs: config.verifyTimeoutSavepointMs,
      failureGraceMs: config.failureGraceMs,
      ...overrides.settings,
    };
    const runner = new Runner({
      store,
      leases,
      freezes: new FreezeStore(redis, { prefix, now }),
      kube,
      rest,
      watches,
      queue,
      policy: overrides.policy ?? new PolicyFileSource(config.policyFile),
      logger,
      settings,
      now,
      nonce: monotonicNonce(now),
      ...(overrides.onLockWait ? { onLockWait: overrides.onLockWait } : {}),
    });
    const worker = new OperationWorker({ connection: blocking, prefix, concurrency: config.workerConcurrency, lockDurationMs: config.leaseTtlMs, runner, logger });
    closers.unshift(() => worker.close());
    const sweep = new Sweep({ store, queue, leases, logger, now });
    closers.unshift(() => sweep.stop());
    await worker.start();
    sweep.start(overrides.sweepIntervalMs ?? SWEEP_INTERVAL_MS);
    logger.info({ redis: redactUrl(config.redis.url), prefix, concurrency: config.workerConcurrency, leaseTtlMs: config.leaseTtlMs }, 'worker started');
    let closing: Promise<void> | undefined;
    return {
      runner,
      sweep,
      watches,
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

async function disconnect(redis: Redis): Promise<void> {
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
