// FlinkStateSnapshot reconciliation: TRIGGER_PENDING → IN_PROGRESS → COMPLETED | FAILED | ABANDONED, with retries.
import { COMPONENTS, EVENT_TYPES } from './events.js';
import { emit, epochMs, FlowStopped, hex, newSavepointPath, type FlowEnv } from './flow-env.js';
import { errorJson, ERROR_TYPES } from './flink-status.js';
import { jobConf } from './resource-conf.js';
import { API_VERSION, checkpointDir, savepointDir } from './spec-json.js';
import { STEP_SECONDS } from './speed.js';
import { rfc3339, type KubeObject } from './store.js';

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
  while (env.store.get('flinkstatesnapshots', job.metadata.namespace, `${job.metadata.name}-savepoint-upgrade-${stamp}`)) stamp += 1;
  return env.store.create('flinkstatesnapshots', {
    apiVersion: API_VERSION,
    kind: 'FlinkStateSnapshot',
    metadata: {
      name: `${job.metadata.name}-savepoint-upgrade-${stamp}`,
      namespace: job.metadata.namespace,
      labels: { [SNAPSHOT_LABELS.triggerType]: 'UPGRADE' },
    },
    spec: {
      backoffLimit: -1,
      jobReference: { kind: job.kind, name: job.metadata.name },
      savepoint: { alreadyExists: true, disposeOnDelete: false, formatType: 'CANONICAL', path },
    },
  });
}

/** Runs one snapshot to a terminal state (or leaves it TRIGGER_PENDING when its job reference is wrong). */
export async function reconcileSnapshot(env: FlowEnv, ref: SnapshotRef): Promise<void> {
  let snapshot = read(env, ref);
  if (!snapshot) return;
  if (!statusOf(snapshot).state) snapshot = write(env, ref, (s) => Object.assign(s, { state: 'TRIGGER_PENDING', failures: 0 }));
  if (statusOf(snapshot).state !== 'TRIGGER_PENDING') return;
  const spec = snapshot.spec ?? {};
  const savepoint = spec.savepoint as { alreadyExists?: boolean; path?: string } | undefined;
  if (savepoint?.alreadyExists) {
    const now = rfc3339(env.store.now());
    write(env, ref, (s) => Object.assign(s, { state: 'COMPLETED', path: savepoint.path ?? '', triggerTimestamp: now, resultTimestamp: now }));
    return;
  }
  const reference = (spec.jobReference ?? {}) as JobReference;
  if (!findJob(env, snapshot, reference)) {
    if (env.memo.snapshotInvalidGeneration !== snapshot.metadata.generation) {
      env.memo.snapshotInvalidGeneration = snapshot.metadata.generation;
      const message = `Referenced job ${reference.kind ?? 'FlinkDeployment'} "${reference.name ?? ''}" of snapshot ${snapshot.metadata.name} was not found in namespace ${snapshot.metadata.namespace}`;
      emit(env, snapshot, EVENT_TYPES.warning, 'ValidationError', COMPONENTS.operator, message);
    }
    return;
  }
  await runAttempts(env, ref, reference);
}

async function runAttempts(env: FlowEnv, ref: SnapshotRef, reference: JobReference): Promise<void> {
  for (;;) {
    const job = runningJob(env, ref, reference);
    if (!job) return abandon(env, ref, reference);
    const jobId = job.status?.jobStatus as { jobId?: string } | undefined;
    write(env, ref, (s) =>
      Object.assign(s, { state: 'IN_PROGRESS', triggerId: hex(env.random, 32), triggerTimestamp: rfc3339(env.store.now()) }),
    );
    await env.sleep(STEP_SECONDS.snapshotComplete);
    const after = runningJob(env, ref, reference);
    const afterId = after?.status?.jobStatus as { jobId?: string } | undefined;
    if (!after || afterId?.jobId !== jobId?.jobId) return abandon(env, ref, reference);
    const snapshot = read(env, ref);
    if (!snapshot) return;
    const outcome = attemptOutcome(env, snapshot, after);
    if (outcome.ok) {
      if (outcome.warning) emit(env, snapshot, EVENT_TYPES.warning, 'CheckpointError', COMPONENTS.snapshot, outcome.warning);
      write(env, ref, (s) => {
        Object.assign(s, { state: 'COMPLETED', path: outcome.path, resultTimestamp: rfc3339(env.store.now()) });
        delete s.error;
      });
      return;
    }
    const failures = Number(statusOf(snapshot).failures ?? 0) + 1;
    const backoffLimit = Number(snapshot.spec?.backoffLimit ?? -1);
    const reason = snapshot.spec?.checkpoint ? 'CheckpointError' : 'SavepointError';
    emit(env, snapshot, EVENT_TYPES.warning, reason, COMPONENTS.snapshot, outcome.message);
    // Releases up to 1.15.0 test `failures > backoffLimit`: the default -1 means no retry at all.
    if (failures > backoffLimit) {
      write(env, ref, (s) =>
        Object.assign(s, {
          state: 'FAILED',
          failures,
          error: errorJson(ERROR_TYPES.reconciliation, outcome.message),
          resultTimestamp: rfc3339(env.store.now()),
        }),
      );
      return;
    }
    write(env, ref, (s) => Object.assign(s, { state: 'TRIGGER_PENDING', failures }));
    await env.sleep(10 * 2 ** (failures - 1));
  }
}

type Outcome = { ok: true; path: string; warning?: string } | { ok: false; message: string };

function attemptOutcome(env: FlowEnv, snapshot: KubeObject, job: KubeObject): Outcome {
  const conf = jobConf(env.store, job);
  const jobId = (job.status?.jobStatus as { jobId?: string } | undefined)?.jobId ?? '';
  const failing = env.settings(job).scenarios.has('savepoint-failure') || env.settings(snapshot).scenarios.has('savepoint-failure');
  if (snapshot.spec?.checkpoint) {
    if (/^v1_1[3-6]$/.test(String(job.spec?.flinkVersion ?? ''))) {
      return { ok: false, message: 'Manual checkpoint triggering is not supported for this Flink job (requires Flink 1.17+)' };
    }
    if (failing) return { ok: false, message: `Checkpoint of job ${jobId} failed: org.apache.flink.runtime.checkpoint.CheckpointException: Failure to finalize checkpoint.` };
    const dir = checkpointDir(conf);
    if (dir === undefined) return { ok: true, path: '', warning: `Checkpoint path of job ${jobId} could not be fetched` };
    return { ok: true, path: `${dir}/${jobId}/chk-${1 + Math.floor(env.random() * 500)}` };
  }
  const dir = (snapshot.spec?.savepoint as { path?: string } | undefined)?.path?.replace(/\/+$/, '') ?? savepointDir(conf);
  if (dir === undefined) {
    return {
      ok: false,
      message: 'Either the savepoint path in the spec or configuration state.savepoints.dir in the Flink resource has to be supplied',
    };
  }
  if (failing) {
    return { ok: false, message: `Savepoint of job ${jobId} failed: org.apache.flink.runtime.checkpoint.CheckpointException: Failure to finalize checkpoint.` };
  }
  return { ok: true, path: newSavepointPath(env, dir, jobId) };
}

function abandon(env: FlowEnv, ref: SnapshotRef, reference: JobReference): void {
  const snapshot = read(env, ref);
  if (!snapshot) return;
  const message = `Secondary resource JobReference(kind=${reference.kind ?? 'FlinkDeployment'}, name=${reference.name ?? ''}) for savepoint ${ref.name} is not running`;
  emit(env, snapshot, EVENT_TYPES.warning, 'SnapshotAbandoned', COMPONENTS.snapshot, message);
  write(env, ref, (s) => {
    Object.assign(s, { state: 'ABANDONED', error: message, resultTimestamp: rfc3339(env.store.now()) });
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
  return env.store.update('flinkstatesnapshots', ref.namespace, ref.name, (latest) => ({ ...latest, status }), { subresource: 'status' });
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
