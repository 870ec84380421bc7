// The operator's job autoscaler as the simulator models it: its switch, its stored overrides (applied to the
// in-memory spec before every diff), one deterministic decision per job run, the reset nonce (docs/sandbox.md).
import { clearAutoscalerState, OVERRIDES_KEY, readAutoscalerState, writeAutoscalerState } from './autoscaler-state.js';
import { COMPONENTS, EVENT_TYPES } from './events.js';
import { emit, epochMs, readRef, realMs, type FlowEnv, type ResourceMemo } from './flow-env.js';
import { reconciliationOf, statusOf, writeStatus, type ResourceRef } from './flink-status.js';
import { formatOverrides, jobGraphOf, parallelismOverrides, type GraphVertex } from './job-graph.js';
import { kindOf, refOf } from './resource-conf.js';
import {
  effectiveParallelism,
  jobOf,
  PARALLELISM_OVERRIDES,
  specConf,
  type FlinkConf,
  type Spec,
} from './spec-json.js';
import { parseFlinkDurationSeconds } from './speed.js';
import type { KubeObject } from './store.js';

/** Each option with the fallback key the operator still reads. */
const KEYS = {
  enabled: ['job.autoscaler.enabled', 'kubernetes.operator.job.autoscaler.enabled'],
  scalingEnabled: ['job.autoscaler.scaling.enabled', 'kubernetes.operator.job.autoscaler.scaling.enabled'],
  stabilization: ['job.autoscaler.stabilization.interval', 'kubernetes.operator.job.autoscaler.stabilization.interval'],
  window: ['job.autoscaler.metrics.window', 'kubernetes.operator.job.autoscaler.metrics.window'],
  vertexMax: ['job.autoscaler.vertex.max-parallelism', 'kubernetes.operator.job.autoscaler.vertex.max-parallelism'],
} as const;

/** The real default of `job.autoscaler.stabilization.interval`. */
export const STABILIZATION_DEFAULT_SECONDS = 300;
/** The simulator's metrics window when none is configured (the real default is 15 min): a first decision comes soon. */
export const SIM_METRICS_WINDOW_SECONDS = 60;
const VERTEX_MAX_DEFAULT = 200;
/** Flink's default max parallelism for jobs up to 128 subtasks. */
const PIPELINE_MAX_DEFAULT = 128;
export const SCALING_REPORT = 'ScalingReport';
const SCALING_REPORT_KEY = 'ScalingExecutor';

/** The Flink job id whose run has been evaluated (one decision per run, then the simulated load is met). */
const evaluated = new WeakMap<ResourceMemo, string>();
/** When a reset cleared the collected metrics: a new metrics window starts then. */
const collectingSince = new WeakMap<ResourceMemo, number>();

function option(conf: FlinkConf, keys: readonly string[]): string | undefined {
  for (const key of keys) if (conf[key] !== undefined) return conf[key];
  return undefined;
}

function flag(conf: FlinkConf, keys: readonly string[], fallback: boolean): boolean {
  const value = option(conf, keys);
  return value === undefined ? fallback : value.trim().toLowerCase() === 'true';
}

/**
 * The configuration the autoscaler reads: the operator's defaults (the `autoscaler-default-on` knob), the deployed
 * spec's keys, then the current spec's operator and autoscaler keys (those take effect without a deploy).
 */
export function observeConf(env: FlowEnv, object: KubeObject, last: Spec | undefined): FlinkConf {
  const defaults: FlinkConf = env.settings(object).scenarios.has('autoscaler-default-on')
    ? { 'job.autoscaler.enabled': 'true' }
    : {};
  const current = Object.entries(specConf(object.spec)).filter(
    ([k]) => k.startsWith('kubernetes.operator.') || k.startsWith('job.autoscaler.'),
  );
  return { ...defaults, ...specConf(last), ...Object.fromEntries(current) };
}

/** FlinkDeployments with a job only; session jobs are not modelled. */
export function autoscalerEnabled(env: FlowEnv, object: KubeObject, last: Spec | undefined): boolean {
  return (
    kindOf(object) === 'FlinkDeployment' &&
    jobOf(object.spec) !== undefined &&
    flag(observeConf(env, object, last), KEYS.enabled, false)
  );
}

function storedOverrides(env: FlowEnv, ref: ResourceRef): Map<string, number> {
  return parallelismOverrides({
    flinkConfiguration: { [PARALLELISM_OVERRIDES]: readAutoscalerState(env.store, ref)[OVERRIDES_KEY] ?? '' },
  });
}

/**
 * The autoscaler's step of a reconcile after the first deployment (before the diff): clears its state when
 * disabled, handles a new reset nonce, decides once the job has run long enough, and applies the stored
 * overrides to the spec this reconcile works with (`env.inMemoryConf`). Returns the resource as read then.
 */
export function applyAutoscaler(env: FlowEnv, ref: ResourceRef, object: KubeObject, last: Spec): KubeObject {
  env.inMemoryConf = undefined;
  if (kindOf(object) !== 'FlinkDeployment' || !jobOf(object.spec)) return object;
  const conf = observeConf(env, object, last);
  if (!flag(conf, KEYS.enabled, false)) {
    clearAutoscalerState(env.store, object);
    evaluated.delete(env.memo);
    return object;
  }
  const current = resetIfAsked(env, ref, object, last);
  if (dueInMs(env, current, conf) === 0) decide(env, current, last, conf);
  const stored = storedOverrides(env, ref);
  if (stored.size === 0) return current;
  env.inMemoryConf = { [PARALLELISM_OVERRIDES]: overrideString(current.spec, last, stored) };
  return readRef(env, ref);
}

/** The user's own overrides with the autoscaler's over them; the deployed string as is when the map is the same. */
function overrideString(spec: Spec | undefined, last: Spec, stored: ReadonlyMap<string, number>): string {
  const merged = new Map([...parallelismOverrides(spec), ...stored]);
  const deployed = parallelismOverrides(last);
  const same = deployed.size === merged.size && [...merged].every(([id, p]) => deployed.get(id) === p);
  return same ? String(specConf(last)[PARALLELISM_OVERRIDES]) : formatOverrides(merged);
}

/** A new non-null `job.autoscalerResetNonce`: the state is cleared and the nonce recorded in lastReconciledSpec. */
function resetIfAsked(env: FlowEnv, ref: ResourceRef, object: KubeObject, last: Spec): KubeObject {
  const nonce = jobOf(object.spec)?.autoscalerResetNonce;
  if (nonce === undefined || nonce === null || nonce === jobOf(last)?.autoscalerResetNonce) return object;
  clearAutoscalerState(env.store, object);
  evaluated.delete(env.memo);
  collectingSince.set(env.memo, epochMs(env));
  writeStatus(env.store, ref, (status) => {
    const reconciliation = reconciliationOf(status);
    const recorded = JSON.parse(String(reconciliation.lastReconciledSpec)) as { spec: Spec };
    const job = jobOf(recorded.spec);
    if (job) job.autoscalerResetNonce = nonce;
    reconciliation.lastReconciledSpec = JSON.stringify(recorded);
    reconciliation.reconciliationTimestamp = epochMs(env);
  });
  return readRef(env, ref);
}

/**
 * Real ms until the first decision is due: 0 when due now, undefined when none is pending (not running, not
 * DEPLOYED, already decided for this run). Due once the job has been RUNNING for the stabilization interval
 * plus the metrics window (a reset starts a new window).
 */
function dueInMs(env: FlowEnv, object: KubeObject, conf: FlinkConf): number | undefined {
  const status = statusOf(object);
  const jobId = status.jobStatus?.jobId;
  if (status.jobStatus?.state !== 'RUNNING' || reconciliationOf(status).state !== 'DEPLOYED' || jobId === undefined)
    return undefined;
  if (evaluated.get(env.memo) === jobId || storedOverrides(env, refOf(object)).size > 0) return undefined;
  const seconds = (keys: readonly string[], fallback: number): number =>
    parseFlinkDurationSeconds(option(conf, keys)) ?? fallback;
  const runningSince = Number(status.jobStatus?.updateTime ?? reconciliationOf(status).reconciliationTimestamp ?? 0);
  const collecting = Math.max(
    runningSince + realMs(env, seconds(KEYS.stabilization, STABILIZATION_DEFAULT_SECONDS)),
    collectingSince.get(env.memo) ?? 0,
  );
  return Math.max(0, collecting + realMs(env, seconds(KEYS.window, SIM_METRICS_WINDOW_SECONDS)) - epochMs(env));
}

/** After a reconcile: asks for another one when the first decision falls due. */
export function scheduleAutoscaler(env: FlowEnv, ref: ResourceRef): void {
  const object = env.store.get(ref.resource, ref.namespace, ref.name);
  if (!object || ref.resource !== 'flinkdeployments') return;
  const last = parseLast(object);
  if (!last || !autoscalerEnabled(env, object, last)) return;
  const due = dueInMs(env, object, observeConf(env, object, last));
  if (due !== undefined) env.reconcileAfterMs(Math.max(1, due));
}

function parseLast(object: KubeObject): Spec | undefined {
  try {
    return (JSON.parse(String(reconciliationOf(statusOf(object)).lastReconciledSpec ?? '')) as { spec?: Spec }).spec;
  } catch {
    return undefined;
  }
}

export interface VertexDecision {
  vertex: GraphVertex;
  current: number;
  target: number;
}

/**
 * The simulator's rule: every vertex without parallelism set in code goes one up, capped at the max parallelism
 * (`job.autoscaler.vertex.max-parallelism`, `pipeline.max-parallelism`); vertices fixed in code stay.
 */
export function decideParallelism(vertices: readonly GraphVertex[], deployed: Spec, conf: FlinkConf): VertexDecision[] {
  const overrides = parallelismOverrides(deployed);
  const fallback = effectiveParallelism(deployed);
  const cap = Math.min(
    Number(option(conf, KEYS.vertexMax) ?? VERTEX_MAX_DEFAULT) || VERTEX_MAX_DEFAULT,
    Number(conf['pipeline.max-parallelism'] ?? PIPELINE_MAX_DEFAULT) || PIPELINE_MAX_DEFAULT,
  );
  return vertices.map((vertex) => {
    const current = overrides.get(vertex.id) ?? vertex.fixedParallelism ?? fallback;
    const target = vertex.fixedParallelism !== undefined ? current : Math.max(current, Math.min(current + 1, cap));
    return { vertex, current, target };
  });
}

/** `{ Vertex ID … | Parallelism a -> b | Processing capacity … | Target data rate …}` per scaled vertex (rates made up: 500 records/s per subtask). */
export function scalingReport(header: string, decisions: readonly VertexDecision[]): string {
  const entries = decisions
    .filter((d) => d.target !== d.current)
    .map(
      (d) =>
        `{ Vertex ID ${d.vertex.id} | Parallelism ${d.current} -> ${d.target} | Processing capacity ${(500 * d.current).toFixed(2)} -> ${(500 * d.target).toFixed(2)} | Target data rate ${(500 * d.target).toFixed(2)}}`,
    );
  return header + entries.join('');
}

/** The first decision of a run: a ScalingReport, and (unless scaling is disabled) an override for every vertex. */
function decide(env: FlowEnv, object: KubeObject, last: Spec, conf: FlinkConf): void {
  const jobId = statusOf(object).jobStatus?.jobId;
  if (jobId !== undefined) evaluated.set(env.memo, jobId);
  const decisions = decideParallelism(jobGraphOf(object, last), last, conf);
  if (decisions.every((d) => d.target === d.current)) return;
  if (!flag(conf, KEYS.scalingEnabled, true)) {
    const header = `Scaling execution disabled by config ${KEYS.scalingEnabled[0]}:false, recommended parallelism change:`;
    emit(
      env,
      object,
      EVENT_TYPES.normal,
      SCALING_REPORT,
      COMPONENTS.operator,
      scalingReport(header, decisions),
      SCALING_REPORT_KEY,
    );
    return;
  }
  emit(
    env,
    object,
    EVENT_TYPES.normal,
    SCALING_REPORT,
    COMPONENTS.operator,
    scalingReport('Scaling execution enabled, begin scaling vertices:', decisions),
    SCALING_REPORT_KEY,
  );
  const overrides = new Map(decisions.map((d) => [d.vertex.id, d.target]));
  writeAutoscalerState(env.store, object, {
    ...readAutoscalerState(env.store, refOf(object)),
    [OVERRIDES_KEY]: formatOverrides(overrides),
  });
}
