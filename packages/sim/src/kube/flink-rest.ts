// The JobManager's REST API as the simulated cluster serves it through the API server's service proxy
// (`/api/v1/namespaces/<ns>/services/<cluster-id>-rest:rest/proxy/<path>`), consistent with the operator's state:
// routing, the proxy's own failures, root exceptions; job details and checkpoints live in flink-rest-jobs.ts and
// flink-rest-checkpoints.ts.
import { parseReconciledSpec, specConf, type Spec } from './spec-json.js';
import type { Speed } from './speed.js';
import { checkpoints } from './flink-rest-checkpoints.js';
import { jobDetails, jobView, type JobView } from './flink-rest-jobs.js';
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

type Raw = Record<string, unknown>;
const rec = (v: unknown): Raw => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Raw) : {});

function unavailable(service: string): RestAnswer {
  const message = `no endpoints available for service "${service}"`;
  return {
    status: 503,
    proxyError: true,
    body: {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message,
      reason: 'ServiceUnavailable',
      code: 503,
    },
  };
}

/** Flink's JobExceptionsHandler reports this many history entries when `maxExceptions` is not given. */
const MAX_EXCEPTIONS_REPORTED = 20;

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
  get(namespace: string, service: string, path: string, query = new URLSearchParams()): RestAnswer {
    const name = service.replace(/:[^:]*$/, '');
    const clusterId = name.endsWith('-rest') ? name.slice(0, -'-rest'.length) : undefined;
    const cluster =
      clusterId === undefined ? undefined : this.options.store.get('flinkdeployments', namespace, clusterId);
    if (!cluster)
      return {
        status: 404,
        proxyError: true,
        body: {
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          message: `services "${name}" not found`,
          reason: 'NotFound',
          code: 404,
        },
      };
    const jm = rec(cluster.status).jobManagerDeploymentStatus;
    if (
      (jm !== 'READY' && jm !== 'DEPLOYED_NOT_READY') ||
      this.options.settings(cluster).scenarios.has('rest-unreachable')
    )
      return unavailable(name);
    if (path === '/config')
      return { status: 200, body: { 'flink-version': '1.20.0', 'refresh-interval': 3000, features: {} } };
    const match = /^\/jobs\/([0-9a-f]{32})(\/checkpoints|\/exceptions|\/metrics)?$/.exec(path);
    if (!match) return notFound(`Not found: ${path}`);
    const job = jobResource(this.options.store, cluster, match[1] as string);
    if (!job) return notFound('Job could not be found.');
    switch (match[2]) {
      case '/checkpoints':
        return { status: 200, body: checkpoints(this.view(job, cluster)) };
      case '/exceptions':
        return { status: 200, body: this.exceptions(job, query) };
      case '/metrics':
        return { status: 200, body: [{ id: 'numRestarts', value: String(this.history(job).restarts) }] };
      default:
        return { status: 200, body: jobDetails(this.view(job, cluster)) };
    }
  }

  /** What an answer about `job` reads: the spec the operator last reconciled (the one the job runs), its knobs. */
  private view(job: KubeObject, cluster: KubeObject): JobView {
    const spec =
      parseReconciledSpec(rec(rec(job.status).reconciliationStatus).lastReconciledSpec) ?? ((job.spec ?? {}) as Spec);
    const conf = { ...(job === cluster ? {} : specConf(cluster.spec as Spec)), ...specConf(spec) };
    const { settings, speed, jobManagers } = this.options;
    return jobView({ job, cluster, spec, conf, settings, speed, jobManagers, now: this.now() });
  }

  /**
   * The job's current run's exception history, as its JobMaster keeps it (jobmanager-state.ts): newest first, at
   * most `maxExceptions` (Flink JobExceptionsHandler, default 20) with `truncated` when more were left out.
   */
  private exceptions(job: KubeObject, query: URLSearchParams): Raw {
    const max = Number(query.get('maxExceptions') ?? MAX_EXCEPTIONS_REPORTED);
    const entries = this.history(job).entries;
    const limit = Number.isSafeInteger(max) && max >= 0 ? max : MAX_EXCEPTIONS_REPORTED;
    return { exceptionHistory: { entries: entries.slice(0, limit), truncated: entries.length > limit } };
  }

  /** A JobMaster's exception history starts empty with each run, so failovers before a redeploy do not count. */
  private history(job: KubeObject): ReturnType<JobManagerState['exceptionHistory']> {
    const jobStatus = rec(rec(job.status).jobStatus);
    const found = this.options.jobManagers?.exceptionHistory(
      String(jobStatus.jobId),
      String(jobStatus.startTime ?? ''),
    );
    return found ?? { entries: [], restarts: 0 };
  }

  private now(): number {
    return this.options.store.now().getTime();
  }
}
