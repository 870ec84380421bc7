// The simulated Flink Kubernetes Operator (1.15 or 1.16, versions.ts): watches the store, schedules one reconcile per resource at a time.
import { setTimeout as delay } from 'node:timers/promises';
import { JobManagerState } from './jobmanager-state.js';
import { scheduleAutoscaler } from './autoscaler.js';
import { deleteAutoscalerState } from './autoscaler-state.js';
import type { Logger } from '../bot.js';
import { isFlowStop, type FlowEnv, type ResourceMemo } from './flow-env.js';
import type { ResourceRef } from './flink-status.js';
import { JobIncidents } from './job-incidents.js';
import { wantsResubmit } from './job-resubmit.js';
import { reconcileJobResource } from './reconcile-job.js';
import {
  SCENARIO_ANNOTATION,
  ScenarioRegistry,
  SLOW_SECONDS_ANNOTATION,
  type ScenarioSettings,
  type ScenarioSpec,
} from './scenarios.js';
import { reconcileSnapshot } from './snapshots.js';
import { scaledMs, STEP_SECONDS, type Speed } from './speed.js';
import type { KubeObject, SimResource, SimStore, StoreChange } from './store.js';
import type { OperatorVersion } from './versions.js';

export interface SimOperatorOptions {
  store: SimStore;
  speed?: Speed;
  /** Source of job ids, savepoint names and checkpoint numbers (inject a seeded one for repeatable runs). */
  random?: () => number;
  logger?: Logger;
  /** Occasional task failovers (JobException events) on every running job, as a live cluster has; off by default. */
  ambientJobExceptions?: boolean;
  /** What the JobManagers know beyond the CR status (shared with the simulated REST API); default a private one. */
  jobManagers?: JobManagerState;
  /** The release it behaves as (default 1.15): the spec model, validation, snapshot retries. */
  version?: OperatorVersion;
}

type Watched = Extract<SimResource, 'flinkdeployments' | 'flinksessionjobs' | 'flinkstatesnapshots'>;

interface Runtime {
  key: string;
  resource: Watched;
  namespace: string;
  name: string;
  memo: ResourceMemo;
  signature?: string;
  jobManager?: string;
  running?: { controller: AbortController; interruptible: boolean };
  /** Another reconcile is wanted once the running one ends. */
  pending: boolean;
  kickTimer?: NodeJS.Timeout;
  deadlineTimer?: NodeJS.Timeout;
}

export class SimOperator {
  readonly store: SimStore;
  readonly speed: Speed;
  readonly version: OperatorVersion;
  private readonly random: () => number;
  private readonly log: Logger | undefined;
  private readonly registry = new ScenarioRegistry();
  private readonly runtimes = new Map<string, Runtime>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly incidents: JobIncidents;
  readonly jobManagers: JobManagerState;
  private unsubscribe: (() => void) | undefined;
  private closed = false;

  /** The knobs in force for a resource (its annotation and those set programmatically). */
  settingsOf(object: KubeObject): ScenarioSettings {
    return this.registry.settings(object.metadata.namespace, object.metadata.name, object.metadata.annotations);
  }

  constructor(options: SimOperatorOptions) {
    this.jobManagers = options.jobManagers ?? new JobManagerState();
    this.store = options.store;
    this.speed = options.speed ?? 'fast';
    this.version = options.version ?? '1.15';
    this.random = options.random ?? Math.random;
    this.log = options.logger;
    this.incidents = new JobIncidents({
      store: this.store,
      speed: this.speed,
      random: this.random,
      settings: (object) =>
        this.registry.settings(object.metadata.namespace, object.metadata.name, object.metadata.annotations),
      jobManagers: this.jobManagers,
      ambient: options.ambientJobExceptions ?? false,
    });
  }

  /** Subscribes to the store and reconciles what is already there. */
  start(): this {
    if (this.unsubscribe) return this;
    this.unsubscribe = this.store.subscribe((change) => this.onChange(change));
    for (const resource of ['flinkdeployments', 'flinksessionjobs', 'flinkstatesnapshots'] as const) {
      for (const object of this.store.list(resource)) this.observe(resource, object);
    }
    return this;
  }

  /**
   * Sets failure knobs for `namespace/name` (FlinkDeployment or FlinkSessionJob); they stay until cleared. A knob
   * may carry a value: `savepoint-failure=once`, `job-exceptions=2`, `image-pull-failure=30s`, `slow-reconcile=40`.
   */
  setScenario(
    namespace: string,
    name: string,
    scenario: ScenarioSpec | readonly ScenarioSpec[],
    options: { slowReconcileSeconds?: number } = {},
  ): void {
    this.registry.set(namespace, name, scenario, options);
    this.kickNamed(namespace, name);
  }

  clearScenario(namespace: string, name: string): void {
    this.registry.clear(namespace, name);
    this.kickNamed(namespace, name);
  }

  /** Stops every reconcile and timer; resolves when running reconciles have ended. */
  async close(): Promise<void> {
    this.closed = true;
    this.unsubscribe?.();
    this.incidents.close();
    for (const runtime of this.runtimes.values()) this.stop(runtime);
    this.runtimes.clear();
    await Promise.allSettled([...this.inFlight]);
  }

  private onChange(change: StoreChange): void {
    // A FlinkBlueGreenDeployment parent is served, not reconciled: its children are FlinkDeployments like any other.
    if (
      this.closed ||
      change.resource === 'events' ||
      change.resource === 'configmaps' ||
      change.resource === 'flinkbluegreendeployments'
    )
      return;
    const resource = change.resource;
    const { namespace, name } = change.object.metadata;
    if (change.type === 'DELETED') {
      const runtime = this.runtimes.get(runtimeKey(resource, namespace, name));
      if (runtime) this.stop(runtime);
      this.runtimes.delete(runtimeKey(resource, namespace, name));
      if (resource !== 'flinkstatesnapshots') this.incidents.forget(change.object);
      // The garbage collector removes the autoscaler's ConfigMap with its owner (after this change is delivered).
      if (resource === 'flinkdeployments') queueMicrotask(() => deleteAutoscalerState(this.store, namespace, name));
      return;
    }
    this.observe(resource, change.object);
    if (resource === 'flinkstatesnapshots') return;
    this.incidents.observe(change.object);
    // A FAILED job the operator restarts by itself: its next periodic reconcile, without a spec change.
    if (wantsResubmit(this.store, change.object))
      this.kick(this.runtime(resource, namespace, name), scaledMs(this.speed, STEP_SECONDS.pickup));
  }

  /** Reconciles on what the operator reacts to: new generations, knob annotations, session-cluster readiness. */
  private observe(resource: Watched, object: KubeObject): void {
    const runtime = this.runtime(resource, object.metadata.namespace, object.metadata.name);
    const signature = signatureOf(object);
    if (runtime.signature !== signature) {
      runtime.signature = signature;
      const immediate =
        resource === 'flinkstatesnapshots' &&
        (object.spec?.savepoint as { alreadyExists?: boolean } | undefined)?.alreadyExists;
      this.kick(runtime, immediate ? 0 : scaledMs(this.speed, STEP_SECONDS.pickup));
      if (resource !== 'flinkstatesnapshots' && object.metadata.generation === 1) this.kickPendingSnapshots(object);
    }
    if (resource === 'flinkdeployments') {
      const jm = (object.status as { jobManagerDeploymentStatus?: string } | undefined)?.jobManagerDeploymentStatus;
      if (runtime.jobManager !== jm) {
        runtime.jobManager = jm;
        this.kickSessionJobs(object);
      }
    }
  }

  private runtime(resource: Watched, namespace: string, name: string): Runtime {
    const key = runtimeKey(resource, namespace, name);
    let runtime = this.runtimes.get(key);
    if (!runtime) {
      runtime = { key, resource, namespace, name, memo: {}, pending: false };
      this.runtimes.set(key, runtime);
    }
    return runtime;
  }

  private kick(runtime: Runtime, delayMs: number): void {
    if (this.closed || runtime.kickTimer) return;
    runtime.kickTimer = setTimeout(() => {
      runtime.kickTimer = undefined;
      this.run(runtime);
    }, delayMs);
  }

  private kickNamed(namespace: string, name: string): void {
    for (const resource of ['flinkdeployments', 'flinksessionjobs'] as const) {
      const object = this.store.get(resource, namespace, name);
      if (!object) continue;
      this.kick(this.runtime(resource, namespace, name), 0);
      // A knob set on a job that already runs takes effect on this run.
      this.incidents.observe(object);
    }
  }

  private kickSessionJobs(cluster: KubeObject): void {
    for (const job of this.store.list('flinksessionjobs', cluster.metadata.namespace)) {
      if (job.spec?.deploymentName === cluster.metadata.name)
        this.kick(this.runtime('flinksessionjobs', job.metadata.namespace, job.metadata.name), 0);
    }
  }

  /** A snapshot whose job reference did not resolve is looked at again when that job appears. */
  private kickPendingSnapshots(job: KubeObject): void {
    for (const snapshot of this.store.list('flinkstatesnapshots', job.metadata.namespace)) {
      const reference = snapshot.spec?.jobReference as { name?: string } | undefined;
      const state = (snapshot.status as { state?: string } | undefined)?.state;
      if (reference?.name === job.metadata.name && state === 'TRIGGER_PENDING') {
        this.kick(this.runtime('flinkstatesnapshots', snapshot.metadata.namespace, snapshot.metadata.name), 0);
      }
    }
  }

  /** One reconcile at a time per resource; a kick during an interruptible wait cancels the wait. */
  private run(runtime: Runtime): void {
    if (this.closed || this.runtimes.get(runtime.key) !== runtime) return;
    if (runtime.running) {
      runtime.pending = true;
      if (runtime.running.interruptible) runtime.running.controller.abort();
      return;
    }
    const controller = new AbortController();
    runtime.running = { controller, interruptible: false };
    const env = this.env(runtime, controller);
    const done = this.reconcile(runtime, env).finally(() => {
      runtime.running = undefined;
      this.inFlight.delete(done);
      if (runtime.pending && !this.closed && this.runtimes.get(runtime.key) === runtime) {
        runtime.pending = false;
        this.kick(runtime, 0);
      }
    });
    this.inFlight.add(done);
  }

  private async reconcile(runtime: Runtime, env: FlowEnv): Promise<void> {
    const { namespace, name } = runtime;
    try {
      if (runtime.resource === 'flinkstatesnapshots') {
        await reconcileSnapshot(env, { namespace, name });
        return;
      }
      const ref: ResourceRef = { resource: runtime.resource, namespace, name };
      if ((await reconcileJobResource(env, ref)) === 'retry') runtime.pending = true;
      scheduleAutoscaler(env, ref);
    } catch (error) {
      if (isFlowStop(error)) return;
      this.log?.error({ err: error, resource: runtime.key }, 'simulated operator: reconcile failed');
    }
  }

  private env(runtime: Runtime, controller: AbortController): FlowEnv {
    const { signal } = controller;
    return {
      store: this.store,
      speed: this.speed,
      random: this.random,
      signal,
      memo: runtime.memo,
      operatorVersion: this.version,
      jobManagers: this.jobManagers,
      ...(this.log ? { log: this.log } : {}),
      settings: (object) =>
        this.registry.settings(object.metadata.namespace, object.metadata.name, object.metadata.annotations),
      sleep: async (seconds) => {
        await delay(scaledMs(this.speed, seconds), undefined, { signal });
      },
      interruptibleSleep: async (seconds) => {
        const running = runtime.running;
        if (!running || runtime.pending) {
          const aborted = new Error('interrupted');
          aborted.name = 'AbortError';
          throw aborted;
        }
        running.interruptible = true;
        try {
          await delay(scaledMs(this.speed, seconds), undefined, { signal });
        } finally {
          running.interruptible = false;
        }
      },
      reconcileAfterMs: (ms) => {
        if (runtime.deadlineTimer) clearTimeout(runtime.deadlineTimer);
        runtime.deadlineTimer = setTimeout(
          () => {
            runtime.deadlineTimer = undefined;
            this.kick(runtime, 0);
          },
          Math.max(1, Math.ceil(ms)),
        );
      },
    };
  }

  private stop(runtime: Runtime): void {
    if (runtime.kickTimer) clearTimeout(runtime.kickTimer);
    if (runtime.deadlineTimer) clearTimeout(runtime.deadlineTimer);
    runtime.kickTimer = undefined;
    runtime.deadlineTimer = undefined;
    runtime.running?.controller.abort();
  }
}

/** Creates and starts the operator. */
export function startSimOperator(options: SimOperatorOptions): SimOperator {
  return new SimOperator(options).start();
}

function runtimeKey(resource: SimResource, namespace: string, name: string): string {
  return `${resource}/${namespace}/${name}`;
}

function signatureOf(object: KubeObject): string {
  const annotations = object.metadata.annotations ?? {};
  return `${object.metadata.uid ?? ''}|${object.metadata.generation ?? 0}|${annotations[SCENARIO_ANNOTATION] ?? ''}|${annotations[SLOW_SECONDS_ANNOTATION] ?? ''}`;
}
