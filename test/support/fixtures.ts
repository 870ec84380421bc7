// Builders of live Flink resources as the operator leaves them (spec + status), for tests and the simulator.
import { createHash } from 'node:crypto';
import { OperationIntentSchema } from '../../src/domain/kinds/index.js';
import { applyMergePatch, isRecord, type JsonRecord } from '../../src/domain/model/merge-patch.js';
import type { Plan } from '../../src/domain/model/plan.js';
import type { KindIntent as PlannableIntent } from '../../src/domain/kinds/index.js';
import { planOperation, type PlanContext } from '../../src/domain/engines/planning/planner.js';
import type { KubeObject } from '@flink-chatops/sim/kube/store';

export const FLINK_API_VERSION = 'flink.apache.org/v1beta1';
/** 2026-01-01T00:00:00Z: fixtures never read the real clock. */
export const FIXTURE_EPOCH_MS = 1_767_225_600_000;

export interface ResourceOptions {
  name?: string;
  namespace?: string;
  uid?: string;
  generation?: number;
  resourceVersion?: string;
  annotations?: Record<string, string>;
  labels?: Record<string, string>;
  /** Merge patch over the default spec (`null` removes a field, e.g. `{ job: null }`). */
  spec?: JsonRecord;
  /** Merge patch over the status derived from the spec; `null` leaves the resource without any status. */
  status?: JsonRecord | null;
  /** Merge patch over the spec giving the spec the operator last reconciled, when a change is still pending. */
  reconciled?: JsonRecord;
}

/** A stable UUID-shaped uid per object, so tests can compare uids without hard-coding them. */
export function uidFor(kind: string, namespace: string, name: string): string {
  const h = createHash('sha256').update(`${kind}/${namespace}/${name}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function jobIdFor(name: string, generation: number): string {
  return createHash('md5').update(`${name}#${generation}`).digest('hex');
}

/** The string the operator stores in `lastReconciledSpec` / `lastStableSpec`. */
export function reconciledSpecJson(spec: unknown, firstDeployment = false): string {
  return JSON.stringify({ spec, resource_metadata: { apiVersion: FLINK_API_VERSION, firstDeployment } });
}

function patched(base: JsonRecord, patch: JsonRecord | undefined): JsonRecord {
  return patch === undefined ? base : (applyMergePatch(base, patch) as JsonRecord);
}

function metadata(
  kind: string,
  opts: ResourceOptions,
  defaults: { name: string; finalizer: string; labels?: Record<string, string> },
) {
  const name = opts.name ?? defaults.name;
  const namespace = opts.namespace ?? 'streaming-prod';
  const generation = opts.generation ?? 3;
  return {
    name,
    namespace,
    uid: opts.uid ?? uidFor(kind, namespace, name),
    generation,
    resourceVersion: opts.resourceVersion ?? String(40_000 + generation * 17),
    creationTimestamp: new Date(FIXTURE_EPOCH_MS - 86_400_000).toISOString(),
    labels: { ...defaults.labels, ...opts.labels },
    annotations: { ...opts.annotations },
    finalizers: [defaults.finalizer],
  };
}

function reconciliation(spec: JsonRecord, opts: ResourceOptions, stable: boolean): JsonRecord {
  const reconciledSpec = reconciledSpecJson(patched(spec, opts.reconciled));
  return {
    state: 'DEPLOYED',
    reconciliationTimestamp: FIXTURE_EPOCH_MS - 3_600_000,
    lastReconciledSpec: reconciledSpec,
    ...(stable ? { lastStableSpec: reconciledSpec } : {}),
  };
}

function jobStatus(name: string, generation: number, job: JsonRecord): JsonRecord {
  const suspended = job.state === 'suspended';
  return {
    jobName: name,
    jobId: jobIdFor(name, generation),
    state: suspended ? 'FINISHED' : 'RUNNING',
    startTime: String(FIXTURE_EPOCH_MS - 3_500_000),
    updateTime: String(FIXTURE_EPOCH_MS - 3_400_000),
    ...(suspended && job.upgradeMode !== 'stateless'
      ? { upgradeSavepointPath: `s3://flink/savepoints/${name}/savepoint-1a2b3c-0123456789ab` }
      : {}),
    checkpointInfo: { lastPeriodicCheckpointTimestamp: 0 },
    savepointInfo: { savepointHistory: [], lastPeriodicSavepointTimestamp: 0 },
  };
}

function defaultDeploymentSpec(name: string): JsonRecord {
  return {
    image: 'flink:1.20.1-scala_2.12-java17',
    imagePullPolicy: 'IfNotPresent',
    flinkVersion: 'v1_20',
    serviceAccount: 'flink',
    flinkConfiguration: {
      'taskmanager.numberOfTaskSlots': '2',
      'state.savepoints.dir': `s3://flink/savepoints/${name}`,
      'state.checkpoints.dir': `s3://flink/checkpoints/${name}`,
      'execution.checkpointing.interval': '60s',
      'high-availability.type': 'kubernetes',
      'high-availability.storageDir': `s3://flink/ha/${name}`,
    },
    jobManager: { replicas: 1, resource: { cpu: 1, memory: '2048m' } },
    taskManager: { resource: { cpu: 2, memory: '4096m' } },
    job: {
      jarURI: `local:///opt/flink/usrlib/${name}.jar`,
      entryClass: 'com.example.streaming.Main',
      args: [],
      parallelism: 4,
      state: 'running',
      upgradeMode: 'savepoint',
    },
  };
}

/** ceil(parallelism / slots), as the operator reports `status.taskManager.replicas`. */
function taskManagerReplicas(spec: JsonRecord): number {
  const job = isRecord(spec.job) ? spec.job : {};
  const conf = isRecord(spec.flinkConfiguration) ? spec.flinkConfiguration : {};
  const tm = isRecord(spec.taskManager) ? spec.taskManager : {};
  if (typeof tm.replicas === 'number') return tm.replicas;
  const slots = Number(conf['taskmanager.numberOfTaskSlots'] ?? 1) || 1;
  return Math.ceil((typeof job.parallelism === 'number' ? job.parallelism : 1) / slots);
}

/** A FlinkDeployment in application mode, RUNNING and STABLE by default (SUSPENDED when the spec says so). */
export function flinkDeployment(opts: ResourceOptions = {}): KubeObject {
  const meta = metadata('FlinkDeployment', opts, {
    name: 'orders-enricher',
    finalizer: 'flinkdeployments.flink.apache.org/finalizer',
  });
  const spec = patched(defaultDeploymentSpec(meta.name), opts.spec);
  const job = isRecord(spec.job) ? spec.job : undefined;
  const resource: KubeObject = { apiVersion: FLINK_API_VERSION, kind: 'FlinkDeployment', metadata: meta, spec };
  if (opts.status === null) return resource;
  const suspended = job?.state === 'suspended';
  const base: JsonRecord = {
    observedGeneration: meta.generation,
    lifecycleState: suspended ? 'SUSPENDED' : 'STABLE',
    jobManagerDeploymentStatus: suspended && job?.upgradeMode !== 'savepoint' ? 'MISSING' : 'READY',
    reconciliationStatus: reconciliation(spec, opts, true),
    taskManager: suspended
      ? { labelSelector: '', replicas: 0 }
      : { labelSelector: `component=taskmanager,app=${meta.name}`, replicas: taskManagerReplicas(spec) },
    clusterInfo: {
      'flink-version': '1.20.1',
      'flink-revision': 'f6d2ea0 @ 2025-02-05T11:06:29+01:00',
      'total-cpu': '5.0',
      'total-memory': '10737418240',
    },
  };
  if (job) {
    base.jobStatus = jobStatus(meta.name, meta.generation, job);
    base.conditions = [
      {
        type: 'Running',
        status: suspended ? 'False' : 'True',
        reason: suspended ? 'Finished' : 'Running',
        message: `Job status ${suspended ? 'FINISHED' : 'RUNNING'}`,
        lastTransitionTime: new Date(FIXTURE_EPOCH_MS - 3_400_000).toISOString(),
      },
    ];
  }
  resource.status = patched(base, opts.status);
  return resource;
}

/** A session cluster: a FlinkDeployment without `spec.job`, JobManager READY. */
export function sessionCluster(opts: ResourceOptions = {}): KubeObject {
  return flinkDeployment({ name: 'session-cluster', ...opts, spec: { job: null, ...opts.spec } });
}

export interface SessionJobOptions extends ResourceOptions {
  deploymentName?: string;
}

/** A FlinkSessionJob on `deploymentName`, RUNNING and STABLE by default. */
export function flinkSessionJob(opts: SessionJobOptions = {}): KubeObject {
  const deploymentName = opts.deploymentName ?? 'session-cluster';
  const meta = metadata('FlinkSessionJob', opts, {
    name: 'clickstream-sessionizer',
    finalizer: 'flinksessionjobs.flink.apache.org/finalizer',
    labels: { 'target.session': deploymentName },
  });
  const defaults: JsonRecord = {
    deploymentName,
    job: {
      jarURI: `s3://flink/jars/${meta.name}.jar`,
      entryClass: 'com.example.streaming.Sessionize',
      args: [],
      parallelism: 2,
      state: 'running',
      upgradeMode: 'savepoint',
    },
  };
  const spec = patched(defaults, opts.spec);
  const resource: KubeObject = { apiVersion: FLINK_API_VERSION, kind: 'FlinkSessionJob', metadata: meta, spec };
  if (opts.status === null) return resource;
  const job = isRecord(spec.job) ? spec.job : {};
  const base: JsonRecord = {
    observedGeneration: meta.generation,
    lifecycleState: job.state === 'suspended' ? 'SUSPENDED' : 'STABLE',
    reconciliationStatus: reconciliation(spec, opts, true),
    jobStatus: jobStatus(meta.name, meta.generation, job),
  };
  resource.status = patched(base, opts.status);
  return resource;
}

export interface SnapshotOptions extends Omit<ResourceOptions, 'reconciled'> {
  jobReference?: { kind: 'FlinkDeployment' | 'FlinkSessionJob'; name: string };
  type?: 'SAVEPOINT' | 'CHECKPOINT';
  triggerType?: 'MANUAL' | 'PERIODIC' | 'UPGRADE';
  state?: 'TRIGGER_PENDING' | 'IN_PROGRESS' | 'COMPLETED' | 'FAILED' | 'ABANDONED';
  /** Final location (COMPLETED only). */
  path?: string;
  /** Epoch ms of `status.resultTimestamp`. */
  resultAt?: number;
}

/** A FlinkStateSnapshot with the labels the operator maintains; a COMPLETED MANUAL savepoint by default. */
export function flinkStateSnapshot(opts: SnapshotOptions = {}): KubeObject {
  const ref = opts.jobReference ?? { kind: 'FlinkDeployment', name: 'orders-enricher' };
  const type = opts.type ?? 'SAVEPOINT';
  const state = opts.state ?? 'COMPLETED';
  const resultAt = opts.resultAt ?? FIXTURE_EPOCH_MS - 600_000;
  const meta = metadata('FlinkStateSnapshot', opts, {
    name: `${ref.name}-${type.toLowerCase()}-${(opts.triggerType ?? 'MANUAL').toLowerCase()}-${resultAt}`,
    finalizer: 'flinkstatesnapshots.flink.apache.org/finalizer',
    labels: {
      'snapshot.type': type,
      'snapshot.trigger-type': opts.triggerType ?? 'MANUAL',
      'snapshot.state': state,
      'job-reference.kind': ref.kind,
      'job-reference.name': ref.name,
    },
  });
  const base: JsonRecord = {
    jobReference: ref,
    backoffLimit: 2,
    ...(type === 'SAVEPOINT'
      ? { savepoint: { disposeOnDelete: false, formatType: 'CANONICAL', alreadyExists: false } }
      : { checkpoint: {} }),
  };
  const resource: KubeObject = {
    apiVersion: FLINK_API_VERSION,
    kind: 'FlinkStateSnapshot',
    metadata: meta,
    spec: patched(base, opts.spec),
  };
  if (opts.status === null) return resource;
  const status: JsonRecord = {
    state,
    failures: state === 'FAILED' ? 1 : 0,
    triggerId: createHash('md5').update(meta.name).digest('hex'),
    triggerTimestamp: new Date(resultAt - 5_000).toISOString(),
    ...(state === 'COMPLETED' || state === 'FAILED' || state === 'ABANDONED'
      ? { resultTimestamp: new Date(resultAt).toISOString() }
      : {}),
    ...(state === 'COMPLETED'
      ? { path: opts.path ?? `s3://flink/savepoints/${ref.name}/savepoint-${resultAt.toString(16)}` }
      : {}),
  };
  resource.status = patched(status, opts.status);
  return resource;
}

/** Someone edits the spec (merge patch): the generation and resourceVersion move, the status does not (yet). */
export function editSpec(resource: KubeObject, specPatch: JsonRecord): KubeObject {
  const next = structuredClone(resource);
  next.spec = patched(next.spec ?? {}, specPatch);
  next.metadata.generation = (next.metadata.generation ?? 0) + 1;
  next.metadata.resourceVersion = String(Number(next.metadata.resourceVersion ?? '0') + 1);
  return next;
}

/** The operator writes status (merge patch): only the resourceVersion moves. */
export function writeStatus(resource: KubeObject, statusPatch: JsonRecord): KubeObject {
  const next = structuredClone(resource);
  next.status = patched(next.status ?? {}, statusPatch);
  next.metadata.resourceVersion = String(Number(next.metadata.resourceVersion ?? '0') + 1);
  return next;
}

// --- plans --------------------------------------------------------------------------------------------

export const PLAN_CONTEXT: PlanContext = { opId: 'op-abc123', requester: 'U0ALICE', nonce: FIXTURE_EPOCH_MS + 123 };

/** An operation intent (not undo) from its raw fields, with the schema's defaults filled in. */
export function intentOf(raw: Record<string, unknown>): PlannableIntent {
  const intent = OperationIntentSchema.parse(raw);
  if (intent.kind === 'undo') throw new Error('intentOf: plan an undo with planUndo');
  return intent;
}

/** The plan of `raw` against `resource`; throws with the refusal when there is none. */
export function planFor(raw: Record<string, unknown>, resource: unknown, ctx: PlanContext = PLAN_CONTEXT): Plan {
  const result = planOperation(intentOf(raw), { resource }, ctx);
  if (!result.ok) throw new Error(`expected a plan, got the refusal: ${result.refusal}`);
  return result.plan;
}

/** The refusal of `raw` against `resource`; throws when it was planned. */
export function refusalFor(raw: Record<string, unknown>, resource: unknown, ctx: PlanContext = PLAN_CONTEXT): string {
  const result = planOperation(intentOf(raw), { resource }, ctx);
  if (result.ok) throw new Error(`expected a refusal, got the change ${JSON.stringify(result.plan.change)}`);
  return result.refusal;
}
