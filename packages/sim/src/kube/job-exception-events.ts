// What happens when a simulated job's tasks fail: the JobMaster adds the root exception to the run's exception
// history (Flink REST `/exceptions` and `numRestarts` read it), the operator's observer records a `JobException`
// Warning for it, and for a job that fails for good the `Error` event, `JobStatusChanged` and the FAILED status.
import { COMPONENTS, EVENT_TYPES, jobExceptionKey, recordEvent } from './events.js';
import { errorJson, writeStatus } from './flink-status.js';
import type { JobFailure } from './job-failure.js';
import { exceptionChain } from './reconcile-errors.js';
import { isoInstant } from './instant.js';
import { lastCompletedCheckpoint } from './job-checkpoints.js';
import { jobConf, refOf } from './resource-conf.js';
import type { ScenarioSettings } from './scenarios.js';
import { EXCEPTION_HISTORY_SIZE, type JobManagerState } from './jobmanager-state.js';
import { checkpointDir, effectiveParallelism, type Spec } from './spec-json.js';
import { scaledMs, type Speed } from './speed.js';
import type { KubeObject, SimStore } from './store.js';

const TASKS = [
  'Source: Kafka events -> Map',
  'KeyedProcess -> Filter',
  'Window(TumblingEventTimeWindows) -> Sink: Kafka alerts',
];
const JOB_FAILURE = {
  type: 'org.apache.flink.runtime.JobException',
  message: 'Recovery is suppressed by NoRestartBackoffTimeStrategy',
};

/** What the observer's records need: the store, operator time, the source of random choices, the knobs. */
export interface ObserverEnv {
  store: SimStore;
  speed: Speed;
  random: () => number;
  jobManagers: JobManagerState;
  settings(object: KubeObject): ScenarioSettings;
}

/** One root exception of the job's history, as the observer reports it: `JobException` with its annotations. */
export function emitJobException(env: ObserverEnv, object: KubeObject, headline: string, n: number): void {
  const { store, random } = env;
  const parallelism = effectiveParallelism((object.spec ?? {}) as Spec);
  const task = `${TASKS[n % TASKS.length] as string} (${1 + Math.floor(random() * parallelism)}/${parallelism})`;
  const trace = stackTrace(`${headline} in ${task}`);
  const message = [...trace.slice(0, STACKTRACE_LINES), `... (${trace.length - STACKTRACE_LINES} more lines)`].join(
    '\n',
  );
  // The exception happened a moment (0.5–2.5 s of operator time) before the observer fetched the history.
  const at = new Date(store.now().getTime() - scaledMs(env.speed, 0.5 + random() * 2));
  const annotations = {
    'exception-timestamp': isoInstant(at),
    'task-name': task,
    endpoint: `10.244.${1 + Math.floor(random() * 8)}.${10 + Math.floor(random() * 200)}:6121`,
    'tm-id': `${object.metadata.name}-taskmanager-1-${1 + Math.floor(random() * 4)}`,
  };
  const jobStatus = (object.status?.jobStatus ?? {}) as { jobId?: string; startTime?: string };
  if (jobStatus.jobId !== undefined) {
    const entry = {
      exceptionName: headline.split(':')[0] ?? 'java.lang.Exception',
      stacktrace: trace.join('\n'),
      timestamp: at.getTime(),
      taskName: task,
      endpoint: annotations.endpoint,
      taskManagerId: annotations['tm-id'],
    };
    const size = Number(jobConf(store, object)['web.exception-history-size'] ?? EXCEPTION_HISTORY_SIZE);
    env.jobManagers.recordException(jobStatus.jobId, String(jobStatus.startTime ?? ''), entry, size);
  }
  recordEvent(store, {
    involved: object,
    type: EVENT_TYPES.warning,
    reason: 'JobException',
    component: COMPONENTS.job,
    message,
    messageKey: jobExceptionKey(message),
    annotations,
  });
}

/** The `job-failure` knob's failure: the job's own code throws. */
export function simulatedFailure(object: KubeObject): JobFailure {
  const message = `Simulated fatal failure of job ${object.metadata.name}`;
  return { root: `java.lang.RuntimeException: ${message}`, causes: [{ type: 'java.lang.RuntimeException', message }] };
}

/**
 * The job fails for good (no restart strategy left). JobStatusObserver records the failure cause (`Error`
 * event and status.error), `JobStatusChanged`, then the root exception; the status patch comes last. No
 * checkpoint completed, so upgradeSavepointPath stays what it was.
 */
export function recordJobFailure(env: ObserverEnv, object: KubeObject, cause = simulatedFailure(object)): void {
  const { store } = env;
  const latest = cause.checkpointed === false ? undefined : latestCheckpointPath(env, object);
  const wrapper = cause.wrapper ?? JOB_FAILURE;
  const failure = { ...wrapper, causes: cause.causes };
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
    message: `Job status changed from ${String((object.status?.jobStatus as { state?: string } | undefined)?.state ?? 'RUNNING')} to FAILED`,
  });
  emitJobException(env, object, cause.root, 0);
  writeStatus(
    store,
    refOf(object),
    (status) => {
      const jobStatus = (status.jobStatus ??= {});
      jobStatus.state = 'FAILED';
      jobStatus.updateTime = String(store.now().getTime());
      if (latest !== undefined) jobStatus.upgradeSavepointPath = latest;
      status.error = errorJson(wrapper.type, wrapper.message, cause.causes);
    },
    { conditions: true },
  );
}

/**
 * SnapshotObserver.observeLatestCheckpoint: for a terminal job the operator records the newest checkpoint Flink REST
 * knows — the one the run completed last, or else the one it restored (an HA last-state restore's too) — as the path
 * a later restart or resume restores from. Only when REST knows none does the HA placeholder stay, and a restart
 * then fails "Manual restore required." (docs/sandbox.md#checkpoints-and-restores).
 */
function latestCheckpointPath(env: ObserverEnv, object: KubeObject): string | undefined {
  const jobId = (object.status?.jobStatus as { jobId?: unknown } | undefined)?.jobId;
  if (typeof jobId !== 'string') return undefined;
  const dir = checkpointDir(jobConf(env.store, object));
  const id = lastCompletedCheckpoint(env, object);
  return dir === undefined || id === 0 ? undefined : `${dir}/${jobId}/chk-${id}`;
}

/** kubernetes.operator.events.exceptions.stacktrace-lines (5): the event carries this many lines of the trace. */
const STACKTRACE_LINES = 5;

/** A stack trace of 36 lines, as Flink's exception history holds it. */
function stackTrace(headline: string): string[] {
  return [
    headline,
    '\tat org.apache.flink.streaming.examples.statemachine.StateMachineExample$StateMachineMapper.flatMap(StateMachineExample.java:214)',
    '\tat org.apache.flink.streaming.api.operators.StreamFlatMap.processElement(StreamFlatMap.java:47)',
    '\tat org.apache.flink.streaming.runtime.tasks.OneInputStreamTask$StreamTaskNetworkOutput.emitRecord(OneInputStreamTask.java:238)',
    '\tat org.apache.flink.streaming.runtime.io.AbstractStreamTaskNetworkInput.processElement(AbstractStreamTaskNetworkInput.java:157)',
    ...Array.from({ length: 31 }, () => '\tat org.apache.flink.runtime.taskmanager.Task.run(Task.java:566)'),
  ];
}
