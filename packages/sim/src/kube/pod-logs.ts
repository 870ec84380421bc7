// The `log` subresource of the simulated pods: Flink's log4j console layout (`%d %-5p %-60c %x - %m`), written from
// what happened to the job — the JobManager starting, the job submitted and RUNNING, checkpoints (as the REST API
// counts them), each JobException failover recorded as an event, a FAILED job's exception — with kube's answers to
// `container`, `tailLines`, `limitBytes` and `previous`. Every JobManager log carries secret-looking program arguments, so the bot's
// masking can be seen working.
import type { FlinkRest } from './flink-rest.js';
import { FLINK_MAIN_CONTAINER, type SimPod, type SimPods } from './pods.js';
import { errors } from './status.js';
import { ApiError, type KubeObject, type SimStore } from './store.js';

/** Planted in every JobManager log's program arguments (docs/sandbox.md#pod-logs): an AWS-style key and a password. */
export const PLANTED_SECRETS = { accessKey: 'AKIA2SIMULATEDLEAK7Q', password: 'hunter2' } as const;

export interface PodLogSources {
  store: SimStore;
  /** The JobManagers' REST API: checkpoint counts come from it, so the log agrees with what REST reports. */
  rest: FlinkRest | undefined;
}

interface Entry {
  at: number;
  level: 'INFO' | 'WARN' | 'ERROR';
  logger: string;
  message: string;
}

type Raw = Record<string, unknown>;
const rec = (v: unknown): Raw => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Raw) : {});
const FLINK_VERSION = '1.20.0';
const EG = 'org.apache.flink.runtime.executiongraph.ExecutionGraph';
const ENTRY = 'org.apache.flink.runtime.entrypoint.ClusterEntrypoint';
const COORDINATOR = 'org.apache.flink.runtime.checkpoint.CheckpointCoordinator';
/** A long-running fast simulation completes thousands of checkpoints; the log keeps the latest of them. */
const MAX_CHECKPOINTS = 1000;

/** GET `/api/v1/namespaces/<ns>/pods/<pod>/log`: the text, or the 400/404/422 kube answers. */
export function podLog(pods: SimPods, sources: PodLogSources, namespace: string, name: string, query: URLSearchParams) {
  const pod = pods.pod(namespace, name);
  const container = query.get('container') ?? FLINK_MAIN_CONTAINER;
  if (container !== FLINK_MAIN_CONTAINER)
    throw errors.badRequest(`container ${container} is not valid for pod ${name}`);
  const tail = tailLinesOf(query.get('tailLines'), name);
  const limit = limitBytesOf(query.get('limitBytes'), name);
  if (query.get('previous') === 'true' || query.get('previous') === '1')
    throw errors.badRequest(`previous terminated container "${container}" in pod "${name}" not found`);
  if (pod.waiting)
    throw errors.badRequest(`container "${container}" in pod "${name}" is waiting to start: ${pod.waiting.message}`);
  const owner = sources.store.get('flinkdeployments', namespace, pod.owner.name);
  const lines = owner === undefined ? [] : render(entriesOf(pod, owner, sources));
  const shown = tail === undefined ? lines : lines.slice(Math.max(0, lines.length - tail));
  const text = shown.map((l) => `${l}\n`).join('');
  // kube's LimitBytes: the tail's first `limitBytes` bytes, cut wherever that falls.
  const body = limit === undefined ? text : Buffer.from(text).subarray(0, limit);
  return { status: 200, contentType: 'text/plain', body };
}

/** `limitBytes`: a whole number of at least 1 (PodLogOptions validation), else 400/422 as kube answers. */
function limitBytesOf(text: string | null, pod: string): number | undefined {
  if (text === null) return undefined;
  if (!/^-?\d+$/.test(text)) throw errors.badRequest(`strconv.ParseInt: parsing "${text}": invalid syntax`);
  const n = Number(text);
  if (n < 1)
    throw new ApiError(
      422,
      'Invalid',
      `PodLogOptions "${pod}" is invalid: limitBytes: Invalid value: ${n}: must be greater than 0`,
    );
  return n;
}

function tailLinesOf(text: string | null, pod: string): number | undefined {
  if (text === null) return undefined;
  if (!/^-?\d+$/.test(text)) throw errors.badRequest(`strconv.ParseInt: parsing "${text}": invalid syntax`);
  const n = Number(text);
  if (n < 0)
    throw new ApiError(
      422,
      'Invalid',
      `PodLogOptions "${pod}" is invalid: tailLines: Invalid value: ${n}: must be greater than or equal to 0`,
    );
  return n;
}

/** `2026-12-02 10:00:00,123 INFO  org.apache.flink… [] - …`, a message's further lines as they are (stack traces). */
function render(entries: Entry[]): string[] {
  const stamp = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('.', ',').replace('Z', '');
  return entries
    .sort((a, b) => a.at - b.at)
    .flatMap((e) => {
      const [first = '', ...rest] = e.message.split('\n');
      return [`${stamp(e.at)} ${e.level.padEnd(5)} ${e.logger.padEnd(60)} [] - ${first}`, ...rest];
    });
}

function entriesOf(pod: SimPod, owner: KubeObject, sources: PodLogSources): Entry[] {
  const status = rec(owner.status);
  const jobStatus = rec(status.jobStatus);
  const out = pod.role === 'jobmanager' ? jobManagerStart(pod, owner) : taskManagerStart(pod, owner);
  const jobId = typeof jobStatus.jobId === 'string' ? jobStatus.jobId : undefined;
  const started = Number(jobStatus.startTime);
  if (jobId !== undefined && Number.isFinite(started) && started >= pod.startedAt - 1000) {
    const at = (offset: number) => Math.max(started, pod.startedAt) + offset;
    const name = String(jobStatus.jobName ?? owner.metadata.name);
    if (pod.role === 'jobmanager') {
      out.push(
        info(
          at(10),
          'org.apache.flink.runtime.dispatcher.StandaloneDispatcher',
          `Submitting job '${name}' (${jobId}).`,
        ),
      );
      out.push(info(at(40), EG, `Job ${name} (${jobId}) switched from state CREATED to RUNNING.`));
      out.push(...checkpoints(owner, jobId, sources.rest));
      out.push(...failure(owner, name, jobId));
    } else {
      out.push(
        info(at(60), 'org.apache.flink.runtime.taskexecutor.TaskExecutor', `Receive slot request for job ${jobId}.`),
      );
    }
  }
  out.push(...failovers(pod, owner, sources.store));
  return out.filter((e) => e.at >= pod.startedAt && e.at <= sources.store.now().getTime() + 1);
}

function info(at: number, logger: string, message: string): Entry {
  return { at, level: 'INFO', logger, message };
}

function jobManagerStart(pod: SimPod, owner: KubeObject): Entry[] {
  const t = pod.startedAt;
  const session = rec(owner.spec).job === undefined;
  const conf = Object.entries(rec(rec(owner.spec).flinkConfiguration)).map(([k, v]) =>
    info(
      t + 2,
      'org.apache.flink.configuration.GlobalConfiguration',
      `Loading configuration property: ${k}, ${String(v)}`,
    ),
  );
  const line = (message: string) => info(t, ENTRY, message);
  return [
    line('-'.repeat(80)),
    line(
      ` Starting Kubernetes${session ? 'Session' : 'Application'}ClusterEntrypoint (Version: ${FLINK_VERSION}, Scala: 2.12)`,
    ),
    line(' OS current user: flink'),
    line(' JVM: OpenJDK 64-Bit Server VM - Eclipse Adoptium - 17/17.0.13+11'),
    line(' Program Arguments:'),
    line(`    -Ds3.secret-key=${PLANTED_SECRETS.accessKey}`),
    line(
      `    --db-url jdbc:postgresql://db:5432/${owner.metadata.name}?user=flink&password=${PLANTED_SECRETS.password}`,
    ),
    line('-'.repeat(80)),
    ...conf,
    info(
      t + 5,
      'org.apache.flink.runtime.rpc.pekko.PekkoRpcServiceUtils',
      `Actor system started at pekko.tcp://flink@${owner.metadata.name}.${owner.metadata.namespace}:6123`,
    ),
    info(
      t + 8,
      'org.apache.flink.runtime.dispatcher.runner.JobDispatcherLeaderProcess',
      'Start JobDispatcherLeaderProcess.',
    ),
  ];
}

function taskManagerStart(pod: SimPod, owner: KubeObject): Entry[] {
  const t = pod.startedAt;
  const runner = 'org.apache.flink.runtime.taskexecutor.TaskManagerRunner';
  return [
    info(t, runner, '-'.repeat(80)),
    info(t, runner, ` Starting TaskManager (Version: ${FLINK_VERSION}, Scala: 2.12)`),
    info(t, runner, '-'.repeat(80)),
    info(
      t + 30,
      'org.apache.flink.runtime.taskexecutor.TaskExecutor',
      `Successful registration at resource manager pekko.tcp://flink@${owner.metadata.name}.${owner.metadata.namespace}:6123/user/rpc/resourcemanager_0 under registration id ${pod.object.metadata.uid ?? ''}.`,
    ),
  ];
}

/** Triggered and completed lines per checkpoint the REST API reports for the job's current run. */
function checkpoints(owner: KubeObject, jobId: string, rest: FlinkRest | undefined): Entry[] {
  if (rest === undefined) return [];
  const answer = rest.get(owner.metadata.namespace, `${owner.metadata.name}-rest`, `/jobs/${jobId}/checkpoints`);
  if (answer.status !== 200) return [];
  const body = rec(answer.body);
  const completed = Number(rec(body.counts).completed) || 0;
  const latest = rec(rec(body.latest).completed);
  const lastId = Number(latest.id);
  const lastAt = Number(latest.trigger_timestamp);
  const start = Number(rec(rec(owner.status).jobStatus).startTime);
  if (completed <= 0 || !Number.isFinite(lastId) || !Number.isFinite(lastAt)) return [];
  const every = (lastAt - start) / completed;
  const out: Entry[] = [];
  for (let n = Math.max(1, completed - MAX_CHECKPOINTS + 1); n <= completed; n++) {
    const id = lastId - completed + n;
    const at = Math.round(start + n * every);
    out.push(
      info(
        at,
        COORDINATOR,
        `Triggering checkpoint ${id} (type=CheckpointType{name='Checkpoint', sharingFilesStrategy=FORWARD_BACKWARD}) @ ${at} for job ${jobId}.`,
      ),
    );
    out.push(
      info(
        at + 120,
        COORDINATOR,
        `Completed checkpoint ${id} for job ${jobId} (${20_480 + (id % 7) * 512} bytes, checkpointDuration=120 ms, finalizationTime=3 ms).`,
      ),
    );
  }
  return out;
}

/** A FAILED job: the job failing with the exception the operator reported in `status.error`. */
function failure(owner: KubeObject, name: string, jobId: string): Entry[] {
  const status = rec(owner.status);
  const jobStatus = rec(status.jobStatus);
  if (jobStatus.state !== 'FAILED') return [];
  const at = Number(jobStatus.updateTime) || Date.now();
  let error: Raw;
  try {
    error = rec(JSON.parse(String(status.error ?? '{}')));
  } catch {
    error = { message: String(status.error) };
  }
  const causes = Array.isArray(error.throwableList) ? error.throwableList.map(rec) : [];
  const trace = [
    `${String(error.type ?? 'org.apache.flink.runtime.JobException')}: ${String(error.message ?? 'the job failed')}`,
    '\tat org.apache.flink.runtime.executiongraph.failover.ExecutionFailureHandler.handleFailure(ExecutionFailureHandler.java:180)',
    ...causes.map((c) => `Caused by: ${String(c.type ?? 'java.lang.Exception')}: ${String(c.message ?? '')}`),
  ].join('\n');
  return [
    info(at - 5, EG, `Job ${name} (${jobId}) switched from state RUNNING to FAILING.\n${trace}`),
    info(at, EG, `Job ${name} (${jobId}) switched from state FAILING to FAILED.`),
  ];
}

/** The JobException events of the deployment: the JobManager logs each failover; a TaskManager the ones on it. */
function failovers(pod: SimPod, owner: KubeObject, store: SimStore): Entry[] {
  return store
    .list('events', owner.metadata.namespace)
    .filter((e) => e.reason === 'JobException' && rec(e.involvedObject).uid === owner.metadata.uid)
    .flatMap((e) => {
      const notes = rec(e.metadata.annotations);
      // Events of earlier runs were recorded before this pod started; the exception itself may predate the pod's
      // creation by a moment (the observer reads the history late), so it is shown as the pod's.
      const recorded = Date.parse(String(e.lastTimestamp ?? ''));
      if (!(recorded >= Math.floor(pod.startedAt / 1000) * 1000)) return [];
      const thrown = Date.parse(String(notes['exception-timestamp'] ?? '')) || recorded;
      const at = Math.max(thrown, pod.startedAt + 60);
      const task = String(notes['task-name'] ?? 'a task');
      const where = `${String(notes['tm-id'] ?? 'a TaskManager')} @ ${String(notes.endpoint ?? 'unknown')}`;
      const trace = String(e.message ?? '');
      if (pod.role === 'taskmanager') {
        if (notes['tm-id'] !== pod.object.metadata.name) return [];
        return [
          {
            at,
            level: 'WARN' as const,
            logger: 'org.apache.flink.runtime.taskmanager.Task',
            message: `${task} switched from RUNNING to FAILED with failure cause:\n${trace}`,
          },
        ];
      }
      return [
        info(at, EG, `${task} switched from RUNNING to FAILED on ${where}.\n${trace}`),
        info(
          at + 2,
          'org.apache.flink.runtime.executiongraph.failover.RestartPipelinedRegionFailoverStrategy',
          `Calculating tasks to restart to recover the failed task.`,
        ),
        info(at + 4, EG, `Job ${owner.metadata.name} switched from state RUNNING to RESTARTING.`),
        info(at + 1004, EG, `Job ${owner.metadata.name} switched from state RESTARTING to RUNNING.`),
      ];
    });
}
