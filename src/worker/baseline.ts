// The vertex baseline of a scale: the job's vertices read through Flink REST right before the call, when it answers
// (a short deadline; any failure just means no baseline, and the parallelism is then judged without one).
import { getPath } from '../domain/model/merge-patch.js';
import type { Plan } from '../domain/model/plan.js';
import { parallelismOf } from '../domain/model/resource.js';
import { restAddressOf } from '../domain/model/rest-address.js';
import { baselineVerticesOf } from '../domain/model/rest-vertices.js';
import type { Run, WorkerEvidence } from './context.js';
import { deepSettings } from './rest-read.js';

/** How long the baseline read may take: it delays the submission, so it is short. */
export const BASELINE_TIMEOUT_MS = 2_000;

/** A plan judged as scale: it sets spec.job.parallelism, or it is an undo recorded as judged like one. */
export function judgedAsScale(plan: Plan): boolean {
  if (plan.judgedAs !== undefined) return plan.judgedAs === 'scale';
  return plan.change.type === 'patch' && getPath(plan.change.patch, ['spec', 'job', 'parallelism']) !== undefined;
}

/** `baselineVertices` and `oldParallelism` for a scale's evidence; nothing for other kinds or when REST does not answer. */
export async function readBaseline(
  run: Run,
  plan: Plan,
  current: unknown,
): Promise<Pick<WorkerEvidence, 'baselineVertices' | 'oldParallelism'>> {
  if (!judgedAsScale(plan)) return {};
  const old = parallelismOf(current);
  const out = old === undefined ? {} : { oldParallelism: old };
  const { rest } = run.deps;
  const address = restAddressOf(plan.target, current);
  if (rest === undefined || !address.ok || !(await deepSettings(run, plan)).deep) return out;
  const { clusterId, jobId } = address;
  try {
    const timeoutMs = Math.min(BASELINE_TIMEOUT_MS, run.deps.settings.kubeTimeoutMs);
    const job = await rest.get(plan.target.namespace, clusterId, `/jobs/${jobId}`, { signal: run.signal, timeoutMs });
    const vertices = job.ok ? baselineVerticesOf(job.value) : [];
    if (!job.ok) run.log.info({ reason: job.reason }, 'no vertex baseline: Flink REST did not answer');
    return vertices.length > 0 ? { ...out, baselineVertices: vertices } : out;
  } catch (error) {
    run.log.info({ err: error }, 'no vertex baseline: the REST read failed');
    return out;
  }
}
