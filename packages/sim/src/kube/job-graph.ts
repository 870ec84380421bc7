// The job graph a simulated job runs: its vertices, their ids (stable across redeploys of one graph), the
// parallelism set in the job's code, bounded vertices that finish while the job runs (see docs/sandbox.md).
import { createHash } from 'node:crypto';
import { effectiveParallelism, jobOf, PARALLELISM_OVERRIDES, specConf, type Spec } from './spec-json.js';
import type { KubeObject } from './store.js';

/**
 * The annotation that gives a simulated job its shape: vertices separated by `;`, each a name with optional
 * bracketed attributes: `[p=1]` parallelism set in code, `[bounded]` finishes as soon as the job runs,
 * `[bounded=30s]` after 30 operator seconds. Example:
 * `Source: Kafka events; Source: bootstrap [bounded]; KeyedProcess -> Filter; Sink: results [p=1]`.
 */
export const JOB_GRAPH_ANNOTATION = 'sim.flink-chatops.io/job-graph';

/** Every job without the annotation: three vertices at the job's default parallelism, all running. */
export const DEFAULT_GRAPH = 'Source: Kafka events; KeyedProcess -> Filter; Sink: Kafka alerts';

export interface GraphVertex {
  /** 32 hex characters, as Flink's JobVertexID: derived from the graph's identity, the index and the name. */
  id: string;
  name: string;
  /** `setParallelism(n)` in the job's code: the default parallelism does not apply. */
  fixedParallelism?: number;
  /** Operator seconds after the job starts running when every subtask of this vertex has FINISHED. */
  finishesAfterSeconds?: number;
}

export type GraphParse = { ok: true; vertices: GraphVertex[] } | { ok: false; error: string };

function vertexId(identity: string, index: number, name: string): string {
  return createHash('sha256').update(`${identity}\u0000${index}\u0000${name}`).digest('hex').slice(0, 32);
}

function parseAttributes(text: string): { fixedParallelism?: number; finishesAfterSeconds?: number } | string {
  const out: { fixedParallelism?: number; finishesAfterSeconds?: number } = {};
  for (const raw of text.split(',')) {
    const attr = raw.trim();
    const p = /^p=(\d+)$/.exec(attr);
    const bounded = /^bounded(?:=(\d+)s?)?$/.exec(attr);
    if (p && Number(p[1]) >= 1) out.fixedParallelism = Number(p[1]);
    else if (bounded) out.finishesAfterSeconds = bounded[1] === undefined ? 0 : Number(bounded[1]);
    else return `unknown vertex attribute "${attr}" (known: p=<n>, bounded, bounded=<seconds>s)`;
  }
  return out;
}

/** Parses a graph text; `identity` (the job's jar and entry class) makes the vertex ids of one job stable. */
export function parseJobGraph(text: string, identity: string): GraphParse {
  const vertices: GraphVertex[] = [];
  for (const [index, part] of text
    .split(';')
    .map((p) => p.trim())
    .filter((p) => p !== '')
    .entries()) {
    const match = /^(.*?)\s*(?:\[([^\]]*)\])?$/.exec(part);
    const name = match?.[1]?.trim() ?? '';
    if (name === '') return { ok: false, error: `vertex ${index + 1} has no name` };
    const attributes = match?.[2] === undefined ? {} : parseAttributes(match[2]);
    if (typeof attributes === 'string') return { ok: false, error: `${name}: ${attributes}` };
    vertices.push({ id: vertexId(identity, index, name), name, ...attributes });
  }
  return vertices.length === 0 ? { ok: false, error: 'the job graph has no vertices' } : { ok: true, vertices };
}

/** The job's identity as far as the graph goes: what it runs (a new jar or entry class is a new graph). */
export function graphIdentity(object: KubeObject, spec: Spec | undefined = object.spec): string {
  const job = jobOf(spec);
  return `${String(job?.jarURI ?? '')}\u0000${String(job?.entryClass ?? object.metadata.name)}`;
}

/** The vertices of the object's job: from its annotation when it parses, else the default graph. */
export function jobGraphOf(object: KubeObject, spec: Spec | undefined = object.spec): GraphVertex[] {
  const identity = graphIdentity(object, spec);
  const annotated = object.metadata.annotations?.[JOB_GRAPH_ANNOTATION];
  const parsed = annotated === undefined ? undefined : parseJobGraph(annotated, identity);
  if (parsed?.ok) return parsed.vertices;
  const fallback = parseJobGraph(DEFAULT_GRAPH, identity);
  return fallback.ok ? fallback.vertices : [];
}

/** The vertex the `bounded-source` knob puts in front of a job's graph (a bootstrap read that finishes at once). */
export const BOUNDED_SOURCE_VERTEX = 'Source: bootstrap';

/**
 * The graph with the `bounded-source` knob's vertex in front. Its id is its own (index -1), so the ids of the
 * job's other vertices, and any overrides written for them, stay what they were.
 */
export function withBoundedSource(
  vertices: readonly GraphVertex[],
  object: KubeObject,
  spec: Spec | undefined = object.spec,
): GraphVertex[] {
  const bootstrap: GraphVertex = {
    id: vertexId(graphIdentity(object, spec), -1, BOUNDED_SOURCE_VERTEX),
    name: BOUNDED_SOURCE_VERTEX,
    finishesAfterSeconds: 0,
  };
  return [bootstrap, ...vertices];
}

/** Why the object's job-graph annotation cannot be read (admission refuses it), or undefined. */
export function jobGraphProblem(object: KubeObject): string | undefined {
  const text = object.metadata.annotations?.[JOB_GRAPH_ANNOTATION];
  if (text === undefined) return undefined;
  const parsed = parseJobGraph(text, '');
  return parsed.ok ? undefined : parsed.error;
}

/** `pipeline.jobvertex-parallelism-overrides` of a spec: `<vertex id>:<parallelism>,…` as a map. */
export function parallelismOverrides(spec: Spec | undefined): Map<string, number> {
  const out = new Map<string, number>();
  const text = specConf(spec)[PARALLELISM_OVERRIDES];
  for (const entry of (text ?? '').split(/[,;]/)) {
    const [id, value] = entry.split(':').map((s) => s.trim());
    if (id && value && /^\d+$/.test(value) && Number(value) >= 1) out.set(id, Number(value));
  }
  return out;
}

/** Each vertex's parallelism under a spec: its override, else the one set in its code, else the job's default. */
export function specVertexParallelism(vertices: readonly GraphVertex[], spec: Spec): number[] {
  const overrides = parallelismOverrides(spec);
  const fallback = effectiveParallelism(spec);
  return vertices.map((v) => overrides.get(v.id) ?? v.fixedParallelism ?? fallback);
}

/** Writes a map back in the form Flink reads (`id:p,id:p`, ordered as given). */
export function formatOverrides(overrides: ReadonlyMap<string, number>): string {
  return [...overrides].map(([id, p]) => `${id}:${p}`).join(',');
}
