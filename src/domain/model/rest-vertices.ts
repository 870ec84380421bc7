// The vertices of a Flink job as its REST API reports them, and how a new parallelism shows on them: vertices set
// in the job's code keep their own, bounded ones finish, and a vertex runs only when all its subtasks do; its
// `status` is RUNNING as soon as one of them runs (docs/deep-verification.md#subtasks-not-vertex-status).
import { getPath } from './merge-patch.js';

export interface RestVertex {
  id: string;
  name: string;
  parallelism: number | undefined;
  maxParallelism: number | undefined;
  status: string;
  /** `tasks`: how many of its subtasks are in each ExecutionState (undefined when not reported). */
  tasks: Readonly<Record<string, number>> | undefined;
}

/** A vertex as read before a scale: what the new parallelism is compared against. */
export interface BaselineVertex {
  id: string;
  name: string;
  parallelism: number;
  status: string;
}

const num = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined;

function countsOf(raw: unknown): Record<string, number> | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const entries = Object.entries(raw).filter((e): e is [string, number] => num(e[1]) !== undefined);
  return entries.length === 0 ? undefined : Object.fromEntries(entries);
}

/** `vertices[]` of a `/jobs/<id>` reading (empty when absent). */
export function verticesOf(job: unknown): RestVertex[] {
  const raw = getPath(job, ['vertices']);
  if (!Array.isArray(raw)) return [];
  return raw.map((v, i) => ({
    id: String(getPath(v, ['id']) ?? `#${i}`),
    name: String(getPath(v, ['name']) ?? '?'),
    parallelism: num(getPath(v, ['parallelism'])),
    maxParallelism: num(getPath(v, ['maxParallelism'])),
    status: String(getPath(v, ['status']) ?? 'UNKNOWN'),
    tasks: countsOf(getPath(v, ['tasks'])),
  }));
}

/** The baseline kept before a scale: vertices with a known parallelism (empty: no baseline). */
export function baselineVerticesOf(job: unknown): BaselineVertex[] {
  const out: BaselineVertex[] = [];
  for (const v of verticesOf(job))
    if (v.parallelism !== undefined) out.push({ id: v.id, name: v.name, parallelism: v.parallelism, status: v.status });
  return out;
}

/** The same job graph: the same set of vertex ids. */
export function sameGraph(a: readonly { id: string }[], b: readonly { id: string }[]): boolean {
  if (a.length !== b.length) return false;
  const ids = new Set(a.map((v) => v.id));
  return b.every((v) => ids.has(v.id));
}

export interface VertexTasks {
  done: boolean;
  observed: string;
  /** `Source: bootstrap FINISHED (bounded)`, one per finished vertex. */
  finished: string[];
}

/** A vertex's subtasks: how many there are, run, finished; undefined when REST gave no counts. */
interface Subtasks {
  total: number;
  running: number;
  finished: number;
  /** The other states with a count, e.g. `2 SCHEDULED`. */
  others: string[];
}

function subtasksOf(v: RestVertex): Subtasks | undefined {
  if (v.tasks === undefined) return undefined;
  const counts = Object.entries(v.tasks);
  const total = counts.reduce((sum, [, n]) => sum + n, 0);
  const others = counts.filter(([s, n]) => n > 0 && s !== 'RUNNING' && s !== 'FINISHED').map(([s, n]) => `${n} ${s}`);
  return { total, running: v.tasks.RUNNING ?? 0, finished: v.tasks.FINISHED ?? 0, others };
}

/** Why a vertex is not done: its subtask counts, or the lack of them. */
function notDone(v: RestVertex, tasks: Subtasks | undefined): string {
  if (tasks === undefined) return `${v.name}: ${v.status}, no subtask counts reported`;
  const finished = tasks.finished > 0 ? [`${tasks.finished} FINISHED`] : [];
  return `${v.name}: ${tasks.running} of ${tasks.total} subtasks RUNNING${[...finished, ...tasks.others].map((s) => `, ${s}`).join('')}`;
}

/**
 * Every subtask of every vertex RUNNING, read from `tasks` (a vertex's `status` is RUNNING as soon as one subtask
 * runs). FINISHED subtasks count as done while the job is RUNNING and some subtask runs: bounded input that ended.
 */
export function vertexTasks(vertices: readonly RestVertex[], jobState: unknown): VertexTasks {
  const read = vertices.map((v) => ({ v, t: subtasksOf(v) }));
  const finishedOk = jobState === 'RUNNING' && read.some(({ t }) => t !== undefined && t.running > 0);
  const done = (t: Subtasks | undefined): t is Subtasks =>
    t !== undefined && t.total > 0 && t.running + (finishedOk ? t.finished : 0) === t.total;
  const finished = read.filter(({ t }) => done(t) && t.running === 0).map(({ v }) => v);
  const waiting = read.filter(({ t }) => !done(t));
  const n = vertices.length;
  const observed =
    n === 0
      ? 'no vertices reported'
      : waiting.length > 0
        ? waiting.map(({ v, t }) => notDone(v, t)).join(', ')
        : finished.length === 0
          ? `${n} of ${n} vertices RUNNING`
          : `${n - finished.length} of ${n} vertices RUNNING, ${finished.length} FINISHED`;
  return {
    done: n > 0 && waiting.length === 0,
    observed,
    finished: finished.map((v) => `${v.name} FINISHED (bounded)`),
  };
}

export interface ParallelismInput {
  wanted: number;
  /** Read before the change; judged without it when absent or when the graph changed. */
  baseline?: readonly BaselineVertex[];
  /** The spec's job.parallelism before the change (the old default). */
  oldDefault?: number;
  /** pipeline.max-parallelism from the configuration. */
  maxParallelism?: number;
  /** Overrides in the target's own configuration, vertex id → parallelism (they explain a kept parallelism). */
  overrides?: Readonly<Record<string, number>>;
}

export interface ParallelismCheck {
  met: boolean;
  observed: string;
  /** Vertices that kept or run at another parallelism: notes that are also caveats. */
  caveats: string[];
  /** Other notes (the judgement was made without a baseline, and why). */
  notes: string[];
}

/** Subtasks of the vertex neither RUNNING nor FINISHED (0 when REST gave no counts): it does not run at its parallelism. */
function idleSubtasks(v: RestVertex): number {
  const t = subtasksOf(v);
  return t === undefined ? 0 : t.total - t.running - t.finished;
}

const idleWords = (v: RestVertex): string =>
  `${v.name}: ${String(v.parallelism)} (${idleSubtasks(v)} of its subtasks not running)`;

function withBaseline(
  vertices: readonly RestVertex[],
  input: ParallelismInput,
  baseline: readonly BaselineVertex[],
  oldDefault: number,
): ParallelismCheck {
  const before = new Map(baseline.map((v) => [v.id, v]));
  const off: string[] = [];
  const caveats: string[] = [];
  let atWanted = 0;
  for (const v of vertices) {
    const was = before.get(v.id)?.parallelism;
    const expected = was === oldDefault || was === undefined ? input.wanted : was;
    if (v.parallelism !== expected) off.push(`${v.name}: ${String(v.parallelism)} (expected ${expected})`);
    else if (idleSubtasks(v) > 0) off.push(idleWords(v));
    else if (expected === input.wanted) atWanted += 1;
    else
      caveats.push(
        `${v.name} keeps parallelism ${expected}, ${input.overrides?.[v.id] === expected ? 'set by pipeline.jobvertex-parallelism-overrides' : 'set in the job'}`,
      );
  }
  const met = vertices.length > 0 && off.length === 0;
  const observed = !met
    ? off.join(', ') || 'no vertices reported'
    : caveats.length === 0
      ? `${input.wanted} on every vertex`
      : `${input.wanted} on ${atWanted} of ${vertices.length} vertices, the others as before`;
  return { met, observed, caveats, notes: [] };
}

function withoutBaseline(
  vertices: readonly RestVertex[],
  input: ParallelismInput,
  why: string | undefined,
): ParallelismCheck {
  const above = vertices.filter((v) => {
    const max = input.maxParallelism ?? v.maxParallelism;
    return v.parallelism !== undefined && max !== undefined && v.parallelism > max;
  });
  const atWanted = vertices.filter((v) => v.parallelism === input.wanted);
  const others = vertices.filter((v) => v.parallelism !== input.wanted && !above.includes(v));
  const idle = vertices.filter((v) => idleSubtasks(v) > 0);
  const met = atWanted.length > 0 && above.length === 0 && idle.length === 0;
  const caveats = met
    ? others.map((v) => `${v.name} runs at parallelism ${String(v.parallelism)}, not ${input.wanted}`)
    : [];
  const observed =
    above.length > 0
      ? above
          .map(
            (v) =>
              `${v.name}: ${String(v.parallelism)} (above its max parallelism ${String(input.maxParallelism ?? v.maxParallelism)})`,
          )
          .join(', ')
      : idle.length > 0
        ? idle.map(idleWords).join(', ')
        : atWanted.length === vertices.length && met
          ? `${input.wanted} on every vertex`
          : met
            ? `${input.wanted} on ${atWanted.length} of ${vertices.length} vertices`
            : vertices.map((v) => `${v.name}: ${String(v.parallelism)}`).join(', ') || 'no vertices reported';
  return { met, observed, caveats, notes: why === undefined || caveats.length === 0 ? [] : [why] };
}

/**
 * Whether the vertices show the new parallelism. With a baseline of the same graph: every vertex that ran at the
 * old default runs at the new one, every other keeps what it had. Without: at least one vertex at the new one,
 * none above its max parallelism. Either way every subtask of a vertex runs (or finished), by its `tasks` counts.
 */
export function judgeParallelism(vertices: readonly RestVertex[], input: ParallelismInput): ParallelismCheck {
  const { baseline, oldDefault } = input;
  if (baseline && baseline.length > 0 && oldDefault !== undefined && sameGraph(baseline, vertices))
    return withBaseline(vertices, input, baseline, oldDefault);
  const why =
    baseline && baseline.length > 0 && !sameGraph(baseline, vertices)
      ? 'the job graph changed (other vertex ids than before the change): judged without the baseline'
      : undefined;
  return withoutBaseline(vertices, input, why);
}
