// What happens to a running job on its own and the operator's observer reports: task failovers (a `JobException`
// Warning per new root exception in the job's exception history), and with a knob the job failing for good.
// Driven by timers after the job reaches RUNNING, not by reconciles, so healthy jobs show them as real ones do.
import { COMPONENTS, EVENT_TYPES, jobExceptionKey, recordEvent } from './events.js';
import { errorJson, writeStatus, type ResourceRef } from './flink-status.js';
import { exceptionChain } from './reconcile-errors.js';
import { jobConf, refOf } from './resource-conf.js';
import { jobExceptionCount, type ScenarioSettings } from './scenarios.js';
import { checkpointDir, effectiveParallelism, jobOf, type Spec } from './spec-json.js';
import { scaledMs, STEP_SECONDS, type Speed } from './speed.js';
import type { KubeObject, SimStore } from './store.js';

/** Chance per reconcile interval that a running job has a task failover, when ambient failovers are on. */
const AMBIENT_FAILOVER_CHANCE = 1 / 20;
const TASKS = [
  'Source: Kafka events -> Map',
  'KeyedProcess -> Filter',
  'Window(TumblingEventTimeWindows) -> Sink: Kafka alerts',
];
const JOB_FAILURE = {
  type: 'org.apache.flink.runtime.JobException',
  message: 'Recovery is suppressed by NoRestartBackoffTimeStrategy',
};

export interface IncidentOptions {
  store: SimStore;
  speed: Speed;
  random: () => number;
  settings(object: KubeObject): ScenarioSettings;
  /** Occasional task failovers on every running job (the realistic demo), with or without knobs. */
  ambient: boolean;
}

export class JobIncidents {
  /** Per resource: the run (uid, jobId, start time) whose knob incidents are already scheduled. */
  private readonly scheduled = new Map<string, string>();
  private readonly failovers = new Map<string, number>();
  /** Per resource: the run the `job-restarting` knob was spent on (a redeploy afterwards runs normally). */
  private readonly restarting = new Map<string, string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly ambientTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly options: IncidentOptions) {
    if (options.ambient)
      this.ambientTimer = setInterval(
        () => this.ambientTick(),
        scaledMs(options.speed, STEP_SECONDS.reconcileInterval),
      );
  }

  /** Looks at a job resource after a change (status or knob): a new run of a RUNNING job gets its knobs' incidents. */
  observe(object: KubeObject): void {
    const run = runOf(object);
    const key = keyOf(object);
    if (this.closed) return;
    this.observeRestarting(object, key, run);
    if (run === undefined || this.scheduled.get(key) === run) return;
    const settings = this.options.settings(object);
    const count = jobExceptionCount(settings);
    const fails = settings.scenarios.has('job-failure');
    if (count === 0 && !fails) return;
    this.scheduled.set(key, run);
    const ref = refOf(object);
    for (let i = 1; i <= count; i++)
      this.later(i * STEP_SECONDS.jobException, ref, run, (current) => this.failover(current));
    if (fails) this.later((count + 1) * STEP_SECONDS.jobException, ref, run, (current) => this.failJob(current));
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
  private observeRestarting(object: KubeObject, key: string, run: string | undefined): void {
    const knob = this.options.settings(object).scenarios.has('job-restarting');
    const spentOn = this.restarting.get(key);
    if (knob && run !== undefined && spentOn === undefined) {
      this.restarting.set(key, run);
      this.later(STEP_SECONDS.jobException, refOf(object), run, (current) => this.startRestarting(current, run, 1));
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

  /** Runs `action` after `seconds` of operator time if the job is still in the same run (RUNNING, same jobId). */
  private later(seconds: number, ref: ResourceRef, run: string, action: (current: KubeObject) => void): void {
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        const current = this.options.store.get(ref.resource, ref.namespace, ref.name);
        if (!this.closed && current && runOf(current) === run) action(current);
      },
      scaledMs(this.options.speed, seconds),
    );
    this.timers.add(timer);
  }

  private ambientTick(): void {
    const { store, random } = this.options;
    for (const object of [...store.list('flinkdeployments'), ...store.list('flinksessionjobs')]) {
      if (runOf(object) !== undefined && random() < AMBIENT_FAILOVER_CHANCE) this.failover(object);
    }
  }

  /** One task failover: the job restarts its tasks and stays RUNNING; the observer reports the root exception. */
  private failover(object: KubeObject): void {
    const n = (this.failovers.get(keyOf(object)) ?? 0) + 1;
    this.failovers.set(keyOf(object), n);
    this.emitException(object, `java.lang.RuntimeException: Simulated task failure #${n}`, n);
  }

  /**
   * The job fails for good (no restart strategy left). JobStatusObserver records the failure cause (`Error`
   * event and status.error), `JobStatusChanged`, then the root exception; the status patch comes last. No
   * checkpoint completed, so upgradeSavepointPath stays what it was.
   */
  private failJob(object: KubeObject): void {
    const { store, random } = this.options;
    const root = `java.lang.RuntimeException: Simulated fatal failure of job ${object.metadata.name}`;
    const cause = { type: 'java.lang.RuntimeException', message: root.slice('java.lang.RuntimeException: '.length) };
    const failure = { ...JOB_FAILURE, causes: [cause] };
    recordEvent(store, {
      involved: object,
      type: EVENT_TYPES.warning,
      reason: 'Error',
      component: COMPONENTS.job,
      message: exceptionChain(failure),
    });
    recordEvent(store, {
      involved: object,
      type: EVENT_TYPES.normal,
      reason: 'JobStatusChanged',
      component: COMPONENTS.job,
      message: 'Job status changed from RUNNING to FAILED',
    });
    this.emitException(object, root, 0);
    writeStatus(
      store,
      refOf(object),
      (status) => {
        const jobStatus = (status.jobStatus ??= {});
        jobStatus.state = 'FAILED';
        jobStatus.updateTime = String(store.now().getTime());
        // SnapshotObserver.observeLatestCheckpoint: a terminal job's last completed checkpoint becomes the path a
        // later resume (or NOOP savepoint suspend) restores from. After an HA last-state deploy the placeholder
        // stays (the last checkpoint is unknown to the operator), which is what later makes an upgrade fail.
        const dir = checkpointDir(jobConf(store, object));
        const placeholder = jobStatus.upgradeSavepointPath === 'KUBERNETES_OPERATOR_LAST_STATE';
        if (dir !== undefined && !placeholder && typeof jobStatus.jobId === 'string') {
          jobStatus.upgradeSavepointPath = `${dir}/${jobStatus.jobId}/chk-${1 + Math.floor(random() * 500)}`;
        }
        status.error = errorJson(JOB_FAILURE.type, JOB_FAILURE.message, [cause]);
      },
      { conditions: true },
    );
  }

  private emitException(object: KubeObject, headline: string, n: number): void {
    const { store, random } = this.options;
    const parallelism = effectiveParallelism((object.spec ?? {}) as Spec);
    const task = `${TASKS[n % TASKS.length] as string} (${1 + Math.floor(random() * parallelism)}/${parallelism})`;
    const message = stackTraceHead(`${headline} in ${task}`);
    // The exception happened a moment before the observer fetched the history.
    const at = new Date(store.now().getTime() - 500 - Math.floor(random() * 2000));
    const annotations = {
      'exception-timestamp': javaInstant(at),
      'task-name': task,
      endpoint: `10.244.${1 + Math.floor(random() * 8)}.${10 + Math.floor(random() * 200)}:6121`,
      'tm-id': `${object.metadata.name}-taskmanager-1-${1 + Math.floor(random() * 4)}`,
    };
    const involved = object;
    recordEvent(store, {
      involved,
      type: EVENT_TYPES.warning,
      reason: 'JobException',
      component: COMPONENTS.job,
      message,
      messageKey: jobExceptionKey(message),
      annotations,
    });
  }
}

/** The first lines of the stack trace, cut as kubernetes.operator.events.exceptions.stacktrace-lines (5) cuts them. */
function stackTraceHead(headline: string): string {
  return [
    headline,
    '\tat org.apache.flink.streaming.examples.statemachine.StateMachineExample$StateMachineMapper.flatMap(StateMachineExample.java:214)',
    '\tat org.apache.flink.streaming.api.operators.StreamFlatMap.processElement(StreamFlatMap.java:47)',
    '\tat org.apache.flink.streaming.runtime.tasks.OneInputStreamTask$StreamTaskNetworkOutput.emitRecord(OneInputStreamTask.java:238)',
    '\tat org.apache.flink.streaming.runtime.io.AbstractStreamTaskNetworkInput.processElement(AbstractStreamTaskNetworkInput.java:157)',
    '... (31 more lines)',
  ].join('\n');
}

/** java.time.Instant#toString: milliseconds only when there are some. */
function javaInstant(date: Date): string {
  return date.toISOString().replace('.000Z', 'Z');
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
