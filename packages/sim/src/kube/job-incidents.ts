// What happens to a running job on its own and the operator's observer reports: task failovers (a `JobException`
// Warning per new root exception in the job's exception history), and with a knob the job failing for good (also
// when subtasks waited for a slot until `slot.request.timeout`).
// Driven by timers after the job reaches RUNNING, not by reconciles, so healthy jobs show them as real ones do;
// `incidents-after` holds them back, so a change is followed minutes later by restarts, failing checkpoints or a
// FAILED job (docs/sandbox.md#what-the-simulated-operator-does-on-real-jobs).
import { COMPONENTS, EVENT_TYPES, recordEvent } from './events.js';
import { writeStatus, type ResourceRef } from './flink-status.js';
import { emitJobException, recordJobFailure } from './job-exception-events.js';
import { jobConf, refOf } from './resource-conf.js';
import { slotRequestTimedOut, slotRequestTimeoutSeconds } from './slot-requests.js';
import type { JobManagerState } from './jobmanager-state.js';
import { incidentsAfterSeconds, jobExceptionCount, type Scenario, type ScenarioSettings } from './scenarios.js';
import { jobOf } from './spec-json.js';
import { scaledMs, STEP_SECONDS, type Speed } from './speed.js';
import type { KubeObject, SimStore } from './store.js';

/**
 * Chance per reconcile interval that a running job has a task failover, when random failovers are on for it (the
 * `random-failovers` knob) or for every job (`ambient`); off by default, so the walkthrough is the same on every run
 * (docs/sandbox.md#jobs-that-go-wrong-later-on-their-own).
 */
const AMBIENT_FAILOVER_CHANCE = 1 / 20;
export interface IncidentOptions {
  store: SimStore;
  speed: Speed;
  random: () => number;
  settings(object: KubeObject): ScenarioSettings;
  /** Where a run's checkpoints are told to start failing (read by the REST API and the checkpoint model). */
  jobManagers: JobManagerState;
  /** Occasional task failovers on every running job, with or without knobs (else only where `random-failovers` is set). */
  ambient: boolean;
}

/** The knob incidents of a run, each scheduled at most once per run. */
type Incident = 'failovers' | 'failure' | 'restarting' | 'checkpoints' | 'slots';

export class JobIncidents {
  /** Per resource: the run (uid, jobId, start time) and which of its knob incidents are already scheduled. */
  private readonly scheduled = new Map<string, { run: string; incidents: Set<Incident> }>();
  private readonly failovers = new Map<string, number>();
  /** Per resource: the run the `job-restarting` knob was spent on (a redeploy afterwards runs normally). */
  private readonly restarting = new Map<string, string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Started by the first job that may fail over at random (`ambient`, or a `random-failovers` knob). */
  private ambientTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly options: IncidentOptions) {
    if (options.ambient) this.startRandomFailovers();
  }

  /**
   * Looks at a job resource after a change (status or knob): a RUNNING run gets the incidents of its knobs,
   * each once. They start `incidents-after` from now (the run just reached RUNNING, or the knob was just set on
   * it), else after one step; a knob cleared before its incident is due cancels it.
   */
  observe(object: KubeObject): void {
    if (this.closed) return;
    const run = runOf(object);
    const key = keyOf(object);
    const settings = this.options.settings(object);
    if (settings.scenarios.has('random-failovers')) this.startRandomFailovers();
    const first = incidentsAfterSeconds(settings) ?? STEP_SECONDS.jobException;
    this.observeRestarting(object, key, run, first);
    if (run === undefined) return;
    const ref = refOf(object);
    const count = jobExceptionCount(settings);
    if (count > 0 && this.claim(key, run, 'failovers'))
      for (let i = 0; i < count; i++)
        this.later(first + i * STEP_SECONDS.jobException, ref, run, 'job-exceptions', (c) => this.failover(c));
    if (settings.scenarios.has('job-failure') && this.claim(key, run, 'failure'))
      this.later(first + count * STEP_SECONDS.jobException, ref, run, 'job-failure', (c) => this.failJob(c));
    // Subtasks without a slot: their request times out, whatever `incidents-after` says.
    if (settings.scenarios.has('tasks-waiting') && this.claim(key, run, 'slots')) {
      const timeout = slotRequestTimeoutSeconds(jobConf(this.options.store, object));
      this.later(timeout, ref, run, 'tasks-waiting', (c) => recordJobFailure(this.options, c, slotRequestTimedOut()));
    }
    const delayed = incidentsAfterSeconds(settings) !== undefined;
    if (delayed && settings.scenarios.has('checkpoints-failing') && this.claim(key, run, 'checkpoints')) {
      const jobStatus = object.status?.jobStatus as { jobId: string; startTime?: string };
      const from = this.options.store.now().getTime() + scaledMs(this.options.speed, first);
      this.options.jobManagers.failCheckpointsFrom(jobStatus.jobId, String(jobStatus.startTime), from);
    }
  }

  /** True the first time `incident` is claimed for this run of the resource. */
  private claim(key: string, run: string, incident: Incident): boolean {
    let entry = this.scheduled.get(key);
    if (entry?.run !== run) {
      entry = { run, incidents: new Set() };
      this.scheduled.set(key, entry);
    }
    if (entry.incidents.has(incident)) return false;
    entry.incidents.add(incident);
    return true;
  }

  forget(object: KubeObject): void {
    this.scheduled.delete(keyOf(object));
    this.failovers.delete(keyOf(object));
    this.restarting.delete(keyOf(object));
  }

  /**
   * The `job-restarting` knob: the first run seen RUNNING while it is set keeps failing over (RESTARTING, a
   * JobException per attempt) until the job is redeployed; the knob is then spent. Cleared while the job still
   * restarts, the next attempt succeeds and the job is RUNNING again.
   */
  private observeRestarting(object: KubeObject, key: string, run: string | undefined, first: number): void {
    const knob = this.options.settings(object).scenarios.has('job-restarting');
    const spentOn = this.restarting.get(key);
    if (knob && run !== undefined && spentOn === undefined) {
      if (!this.claim(key, run, 'restarting')) return;
      this.later(first, refOf(object), run, 'job-restarting', (current) => {
        this.restarting.set(key, run);
        this.startRestarting(current, run, 1);
      });
    } else if (
      !knob &&
      spentOn !== undefined &&
      identityOf(object) === spentOn &&
      jobStateOf(object) === 'RESTARTING'
    ) {
      this.setObservedState(object, 'RUNNING');
    }
  }

  private startRestarting(object: KubeObject, run: string, attempt: number): void {
    this.emitException(object, `java.lang.RuntimeException: Simulated failure, restart attempt #${attempt}`, attempt);
    if (jobStateOf(object) !== 'RESTARTING') this.setObservedState(object, 'RESTARTING');
    const ref = refOf(object);
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        const current = this.options.store.get(ref.resource, ref.namespace, ref.name);
        if (this.closed || !current || identityOf(current) !== run || jobStateOf(current) !== 'RESTARTING') return;
        if (this.options.settings(current).scenarios.has('job-restarting'))
          this.startRestarting(current, run, attempt + 1);
      },
      scaledMs(this.options.speed, STEP_SECONDS.jobException * 5),
    );
    this.timers.add(timer);
  }

  /** A state the observer reads from Flink: `JobStatusChanged` first, then the status patch with updateTime. */
  private setObservedState(object: KubeObject, state: string): void {
    const { store } = this.options;
    const previous = jobStateOf(object);
    const message = `Job status changed from ${previous ?? 'unknown'} to ${state}`;
    recordEvent(store, {
      involved: object,
      type: EVENT_TYPES.normal,
      reason: 'JobStatusChanged',
      component: COMPONENTS.job,
      message,
    });
    writeStatus(
      store,
      refOf(object),
      (status) => {
        const jobStatus = (status.jobStatus ??= {});
        jobStatus.state = state;
        jobStatus.updateTime = String(store.now().getTime());
      },
      { conditions: true },
    );
  }

  close(): void {
    this.closed = true;
    if (this.ambientTimer) clearInterval(this.ambientTimer);
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  /**
   * Runs `action` after `seconds` of operator time if the job is still in the same run (RUNNING, same jobId)
   * and `knob` is still set on it.
   */
  private later(
    seconds: number,
    ref: ResourceRef,
    run: string,
    knob: Scenario,
    action: (current: KubeObject) => void,
  ): void {
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        const current = this.options.store.get(ref.resource, ref.namespace, ref.name);
        if (this.closed || !current || runOf(current) !== run) return;
        if (this.options.settings(current).scenarios.has(knob)) action(current);
      },
      scaledMs(this.options.speed, seconds),
    );
    this.timers.add(timer);
  }

  private startRandomFailovers(): void {
    this.ambientTimer ??= setInterval(
      () => this.ambientTick(),
      scaledMs(this.options.speed, STEP_SECONDS.reconcileInterval),
    );
  }

  private ambientTick(): void {
    const { store, random, ambient, settings } = this.options;
    for (const object of [...store.list('flinkdeployments'), ...store.list('flinksessionjobs')]) {
      if (runOf(object) === undefined) continue;
      if (!ambient && !settings(object).scenarios.has('random-failovers')) continue;
      if (random() < AMBIENT_FAILOVER_CHANCE) this.failover(object);
    }
  }

  /** One task failover: the job restarts its tasks and stays RUNNING; the observer reports the root exception. */
  private failover(object: KubeObject): void {
    const n = (this.failovers.get(keyOf(object)) ?? 0) + 1;
    this.failovers.set(keyOf(object), n);
    this.emitException(object, `java.lang.RuntimeException: Simulated task failure #${n}`, n);
  }

  private failJob(object: KubeObject): void {
    recordJobFailure(this.options, object);
  }

  private emitException(object: KubeObject, headline: string, n: number): void {
    emitJobException(this.options, object, headline, n);
  }
}

/** A job resource whose job is RUNNING: its run identity (a redeploy, even with the same jobId, is a new run). */
function runOf(object: KubeObject): string | undefined {
  if (object.kind === 'FlinkDeployment' && !jobOf(object.spec)) return undefined;
  const jobStatus = object.status?.jobStatus as { state?: string; jobId?: string; startTime?: string } | undefined;
  if (jobStatus?.state !== 'RUNNING' || !jobStatus.jobId) return undefined;
  return `${object.metadata.uid ?? ''}|${jobStatus.jobId}|${jobStatus.startTime ?? ''}`;
}

/** The run's identity whatever its state: the same job id and start time is the same run. */
function identityOf(object: KubeObject): string {
  const jobStatus = object.status?.jobStatus as { jobId?: string; startTime?: string } | undefined;
  return `${object.metadata.uid ?? ''}|${jobStatus?.jobId ?? ''}|${jobStatus?.startTime ?? ''}`;
}

function jobStateOf(object: KubeObject): string | undefined {
  return (object.status?.jobStatus as { state?: string } | undefined)?.state;
}

function keyOf(object: KubeObject): string {
  return `${object.kind}/${object.metadata.namespace}/${object.metadata.name}`;
}
