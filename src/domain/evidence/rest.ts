// Deeper evidence from Flink's own REST API (SPEC §5a): every vertex RUNNING, the requested parallelism on every
// vertex, the job restored from the savepoint the operator recorded. Read only once operator status is settled.
import { criterion, type Ctx } from './criteria.js';
import type { Criterion, Failure, RestNeed } from './types.js';
import { readFlinkConfig } from '../model/flink-config.js';
import { getPath } from '../model/merge-patch.js';
import { deploymentNameOf, jobIdOf } from '../model/resource.js';

/** What a kind wants REST to prove; nothing asked, nothing read. */
export interface RestWant {
  tasksRunning?: boolean;
  parallelism?: number;
  restoredFrom?: string;
  /** A checkpoint completed after the new job started: a criterion where the policy requires it, else a note. */
  checkpointAfterChange?: boolean;
}

export interface RestJudgement {
  criteria: Criterion[];
  failure?: Failure;
  notes: string[];
  verified: string[];
  unverified: string[];
  /** Words of "not verified" lines this reading did verify (they are dropped from the proof). */
  covers: string[];
  need?: RestNeed;
}

interface Vertex {
  name: string;
  parallelism: number | undefined;
  status: string;
}

const CHECKPOINT_INTERVAL = ['execution.checkpointing.interval'];
const PARALLELISM_OVERRIDES = ['pipeline.jobvertex-parallelism-overrides'];
const AUTOSCALER = ['job.autoscaler.enabled', 'kubernetes.operator.job.autoscaler.enabled'];

function verticesOf(job: unknown): Vertex[] {
  const raw = getPath(job, ['vertices']);
  if (!Array.isArray(raw)) return [];
  return raw.map((v) => ({
    name: String(getPath(v, ['name']) ?? '?'),
    parallelism: typeof getPath(v, ['parallelism']) === 'number' ? (getPath(v, ['parallelism']) as number) : undefined,
    status: String(getPath(v, ['status']) ?? 'UNKNOWN'),
  }));
}

function tasksRunning(ctx: Ctx, jobId: string, vertices: readonly Vertex[]): Criterion {
  const waiting = vertices.filter((v) => v.status !== 'RUNNING');
  const observed = vertices.length === 0 ? 'no vertices reported' : waiting.length === 0 ? `${vertices.length} of ${vertices.length} vertices RUNNING` : waiting.map((v) => `${v.name}: ${v.status}`).join(', ');
  return criterion(ctx, 'rest:tasks-running', vertices.length > 0 && waiting.length === 0, observed, `Flink REST /jobs/${jobId} vertices[].status`);
}

function parallelismApplied(ctx: Ctx, jobId: string, vertices: readonly Vertex[], wanted: number): Criterion {
  const off = vertices.filter((v) => v.parallelism !== wanted);
  const observed = off.length === 0 ? `${wanted} on every vertex` : off.map((v) => `${v.name}: ${String(v.parallelism)}`).join(', ');
  return criterion(ctx, 'rest:parallelism-applied', vertices.length > 0 && off.length === 0, observed, `Flink REST /jobs/${jobId} vertices[].parallelism`);
}

/** The cluster whose `<id>-rest` service answers for this target: a session job's session cluster. */
function clusterIdOf(ctx: Ctx): string | undefined {
  return ctx.sessionJob ? deploymentNameOf(ctx.resource) : ctx.plan.target.name;
}

/**
 * The REST part of a kind's evidence. Until a reading of the current job exists it asks for one (`need`); an
 * unreachable API lowers the proof depth and says why; a reading adds criteria with values, paths and times.
 */
export function restEvidence(ctx: Ctx, want: RestWant): RestJudgement {
  const out: RestJudgement = { criteria: [], notes: [], verified: [], unverified: [], covers: [] };
  const jobId = jobIdOf(ctx.resource);
  const clusterId = clusterIdOf(ctx);
  if (!ctx.deep || ctx.sessionCluster || jobId === undefined || clusterId === undefined) return out;
  const interval = readFlinkConfig(ctx.resource, CHECKPOINT_INTERVAL, ctx.observation.sessionCluster);
  const checkpointing = interval !== undefined && interval.value.trim() !== '' && interval.value.trim() !== '0';
  const checkpoints = want.restoredFrom !== undefined || (want.checkpointAfterChange !== undefined && checkpointing);
  const reading = ctx.observation.rest;
  const exceptions = ctx.events.some((e) => e.type === 'Warning' && e.reason === 'JobException');
  if (reading === undefined || (reading.reachable && reading.jobId !== jobId)) {
    out.need = { when: 'now', clusterId, jobId, checkpoints, exceptions };
    return out;
  }
  if (!reading.reachable) {
    out.unverified.push(`REST not reachable (${reading.why}): the proof stops at operator status`);
    return out;
  }
  const vertices = verticesOf(reading.job);
  if (want.tasksRunning) out.criteria.push(tasksRunning(ctx, jobId, vertices));
  if (want.parallelism !== undefined) addParallelism(ctx, jobId, vertices, want.parallelism, out);
  if (want.restoredFrom !== undefined) addRestored(ctx, jobId, reading.checkpoints, want.restoredFrom, out);
  if (want.checkpointAfterChange !== undefined && checkpointing) addCheckpointAfter(ctx, jobId, reading, want.checkpointAfterChange, out);
  addRootExceptions(jobId, reading, out);
  const met = out.criteria.filter((c) => c.met);
  out.verified.push(...met.map((c) => `${String(c.observed)} (${c.source})`));
  const covered = { 'rest:parallelism-applied': 'per-vertex parallelism', 'rest:restored-from': 'latest.restored', 'rest:checkpoint-after-change': 'a checkpoint completed after the change' } as const;
  for (const c of met) if (Object.hasOwn(covered, c.name)) out.covers.push(covered[c.name as keyof typeof covered]);
  if (met.length < out.criteria.length) out.need = { when: 'poll', clusterId, jobId, checkpoints, exceptions: false };
  return out;
}

function addParallelism(ctx: Ctx, jobId: string, vertices: readonly Vertex[], wanted: number, out: RestJudgement): void {
  const overridden = readFlinkConfig(ctx.resource, PARALLELISM_OVERRIDES, ctx.observation.sessionCluster);
  const autoscaler = readFlinkConfig(ctx.resource, AUTOSCALER, ctx.observation.sessionCluster)?.value.trim().toLowerCase() === 'true';
  if (overridden !== undefined || autoscaler) {
    const who = overridden !== undefined ? `${overridden.key} sets vertex parallelism` : 'the autoscaler sets vertex parallelism';
    out.notes.push(`${who}: REST shows ${vertices.map((v) => `${v.name}: ${String(v.parallelism)}`).join(', ')}`);
    return;
  }
  out.criteria.push(parallelismApplied(ctx, jobId, vertices, wanted));
}

function addRestored(ctx: Ctx, jobId: string, checkpoints: unknown, expected: string, out: RestJudgement): void {
  const restored = getPath(checkpoints, ['latest', 'restored']);
  const path = getPath(restored, ['external_path']);
  const source = `Flink REST /jobs/${jobId}/checkpoints latest.restored.external_path`;
  if (typeof path === 'string' && path === expected) {
    out.criteria.push(criterion(ctx, 'rest:restored-from', true, `restored from ${path}`, source));
    return;
  }
  const what = typeof path === 'string' ? `restored from ${path}` : 'restored from nothing';
  out.criteria.push(criterion(ctx, 'rest:restored-from', false, what, source));
  out.failure = {
    reason: `the job started without its state: Flink reports it ${what}, but the operator recorded ${expected} (status.jobStatus.upgradeSavepointPath)`,
    rollback: false,
    evidence: [`${source}: ${typeof path === 'string' ? path : 'none'}`, `status.jobStatus.upgradeSavepointPath: ${expected}`],
  };
}

/** `latest.completed` acknowledged after the new job started (both on the JobManager's clock). */
function addCheckpointAfter(ctx: Ctx, jobId: string, reading: { job: unknown; checkpoints?: unknown }, required: boolean, out: RestJudgement): void {
  const started = getPath(reading.job, ['start-time']);
  const completed = getPath(reading.checkpoints, ['latest', 'completed']);
  const ackAt = getPath(completed, ['latest_ack_timestamp']);
  const after = typeof started === 'number' && typeof ackAt === 'number' && ackAt >= started;
  const failed = getPath(reading.checkpoints, ['counts', 'failed']);
  const what = after
    ? `checkpoint ${String(getPath(completed, ['id']))} completed ${Math.round(((ackAt as number) - (started as number)) / 1000)} s after the job started`
    : `no checkpoint completed since the job started${typeof failed === 'number' && failed > 0 ? ` (${failed} failed)` : ''}`;
  const source = `Flink REST /jobs/${jobId}/checkpoints latest.completed`;
  if (required) out.criteria.push(criterion(ctx, 'rest:checkpoint-after-change', after, what, source));
  else if (after) {
    out.notes.push(`${what} (${source})`);
    out.verified.push(`${what} (${source})`);
    out.covers.push('a checkpoint completed after the change');
  }
}

/** Root exceptions since the new job started are notes, like `JobException` events (SPEC §5a). */
function addRootExceptions(jobId: string, reading: { job: unknown; exceptions?: unknown }, out: RestJudgement): void {
  const started = getPath(reading.job, ['start-time']);
  const entries = getPath(reading.exceptions, ['exceptionHistory', 'entries']);
  if (typeof started !== 'number' || !Array.isArray(entries)) return;
  const since = entries.filter((e) => typeof getPath(e, ['timestamp']) === 'number' && (getPath(e, ['timestamp']) as number) >= started);
  if (since.length === 0) return;
  const first = String(getPath(since[0], ['exceptionName']) ?? getPath(since[0], ['stacktrace']) ?? 'an exception').split('\n')[0];
  out.notes.push(`${since.length} root exception(s) since the new job started, the latest: ${first} (Flink REST /jobs/${jobId}/exceptions)`);
}
