// Deeper evidence from Flink's own REST API (docs/deep-verification.md): every vertex done, the new parallelism on
// the vertices it applies to, the job restored from what the operator recorded. Read once operator status is settled.
import { criterion, type Ctx } from './criteria.js';
import { addCheckpointAfter, addRootExceptions } from './rest-checkpoints.js';
import type { RestJudgement } from './types.js';
import {
  autoscalerOverrides,
  describeOverrides,
  isAutoscaled,
  parseOverrides,
  PARALLELISM_OVERRIDES_KEY,
} from '../../model/autoscaler.js';
import { pointerOfJob, pointersMatch } from '../../model/checkpoint-pointer.js';
import { checkpointIntervalSet, checkpointingOn } from '../../model/checkpointing.js';
import { readFlinkConfig } from '../../model/flink-config.js';
import { getPath } from '../../model/merge-patch.js';
import { deploymentNameOf, jobIdOf } from '../../model/resource.js';
import { pointerType } from '../../model/snapshot-history.js';
import {
  judgeParallelism,
  vertexTasks,
  verticesOf,
  type BaselineVertex,
  type RestVertex,
} from '../../model/rest-vertices.js';

/** What a kind wants REST to prove; nothing asked, nothing read. */
export interface RestWant {
  tasksRunning?: boolean;
  parallelism?: number;
  /** Vertex id → parallelism the configuration's overrides set: every such vertex must run at it. */
  overrides?: Record<string, number>;
  restoredFrom?: string;
  /** The operator fell back to last-state: the job must have restored from a checkpoint of its own. */
  lastStateFallback?: { jobState: string | undefined };
  /** A checkpoint completed after the new job started: a criterion where the policy requires it, else a note. */
  checkpointAfterChange?: boolean;
}

export type { RestJudgement } from './types.js';

/** The cluster whose `<id>-rest` service answers for this target: a session job's session cluster. */
export function clusterIdOf(ctx: Ctx): string | undefined {
  return ctx.sessionJob ? deploymentNameOf(ctx.resource) : ctx.plan.target.name;
}

function caveat(out: RestJudgement, ...lines: string[]): void {
  out.caveats.push(...lines);
  out.notes.push(...lines);
}

/**
 * The REST part of a kind's evidence. Until a reading of the current job exists it asks for one (`need`); an
 * unreachable API lowers the proof depth and says why; a reading adds criteria with values, paths and times.
 */
export function restEvidence(ctx: Ctx, want: RestWant): RestJudgement {
  const out: RestJudgement = { criteria: [], notes: [], caveats: [], verified: [], unverified: [], covers: [] };
  const jobId = jobIdOf(ctx.resource);
  const clusterId = clusterIdOf(ctx);
  if (!ctx.deep || ctx.sessionCluster || jobId === undefined || clusterId === undefined) return out;
  // Checkpoint statistics are read when a criterion needs them (a restore; a required checkpoint after the change,
  // which also tells checkpointing switched on in code), or for the note where the configuration checkpoints.
  const noted =
    want.checkpointAfterChange === false && checkpointIntervalSet(ctx.resource, ctx.observation.sessionCluster);
  const checkpoints =
    want.restoredFrom !== undefined ||
    want.lastStateFallback !== undefined ||
    want.checkpointAfterChange === true ||
    noted;
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
  out.read = true;
  const vertices = verticesOf(reading.job);
  if (want.tasksRunning) addTasks(ctx, jobId, reading.job, vertices, out);
  if (want.parallelism !== undefined) addParallelism(ctx, jobId, vertices, want.parallelism, out);
  if (want.overrides !== undefined) addOverrides(ctx, jobId, vertices, want.overrides, out);
  if (want.lastStateFallback !== undefined)
    addFallbackRestored(ctx, jobId, reading.checkpoints, want.lastStateFallback.jobState, out);
  else if (want.restoredFrom !== undefined) addRestored(ctx, jobId, reading.checkpoints, want.restoredFrom, out);
  const on = checkpointingOn(ctx.resource, ctx.observation.sessionCluster, reading.checkpoints);
  if (want.checkpointAfterChange !== undefined && on)
    addCheckpointAfter(ctx, jobId, reading, want.checkpointAfterChange, out);
  addRootExceptions(jobId, reading, out);
  const met = out.criteria.filter((c) => c.met);
  out.verified.push(...met.map((c) => `${String(c.observed)} (${c.source})`));
  const covered = {
    'rest:parallelism-applied': 'per-vertex parallelism',
    'rest:overrides-applied': 'per-vertex parallelism',
    'rest:restored-from': 'latest.restored',
    'rest:checkpoint-after-change': 'a checkpoint completed after the change',
  } as const;
  for (const c of met) if (Object.hasOwn(covered, c.name)) out.covers.push(covered[c.name as keyof typeof covered]);
  if (met.length < out.criteria.length) out.need = { when: 'poll', clusterId, jobId, checkpoints, exceptions: false };
  return out;
}

/**
 * Every subtask of every vertex RUNNING, by the vertices' `tasks` counts (a vertex's `status` is RUNNING as soon as
 * one subtask runs); a bounded vertex that FINISHED while the job runs is done too (a note names it).
 */
function addTasks(ctx: Ctx, jobId: string, job: unknown, vertices: readonly RestVertex[], out: RestJudgement): void {
  const tasks = vertexTasks(vertices, getPath(job, ['state']));
  out.criteria.push(
    criterion(ctx, 'rest:tasks-running', tasks.done, tasks.observed, `Flink REST /jobs/${jobId} vertices[].tasks`),
  );
  out.notes.push(...tasks.finished);
}

function maxParallelismOf(ctx: Ctx): number | undefined {
  const raw = readFlinkConfig(ctx.resource, 'pipeline.max-parallelism', ctx.observation.sessionCluster)?.value.trim();
  const n = raw === undefined ? NaN : Number(raw);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

function namesOf(vertices: readonly RestVertex[]): Record<string, string> {
  return Object.fromEntries(vertices.map((v) => [v.id, v.name]));
}

/** The autoscaler's overrides (from before the change, else now) named by vertex, or the vertices as REST shows them. */
function autoscalerWords(ctx: Ctx, vertices: readonly RestVertex[]): string | undefined {
  const overrides =
    Object.keys(autoscalerOverrides(ctx.resource)).length > 0
      ? autoscalerOverrides(ctx.resource)
      : autoscalerOverrides(ctx.before);
  const autoscaled = Object.keys(overrides).length > 0 || isAutoscaled(ctx.resource, ctx.observation.sessionCluster);
  if (!autoscaled) return undefined;
  const list =
    Object.keys(overrides).length > 0
      ? describeOverrides(overrides, namesOf(vertices))
      : vertices.map((v) => `${v.name}: ${String(v.parallelism)}`).join(', ');
  return `the autoscaler holds the parallelism of its vertices (${list})`;
}

/** `scale --reset-autoscaler`: the patch bumps job.autoscalerResetNonce, so the autoscaler's overrides go with it. */
function resetsAutoscaler(ctx: Ctx): boolean {
  return (
    ctx.plan.change.type === 'patch' &&
    getPath(ctx.plan.change.patch, ['spec', 'job', 'autoscalerResetNonce']) !== undefined
  );
}

/** After a reset, a vertex the autoscaler had overridden is expected at N like one that ran at the old default. */
function resetBaseline(ctx: Ctx): readonly BaselineVertex[] | undefined {
  const overridden = autoscalerOverrides(ctx.before);
  const old = ctx.oldParallelism;
  if (ctx.baselineVertices === undefined || old === undefined) return ctx.baselineVertices;
  return ctx.baselineVertices.map((v) => (Object.hasOwn(overridden, v.id) ? { ...v, parallelism: old } : v));
}

function addParallelism(
  ctx: Ctx,
  jobId: string,
  vertices: readonly RestVertex[],
  wanted: number,
  out: RestJudgement,
): void {
  const reset = resetsAutoscaler(ctx);
  const autoscaler = reset ? undefined : autoscalerWords(ctx, vertices);
  if (autoscaler !== undefined) {
    caveat(out, autoscaler);
    return;
  }
  if (reset)
    out.notes.push(
      'the autoscaler was reset with this scale; while it stays enabled it decides the parallelism again after its stabilization interval',
    );
  const own = parseOverrides(
    readFlinkConfig(ctx.resource, PARALLELISM_OVERRIDES_KEY, ctx.observation.sessionCluster)?.value,
  );
  const max = maxParallelismOf(ctx);
  const baseline = reset ? resetBaseline(ctx) : ctx.baselineVertices;
  const check = judgeParallelism(vertices, {
    wanted,
    ...(baseline ? { baseline } : {}),
    ...(ctx.oldParallelism === undefined ? {} : { oldDefault: ctx.oldParallelism }),
    ...(max === undefined ? {} : { maxParallelism: max }),
    overrides: own,
  });
  out.criteria.push(
    criterion(
      ctx,
      'rest:parallelism-applied',
      check.met,
      check.observed,
      `Flink REST /jobs/${jobId} vertices[].parallelism`,
    ),
  );
  out.notes.push(...check.notes);
  if (check.met) caveat(out, ...check.caveats);
}

/** config of pipeline.jobvertex-parallelism-overrides: every overridden vertex of the job runs at its value. */
function addOverrides(
  ctx: Ctx,
  jobId: string,
  vertices: readonly RestVertex[],
  overrides: Record<string, number>,
  out: RestJudgement,
): void {
  const byId = new Map(vertices.map((v) => [v.id, v]));
  const off: string[] = [];
  const on: string[] = [];
  for (const [id, p] of Object.entries(overrides)) {
    const v = byId.get(id);
    if (v === undefined) out.notes.push(`no vertex ${id} in the job: its override does nothing`);
    else if (v.parallelism === p) on.push(`${v.name}: ${p}`);
    else off.push(`${v.name}: ${String(v.parallelism)} (override ${p})`);
  }
  const observed =
    off.length > 0
      ? off.join(', ')
      : on.length > 0
        ? `overridden vertices at their parallelism (${on.join(', ')})`
        : 'no overridden vertex in the job';
  out.criteria.push(
    criterion(
      ctx,
      'rest:overrides-applied',
      vertices.length > 0 && off.length === 0,
      observed,
      `Flink REST /jobs/${jobId} vertices[].parallelism`,
    ),
  );
}

function restoredOf(checkpoints: unknown): { path: string | undefined; isSavepoint: unknown } {
  const restored = getPath(checkpoints, ['latest', 'restored']);
  const path = getPath(restored, ['external_path']);
  return { path: typeof path === 'string' ? path : undefined, isSavepoint: getPath(restored, ['is_savepoint']) };
}

function addRestored(ctx: Ctx, jobId: string, checkpoints: unknown, expected: string, out: RestJudgement): void {
  const { path } = restoredOf(checkpoints);
  const source = `Flink REST /jobs/${jobId}/checkpoints latest.restored.external_path`;
  const match = path === undefined ? { match: false as const } : pointersMatch(expected, path);
  if (match.match) {
    out.criteria.push(criterion(ctx, 'rest:restored-from', true, `restored from ${path}`, source));
    if (!match.exact) out.notes.push(`Flink reports ${path}: the same place as ${expected} once both are normalised`);
    return;
  }
  const what = path === undefined ? 'restored from nothing' : `restored from ${path}`;
  out.criteria.push(criterion(ctx, 'rest:restored-from', false, what, source));
  out.failure = {
    reason: `the job started without its state: Flink reports it ${what}, but the operator recorded ${expected} (status.jobStatus.upgradeSavepointPath)`,
    rollback: false,
    evidence: [`${source}: ${path ?? 'none'}`, `status.jobStatus.upgradeSavepointPath: ${expected}`],
  };
}

/** The last-state fallback: Flink restored from a checkpoint (not a savepoint) whose path holds this job's id. */
function addFallbackRestored(
  ctx: Ctx,
  jobId: string,
  checkpoints: unknown,
  jobState: string | undefined,
  out: RestJudgement,
): void {
  const { path, isSavepoint } = restoredOf(checkpoints);
  const source = `Flink REST /jobs/${jobId}/checkpoints latest.restored`;
  const ids = [jobId, ctx.previousJobId].filter((id): id is string => id !== undefined);
  const ofJob = path !== undefined && isSavepoint === false && ids.some((id) => pointerOfJob(path, id));
  if (ofJob) {
    out.criteria.push(criterion(ctx, 'rest:restored-from', true, `restored from checkpoint ${path}`, source));
    caveat(
      out,
      `the operator fell back to last-state (the job was ${jobState ?? 'not RUNNING'}): no savepoint was taken; restored from checkpoint ${path}`,
    );
    return;
  }
  const what =
    path === undefined ? 'restored from nothing' : `restored from ${pointerType(isSavepoint === true)} ${path}`;
  out.criteria.push(criterion(ctx, 'rest:restored-from', false, what, source));
  out.failure = {
    reason: `the job started without its state: the operator fell back to last-state (no savepoint was taken), but Flink reports it ${what}, not a checkpoint of job ${jobId}`,
    rollback: false,
    evidence: [
      `${source}: ${path ?? 'none'}${isSavepoint === true ? ' (a savepoint)' : ''}`,
      'status.jobStatus.upgradeSavepointPath: KUBERNETES_OPERATOR_LAST_STATE or a last-state reconciled upgradeMode',
    ],
  };
}
