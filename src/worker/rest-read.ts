// Reading Flink REST for the judge (docs/deep-verification.md#what-it-proves): only when it asks, at most every
// REST_POLL_MS while a deeper criterion is not there yet, and never holding up the verdict (short deadlines; failures
// become "unreachable").
import type { RestNeed, RestReading } from '../domain/kit/evidence/types.js';
import type { Plan } from '../domain/model/plan.js';
import { findNamespace } from '../domain/engines/policy/evaluate.js';
import { verifyFor } from '../domain/kit/policy/verify.js';
import type { Run } from './context.js';
import type { TargetView } from './target-view.js';

/** How often REST is read again while tasks are not all RUNNING (or similar); each read is 1–2 requests. */
export const REST_POLL_MS = 2_000;

/** When the next REST read is due for `need`, given the view's last reading (ms, the worker's clock). */
export function restDueAt(need: RestNeed, last: RestReading | undefined): number {
  if (need.when === 'now' || last === undefined) return 0;
  return last.at + REST_POLL_MS;
}

function failed(reason: string, message: string): string {
  if (reason === 'forbidden') return `the role lacks services/proxy: ${message}`;
  if (reason === 'unavailable') return `the JobManager's REST service answers 503: ${message}`;
  if (reason === 'not-found') return `no such REST service or job: ${message}`;
  return message;
}

/** Reads `/jobs/<id>` (and its checkpoints when needed) and puts the reading into the view. */
export async function readRest(run: Run, view: TargetView, need: RestNeed): Promise<void> {
  const { rest } = run.deps;
  const at = run.deps.now();
  const namespace = view.spec.target.namespace;
  if (rest === undefined) {
    view.setRest({ reachable: false, why: 'this worker has no Flink REST client', at });
    return;
  }
  const options = { signal: run.signal, timeoutMs: Math.min(3_000, run.deps.settings.kubeTimeoutMs) };
  const [job, checkpoints, exceptions] = await Promise.all([
    rest.get(namespace, need.clusterId, `/jobs/${need.jobId}`, options),
    need.checkpoints
      ? rest.get(namespace, need.clusterId, `/jobs/${need.jobId}/checkpoints`, options)
      : Promise.resolve(undefined),
    // Root exceptions are only notes: read once, with the first reading of this job, when failovers were seen.
    need.exceptions
      ? rest.get(namespace, need.clusterId, `/jobs/${need.jobId}/exceptions`, options)
      : Promise.resolve(undefined),
  ]);
  const failure = !job.ok ? job : checkpoints !== undefined && !checkpoints.ok ? checkpoints : undefined;
  if (failure !== undefined) {
    run.log.info({ reason: failure.reason }, 'Flink REST not reachable; evidence stops at operator status');
    view.setRest({ reachable: false, why: failed(failure.reason, failure.message), at });
    return;
  }
  const previous = view.restReading?.reachable ? view.restReading.exceptions : undefined;
  const exceptionsValue = exceptions?.ok ? exceptions.value : previous;
  view.setRest({
    reachable: true,
    jobId: need.jobId,
    job: job.ok ? job.value : undefined,
    ...(checkpoints?.ok ? { checkpoints: checkpoints.value } : {}),
    ...(exceptionsValue === undefined ? {} : { exceptions: exceptionsValue }),
    at,
  });
}

/** Policy `verify` for the target's environment: whether REST is read, and whether a checkpoint after the change is required. */
export async function deepSettings(run: Run, plan: Plan): Promise<{ deep: boolean; checkpointAfterChange: boolean }> {
  const state = await run.deps.policy.current();
  const settings = state.ok
    ? verifyFor(state.policy, findNamespace(state.policy, plan.target.namespace, plan.target.cluster)?.environment)
    : verifyFor({}, undefined);
  return { deep: run.deps.rest !== undefined && settings.rest, checkpointAfterChange: settings.checkpointAfterChange };
}
