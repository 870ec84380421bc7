// Prometheus metrics of a process (docs/operating.md#health-metrics-and-logs): operations, queue, outcomes, lease
// waits, ack latency, policy, build, Slack and Kubernetes calls. Store-wide gauges come from scrape-time sources (see
// metric-sources.ts).
import { readFileSync } from 'node:fs';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export const METRIC_PREFIX = 'flink_chatops_';

/** The running release, from package.json (found from src/ and from dist/ alike). */
const PACKAGE_VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

export interface OperationCount {
  kind: string;
  state: string;
  count: number;
}

export interface AlertsOpenCount {
  /** '' in a single-cluster installation. */
  cluster: string;
  namespace: string;
  kind: string;
  count: number;
}

export interface QueueCount {
  /** The cluster whose queue (`flink-ops.<cluster>`) this counts. */
  cluster: string;
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
  /** undefined: not this process's to report (the gauge stays absent). */
  collectStuck?: () => Promise<number | undefined>;
  collectQueue?: () => Promise<readonly QueueCount[]>;
  /** Break-glass operations past `reviewWithin` and not reviewed; undefined: not this process's to report. */
  collectBreakGlassUnreviewed?: () => Promise<number | undefined>;
  /** Open job-alert incidents by cluster, namespace and kind (docs/alerts.md#metrics). */
  collectAlertsOpen?: () => Promise<readonly AlertsOpenCount[]>;
  /**
   * Seconds since the oldest audit event the webhook has not delivered happened (docs/audit.md#the-webhook);
   * undefined: not this process's to report (it does not hold the delivery lease).
   */
  collectAuditWebhookLag?: () => Promise<number | undefined>;
  /** Whether the policy file as last read is valid (`flink_chatops_policy_valid`). */
  collectPolicyValid?: () => Promise<boolean>;
  /** The readiness checks' results by dependency (`redis`, `kubernetes`, …): true when it answers. */
  collectDependencies?: () => Promise<Record<string, boolean>>;
  /** Whether this process exports the store-wide gauges now (`flink_chatops_store_exporter`). */
  collectExporter?: () => Promise<boolean>;
}

export interface MetricsOptions {
  registry?: Registry;
  sources?: MetricsSources;
  /** `flink_chatops_build_info{version}`; default the package version. */
  version?: string;
  /** Node.js process metrics (CPU, memory, event loop lag, GC), unprefixed as dashboards expect. Default true. */
  defaultMetrics?: boolean;
  /** A source slower than this counts as failed, so a hung Redis never hangs the scrape. Default 2000 ms. */
  sourceTimeoutMs?: number;
}

/** What `ClientNodeOptions.onCall` in src/kube/client-node.ts reports; status 0 = no response arrived. */
export interface KubeCall {
  /** The cluster the call went to. */
  cluster: string;
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
  /** An operation reached a terminal state: `outcome` is that state, `seconds` the time since it was requested. */
  observeOutcome(kind: string, outcome: string, seconds: number): void;
  /** A field a completed operation set was changed back by another field manager (docs/lifecycle.md#after-completed). */
  countRevert(revert: { cluster: string; manager: string; kind: string }): void;
  /** A job regressed after a completed change: restarts, checkpoints, job-state, jobmanager (docs/lifecycle.md#after-completed). */
  countRegression(regression: { kind: string }): void;
  /** An operation the worker ABORTED for its record's integrity (docs/lifecycle.md#record-integrity), by what failed. */
  countIntegrityFailure(check: string): void;
  /** Sets or replaces the scrape-time sources (for wiring done after the metrics exist). */
  setSources(sources: MetricsSources): void;
  /** The exposition text. A failing source is counted in `collect_errors_total`, never fails the scrape. */
  text(): Promise<string>;
}

const ACK_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5];
const DURATION_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 4 * 3600, 24 * 3600];
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

  /** A gauge of one number read from a source at scrape time; absent without the source or when it says undefined. */
  type ScalarSource = 'collectStuck' | 'collectBreakGlassUnreviewed' | 'collectAuditWebhookLag';
  const scalarGauge = (name: string, help: string, source: string, key: ScalarSource): void => {
    new Gauge({
      name: `${METRIC_PREFIX}${name}`,
      help,
      registers: [registry],
      async collect() {
        this.reset();
        const read = sources[key];
        if (read)
          await guarded(source, async () => {
            const value = await read();
            if (value !== undefined) this.set(value);
          });
      },
    });
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
  scalarGauge(
    'operations_stuck',
    'Operations the sweep re-enqueued 5 times without progress (reported stuck in their thread)',
    'stuck',
    'collectStuck',
  );
  scalarGauge(
    'break_glass_unreviewed',
    'Break-glass operations that ended more than reviewWithin ago and are not reviewed',
    'break-glass',
    'collectBreakGlassUnreviewed',
  );
  new Gauge({
    name: `${METRIC_PREFIX}alerts_open`,
    help: 'Open job-alert incidents by cluster, namespace and what is wrong (an incident counts once per kind)',
    labelNames: ['cluster', 'namespace', 'kind'],
    registers: [registry],
    async collect() {
      this.reset();
      const read = sources.collectAlertsOpen;
      if (read) await guarded('alerts', async () => setCounts(this, await read()));
    },
  });
  scalarGauge(
    'audit_webhook_lag_seconds',
    'Seconds since the oldest audit event not yet acknowledged by AUDIT_WEBHOOK_URL happened (0: none waiting)',
    'audit-webhook',
    'collectAuditWebhookLag',
  );
  new Gauge({
    name: `${METRIC_PREFIX}queue_depth`,
    help: 'Jobs in the flink-ops.<cluster> queues by cluster and BullMQ state',
    labelNames: ['cluster', 'state'],
    registers: [registry],
    async collect() {
      this.reset();
      const read = sources.collectQueue;
      if (read) await guarded('queue', async () => setCounts(this, await read()));
    },
  });
  const flag = (name: string, help: string, read: () => (() => Promise<boolean>) | undefined) =>
    new Gauge({
      name: `${METRIC_PREFIX}${name}`,
      help,
      registers: [registry],
      async collect() {
        this.reset();
        const source = read();
        if (source) await guarded(name, async () => this.set((await source()) ? 1 : 0));
      },
    });
  flag(
    'policy_valid',
    '1 when the policy file as last read is valid; 0 while an invalid edit is ignored (the last valid policy stays in force)',
    () => sources.collectPolicyValid,
  );
  flag(
    'store_exporter',
    '1 in the one process that exports the store-wide gauges (operations, stuck, queue depth) at the moment',
    () => sources.collectExporter,
  );
  new Gauge({
    name: `${METRIC_PREFIX}dependency_up`,
    help: '1 when this process reaches the dependency (its readiness check passes), 0 when not',
    labelNames: ['dependency'],
    registers: [registry],
    async collect() {
      this.reset();
      const read = sources.collectDependencies;
      if (read)
        await guarded('dependencies', async () =>
          setCounts(
            this,
            Object.entries(await read()).map(([dependency, up]) => ({ dependency, count: up ? 1 : 0 })),
          ),
        );
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}build_info`,
    help: 'Always 1; the version label says which release this process runs',
    labelNames: ['version'],
    registers: [registry],
  }).set({ version: options.version ?? PACKAGE_VERSION }, 1);
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
  const outcomes = new Counter({
    name: `${METRIC_PREFIX}operations_finished_total`,
    help: 'Operations that reached a terminal state, by kind and outcome (the state), counted by the process that recorded it',
    labelNames: ['kind', 'outcome'],
    registers: [registry],
  });
  const durations = new Histogram({
    name: `${METRIC_PREFIX}operation_duration_seconds`,
    help: 'Time from request to terminal state, by kind and outcome',
    labelNames: ['kind', 'outcome'],
    buckets: DURATION_BUCKETS,
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
    help: 'Kubernetes API calls by cluster, method, resource and HTTP status (0 = no response)',
    labelNames: ['cluster', 'method', 'resource', 'status'],
    registers: [registry],
  });
  const kubeErrors = new Counter({
    name: `${METRIC_PREFIX}kube_api_errors_total`,
    help: 'Kubernetes API calls that failed (status 0 or >= 400), by cluster, method, resource and status',
    labelNames: ['cluster', 'method', 'resource', 'status'],
    registers: [registry],
  });

  const reverts = new Counter({
    name: `${METRIC_PREFIX}reverts_total`,
    help: 'Fields completed operations set that another field manager changed back, by cluster, manager and kind',
    labelNames: ['cluster', 'manager', 'kind'],
    registers: [registry],
  });

  const regressions = new Counter({
    name: `${METRIC_PREFIX}post_change_regressions_total`,
    help: 'Jobs that regressed within the post-change watch after a completed operation, by what regressed',
    labelNames: ['kind'],
    registers: [registry],
  });

  const integrity = new Counter({
    name: `${METRIC_PREFIX}record_integrity_failures_total`,
    help: 'Operations aborted because their record failed its MAC, digest or rebuild check, by check',
    labelNames: ['check'],
    registers: [registry],
  });

  return {
    registry,
    contentType: registry.contentType,
    countIntegrityFailure: (check) => integrity.inc({ check }),
    countRevert: ({ cluster, manager, kind }) => reverts.inc({ cluster, manager, kind }),
    countRegression: ({ kind }) => regressions.inc({ kind }),
    observeAck: (seconds) => ack.observe(nonNegative(seconds)),
    observeLockWait: (seconds) => lockWait.observe(nonNegative(seconds)),
    slackCall(method, status) {
      slackCalls.inc({ method, status });
      if (status !== 'ok') slackErrors.inc({ method, status });
    },
    kubeCall({ cluster, method, resource, status }) {
      const labels = { cluster, method, resource, status: String(status) };
      kubeCalls.inc(labels);
      if (status === 0 || status >= 400) kubeErrors.inc(labels);
    },
    observeOutcome(kind, outcome, seconds) {
      outcomes.inc({ kind, outcome });
      durations.observe({ kind, outcome }, nonNegative(seconds));
    },
    setSources(next) {
      sources = next;
    },
    text: () => registry.metrics(),
  };
}

function setCounts(
  gauge: Gauge<string>,
  counts: readonly (OperationCount | QueueCount | AlertsOpenCount | { dependency: string; count: number })[],
): void {
  for (const { count, ...labels } of counts) gauge.set(labels, count);
}

function nonNegative(seconds: number): number {
  return Number.isFinite(seconds) && seconds > 0 ? seconds : 0;
}
