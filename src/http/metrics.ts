// Prometheus metrics of a process (SPEC §9): operations, queue, lease waits, ack latency, Slack and Kubernetes calls.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export const METRIC_PREFIX = 'flink_chatops_';

export interface OperationCount {
  kind: string;
  state: string;
  count: number;
}

export interface QueueCount {
  /** BullMQ job state: waiting, delayed, active, … */
  state: string;
  count: number;
}

/**
 * Read at scrape time, so the numbers are the store's and the queue's, not a process-local tally that would
 * differ between replicas. Each is optional: a bot replica may have no queue view, a worker no store view.
 */
export interface MetricsSources {
  collectOperations?: () => Promise<readonly OperationCount[]>;
  collectStuck?: () => Promise<number>;
  collectQueue?: () => Promise<readonly QueueCount[]>;
}

export interface MetricsOptions {
  registry?: Registry;
  sources?: MetricsSources;
  /** Node.js process metrics (CPU, memory, event loop lag, GC), unprefixed as dashboards expect. Default true. */
  defaultMetrics?: boolean;
  /** A source slower than this counts as failed, so a hung Redis never hangs the scrape. Default 2000 ms. */
  sourceTimeoutMs?: number;
}

/** What `ClientNodeOptions.onCall` in src/kube/client-node.ts reports; status 0 = no response arrived. */
export interface KubeCall {
  method: string;
  resource: string;
  status: number;
}

export interface Metrics {
  readonly registry: Registry;
  /** `text/plain; version=0.0.4; charset=utf-8`. */
  readonly contentType: string;
  /** Time from a slash command arriving to its ack. */
  observeAck(seconds: number): void;
  /** Time an operation waited for its target's lease (from QUEUED to holding the lease). */
  observeLockWait(seconds: number): void;
  /** One Web API call: status `ok`, or Slack's error string (`ratelimited`, `not_in_channel`, `timeout`, …). */
  slackCall(method: string, status: string): void;
  /** One Kubernetes API call; pass as `onCall` to ClientNodeFlinkClient. */
  kubeCall(call: KubeCall): void;
  /** Sets or replaces the scrape-time sources (for wiring done after the metrics exist). */
  setSources(sources: MetricsSources): void;
  /** The exposition text. A failing source is counted in `collect_errors_total`, never fails the scrape. */
  text(): Promise<string>;
}

const ACK_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5];
const LOCK_WAIT_BUCKETS = [0.1, 0.5, 1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600];

export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = options.registry ?? new Registry();
  let sources: MetricsSources = options.sources ?? {};
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });

  // Gauge collects start first (registration order) and the error counter's collect awaits them, so a failure
  // shows up in the same scrape.
  let inflight: Promise<void>[] = [];
  const failed: string[] = [];
  const timeoutMs = options.sourceTimeoutMs ?? 2000;
  const guarded = (source: string, read: () => Promise<void>): Promise<void> => {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`${source}: no answer within ${timeoutMs}ms`)), timeoutMs);
    });
    const run = Promise.race([read(), deadline])
      .catch(() => {
        failed.push(source);
      })
      .finally(() => clearTimeout(timer));
    inflight.push(run);
    return run;
  };

  new Gauge({
    name: `${METRIC_PREFIX}operations`,
    help: 'Non-terminal operations by kind and state, as recorded in the store',
    labelNames: ['kind', 'state'],
    registers: [registry],
    async collect() {
      this.reset();
      const read = sources.collectOperations;
      if (read) await guarded('operations', async () => setCounts(this, await read()));
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}operations_stuck`,
    help: 'Operations the sweep re-enqueued 5 times without progress (reported stuck in their thread)',
    registers: [registry],
    async collect() {
      this.reset();
      const read = sources.collectStuck;
      if (read) await guarded('stuck', async () => this.set(await read()));
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}queue_depth`,
    help: 'Jobs in the flink-ops queue by BullMQ state',
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      this.reset();
      const read = sources.collectQueue;
      if (read) await guarded('queue', async () => setCounts(this, await read()));
    },
  });
  new Counter({
    name: `${METRIC_PREFIX}collect_errors_total`,
    help: 'Scrapes where a source (store, queue) could not be read; the affected gauges are absent from that scrape',
    labelNames: ['source'],
    registers: [registry],
    async collect() {
      const pending = inflight;
      inflight = [];
      await Promise.all(pending);
      for (const source of failed.splice(0)) this.inc({ source });
    },
  });

  const lockWait = new Histogram({
    name: `${METRIC_PREFIX}lock_wait_seconds`,
    help: 'Time an operation waited for its target lease',
    buckets: LOCK_WAIT_BUCKETS,
    registers: [registry],
  });
  const ack = new Histogram({
    name: `${METRIC_PREFIX}ack_latency_seconds`,
    help: 'Time from a slash command arriving to its acknowledgement (Slack allows 3 s)',
    buckets: ACK_BUCKETS,
    registers: [registry],
  });
  const slackCalls = new Counter({
    name: `${METRIC_PREFIX}slack_api_calls_total`,
    help: 'Slack Web API calls by method and status (ok or the Slack error)',
    labelNames: ['method', 'status'],
    registers: [registry],
  });
  const slackErrors = new Counter({
    name: `${METRIC_PREFIX}slack_api_errors_total`,
    help: 'Slack Web API calls that did not return ok, by method and error',
    labelNames: ['method', 'status'],
    registers: [registry],
  });
  const kubeCalls = new Counter({
    name: `${METRIC_PREFIX}kube_api_calls_total`,
    help: 'Kubernetes API calls by method, resource and HTTP status (0 = no response)',
    labelNames: ['method', 'resource', 'status'],
    registers: [registry],
  });
  const kubeErrors = new Counter({
    name: `${METRIC_PREFIX}kube_api_errors_total`,
    help: 'Kubernetes API calls that failed (status 0 or >= 400), by method, resource and status',
    labelNames: ['method', 'resource', 'status'],
    registers: [registry],
  });

  return {
    registry,
    contentType: registry.contentType,
    observeAck: (seconds) => ack.observe(nonNegative(seconds)),
    observeLockWait: (seconds) => lockWait.observe(nonNegative(seconds)),
    slackCall(method, status) {
      slackCalls.inc({ method, status });
      if (status !== 'ok') slackErrors.inc({ method, status });
    },
    kubeCall({ method, resource, status }) {
      const labels = { method, resource, status: String(status) };
      kubeCalls.inc(labels);
      if (status === 0 || status >= 400) kubeErrors.inc(labels);
    },
    setSources(next) {
      sources = next;
    },
    text: () => registry.metrics(),
  };
}

function setCounts(gauge: Gauge<string>, counts: readonly (OperationCount | QueueCount)[]): void {
  for (const { count, ...labels } of counts) gauge.set(labels, count);
}

function nonNegative(seconds: number): number {
  return Number.isFinite(seconds) && seconds > 0 ? seconds : 0;
}

/**
 * The status label of a failed Slack call: the platform error (`not_in_channel`), `ratelimited`, `http_<code>`,
 * `timeout` or `request_error` — a small, bounded set, so the label cannot blow up cardinality.
 */
export function slackErrorStatus(error: unknown): string {
  const e = error as { code?: unknown; data?: { error?: unknown }; statusCode?: unknown; original?: { code?: unknown } } | null;
  if (e?.code === 'slack_webapi_platform_error' && typeof e.data?.error === 'string') return e.data.error;
  if (e?.code === 'slack_webapi_rate_limited_error') return 'ratelimited';
  if (e?.code === 'slack_webapi_http_error' && typeof e.statusCode === 'number') return `http_${e.statusCode}`;
  const inner = e?.original?.code;
  if (inner === 'ECONNABORTED' || inner === 'ETIMEDOUT') return 'timeout';
  return 'request_error';
}

/** Runs one Web API call and counts it; the result or the error passes through unchanged. */
export async function countSlackCall<T>(metrics: Pick<Metrics, 'slackCall'>, method: string, call: () => Promise<T>): Promise<T> {
  try {
    const result = await call();
    metrics.slackCall(method, 'ok');
    return result;
  } catch (error) {
    metrics.slackCall(method, slackErrorStatus(error));
    throw error;
  }
}

/** The store reads `collectOperations` / `collectStuck` need; OperationStore satisfies it. */
export interface ActiveOperationsReader {
  activeIds(): Promise<string[]>;
  getMany(ids: readonly string[]): Promise<readonly { kind: string; state: string; reenqueues: number }[]>;
}

/** The sweep reports an operation stuck after this many re-enqueues (SPEC §9). */
export const STUCK_AFTER_REENQUEUES = 5;

/** Scrape-time sources over the store's non-terminal operations (few: terminal ones leave the active index). */
export function storeSources(store: ActiveOperationsReader): Required<Pick<MetricsSources, 'collectOperations' | 'collectStuck'>> {
  const active = async () => store.getMany(await store.activeIds());
  return {
    async collectOperations() {
      const counts = new Map<string, OperationCount>();
      for (const { kind, state } of await active()) {
        const key = `${kind}\u0000${state}`;
        const entry = counts.get(key) ?? { kind, state, count: 0 };
        entry.count += 1;
        counts.set(key, entry);
      }
      return [...counts.values()];
    },
    async collectStuck() {
      return (await active()).filter((op) => op.reenqueues >= STUCK_AFTER_REENQUEUES).length;
    },
  };
}

/**
 * `collectQueue` over BullMQ's counts, e.g. `queueSource(() => queue.getJobCounts('waiting', 'delayed', 'active',
 * 'prioritized', 'failed'))`.
 */
export function queueSource(counts: () => Promise<Record<string, number>>): Required<Pick<MetricsSources, 'collectQueue'>> {
  return {
    async collectQueue() {
      return Object.entries(await counts()).map(([state, count]) => ({ state, count }));
    },
  };
}
