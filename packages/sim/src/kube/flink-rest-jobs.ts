// `/jobs/<id>` of the simulated JobManager REST API: the job and its vertices as the job graph shapes them
// (parallelism from overrides, the job's code or the default; bounded vertices FINISHED while the job runs).
import { jobGraphOf, parallelismOverrides, withBoundedSource, type GraphVertex } from './job-graph.js';
import { effectiveParallelism, jobOf, type FlinkConf, type Spec } from './spec-json.js';
import { scaledMs, type Speed } from './speed.js';
import type { JobManagerState } from './jobmanager-state.js';
import type { Scenario, ScenarioSettings } from './scenarios.js';
import type { KubeObject } from './store.js';

/** What one REST answer about a job reads: the job, its cluster, the spec it runs, the knobs, the clock. */
export interface JobView {
  job: KubeObject;
  /** The spec the operator last reconciled (the one the job runs). */
  spec: Spec;
  /** The configuration the job runs with: its session cluster's (if any) under its own. */
  conf: FlinkConf;
  jobId: string;
  /** The job's `status.jobStatus`. */
  status: Record<string, unknown>;
  /** The knob is set on the job or on the cluster it runs on. */
  has(scenario: Scenario): boolean;
  /** The knob's value, the job's own first. */
  value(scenario: Scenario): string | undefined;
  speed: Speed;
  jobManagers: JobManagerState | undefined;
  now: number;
}

type Raw = Record<string, unknown>;

/** Flink's ExecutionState values: a vertex's `tasks` counts its subtasks in each of them. */
const EXECUTION_STATES = [
  'CREATED',
  'SCHEDULED',
  'DEPLOYING',
  'RUNNING',
  'FINISHED',
  'CANCELING',
  'CANCELED',
  'FAILED',
  'RECONCILING',
  'INITIALIZING',
] as const;
const DEFAULT_MAX_PARALLELISM = 128;

export const num = (v: unknown): number | undefined =>
  typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : typeof v === 'number' ? v : undefined;

/** Builds a view from the pieces the REST front reads. */
export function jobView(parts: {
  job: KubeObject;
  cluster: KubeObject;
  spec: Spec;
  conf: FlinkConf;
  settings: (object: KubeObject) => ScenarioSettings;
  speed: Speed;
  jobManagers: JobManagerState | undefined;
  now: number;
}): JobView {
  const own = parts.settings(parts.job);
  const cluster = parts.job === parts.cluster ? own : parts.settings(parts.cluster);
  const status = (parts.job.status?.jobStatus ?? {}) as Raw;
  return {
    job: parts.job,
    spec: parts.spec,
    conf: parts.conf,
    jobId: String(status.jobId ?? ''),
    status,
    has: (scenario) => own.scenarios.has(scenario) || cluster.scenarios.has(scenario),
    value: (scenario) => own.values.get(scenario) ?? cluster.values.get(scenario),
    speed: parts.speed,
    jobManagers: parts.jobManagers,
    now: parts.now,
  };
}

/** The vertices the job runs: its graph, with the `bounded-source` knob's vertex in front when set. */
export function vertexGraph(view: JobView): GraphVertex[] {
  const graph = jobGraphOf(view.job, view.spec);
  return view.has('bounded-source') ? withBoundedSource(graph, view.job, view.spec) : graph;
}

/** Each vertex's parallelism: a rescale still under way keeps the previous one; else override, code, default. */
export function vertexParallelism(view: JobView, vertices: readonly GraphVertex[]): number[] {
  const overrides = parallelismOverrides(view.spec);
  const fallback = effectiveParallelism(view.spec);
  const pending = view.jobManagers?.pendingRescale(view.jobId, view.now);
  return vertices.map((v) => pending?.previous.get(v.id) ?? overrides.get(v.id) ?? v.fixedParallelism ?? fallback);
}

function jobState(status: Raw): string {
  return typeof status.state === 'string' ? (status.state === 'RECONCILING' ? 'CREATED' : status.state) : 'CREATED';
}

/** When a bounded vertex of a running job finished (ms), or undefined while it runs (or is not bounded). */
function finishedAt(view: JobView, vertex: GraphVertex, start: number): number | undefined {
  if (vertex.finishesAfterSeconds === undefined) return undefined;
  const at = start + scaledMs(view.speed, vertex.finishesAfterSeconds);
  return view.now >= at ? at : undefined;
}

function taskCounts(status: string, parallelism: number): Record<string, number> {
  const counts: Record<string, number> = Object.fromEntries(EXECUTION_STATES.map((s) => [s, 0]));
  counts[status] = parallelism;
  return counts;
}

/** The body of `/jobs/<id>`. */
export function jobDetails(view: JobView): Raw {
  const state = jobState(view.status);
  const start = num(view.status.startTime) ?? view.now;
  const vertices = vertexGraph(view);
  const parallelism = vertexParallelism(view, vertices);
  const maxParallelism =
    Number(view.conf['pipeline.max-parallelism'] ?? DEFAULT_MAX_PARALLELISM) || DEFAULT_MAX_PARALLELISM;
  const ends = vertices.map((v) => (state === 'RUNNING' ? finishedAt(view, v, start) : undefined));
  const waitingIndex = view.has('tasks-waiting') ? ends.findLastIndex((end) => end === undefined) : -1;
  const body = vertices.map((vertex, i) => {
    const end = ends[i];
    const status =
      state !== 'RUNNING' ? state : end !== undefined ? 'FINISHED' : i === waitingIndex ? 'SCHEDULED' : 'RUNNING';
    const p = parallelism[i] as number;
    return {
      id: vertex.id,
      name: vertex.name,
      maxParallelism,
      parallelism: p,
      status,
      'start-time': start,
      'end-time': end ?? -1,
      duration: Math.max(0, (end ?? view.now) - start),
      tasks: taskCounts(status, p),
    };
  });
  const statusCounts = Object.fromEntries(EXECUTION_STATES.map((s) => [s, body.filter((v) => v.status === s).length]));
  const name = String(jobOf(view.spec)?.entryClass ?? view.job.metadata.name);
  return {
    jid: view.status.jobId,
    name,
    state,
    'start-time': start,
    'end-time': -1,
    duration: Math.max(0, view.now - start),
    now: view.now,
    vertices: body,
    'status-counts': statusCounts,
  };
}
