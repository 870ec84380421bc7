// `flink-chatops serve`: runs a role until SIGTERM or SIGINT, then shuts it down cleanly. Every role serves
// /healthz, /readyz and /metrics on PORT: through Bolt's HTTP receiver in HTTP mode, else a small server of its own.
import type { Config, Role } from '../config.js';
import {
  healthRoutes,
  kubeReady,
  readiness,
  redisReady,
  socketReady,
  crdsInfo,
  type ReadinessCheck,
  type ReadinessInfo,
} from '../http/health.js';
import { randomUUID } from 'node:crypto';
import { PolicyFileSource } from '../app/policy-source.js';
import { exporterLease, outcomeObserver, queueSource, storeSources, whileExporting } from '../http/metric-sources.js';
import { createMetrics, type KubeCall, type Metrics } from '../http/metrics.js';
import { startHealthServer } from '../http/server.js';
import { KubeClusters } from '../kube/clusters.js';
import { createLogger, type Logger } from '../log.js';
import { OperationQueues, type OperationQueue } from '../queue/queue.js';
import { createConnection, loggedReplicaWait } from '../store/connection.js';
import { storeKeys } from '../store/keys.js';
import { OperationStore } from '../store/operations.js';
import { BreakGlassIndex } from '../store/break-glass.js';
import { countOverdueReviews } from '../app/break-glass-due.js';
import { SocketLink } from '../slack/socket-link.js';
import { AuditTrail } from '../audit/trail.js';
import { AuditWebhook, auditWebhookSource } from '../audit/webhook.js';
import { RedisAuditLog, RedisAuditPosition } from '../store/audit-log.js';

export interface Service {
  close(): Promise<void>;
}

/** Resolves with the exit code once the role has stopped. */
export async function serve(role: Role, config: Config): Promise<number> {
  // A context KUBE_CONTEXTS names but the kubeconfig lacks is a config error: said before anything is opened.
  KubeClusters.load(config.clusters, config.kubeconfig);
  const logger = createLogger(config.logLevel);
  const started: Service[] = [];
  const closeAll = async (): Promise<void> => {
    for (const s of started.splice(0).reverse()) await s.close();
  };
  // One policy source for the whole process: the roles decide with it and /metrics reports its validity.
  // Cluster names in it are checked where every cluster is known: the bot role (app/policy-source.ts).
  const loads: { trail?: AuditTrail } = {};
  const policy = new PolicyFileSource(config.policyFile, {
    logger,
    ...(role === 'worker' ? {} : { clusters: config.clusters.names }),
    onLoad: (load) => loads.trail?.policyLoaded(load),
  });
  const observability = await startObservability(role, config, logger, policy);
  started.push(observability);
  loads.trail = observability.audit;
  try {
    const { metrics, audit } = observability;
    const onKubeCall = (call: KubeCall) => metrics.kubeCall(call);
    const shared = { logger, onKubeCall, policy, audit, onCommitted: outcomeObserver(metrics) };
    if (role !== 'bot') {
      const worker = await (
        await import('./worker.js')
      ).startWorker(config, {
        ...shared,
        onLockWait: (s) => metrics.observeLockWait(s),
        onRevert: (r) => metrics.countRevert(r),
        onRegression: (r) => metrics.countRegression(r),
      });
      started.push(worker);
    }
    if (role !== 'worker') {
      const bot = await (
        await import('./bot.js')
      ).startBot(config, {
        ...shared,
        onAck: (s) => metrics.observeAck(s),
        onSlackCall: (method, status) => metrics.slackCall(method, status),
        ...(observability.routes ? { customRoutes: observability.routes } : {}),
        ...(observability.socket ? { socketLink: observability.socket } : {}),
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
  /** The process's audit trail, shared by its roles (docs/audit.md). */
  audit: AuditTrail;
  /** Bolt custom routes when the bot's HTTP receiver serves PORT; undefined when a health server of our own does. */
  routes?: ReturnType<typeof healthRoutes>;
  /** Socket Mode: the bot's link to Slack, which /readyz reports as `slack-socket`. */
  socket?: SocketLink;
  drain(): void;
}

/** Metrics fed from the store and queue at scrape time, and the readiness checks of the role. */
async function startObservability(
  role: Role,
  config: Config,
  logger: Logger,
  policy: PolicyFileSource,
): Promise<Observability> {
  const redis = createConnection(config.redis, 'producer');
  redis.on('error', () => undefined);
  const queues = new OperationQueues({
    connection: redis,
    prefix: config.redis.prefix,
    clusters: config.clusters.names,
  });
  const depth = (queue: OperationQueue) => () =>
    queue.queue.getJobCounts('waiting', 'delayed', 'active', 'prioritized', 'failed');
  const exporter = exporterLease(redis, storeKeys(config.redis.prefix).metricsExporter, randomUUID());
  const store = new OperationStore(redis, {
    prefix: config.redis.prefix,
    retentionMs: config.retention.recordsMs,
    eventRetentionMs: config.retention.eventsMs,
    ...(config.recordKey ? { recordKey: config.recordKey } : {}),
  });
  const replicas = loggedReplicaWait(redis, config.redis, logger, 'an audit write');
  const auditLog = new RedisAuditLog(redis, {
    prefix: config.redis.prefix,
    retentionMs: config.retention.recordsMs,
    replicas,
  });
  const audit = new AuditTrail({ log: auditLog, logger });
  const hook = config.audit.webhook
    ? new AuditWebhook({
        redis,
        prefix: config.redis.prefix,
        log: auditLog,
        position: new RedisAuditPosition(redis, config.redis.prefix),
        webhook: config.audit.webhook,
        proxy: config.proxy,
        logger,
        leaseTtlMs: config.leaseTtlMs,
        replicas,
      })
    : undefined;
  hook?.start();
  const unreviewed = { store, index: new BreakGlassIndex(redis, config.redis.prefix), policy };
  const storeWide = whileExporting(() => exporter.holds(), {
    ...storeSources(store),
    collectBreakGlassUnreviewed: () => countOverdueReviews(unreviewed, Date.now()),
    ...queueSource(Object.fromEntries(queues.all().map((q) => [q.cluster, depth(q)]))),
  });
  const collectPolicyValid = async () => {
    await policy.current();
    return policy.valid === true;
  };
  const checks: Record<string, ReadinessCheck> = { redis: redisReady(redis) };
  if (role !== 'bot') Object.assign(checks, clusterChecks(config));
  const socket = role !== 'worker' && config.slack.socketMode ? new SocketLink() : undefined;
  if (socket) checks['slack-socket'] = socketReady(socket);
  const probe = readiness(checks, { info: crdCapabilities(config) });
  // Each dependency checked on its own (a draining probe answers for none of them).
  const dependencies = readiness(checks);
  const collectDependencies = async () =>
    Object.fromEntries(Object.entries((await dependencies()).checks).map(([name, result]) => [name, result === 'ok']));
  const metrics = createMetrics({
    sources: { ...storeWide, collectPolicyValid, collectDependencies, ...(hook ? auditWebhookSource(hook) : {}) },
  });
  const ready = { ready: probe, metrics, logger };
  const closeBase = async () => {
    await hook?.stop();
    await exporter.release().catch(() => undefined);
    await queues.close();
    redis.disconnect();
  };
  if (role !== 'worker' && !config.slack.socketMode) {
    return { metrics, audit, routes: healthRoutes(ready), drain: () => probe.drain(), close: closeBase };
  }
  const server = await startHealthServer({ port: config.port, ...ready });
  return {
    metrics,
    audit,
    ...(socket ? { socket } : {}),
    drain: () => probe.drain(),
    close: async () => {
      await server.close();
      await closeBase();
    },
  };
}

/**
 * A worker's readiness per cluster it executes (docs/operating.md#health-metrics-and-logs): `kubernetes` with one
 * cluster, `kubernetes:<name>` with several.
 */
function clusterChecks(config: Config): Record<string, ReadinessCheck> {
  const clusters = KubeClusters.load(config.clusters, config.kubeconfig);
  const named = config.clusters.worker.length > 1 || config.clusters.names.length > 1;
  return Object.fromEntries(
    config.clusters.worker.map((name) => [
      named ? `kubernetes:${name}` : 'kubernetes',
      kubeReady(clusters.get(name).kubeConfig),
    ]),
  );
}

/** The installed Flink CRDs of each cluster for /readyz (docs/deployment.md#operator-versions). */
function crdCapabilities(config: Config): ReadinessInfo {
  const clusters = KubeClusters.load(config.clusters, config.kubeconfig);
  return crdsInfo(config.clusters.names.map((name) => ({ name, crds: clusters.get(name).crds })));
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
