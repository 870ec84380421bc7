// `/jobs/<id>` of the simulated JobManager REST API: the job and its vertices as the job graph shapes them
// (parallelism from overrides, the job's code or the default; bounded vertices FINISHED while the job runs; subtask
// counts and the status Flink aggregates from them; max parallelism as the run settled it).
import { jobGraphOf, specVertexParallelism, withBoundedSource, type GraphVertex } from './job-graph.js';
import { jobOf, type FlinkConf, type Spec } from './spec-json.js';
import { scaledMs, type Speed } from './speed.js';
import type { JobManagerState } from './jobmanager-state.js';
import type { Scenario, ScenarioSettings } from './scenarios.js';
import type { KubeObject } from './store.js';
import { aggregateState, EXECUTION_STATES, vertexTasks } from './vertex-state.js';
import { configuredMaxParallelism, defaultMaxParallelism } from './max-parallelism.js';

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
  const pending = view.jobManagers?.pendingRescale(view.jobId, view.now);
  const planned = specVertexParallelism(vertices, view.spec);
  return vertices.map((v, i) => pending?.previous.get(v.id) ?? (planned[i] as number));
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

/** Slots the job lacks (`tasks-waiting[=<k>]`, 1 without a value): 0 without the knob. */
function slotsShort(view: JobView): number {
  return view.has('tasks-waiting') ? Number(view.value('tasks-waiting') ?? 1) : 0;
}

/**
 * Subtasks of each vertex that get no slot while `slotsShort` slots are missing. One slot holds a subtask of every
 * vertex (Flink's default slot sharing group), so the job needs as many slots as its widest running vertex: each
 * vertex wider than the slots it got has the rest of its subtasks waiting. Finished vertices hold no slot.
 */
function waitingSubtasks(parallelism: readonly number[], running: readonly boolean[], short: number): number[] {
  const needed = Math.max(0, ...parallelism.filter((_, i) => running[i]));
  const granted = Math.max(0, needed - short);
  return parallelism.map((p, i) => (short > 0 && running[i] ? Math.max(0, p - granted) : 0));
}

/** `vertices[]` of `/jobs/<id>` for a job in `state` that started at `start`. */
function vertexBodies(view: JobView, state: string, start: number): Raw[] {
  const vertices = vertexGraph(view);
  const parallelism = vertexParallelism(view, vertices);
  const configured = configuredMaxParallelism(view.conf);
  const settled = view.jobManagers?.maxParallelism(view.jobId);
  const ends = vertices.map((v) => (state === 'RUNNING' ? finishedAt(view, v, start) : undefined));
  const running = ends.map((end) => end === undefined);
  const waiting = waitingSubtasks(parallelism, running, slotsShort(view));
  const failing = waiting.some((n) => n > 0) ? waiting : waiting.map((_, i) => (i === 0 ? 1 : 0));
  return vertices.map((vertex, i) => {
    const end = ends[i];
    const p = parallelism[i] as number;
    const tasks = vertexTasks({
      jobState: state,
      parallelism: p,
      finished: end !== undefined,
      waiting: waiting[i] ?? 0,
      failed: failing[i] ?? 0,
    });
    return {
      id: vertex.id,
      name: vertex.name,
      maxParallelism: settled?.get(vertex.id) ?? configured ?? defaultMaxParallelism(p),
      parallelism: p,
      status: aggregateState(tasks, p),
      'start-time': start,
      'end-time': end ?? -1,
      duration: Math.max(0, (end ?? view.now) - start),
      tasks,
    };
  });
}

/** The body of `/jobs/<id>`. */
export function jobDetails(view: JobView): Raw {
  const state = jobState(view.status);
  const start = num(view.status.startTime) ?? view.now;
  const body = vertexBodies(view, state, start);
  const statusCounts = Object.fromEntries(EXECUTION_STATES.map((s) => [s, body.filter((v) => v.status === s).length]));
  const name = String(jobOf(view.spec)?.entryClass ?? view.job.metadata.name);
  return {
    jid: view.status.jobId,
    name,
    state,
    'start-time': start,
    'end-time': -1,
    duration: Math.max(0, view.now - start),
    // The job's ExecutionConfig: the configured max parallelism, -1 when unset (vertices settle their own).
    maxParallelism: configuredMaxParallelism(view.conf) ?? -1,
    now: view.now,
    vertices: body,
    'status-counts': statusCounts,
  };
}
