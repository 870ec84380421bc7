// The JobManager's REST API as the simulated cluster serves it through the API server's service proxy
// (`/api/v1/namespaces/<ns>/services/<cluster-id>-rest:rest/proxy/<path>`), consistent with the operator's state:
// jobs and their vertices, checkpoints advancing at the configured interval, the restored path, root exceptions.
import { jobOf, parseReconciledSpec, specConf, effectiveParallelism, checkpointDir, type Spec } from './spec-json.js';
import { parseFlinkDurationSeconds, scaledMs, type Speed } from './speed.js';
import type { JobManagerState } from './jobmanager-state.js';
import type { ScenarioSettings } from './scenarios.js';
import type { KubeObject, SimStore } from './store.js';

export interface FlinkRestOptions {
  store: SimStore;
  speed: Speed;
  settings(object: KubeObject): ScenarioSettings;
  /** What the JobManagers know beyond the CR status (rescales under way, savepoints, HA restores). */
  jobManagers?: JobManagerState;
}

export interface RestAnswer {
  status: number;
  body: unknown;
  /** A Kubernetes Status (the proxy itself failed) rather than the JobManager's own JSON. */
  proxyError?: boolean;
}

const VERTICES = ['Source: Kafka events', 'KeyedProcess -> Filter', 'Sink: Kafka alerts'];
const LAST_STATE_PLACEHOLDER = 'KUBERNETES_OPERATOR_LAST_STATE';

type Raw = Record<string, unknown>;
const rec = (v: unknown): Raw => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Raw) : {});
const num = (v: unknown): number | undefined => (typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : typeof v === 'number' ? v : undefined);

function unavailable(service: string): RestAnswer {
  const message = `no endpoints available for service "${service}"`;
  return { status: 503, proxyError: true, body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'ServiceUnavailable', code: 503 } };
}

const notFound = (what: string): RestAnswer => ({ status: 404, body: { errors: [what] } });

/** The job a JobManager runs under `jobId`: the deployment's own, or one of the session cluster's jobs. */
function jobResource(store: SimStore, cluster: KubeObject, jobId: string): KubeObject | undefined {
  const own = rec(rec(cluster.status).jobStatus).jobId;
  if (own === jobId) return cluster;
  return store
    .list('flinksessionjobs', cluster.metadata.namespace)
    .find((j) => j.spec?.deploymentName === cluster.metadata.name && rec(rec(j.status).jobStatus).jobId === jobId);
}

export class FlinkRest {
  constructor(private readonly options: FlinkRestOptions) {}

  /** Answers a proxied GET to `service` (e.g. `orders-rest:rest`) for `path` (e.g. `/jobs/<id>/checkpoints`). */
  get(namespace: string, service: string, path: string): RestAnswer {
    const name = service.replace(/:[^:]*$/, '');
    const clusterId = name.endsWith('-rest') ? name.slice(0, -'-rest'.length) : undefined;
    const cluster = clusterId === undefined ? undefined : this.options.store.get('flinkdeployments', namespace, clusterId);
    if (!cluster) return { status: 404, proxyError: true, body: { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: `services "${name}" not found`, reason: 'NotFound', code: 404 } };
    const jm = rec(cluster.status).jobManagerDeploymentStatus;
    if ((jm !== 'READY' && jm !== 'DEPLOYED_NOT_READY') || this.options.settings(cluster).scenarios.has('rest-unreachable')) return unavailable(name);
    if (path === '/config') return { status: 200, body: { 'flink-version': '1.20.0', 'refresh-interval': 3000, features: {} } };
    const match = /^\/jobs\/([0-9a-f]{32})(\/checkpoints|\/exceptions|\/metrics)?$/.exec(path);
    if (!match) return notFound(`Not found: ${path}`);
    const job = jobResource(this.options.store, cluster, match[1] as string);
    if (!job) return notFound('Job could not be found.');
    switch (match[2]) {
      case '/checkpoints':
        return { status: 200, body: this.checkpoints(job, cluster) };
      case '/exceptions':
        return { status: 200, body: this.exceptions(job) };
      case '/metrics':
        return { status: 200, body: [{ id: 'numRestarts', value: String(this.failovers(job).length) }] };
      default:
        return { status: 200, body: this.jobDetails(job, cluster) };
    }
  }

  /** The spec the job runs: the one the operator last reconciled. */
  private runningSpec(job: KubeObject): Spec {
    return parseReconciledSpec(rec(rec(job.status).reconciliationStatus).lastReconciledSpec) ?? ((job.spec ?? {}) as Spec);
  }

  private jobDetails(job: KubeObject, cluster: KubeObject): Raw {
    const status = rec(rec(job.status).jobStatus);
    const state = typeof status.state === 'string' ? (status.state === 'RECONCILING' ? 'CREATED' : status.state) : 'CREATED';
    const start = num(status.startTime) ?? this.now();
    const spec = this.runningSpec(job);
    const parallelism = effectiveParallelism(spec);
    const waiting = this.options.settings(job).scenarios.has('tasks-waiting') || this.options.settings(cluster).scenarios.has('tasks-waiting');
    const vertices = VERTICES.map((name, i) => {
      const vertexStatus = state !== 'RUNNING' ? state : waiting && i === VERTICES.length - 1 ? 'SCHEDULED' : 'RUNNING';
      return { id: `vertex${i}`.padEnd(32, '0'), name, parallelism, maxParallelism: 128, status: vertexStatus, 'start-time': start, tasks: { [vertexStatus]: parallelism } };
    });
    const name = String(jobOf(spec)?.entryClass ?? job.metadata.name);
    return { jid: status.jobId, name, state, 'start-time': start, 'end-time': -1, duration: Math.max(0, this.now() - start), now: this.now(), vertices };
  }

  private checkpoints(job: KubeObject, cluster: KubeObject): Raw {
    const status = rec(rec(job.status).jobStatus);
    const start = num(status.startTime) ?? this.now();
    const conf = { ...specConf(cluster.spec as Spec), ...specConf(this.runningSpec(job)) };
    const intervalSeconds = parseFlinkDurationSeconds(conf['execution.checkpointing.interval']);
    const running = status.state === 'RUNNING';
    const ticks = intervalSeconds && running ? Math.floor((this.now() - start) / scaledMs(this.options.speed, intervalSeconds)) : 0;
    const failing = this.options.settings(job).scenarios.has('checkpoints-failing');
    const completed = failing ? 0 : ticks;
    const dir = checkpointDir(conf);
    const latest =
      completed === 0
        ? null
        : { id: completed, status: 'COMPLETED', is_savepoint: false, latest_ack_timestamp: start + completed * scaledMs(this.options.speed, intervalSeconds ?? 0), external_path: dir ? `${dir}/${String(status.jobId)}/chk-${completed}` : '<checkpoint-not-externally-addressable>' };
    return {
      counts: { restored: this.restored(job) ? 1 : 0, total: ticks, in_progress: 0, completed, failed: failing ? ticks : 0 },
      latest: { completed: latest, savepoint: null, failed: null, restored: this.restored(job) },
    };
  }

  /** What the job restored from: the savepoint or checkpoint the operator recorded, when the mode keeps state. */
  private restored(job: KubeObject): Raw | null {
    const status = rec(rec(job.status).jobStatus);
    const path = status.upgradeSavepointPath;
    const mode = jobOf(this.runningSpec(job))?.upgradeMode;
    if (typeof path !== 'string' || path === '' || mode === 'stateless' || path === LAST_STATE_PLACEHOLDER) return null;
    const elsewhere = this.options.settings(job).scenarios.has('restored-elsewhere');
    const external = elsewhere ? `${path.replace(/\/[^/]*$/, '')}/savepoint-someone-elses` : path;
    return { id: 0, restore_timestamp: num(status.startTime) ?? this.now(), is_savepoint: !external.includes('/chk-'), external_path: external };
  }

  private failovers(job: KubeObject): KubeObject[] {
    return this.options.store
      .list('events', job.metadata.namespace)
      .filter((e) => e.reason === 'JobException' && rec(e.involvedObject).uid === job.metadata.uid);
  }

  private exceptions(job: KubeObject): Raw {
    const entries = this.failovers(job)
      .map((e) => {
        const annotations = rec(e.metadata.annotations);
        const stacktrace = String(e.message ?? '');
        const timestamp = Date.parse(String(annotations['exception-timestamp'] ?? e.lastTimestamp ?? '')) || this.now();
        return { exceptionName: stacktrace.split(':')[0] ?? 'java.lang.Exception', stacktrace, timestamp, taskName: annotations['task-name'] ?? null };
      })
      .sort((a, b) => b.timestamp - a.timestamp);
    return { exceptionHistory: { entries, truncated: false } };
  }

  private now(): number {
    return this.options.store.now().getTime();
  }
}
