// FlinkStateSnapshot reconciliation: TRIGGER_PENDING → IN_PROGRESS → COMPLETED | FAILED | ABANDONED, with retries
// (unlimited on 1.16 when backoffLimit is -1 or omitted).
import { COMPONENTS, EVENT_TYPES } from './events.js';
import { emit, epochMs, FlowStopped, hex, newSavepointPath, realMs, type FlowEnv } from './flow-env.js';
import { errorJson, ERROR_TYPES, writeStatus, type ErrorCause } from './flink-status.js';
import { isoInstant } from './instant.js';
import { lastCompletedCheckpoint } from './job-checkpoints.js';
import { observeJobState, setJobState } from './job-steps.js';
import { kindOf, refOf, sessionClusterOf } from './resource-conf.js';
import { savepointFailureMode } from './scenarios.js';
import { API_VERSION, checkpointDir, savepointDir, specConf, type FlinkConf } from './spec-json.js';
import { STEP_SECONDS } from './speed.js';
import type { KubeObject } from './store.js';

export const SNAPSHOT_LABELS = {
  type: 'snapshot.type',
  triggerType: 'snapshot.trigger-type',
  state: 'snapshot.state',
  referenceKind: 'job-reference.kind',
  referenceName: 'job-reference.name',
} as const;

type SnapshotStatus = Record<string, unknown> & { state?: string; failures?: number; path?: string };
interface SnapshotRef {
  namespace: string;
  name: string;
}
interface JobReference {
  kind?: string;
  name?: string;
}

/** The UPGRADE snapshot a stop-with-savepoint leaves: `<name>-savepoint-upgrade-<epochMs>`, alreadyExists. */
export function createUpgradeSnapshot(env: FlowEnv, job: KubeObject, path: string): KubeObject {
  let stamp = epochMs(env);
  while (
    env.store.get('flinkstatesnapshots', job.metadata.namespace, `${job.metadata.name}-savepoint-upgrade-${stamp}`)
  )
    stamp += 1;
  return env.store.create('flinkstatesnapshots', {
    apiVersion: API_VERSION,
    kind: 'FlinkStateSnapshot',
    metadata: {
      name: `${job.metadata.name}-savepoint-upgrade-${stamp}`,
      namespace: job.metadata.namespace,
      labels: { [SNAPSHOT_LABELS.triggerType]: 'UPGRADE' },
    },
    spec: {
      // FlinkStateSnapshotUtils builds it with Lombok's builder, which skips the field's -1 initialiser.
      backoffLimit: 0,
      jobReference: { kind: job.kind, name: job.metadata.name },
      savepoint: { alreadyExists: true, disposeOnDelete: false, formatType: 'CANONICAL', path },
    },
  });
}

/**
 * Runs one snapshot to a terminal state, or leaves it TRIGGER_PENDING while its target does not exist (then the
 * validation runs again every reconcile interval, each time with a ValidationError).
 */
export async function reconcileSnapshot(env: FlowEnv, ref: SnapshotRef): Promise<void> {
  let snapshot = read(env, ref);
  if (!snapshot) return;
  if (!statusOf(snapshot).state)
    snapshot = write(env, ref, (s) => Object.assign(s, { state: 'TRIGGER_PENDING', failures: 0 }));
  if (statusOf(snapshot).state !== 'TRIGGER_PENDING') return;
  const spec = snapshot.spec ?? {};
  const savepoint = spec.savepoint as { alreadyExists?: boolean; path?: string } | undefined;
  if (savepoint?.alreadyExists) {
    const now = isoInstant(env.store.now());
    write(env, ref, (s) =>
      Object.assign(s, { state: 'COMPLETED', path: savepoint.path ?? '', triggerTimestamp: now, resultTimestamp: now }),
    );
    return;
  }
  const reference = (spec.jobReference ?? {}) as JobReference;
  if (!findJob(env, snapshot, reference)) {
    const message = `Target for snapshot ${snapshot.metadata.namespace}/${reference.name ?? ''} was not found`;
    emit(env, snapshot, EVENT_TYPES.warning, 'ValidationError', COMPONENTS.operator, message);
    env.reconcileAfterMs(realMs(env, STEP_SECONDS.reconcileInterval));
    return;
  }
  await runAttempts(env, ref, reference);
}

async function runAttempts(env: FlowEnv, ref: SnapshotRef, reference: JobReference): Promise<void> {
  for (;;) {
    const job = runningJob(env, ref, reference);
    if (!job) return abandon(env, ref, reference);
    const outcome = await attempt(env, ref, reference, job);
    if (outcome === undefined) return;
    if (outcome.ok) {
      const snapshot = read(env, ref);
      if (snapshot && outcome.warning)
        emit(env, snapshot, EVENT_TYPES.warning, 'CheckpointError', COMPONENTS.snapshot, outcome.warning);
      write(env, ref, (s) => {
        Object.assign(s, { state: 'COMPLETED', path: outcome.path, resultTimestamp: isoInstant(env.store.now()) });
        delete s.error;
      });
      return;
    }
    const failures = recordFailure(env, ref, outcome);
    if (failures === undefined) return;
    await env.sleep(10 * 2 ** (failures - 1));
  }
}

/**
 * One trigger and its result. A trigger that throws fails at once; otherwise IN_PROGRESS, and the observer
 * polls the target's CURRENT jobId: a job no longer running abandons the snapshot, a job restarted under a new
 * id no longer knows the trigger (a failure, retried per backoffLimit). Undefined when the snapshot is gone or
 * was abandoned.
 */
async function attempt(
  env: FlowEnv,
  ref: SnapshotRef,
  reference: JobReference,
  job: KubeObject,
): Promise<Outcome | undefined> {
  const triggerFailure = triggerProblem(env, read(env, ref), job);
  if (triggerFailure) return triggerFailure;
  const triggerId = hex(env.random, 32);
  write(env, ref, (s) =>
    Object.assign(s, { state: 'IN_PROGRESS', triggerId, triggerTimestamp: isoInstant(env.store.now()) }),
  );
  if (abandonedByKnob(env, read(env, ref), job)) return abandonWhileFlinkCompletes(env, ref, reference, job);
  await env.sleep(STEP_SECONDS.snapshotComplete);
  const after = runningJob(env, ref, reference);
  if (!after) {
    abandon(env, ref, reference);
    return undefined;
  }
  const snapshot = read(env, ref);
  if (!snapshot) return undefined;
  const jobId = jobIdOf(after);
  if (jobId !== jobIdOf(job)) {
    return {
      ok: false,
      message: `org.apache.flink.runtime.rest.util.RestClientException: [Operation not found under key: AsynchronousJobOperationKey{triggerId=${triggerId}, jobId=${jobId}}]`,
    };
  }
  return resultOf(env, snapshot, after);
}

type Outcome = { ok: true; path: string; warning?: string } | { ok: false; message: string; causes?: ErrorCause[] };

/**
 * Where StateSnapshotReconciler looks before triggering. The configuration is the referenced FlinkDeployment's:
 * for a session job that is its SESSION CLUSTER's, the job's own flinkConfiguration is not read (1.10–1.15).
 */
function triggerProblem(env: FlowEnv, snapshot: KubeObject | undefined, job: KubeObject): Outcome | undefined {
  if (!snapshot) return undefined;
  if (snapshot.spec?.checkpoint) {
    if (!/^v1_1[3-6]$/.test(String(job.spec?.flinkVersion ?? ''))) return undefined;
    return wrapped(
      'java.lang.IllegalStateException',
      'Manual checkpoint triggering is not supported for this Flink job (requires Flink 1.17+)',
    );
  }
  if (snapshotSavepointDir(env, snapshot, job) !== undefined) return undefined;
  return wrapped(
    'java.lang.IllegalArgumentException',
    'Either the savepoint path in the spec or configuration state.savepoints.dir in the Flink resource has to be supplied',
  );
}

/** `throw new ReconciliationException(e)`: the message is the cause's toString, the cause is listed. */
function wrapped(type: string, message: string): Outcome {
  return { ok: false, message: `${type}: ${message}`, causes: [{ type, message }] };
}

function snapshotConf(env: FlowEnv, job: KubeObject): FlinkConf {
  return kindOf(job) === 'FlinkSessionJob' ? specConf(sessionClusterOf(env.store, job)?.spec) : specConf(job.spec);
}

function snapshotSavepointDir(env: FlowEnv, snapshot: KubeObject, job: KubeObject): string | undefined {
  const path = (snapshot.spec?.savepoint as { path?: string } | undefined)?.path?.replace(/\/+$/, '');
  return path || savepointDir(snapshotConf(env, job));
}

/** What Flink reports for the trigger: the knob's failure (`once`: only the first attempt), or the snapshot's path. */
function resultOf(env: FlowEnv, snapshot: KubeObject, job: KubeObject): Outcome {
  const jobId = jobIdOf(job);
  const failures = Number(statusOf(snapshot).failures ?? 0);
  const modes = [savepointFailureMode(env.settings(job)), savepointFailureMode(env.settings(snapshot))];
  const failing = modes.includes('always') || (modes.includes('once') && failures === 0);
  if (failing)
    return {
      ok: false,
      message: 'org.apache.flink.runtime.checkpoint.CheckpointException: Failure to finalize checkpoint.',
    };
  if (snapshot.spec?.checkpoint) {
    const dir = checkpointDir(snapshotConf(env, job));
    if (dir === undefined)
      return { ok: true, path: '', warning: `Checkpoint path of job ${jobId} could not be fetched` };
    return { ok: true, path: `${dir}/${jobId}/chk-${1 + Math.floor(env.random() * 500)}` };
  }
  const path = newSavepointPath(env, snapshotSavepointDir(env, snapshot, job) as string, jobId);
  env.jobManagers.completeSavepoint(jobId, { id: lastCompletedCheckpoint(env, job) + 1, path, at: epochMs(env) });
  return { ok: true, path };
}

/** The `savepoint-abandoned` knob (on the job or the snapshot) applies to savepoints, not to checkpoints. */
function abandonedByKnob(env: FlowEnv, snapshot: KubeObject | undefined, job: KubeObject): boolean {
  if (!snapshot || snapshot.spec?.checkpoint) return false;
  return (
    env.settings(job).scenarios.has('savepoint-abandoned') ||
    env.settings(snapshot).scenarios.has('savepoint-abandoned')
  );
}

/**
 * One REST call of the job's observer fails while the savepoint is IN_PROGRESS: RUNNING becomes RECONCILING
 * (the operator writes it, no event, updateTime stays), the snapshot observer sees a job not running and
 * ABANDONs the snapshot, the next observe finds the job RUNNING again, and Flink finishes the savepoint anyway:
 * the JobManager reports it as its latest savepoint while the snapshot stays ABANDONED.
 */
async function abandonWhileFlinkCompletes(
  env: FlowEnv,
  ref: SnapshotRef,
  reference: JobReference,
  job: KubeObject,
): Promise<undefined> {
  const jobRef = refOf(job);
  const snapshot = read(env, ref);
  const dir = snapshot ? snapshotSavepointDir(env, snapshot, job) : undefined;
  await env.sleep(STEP_SECONDS.snapshotComplete / 3);
  writeStatus(env.store, jobRef, (status) => setJobState(status, 'RECONCILING', epochMs(env), false), {
    conditions: true,
  });
  abandon(env, ref, reference);
  await env.sleep(STEP_SECONDS.snapshotComplete / 3);
  const after = observeJobState(env, jobRef, 'RUNNING');
  await env.sleep(STEP_SECONDS.snapshotComplete / 3);
  const jobId = jobIdOf(after);
  if (dir !== undefined && jobId !== '') {
    env.jobManagers.completeSavepoint(jobId, {
      id: lastCompletedCheckpoint(env, after) + 1,
      path: newSavepointPath(env, dir, jobId),
      at: epochMs(env),
    });
  }
  return undefined;
}

/**
 * FlinkStateSnapshotController.updateErrorStatus: failures+1, status.error (kept while retrying), a
 * SavepointError/CheckpointError whose message IS that error JSON, then FAILED past backoffLimit or back to
 * TRIGGER_PENDING. Returns the failure count when a retry follows.
 */
function recordFailure(env: FlowEnv, ref: SnapshotRef, outcome: Extract<Outcome, { ok: false }>): number | undefined {
  const snapshot = read(env, ref);
  if (!snapshot) return undefined;
  const failures = Number(statusOf(snapshot).failures ?? 0) + 1;
  const backoffLimit = Number(snapshot.spec?.backoffLimit ?? -1);
  const error = errorJson(ERROR_TYPES.reconciliation, outcome.message, outcome.causes);
  emit(
    env,
    snapshot,
    EVENT_TYPES.warning,
    snapshot.spec?.checkpoint ? 'CheckpointError' : 'SavepointError',
    COMPONENTS.snapshot,
    error,
  );
  const failed = exhausted(env, failures, backoffLimit);
  write(env, ref, (s) =>
    Object.assign(s, {
      state: failed ? 'FAILED' : 'TRIGGER_PENDING',
      failures,
      error,
      resultTimestamp: isoInstant(env.store.now()),
    }),
  );
  return failed ? undefined : failures;
}

/**
 * FlinkStateSnapshotController: releases up to 1.15 test `failures > backoffLimit`, so the default -1 means no
 * retry at all; 1.16 fails only when `backoffLimit >= 0`, so -1 (also what an omitted field means) retries forever.
 */
function exhausted(env: FlowEnv, failures: number, backoffLimit: number): boolean {
  if (env.operatorVersion === '1.15') return failures > backoffLimit;
  return backoffLimit >= 0 && failures > backoffLimit;
}

function jobIdOf(job: KubeObject): string {
  return (job.status?.jobStatus as { jobId?: string } | undefined)?.jobId ?? '';
}

function abandon(env: FlowEnv, ref: SnapshotRef, reference: JobReference): void {
  const snapshot = read(env, ref);
  if (!snapshot) return;
  const message = `Secondary resource JobReference(kind=${reference.kind ?? 'FlinkDeployment'}, name=${reference.name ?? ''}) for savepoint ${ref.name} is not running`;
  emit(env, snapshot, EVENT_TYPES.warning, 'SnapshotAbandoned', COMPONENTS.snapshot, message);
  write(env, ref, (s) => {
    Object.assign(s, { state: 'ABANDONED', error: message, resultTimestamp: isoInstant(env.store.now()) });
    delete s.path;
  });
}

function findJob(env: FlowEnv, snapshot: KubeObject, reference: JobReference): KubeObject | undefined {
  if (!reference.name) return undefined;
  const resource = reference.kind === 'FlinkSessionJob' ? 'flinksessionjobs' : 'flinkdeployments';
  return env.store.get(resource, snapshot.metadata.namespace, reference.name);
}

function runningJob(env: FlowEnv, ref: SnapshotRef, reference: JobReference): KubeObject | undefined {
  const snapshot = read(env, ref);
  const job = snapshot ? findJob(env, snapshot, reference) : undefined;
  return (job?.status?.jobStatus as { state?: string } | undefined)?.state === 'RUNNING' ? job : undefined;
}

function read(env: FlowEnv, ref: SnapshotRef): KubeObject | undefined {
  return env.store.get('flinkstatesnapshots', ref.namespace, ref.name);
}

function statusOf(snapshot: KubeObject): SnapshotStatus {
  return (snapshot.status ?? {}) as SnapshotStatus;
}

/**
 * Updates the labels the operator keeps in step with the status, then the status (JOSDK updates the resource
 * before patching its status), so a client that sees the new state also finds the matching labels.
 */
function write(env: FlowEnv, ref: SnapshotRef, mutate: (status: SnapshotStatus) => void): KubeObject {
  const current = read(env, ref);
  if (!current) throw new FlowStopped(`snapshot ${ref.namespace}/${ref.name} is gone`);
  const status = structuredClone(statusOf(current));
  mutate(status);
  env.store.update('flinkstatesnapshots', ref.namespace, ref.name, (latest) => ({
    ...latest,
    metadata: { ...latest.metadata, labels: { ...latest.metadata.labels, ...labelsFor({ ...latest, status }) } },
  }));
  return env.store.update('flinkstatesnapshots', ref.namespace, ref.name, (latest) => ({ ...latest, status }), {
    subresource: 'status',
  });
}

function labelsFor(snapshot: KubeObject): Record<string, string> {
  const reference = (snapshot.spec?.jobReference ?? {}) as JobReference;
  return {
    [SNAPSHOT_LABELS.type]: snapshot.spec?.checkpoint ? 'CHECKPOINT' : 'SAVEPOINT',
    [SNAPSHOT_LABELS.triggerType]: snapshot.metadata.labels?.[SNAPSHOT_LABELS.triggerType] ?? 'MANUAL',
    [SNAPSHOT_LABELS.state]: statusOf(snapshot).state ?? 'TRIGGER_PENDING',
    ...(reference.kind ? { [SNAPSHOT_LABELS.referenceKind]: reference.kind } : {}),
    ...(reference.name ? { [SNAPSHOT_LABELS.referenceName]: reference.name } : {}),
  };
}
