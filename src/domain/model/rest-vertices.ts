// The vertices of a Flink job as its REST API reports them, and how a new parallelism shows on them
// (docs/deep-verification.md): vertices set in the job's code keep their own, bounded ones finish.
import { getPath } from './merge-patch.js';

export interface RestVertex {
  id: string;
  name: string;
  parallelism: number | undefined;
  maxParallelism: number | undefined;
  status: string;
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

/** Every vertex RUNNING; FINISHED counts as done while the job is RUNNING and at least one vertex runs. */
export function vertexTasks(vertices: readonly RestVertex[], jobState: unknown): VertexTasks {
  const running = vertices.filter((v) => v.status === 'RUNNING');
  const finishedOk = jobState === 'RUNNING' && running.length > 0;
  const finished = finishedOk ? vertices.filter((v) => v.status === 'FINISHED') : [];
  const waiting = vertices.filter((v) => v.status !== 'RUNNING' && !finished.includes(v));
  const n = vertices.length;
  const observed =
    n === 0
      ? 'no vertices reported'
      : waiting.length > 0
        ? waiting.map((v) => `${v.name}: ${v.status}`).join(', ')
        : finished.length === 0
          ? `${n} of ${n} vertices RUNNING`
          : `${running.length} of ${n} vertices RUNNING, ${finished.length} FINISHED`;
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
  const met = atWanted.length > 0 && above.length === 0;
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
 * none above its max parallelism.
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
