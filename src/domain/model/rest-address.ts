// Where a target's job is read over Flink REST: its Flink cluster (the FlinkDeployment's name, or a session job's
// `spec.deploymentName`) and its job id (`status.jobStatus.jobId`), both checked before they go into a URL
// (docs/deep-verification.md#how-rest-is-reached).
import { deploymentNameOf, jobIdOf } from './resource.js';
import { jobIdProblem, labelProblem, type Target } from './target.js';

export type RestAddress =
  | { ok: true; clusterId: string; jobId: string }
  /** `missing`: the resource names no cluster or no job yet; `message`: what it names is not a valid name or id. */
  | { ok: false; missing: true }
  | { ok: false; missing: false; message: string };

/** The Flink cluster that serves `target`'s REST API, checked; undefined when a session job names none. */
export function restClusterOf(
  target: Pick<Target, 'kind' | 'name'>,
  resource: unknown,
): { ok: true; clusterId: string } | { ok: false; missing: true } | { ok: false; missing: false; message: string } {
  const session = target.kind === 'FlinkSessionJob';
  const clusterId = session ? deploymentNameOf(resource) : target.name;
  if (clusterId === undefined) return { ok: false, missing: true };
  const problem = labelProblem(session ? 'spec.deploymentName' : 'the FlinkDeployment name', clusterId);
  return problem === undefined ? { ok: true, clusterId } : { ok: false, missing: false, message: problem };
}

/** The cluster and job id `target`'s REST reads go to, each checked (DNS-1123 label; 32 hex characters). */
export function restAddressOf(target: Pick<Target, 'kind' | 'name'>, resource: unknown): RestAddress {
  const cluster = restClusterOf(target, resource);
  if (!cluster.ok) return cluster;
  const jobId = jobIdOf(resource);
  if (jobId === undefined) return { ok: false, missing: true };
  const problem = jobIdProblem('status.jobStatus.jobId', jobId);
  return problem === undefined
    ? { ok: true, clusterId: cluster.clusterId, jobId }
    : { ok: false, missing: false, message: problem };
}
