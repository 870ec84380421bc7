// `flink-chatops serve`: runs a role until SIGTERM or SIGINT, then shuts it down cleanly. Every role serves
// /healthz, /readyz and /metrics on PORT: through Bolt's HTTP receiver in HTTP mode, else a small server of its own.
import type { Config, Role } from '../config.js';
import { healthRoutes, kubeReady, readiness, redisReady, type ReadinessCheck } from '../http/health.js';
import { createMetrics, queueSource, storeSources, type Metrics } from '../http/metrics.js';
import { startHealthServer } from '../http/server.js';
import { loadKubeConfig } from '../kube/client-node.js';
import { createLogger, type Logger } from '../log.js';
import { OperationQueue, producerConnection } from '../queue/queue.js';
import { OperationStore } from '../store/operations.js';

export interface Service {
  close(): Promise<void>;
}

/** Resolves with the exit code once the role has stopped. */
export async function serve(role: Role, config: Config): Promise<number> {
  const logger = createLogger(config.logLevel);
  const started: Service[] = [];
  const closeAll = async (): Promise<void> => {
    for (const s of started.splice(0).reverse()) await s.close();
  };
  const observability = await startObservability(role, config, logger);
  started.push(observability);
  try {
    const { metrics } = observability;
    const onKubeCall = (call: { method: string; resource: string; status: number }) => metrics.kubeCall(call);
    if (role !== 'bot') {
      const worker = await (await import('./worker.js')).startWorker(config, { logger, onKubeCall, onLockWait: (s) => metrics.observeLockWait(s) });
      started.push(worker);
    }
    if (role !== 'worker') {
      const bot = await (await import('./bot.js')).startBot(config, {
        logger,
        onKubeCall,
        onAck: (s) => metrics.observeAck(s),
        onSlackCall: (method, status) => metrics.slackCall(method, status),
        ...(observability.routes ? { customRoutes: observability.routes } : {}),
      });
      started.push(bot);
    }
  } catch (error) {
    await closeAll();
    throw error;
  }
  const signal = await untilSignal();
  logger.info({ signal }, 'shutting down');
  observability.drain();
  // A second signal while draining means "now": the operations stay as recorded and are resumed elsewhere.
  // One Ctrl-C can arrive twice (the terminal and a wrapper relaying it), so a repeat within a second is ignored.
  const firstAt = Date.now();
  void untilSignal(() => Date.now() - firstAt > 1000).then((again) => {
    logger.warn({ signal: again }, 'second signal; exiting without waiting');
    process.exit(1);
  });
  await closeAll();
  return 0;
}

interface Observability extends Service {
  metrics: Metrics;
  /** Bolt custom routes when the bot's HTTP receiver serves PORT; undefined when a health server of our own does. */
  routes?: ReturnType<typeof healthRoutes>;
  drain(): void;
}

/** Metrics fed from the store and queue at scrape time, and the readiness checks of the role. */
async function startObservability(role: Role, config: Config, logger: Logger): Promise<Observability> {
  const redis = producerConnection(config.redis.url);
  redis.on('error', () => undefined);
  const queue = new OperationQueue({ connection: redis, prefix: config.redis.prefix });
  const metrics = createMetrics({
    sources: {
      ...storeSources(new OperationStore(redis, { prefix: config.redis.prefix })),
      ...queueSource(() => queue.queue.getJobCounts('waiting', 'delayed', 'active', 'prioritized', 'failed')),
    },
  });
  const checks: Record<string, ReadinessCheck> = { redis: redisReady(redis) };
  if (role !== 'bot') checks.kubernetes = kubeReady(loadKubeConfig(config.kubeconfig));
  const probe = readiness(checks);
  const ready = { ready: probe, metrics, logger };
  const closeBase = async () => {
    await queue.close();
    redis.disconnect();
  };
  if (role !== 'worker' && !config.slack.socketMode) {
    return { metrics, routes: healthRoutes(ready), drain: () => probe.drain(), close: closeBase };
  }
  const server = await startHealthServer({ port: config.port, ...ready });
  return {
    metrics,
    drain: () => probe.drain(),
    close: async () => {
      await server.close();
      await closeBase();
    },
  };
}

function untilSignal(counts: () => boolean = () => true): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (signal: NodeJS.Signals): void => {
      if (!counts()) return;
      process.off('SIGTERM', on);
      process.off('SIGINT', on);
      resolve(signal);
    };
    process.on('SIGTERM', on);
    process.on('SIGINT', on);
  });
}
