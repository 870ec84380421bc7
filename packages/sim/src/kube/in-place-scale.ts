// In-place rescaling of a running job through its parallelism overrides (adaptive scheduler): when the operator
// may do it, and the rescale the JobManager then carries out after its stabilization delay (docs/sandbox.md).
import { epochMs, realMs, type FlowEnv } from './flow-env.js';
import { statusOf } from './flink-status.js';
import { jobGraphOf, parallelismOverrides } from './job-graph.js';
import { isTerminal } from './job-steps.js';
import { kindOf } from './resource-conf.js';
import { confFlag, effectiveParallelism, specConf, type Spec, type SpecDiff } from './spec-json.js';
import { parseFlinkDurationSeconds } from './speed.js';
import type { KubeObject } from './store.js';

function flinkVersion(spec: Spec | undefined): { major: number; minor: number } | undefined {
  const match = /^v(\d+)_(\d+)$/.exec(String(spec?.flinkVersion ?? ''));
  return match ? { major: Number(match[1]), minor: Number(match[2]) } : undefined;
}

/**
 * NativeFlinkService.scale: a SCALE diff, a job, in-place scaling enabled, Flink ≥ 1.18 and the adaptive scheduler
 * in the deployed configuration, a job neither terminal nor RECONCILING, overrides before or after — and no
 * vertex of the running job lost the override it had ("…has been removed, falling back to regular upgrade").
 */
export function canScaleInPlace(object: KubeObject, last: Spec, diff: SpecDiff): boolean {
  if (
    diff.type !== 'SCALE' ||
    kindOf(object) !== 'FlinkDeployment' ||
    object.spec?.mode === 'standalone' ||
    !object.spec?.job
  )
    return false;
  const deployed = {
    ...specConf(last),
    ...Object.fromEntries(Object.entries(specConf(object.spec)).filter(([k]) => k.startsWith('kubernetes.operator.'))),
  };
  const version = flinkVersion(last);
  const recent = version !== undefined && (version.major > 1 || version.minor >= 18);
  const state = statusOf(object).jobStatus?.state;
  if (
    !recent ||
    deployed['jobmanager.scheduler'] !== 'adaptive' ||
    !confFlag(deployed, 'kubernetes.operator.job.upgrade.inplace-scaling.enabled', true)
  )
    return false;
  if (isTerminal(state) || state === 'RECONCILING') return false;
  const before = parallelismOverrides(last);
  const after = parallelismOverrides(object.spec);
  if (before.size === 0 && after.size === 0) return false;
  return !jobGraphOf(object, last).some((v) => !after.has(v.id) && before.has(v.id));
}

/** What each vertex of the deployed spec is configured to run at: its override, else its parallelism in code, else the default. */
export function configuredParallelism(object: KubeObject, deployed: Spec): Map<string, number> {
  const overrides = parallelismOverrides(deployed);
  const fallback = effectiveParallelism(deployed);
  return new Map(
    jobGraphOf(object, deployed).map((v) => [v.id, overrides.get(v.id) ?? v.fixedParallelism ?? fallback]),
  );
}

/**
 * Sends the new resource requirements: false when every vertex already has them (no event, nothing changes);
 * else the rescale is recorded with the parallelism each vertex runs at until it lands.
 */
export function startInPlaceRescale(env: FlowEnv, object: KubeObject, last: Spec, spec: Spec): boolean {
  const configured = configuredParallelism(object, last);
  const wanted = parallelismOverrides(spec);
  if (![...configured].some(([id, p]) => wanted.has(id) && wanted.get(id) !== p)) return false;
  const jobId = statusOf(object).jobStatus?.jobId;
  if (jobId === undefined) return true;
  // A rescale that has not landed yet: the vertices still run at what it started from.
  const running = env.jobManagers.pendingRescale(jobId, epochMs(env))?.previous ?? configured;
  env.jobManagers.rescale(jobId, { previous: new Map(running), landsAt: landsAt(env, object, last) });
  return true;
}

/**
 * When the JobManager runs the new parallelism. Flink 2.x waits for
 * `jobmanager.adaptive-scheduler.executing.resource-stabilization-timeout` (60 s); 1.18–1.20 rescale as soon as
 * `jobmanager.adaptive-scheduler.scaling-interval.min` (30 s) has passed since the job started running.
 */
function landsAt(env: FlowEnv, object: KubeObject, last: Spec): number {
  const conf = specConf(last);
  const now = epochMs(env);
  if ((flinkVersion(last)?.major ?? 1) >= 2) {
    const seconds =
      parseFlinkDurationSeconds(conf['jobmanager.adaptive-scheduler.executing.resource-stabilization-timeout']) ?? 60;
    return now + realMs(env, seconds);
  }
  const cooldown = parseFlinkDurationSeconds(conf['jobmanager.adaptive-scheduler.scaling-interval.min']) ?? 30;
  const runningSince = Number(statusOf(object).jobStatus?.updateTime ?? now);
  return Math.max(now, runningSince + realMs(env, cooldown));
}
