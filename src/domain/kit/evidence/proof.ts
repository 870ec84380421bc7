// How deep a COMPLETED proof goes (docs/lifecycle.md#proof-depth): what was verified and what was not, in plain words.
import { desiredFields, jobTimes, type Ctx } from './criteria.js';
import { clockTime } from './events.js';
import { getPath } from '../../model/merge-patch.js';
import { shownAt } from '../../model/secret-config.js';
import { jobIdOf, observedGenerationOf, reconciliationStateOf } from '../../model/resource.js';

function shown(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value ?? null);
}

/** `operator reconciled generation 7 (DEPLOYED; lastReconciledSpec job.parallelism: 8)`. */
export function reconciledLine(ctx: Ctx): string {
  const fields = desiredFields(ctx.plan).map(
    (f) => `${f.path.replace(/^spec\./, '')}: ${shown(shownAt(f.path, getPath(ctx.reconciled, f.specPath)))}`,
  );
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
    // Cluster times are compared only with cluster times: the Submit event the operator wrote after our submission.
    const submit = ctx.events
      .filter((e) => e.reason === 'Submit' && e.lastSeen !== undefined)
      .map((e) => Math.floor((e.lastSeen ?? 0) / 1000) * 1000);
    const after = submit.length > 0 && start >= Math.max(...submit);
    started = after ? ` (started ${clockTime(start)}, after the Submit event)` : ` (started ${clockTime(start)})`;
  }
  return `${head}${started}; ${jobIdLine(ctx)}`;
}

const NO_WARNINGS = 'no blocking Warning event after the submission';
const RUNNING_UNVERIFIED = ['a checkpoint completed after the change', 'output correctness'];

/** resume, restart, scale, upgrade (and their session-job / session-cluster variants); `unverified`: the kind's own. */
export function redeployProof(
  ctx: Ctx,
  unverified: readonly string[] = [],
): { verified: string[]; notVerified: string[] } {
  const verified = [reconciledLine(ctx)];
  if (!ctx.sessionJob) verified.push('JobManager READY');
  if (!ctx.sessionCluster) verified.push(runningLine(ctx));
  verified.push('lifecycle STABLE', NO_WARNINGS);
  const notVerified = ctx.sessionCluster
    ? ['the session jobs on this cluster (check each sessionjob)']
    : [...RUNNING_UNVERIFIED];
  notVerified.push(...unverified);
  return { verified, notVerified };
}

export function suspendProof(
  ctx: Ctx,
  mechanism: 'cancel' | 'stop',
  savepointPath: string | undefined,
): { verified: string[]; notVerified: string[] } {
  // jobStatus.updateTime moves only on states Flink reports, not on the FINISHED the operator writes: no "since".
  const state = getPath(ctx.resource, ['status', 'jobStatus', 'state']);
  const verified = [reconciledLine(ctx), `job ${shown(state)} (written by the operator when it stops the job)`];
  if (mechanism === 'stop') verified.push('lifecycle SUSPENDED');
  if (savepointPath !== undefined)
    verified.push(`savepoint ${savepointPath} recorded as jobStatus.upgradeSavepointPath`);
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
    return {
      verified,
      notVerified: [`nothing was restored yet: the job stays suspended until \`resume\`, which restores from ${uri}`],
    };
  }
  if (!ctx.sessionJob) verified.push('JobManager READY');
  verified.push(`${runningLine(ctx)}, after a Submit event after the submission`, NO_WARNINGS);
  const notVerified = ['Flink REST latest.restored path not checked', ...RUNNING_UNVERIFIED];
  if (ctx.previousJobId === undefined) notVerified.push('a new jobId (the previous one is unknown)');
  return { verified, notVerified };
}

export function snapshotProof(
  name: string,
  path: string,
  resultAt: number | undefined,
): { verified: string[]; notVerified: string[] } {
  const when = resultAt === undefined ? '' : ` at ${clockTime(resultAt)}`;
  return {
    verified: [`FlinkStateSnapshot ${name} COMPLETED${when}`, `savepoint path ${path}`],
    notVerified: ['the savepoint files at that path were not read', 'restoring from it was not tested'],
  };
}
