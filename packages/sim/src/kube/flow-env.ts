// What one reconcile of the simulated operator works with: the store, operator time, knobs, ids, events.
import type { Logger } from '../bot.js';
import { recordEvent, type Component, type EventType } from './events.js';
import type { ResourceRef } from './flink-status.js';
import type { JobManagerState } from './jobmanager-state.js';
import type { ScenarioSettings } from './scenarios.js';
import { scaledMs, type Speed } from './speed.js';
import { ApiError, type KubeObject, type SimStore } from './store.js';
import { operatorSpec } from './operator-model.js';
import type { OperatorVersion } from './versions.js';

/** What the operator remembers about a resource between reconciles (the real one keeps it in caches). */
export interface ResourceMemo {
  /** Generation whose SpecChanged event was emitted (once per generation). */
  specChangedGeneration?: number;
  /** Generation whose ValidationError was reported. */
  invalidGeneration?: number;
  /** Generation whose stop-with-savepoint already failed once (the `savepoint-failure=once` knob). */
  stopFailedGeneration?: number;
  /** A JobManager whose image pull fails but will succeed: when it failed (cluster ms) and for how long. */
  imagePull?: { failedAtMs: number; recoverAfterSeconds: number };
  /** The last checkpoint a job completed before an HA-preserving stop: what its next HA restore resumes from. */
  haCheckpoint?: { jobId: string; id: number };
}

export interface FlowEnv {
  store: SimStore;
  speed: Speed;
  random: () => number;
  signal: AbortSignal;
  memo: ResourceMemo;
  /** The operator release this reconcile behaves as (versions.ts). */
  operatorVersion: OperatorVersion;
  /** What the JobManagers know beyond the CR status (rescales, savepoints Flink completed, HA restores). */
  jobManagers: JobManagerState;
  log?: Logger;
  /** Current knobs for a resource (programmatic ∪ annotations). */
  settings(object: KubeObject): ScenarioSettings;
  /** Waits `seconds` of operator time; only a close or delete cancels it. */
  sleep(seconds: number): Promise<void>;
  /** Waits `seconds` of operator time; a new spec change (or any kick) cancels it and reconciles again. */
  interruptibleSleep(seconds: number): Promise<void>;
  /** Reconciles this resource again after `ms` real milliseconds (e.g. at the rollback deadline). */
  reconcileAfterMs(ms: number): void;
  /**
   * flinkConfiguration keys this reconcile sets on the FlinkDeployment spec it works with (the autoscaler's
   * parallelism overrides): `readRef` applies them, the CR in the store never gets them.
   */
  inMemoryConf?: Record<string, string>;
}

/** Thrown (and swallowed by the runner) when the resource disappeared or the flow was cancelled. */
export class FlowStopped extends Error {}

export function isFlowStop(error: unknown): boolean {
  return (
    error instanceof FlowStopped ||
    (error instanceof ApiError && error.code === 404) ||
    (error instanceof Error && error.name === 'AbortError')
  );
}

/** The resource as this reconcile works with it: the operator release's model of its spec (operator-model.ts). */
export function readRef(env: FlowEnv, ref: ResourceRef): KubeObject {
  const stored = env.store.get(ref.resource, ref.namespace, ref.name);
  if (!stored) throw new FlowStopped(`${ref.resource}/${ref.namespace}/${ref.name} is gone`);
  if (ref.resource !== 'flinkdeployments' || !stored.spec) return stored;
  const object = { ...stored, spec: operatorSpec(stored.spec, env.operatorVersion) };
  if (env.inMemoryConf === undefined || !object.spec) return object;
  const flinkConfiguration = {
    ...((object.spec.flinkConfiguration as Record<string, unknown> | undefined) ?? {}),
    ...env.inMemoryConf,
  };
  return { ...object, spec: { ...object.spec, flinkConfiguration } };
}

export function hex(random: () => number, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += Math.floor(random() * 16).toString(16);
  return out;
}

/** A Flink JobID: 32 hex digits. */
export function newJobId(env: FlowEnv): string {
  return hex(env.random, 32);
}

/** Where stop-with-savepoint or a triggered savepoint writes: `<dir>/savepoint-<jobId[0:6]>-<12 hex>`. */
export function newSavepointPath(env: FlowEnv, dir: string, jobId: string | undefined): string {
  return `${dir}/savepoint-${(jobId ?? hex(env.random, 6)).slice(0, 6)}-${hex(env.random, 12)}`;
}

export function emit(
  env: FlowEnv,
  involved: KubeObject,
  type: EventType,
  reason: string,
  component: Component,
  message: string,
  messageKey?: string,
  annotations?: Record<string, string>,
): void {
  recordEvent(env.store, {
    involved,
    type,
    reason,
    component,
    message,
    ...(messageKey ? { messageKey } : {}),
    ...(annotations ? { annotations } : {}),
  });
}

export function epochMs(env: FlowEnv): number {
  return env.store.now().getTime();
}

/** Real milliseconds of `seconds` operator time at this speed. */
export function realMs(env: FlowEnv, seconds: number): number {
  return scaledMs(env.speed, seconds);
}
