// An ABANDONED savepoint the operator stopped tracking (it saw the job as not RUNNING) may still have been completed
// by Flink: before FAILED, the REST `latest.savepoint` is read; one completed after the trigger is the evidence.
import { criterion, type Ctx } from './criteria.js';
import { clusterIdOf } from './rest.js';
import { snapshotProof } from './proof.js';
import type { Judgement } from './types.js';
import { getPath } from '../../model/merge-patch.js';
import { jobIdOf } from '../../model/resource.js';
import { LATEST_SAVEPOINT } from '../../model/snapshot-history.js';

export const FLINK_COMPLETED_IT = 'the operator stopped tracking it (the job looked not running); Flink completed it';
/** The operator's and the JobManager's clocks are both the cluster's, but not the same: a little slack. */
const CLOCK_SLACK_MS = 5_000;

function ms(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value !== 'string' || value === '') return undefined;
  const n = /^\d{1,16}$/.test(value) ? Number(value) : Date.parse(value);
  return Number.isFinite(n) ? n : undefined;
}

/** When the snapshot was triggered, on the cluster's clock: its triggerTimestamp, else its creation. */
function triggeredAt(snapshot: unknown): number | undefined {
  return (
    ms(getPath(snapshot, ['status', 'triggerTimestamp'])) ?? ms(getPath(snapshot, ['metadata', 'creationTimestamp']))
  );
}

export type AbandonedCheck =
  /** Not known yet: read REST now, or again on the next poll while Flink may still finish it (up to the failure grace). */
  | { type: 'read'; judgement: Pick<Judgement, 'rest' | 'transient'> }
  | { type: 'completed'; judgement: Judgement }
  /** No savepoint of Flink's own after the trigger (or REST could not say): FAILED, with these lines added. */
  | { type: 'failed'; evidence: string[] };

/**
 * What REST says about an ABANDONED snapshot of `name`; `undefined` when REST is not in use (FAILED as before).
 * Flink may finish the savepoint after the operator gave up on it: until the failure grace has passed, REST is
 * polled; `reason` is the FAILED reason once it has.
 */
export function abandonedCheck(ctx: Ctx, name: string, reason: string): AbandonedCheck | undefined {
  const jobId = jobIdOf(ctx.resource);
  const clusterId = clusterIdOf(ctx);
  if (!ctx.deep || jobId === undefined || clusterId === undefined) return undefined;
  const reading = ctx.observation.rest;
  if (reading === undefined || (reading.reachable && reading.jobId !== jobId)) {
    return {
      type: 'read',
      judgement: { rest: { when: 'now', clusterId, jobId, checkpoints: true, exceptions: false } },
    };
  }
  if (!reading.reachable)
    return {
      type: 'failed',
      evidence: [`Flink REST not reachable (${reading.why}): whether Flink completed the savepoint is unknown`],
    };
  const savepoint = getPath(reading.checkpoints, LATEST_SAVEPOINT);
  const path = getPath(savepoint, ['external_path']);
  const trigger = triggeredAt(ctx.observation.snapshot);
  const at = ms(getPath(savepoint, ['trigger_timestamp'])) ?? ms(getPath(savepoint, ['latest_ack_timestamp']));
  const source = `Flink REST /jobs/${jobId}/checkpoints latest.savepoint`;
  const done =
    getPath(savepoint, ['status']) === 'COMPLETED' &&
    typeof path === 'string' &&
    at !== undefined &&
    trigger !== undefined &&
    at >= trigger - CLOCK_SLACK_MS;
  if (!done) {
    const seen = `${source}: ${typeof path === 'string' ? `${path} (not one completed after the trigger)` : 'none'}`;
    const what = `the operator ABANDONED ${name}; waiting for Flink to report the savepoint (${source})`;
    const transient = [{ key: 'savepoint-abandoned', what, reason, evidence: [seen], readAt: reading.at }];
    return {
      type: 'read',
      judgement: { rest: { when: 'poll', clusterId, jobId, checkpoints: true, exceptions: false }, transient },
    };
  }
  const proof = snapshotProof(name, path, ms(getPath(savepoint, ['latest_ack_timestamp'])));
  proof.verified.push(`savepoint ${path} COMPLETED in Flink (${source})`);
  return {
    type: 'completed',
    judgement: {
      criteria: [criterion(ctx, 'rest:savepoint-completed', true, path, source)],
      failure: undefined,
      notes: [FLINK_COMPLETED_IT],
      caveats: [FLINK_COMPLETED_IT],
      blocking: [],
      proof,
    },
  };
}
