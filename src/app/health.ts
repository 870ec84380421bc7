// The health gate's reading (docs/deep-verification.md#the-health-gate): the running job's details, checkpoints and
// exceptions from Flink REST, read at planning time with a short deadline; nothing when REST does not answer or the
// policy turns it off. With it, how the operation meets the gate and what its hints may name
// (docs/deep-verification.md#when-the-gate-denies).
import { readFlinkConfig } from '../domain/model/flink-config.js';
import { jobStatusStateOf } from '../domain/model/resource.js';
import { restAddressOf } from '../domain/model/rest-address.js';
import { formatTarget, type Target } from '../domain/model/target.js';
import {
  flinkDurationMs,
  type GateContext,
  type GateSettings,
  type HealthReading,
} from '../domain/kit/policy/health-gate.js';
import { findNamespace } from '../domain/engines/policy/evaluate.js';
import type { Policy } from '../domain/engines/policy/schema.js';
import { verifyFor } from '../domain/kit/policy/verify.js';
import type { FlinkRest } from '../kube/flink-rest.js';

const HEALTH_TIMEOUT_MS = 2_000;

/** The gate's input for `target`, or undefined when it does not apply (job not RUNNING, REST off or not answering). */
export async function readHealth(
  policy: Policy,
  target: Target,
  live: { resource: unknown; sessionCluster?: unknown },
  rest: FlinkRest | undefined,
  signal?: AbortSignal,
): Promise<{ reading: HealthReading; gate: GateSettings } | undefined> {
  const settings = verifyFor(policy, findNamespace(policy, target.namespace, target.cluster)?.environment);
  // A cluster name or job id that is not valid in a URL is not read at all (docs/deep-verification.md#how-rest-is-reached).
  const address = restAddressOf(target, live.resource);
  if (!settings.rest || rest === undefined || !address.ok || jobStatusStateOf(live.resource) !== 'RUNNING')
    return undefined;
  const { clusterId, jobId } = address;
  const options = { timeoutMs: HEALTH_TIMEOUT_MS, ...(signal ? { signal } : {}) };
  const [job, checkpoints, exceptions] = await Promise.all([
    rest.get(target.namespace, clusterId, `/jobs/${jobId}`, options),
    rest.get(target.namespace, clusterId, `/jobs/${jobId}/checkpoints`, options),
    rest.get(target.namespace, clusterId, `/jobs/${jobId}/exceptions`, options),
  ]);
  if (!job.ok || !checkpoints.ok || !exceptions.ok) return undefined;
  const interval = readFlinkConfig(live.resource, ['execution.checkpointing.interval'], live.sessionCluster);
  const intervalMs = flinkDurationMs(interval?.value);
  return {
    reading: {
      job: job.value,
      checkpoints: checkpoints.value,
      exceptions: exceptions.value,
      intervalMs: intervalMs && intervalMs > 0 ? intervalMs : undefined,
    },
    gate: { outcome: settings.healthGate, restartLimit: settings.restartLimit },
  };
}

/**
 * How an operation meets the gate: an undo only warns; break-glass changes nothing here (docs/policy.md#break-glass).
 * The hints name the target and the policy key.
 */
export function gateContext(target: Target, environment: string | undefined, undo: boolean): GateContext {
  return {
    ...(undo ? { undo: true } : {}),
    hints: { target: formatTarget(target), policyKey: `verify.${environment ?? 'default'}.healthGate` },
  };
}
