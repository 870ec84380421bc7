// How deep a COMPLETED proof goes (SPEC §5 last paragraph): what was verified and what was not, in plain words.
import { desiredFields, jobTimes, type Ctx } from './criteria.js';
import { clockTime } from './events.js';
import { getPath } from '../model/merge-patch.js';
import { jobIdOf, observedGenerationOf, reconciliationStateOf, taskManagerReplicasOf } from '../model/resource.js';
import { readFlinkConfig } from '../model/flink-config.js';

function shown(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value ?? null);
}

/** `operator reconciled generation 7 (DEPLOYED; lastReconciledSpec job.parallelism: 8)`. */
export function reconciledLine(ctx: Ctx): string {
  const fields = desiredFields(ctx.plan).map((f) => `${f.path.replace(/^spec\./, '')}: ${shown(getPath(ctx.reconciled, f.specPath))}`);
  const state = reconciliationStateOf(ctx.resource) ?? 'unset';
  const spec = fields.length === 0 ? '' : `; lastReconciledSpec ${fields.join(', ')}`;
  return `operator reconciled generation ${observedGenerationOf(ctx.resource) ?? '?'} (${state}${spec})`;
}

function shortId(id: string): string {
  return id.length > 12 ? `${id.slice(0, 8)}…` : id;
}

/** `jobId 1a2b3c4d… (new; was 9f8e7d6c…)`, or why the jobId proves nothing either way. */
export function jobIdLine(ctx: Ctx): string {
  const now = jobIdOf(ctx.resource);
  if (now === undefined) return 'no jobId reported';
  if (ctx.previousJobId === undefined) return `jobId ${shortId(now)} (the previous one is unknown)`;
  if (now !== ctx.previousJobId) return `jobId ${shortId(now)} (new; was ${shortId(ctx.previousJobId)})`;
  return `jobId ${shortId(now)} (unchanged: an HA last-state restore keeps it)`;
}

/** `job RUNNING on it since 10:42:07 UTC (started 10:42:03 UTC, after the submission); jobId …`. */
export function runningLine(ctx: Ctx): string {
  const { start, update } = jobTimes(ctx.resource);
  const since = update ?? start;
  const head = since === undefined ? 'job RUNNING on it' : `job RUNNING on it since ${clockTime(since)}`;
  let started = '';
  if (start !== undefined && start !== since) {
    started = start >= ctx.submittedAt ? ` (started ${clockTime(start)}, after the submission)` : ` (started ${clockTime(start)})`;
  }
  return `${head}${started}; ${jobIdLine(ctx)}`;
}

const NO_WARNINGS = 'no blocking Warning event after the submission';
const RUNNING_UNVERIFIED = ['a checkpoint completed after the change', 'output correctness'];

/** resume, restart, scale, upgrade (and their session-job / session-cluster variants). */
export function redeployProof(ctx: Ctx): { verified: string[]; notVerified: string[] } {
  const verified = [reconciledLine(ctx)];
  if (!ctx.sessionJob) verified.push('JobManager READY');
  if (!ctx.sessionCluster) verified.push(runningLine(ctx));
  verified.push('lifecycle STABLE', NO_WARNINGS);
  const notVerified = ctx.sessionCluster ? ['the session jobs on this cluster (check each sessionjob)'] : [...RUNNING_UNVERIFIED];
  if (ctx.kind === 'scale') notVerified.push('actual per-vertex parallelism (Flink REST) not checked');
  if (ctx.kind === 'upgrade') notVerified.push('the image the pods actually run (pod containerStatuses) not checked');
  return { verified, notVerified };
}

/** Scale caveats from the spec itself: replicas override parallelism; the autoscaler may change it again. */
export function scaleNotes(ctx: Ctx): string[] {
  if (ctx.kind !== 'scale') return [];
  const notes: string[] = [];
  const replicas = taskManagerReplicasOf(ctx.resource);
  if (replicas !== undefined) {
    notes.push(`spec.taskManager.replicas is ${replicas}: the operator ignores spec.job.parallelism (parallelism = replicas × task slots)`);
  }
  const autoscaler = readFlinkConfig(ctx.resource, ['job.autoscaler.enabled', 'kubernetes.operator.job.autoscaler.enabled'], ctx.observation.sessionCluster);
  if (autoscaler?.value.trim().toLowerCase() === 'true') notes.push('the autoscaler is enabled: it may override the parallelism set here');
  return notes;
}

export function suspendProof(ctx: Ctx, mechanism: 'cancel' | 'stop', savepointPath: string | undefined): { verified: string[]; notVerified: string[] } {
  const { update } = jobTimes(ctx.resource);
  const state = getPath(ctx.resource, ['status', 'jobStatus', 'state']);
  const since = update === undefined ? '' : ` since ${clockTime(update)}`;
  const verified = [reconciledLine(ctx), `job ${shown(state)}${since} (written by the operator when it stops the job)`];
  if (mechanism === 'stop') verified.push('lifecycle SUSPENDED');
  if (savepointPath !== undefined) verified.push(`savepoint ${savepointPath} recorded as jobStatus.upgradeSavepointPath`);
  verified.push(NO_WARNINGS);
  const notVerified = ['that the JobManager and TaskManager pods are gone'];
  if (savepointPath !== undefined) notVerified.push('the savepoint files at that path were not read');
  if (mechanism === 'cancel') notVerified.push('lifecycleState (not required for a cancel-based suspend)');
  return { verified, notVerified };
}

export function restoreProof(ctx: Ctx, uri: string, suspended: boolean): { verified: string[]; notVerified: string[] } {
  const verified = [reconciledLine(ctx), `jobStatus.upgradeSavepointPath is ${uri}`];
  if (suspended) {
    verified.push(NO_WARNINGS);
    return { verified, notVerified: [`nothing was restored yet: the job stays suspended until \`resume\`, which restores from ${uri}`] };
  }
  if (!ctx.sessionJob) verified.push('JobManager READY');
  verified.push(`${runningLine(ctx)}, after a Submit event after the submission`, NO_WARNINGS);
  const notVerified = ['Flink REST latest.restored path not checked', ...RUNNING_UNVERIFIED];
  if (ctx.previousJobId === undefined) notVerified.push('a new jobId (the previous one is unknown)');
  return { verified, notVerified };
}

export function snapshotProof(name: string, path: string, resultAt: number | undefined): { verified: string[]; notVerified: string[] } {
  const when = resultAt === undefined ? '' : ` at ${clockTime(resultAt)}`;
  return {
    verified: [`FlinkStateSnapshot ${name} COMPLETED${when}`, `savepoint path ${path}`],
    notVerified: ['the savepoint files at that path were not read', 'restoring from it was not tested'],
  };
}
