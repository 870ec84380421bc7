// The operator's own spec validation (a subset of DefaultValidator): what it rejects with a ValidationError event,
// per operator release (resource-validation.ts has the memory and CPU rules).
import type { ScenarioSettings } from './scenarios.js';
import { jobOf, savepointDir, checkpointDir, specConf, type Spec } from './spec-json.js';
import { jobConf, kindOf } from './resource-conf.js';
import { resourceProblem } from './resource-validation.js';
import type { KubeObject, SimStore } from './store.js';
import type { OperatorVersion } from './versions.js';

/**
 * The first reason the operator refuses the current spec, or undefined. `lastReconciled` is the spec it last
 * accepted (for the rules about switching); knobs can force a refusal of any new generation.
 */
export function validationProblem(
  store: SimStore,
  object: KubeObject,
  lastReconciled: Spec | undefined,
  settings: ScenarioSettings,
  version: OperatorVersion,
): string | undefined {
  const spec = object.spec ?? {};
  const observed = (object.status as { observedGeneration?: number } | undefined)?.observedGeneration;
  if (settings.scenarios.has('validation-error') && object.metadata.generation !== observed) {
    return 'Forbidden: simulated validation error (sim.flink-chatops.io/scenario: validation-error)';
  }
  const job = jobOf(spec);
  if (kindOf(object) === 'FlinkSessionJob') return sessionJobProblem(store, object, lastReconciled, job);
  if (lastReconciled) {
    if (jobOf(lastReconciled) && !job) return 'Cannot switch from job to session cluster';
    if (!jobOf(lastReconciled) && job) return 'Cannot switch from session to job cluster';
    const before = lastReconciled.mode ?? 'native';
    const after = spec.mode ?? 'native';
    if (before !== after) {
      return after === 'standalone'
        ? 'Cannot switch from native kubernetes to standalone kubernetes cluster'
        : 'Cannot switch from standalone kubernetes to native kubernetes cluster';
    }
  }
  if (typeof spec.image !== 'string' || spec.image.trim() === '') return 'Image must be specified';
  const replicas = (spec.taskManager as { replicas?: unknown } | undefined)?.replicas;
  const conf = specConf(spec);
  return (job ? jobProblem(conf, job, replicas) : undefined) ?? resourceProblem(spec, conf, version);
}

function sessionJobProblem(
  store: SimStore,
  object: KubeObject,
  lastReconciled: Spec | undefined,
  job: Spec | undefined,
): string | undefined {
  const spec = object.spec ?? {};
  if (!job) return 'The job spec should not be empty';
  if (lastReconciled && lastReconciled.deploymentName !== spec.deploymentName)
    return "The deploymentName can't be changed";
  const cluster = store.get('flinkdeployments', object.metadata.namespace, String(spec.deploymentName ?? ''));
  if (cluster && jobOf(cluster.spec)) return 'Can not submit session job to application cluster';
  return jobProblem(jobConf(store, object), job, undefined);
}

/** DefaultValidator.validateJobSpec; `parallelism` is an int there, so unset counts as 0. */
function jobProblem(conf: Record<string, string>, job: Spec, taskManagerReplicas: unknown): string | undefined {
  if (typeof taskManagerReplicas === 'number') {
    if (taskManagerReplicas < 1) return 'TaskManager replicas must be larger than 0';
  } else if (typeof job.parallelism !== 'number' || job.parallelism < 1) {
    return 'Job parallelism must be larger than 0';
  }
  if (job.savepointRedeployNonce !== undefined && job.savepointRedeployNonce !== null) {
    const path = job.initialSavepointPath;
    if (typeof path !== 'string' || path.trim() === '')
      return 'savepointRedeployNonce can only be used together with a non-empty initialSavepointPath';
  }
  const mode = job.upgradeMode ?? 'stateless';
  if (mode === 'savepoint' && savepointDir(conf) === undefined) {
    return 'Job could not be upgraded with savepoint while config key[state.savepoints.dir] is not set';
  }
  if ((mode === 'savepoint' || mode === 'last-state') && checkpointDir(conf) === undefined) {
    return 'Checkpoint directory[state.checkpoints.dir] must be defined for last-state and savepoint upgrade modes';
  }
  return undefined;
}
