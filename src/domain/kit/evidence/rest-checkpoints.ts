// The checkpoint and exception parts of the REST evidence: a checkpoint after the change, root exceptions as notes.
import { criterion, type Ctx } from './criteria.js';
import type { RestJudgement } from './types.js';
import { getPath } from '../../model/merge-patch.js';

/** `latest.completed` acknowledged after the new job started (both on the JobManager's clock). */
export function addCheckpointAfter(
  ctx: Ctx,
  jobId: string,
  reading: { job: unknown; checkpoints?: unknown },
  required: boolean,
  out: RestJudgement,
): void {
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

/** Root exceptions since the new job started are notes, like `JobException` events. */
export function addRootExceptions(
  jobId: string,
  reading: { job: unknown; exceptions?: unknown },
  out: RestJudgement,
): void {
  const started = getPath(reading.job, ['start-time']);
  const entries = getPath(reading.exceptions, ['exceptionHistory', 'entries']);
  if (typeof started !== 'number' || !Array.isArray(entries)) return;
  const since = entries.filter(
    (e) => typeof getPath(e, ['timestamp']) === 'number' && (getPath(e, ['timestamp']) as number) >= started,
  );
  if (since.length === 0) return;
  const first = String(
    getPath(since[0], ['exceptionName']) ?? getPath(since[0], ['stacktrace']) ?? 'an exception',
  ).split('\n')[0];
  out.notes.push(
    `${since.length} root exception(s) since the new job started, the latest: ${first} (Flink REST /jobs/${jobId}/exceptions)`,
  );
}
