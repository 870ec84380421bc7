// Builders for evidence tests: events as the operator records them, targets mid-change and settled, one judge call.
import { createHash } from 'node:crypto';
import type { RestReading } from '../../src/domain/kit/evidence/types.js';
import type { BaselineVertex } from '../../src/domain/model/rest-vertices.js';
import {
  evaluateEvidence,
  takeEventBaseline,
  type EvidenceKind,
  type EvidenceVerdict,
} from '../../src/domain/engines/evidence/judge.js';
import type { UpgradeMode } from '../../src/domain/model/upgrade-mode.js';
import { applyMergePatch, isRecord, type JsonRecord } from '../../src/domain/model/merge-patch.js';
import type { Plan } from '../../src/domain/model/plan.js';
import type { Target } from '../../src/domain/model/target.js';
import type { KubeObject } from '@flink-chatops/sim/kube/store';
import { editSpec, FIXTURE_EPOCH_MS, reconciledSpecJson, writeStatus, type ResourceOptions } from './fixtures.js';

export const DEP: Target = { kind: 'FlinkDeployment', namespace: 'streaming-prod', name: 'orders-enricher' };
export const SESSION_JOB: Target = {
  kind: 'FlinkSessionJob',
  namespace: 'streaming-prod',
  name: 'clickstream-sessionizer',
};
export const SESSION_CLUSTER: Target = {
  kind: 'FlinkDeployment',
  namespace: 'streaming-prod',
  name: 'session-cluster',
};

/** Right before the submission: 00:00:10.500 UTC, mid-second on purpose (event times have whole seconds). */
export const SUBMITTED_AT = FIXTURE_EPOCH_MS + 10_500;
export const NOW = SUBMITTED_AT + 60_000;
export const secondsAfter = (s: number): number => SUBMITTED_AT + s * 1000;

function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export interface EventOptions {
  reason: string;
  type?: 'Normal' | 'Warning';
  message?: string;
  count?: number;
  /** ms of lastTimestamp (default: 5 s after the submission). */
  last?: number;
  /** ms of firstTimestamp (default: last). */
  first?: number | null;
  name?: string;
  /** The object the event is about (default: the orders-enricher deployment as the fixtures build it). */
  involved?: KubeObject;
  component?: string;
}

/** A core/v1 Event with a content-derived name, as the operator's EventRecorder makes them. */
export function kubeEvent(o: EventOptions): JsonRecord {
  const involved = o.involved;
  const kind = involved?.kind ?? 'FlinkDeployment';
  const name = involved?.metadata.name ?? DEP.name;
  const uid = involved?.metadata.uid;
  const component = o.component ?? 'Operator';
  const message = o.message ?? `${o.reason} happened`;
  const last = o.last ?? secondsAfter(5);
  const first = o.first === null ? undefined : (o.first ?? last);
  const hash = createHash('sha256').update(`${o.reason}${message}${kind}${name}`).digest('hex').slice(0, 9);
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: o.name ?? `${component}.${parseInt(hash, 16)}`, namespace: DEP.namespace },
    involvedObject: {
      apiVersion: 'flink.apache.org/v1beta1',
      kind,
      name,
      namespace: DEP.namespace,
      ...(uid ? { uid } : {}),
    },
    reason: o.reason,
    message,
    type: o.type ?? 'Normal',
    source: { component },
    ...(first === undefined ? {} : { firstTimestamp: rfc3339(first) }),
    lastTimestamp: rfc3339(last),
    count: o.count ?? 1,
  };
}

export const warning = (reason: string, extra: Omit<EventOptions, 'reason' | 'type'> = {}): JsonRecord =>
  kubeEvent({ reason, type: 'Warning', ...extra });

/** The spec part of a plan's merge patch. */
export function specPatchOf(plan: Plan): JsonRecord {
  if (plan.change.type !== 'patch' || !isRecord(plan.change.patch.spec))
    throw new Error('specPatchOf: not a spec patch');
  return plan.change.patch.spec;
}

/**
 * The target once the operator finished with generation 4: spec patched and reconciled, DEPLOYED, STABLE,
 * the job (re)started 20 s after the submission and seen RUNNING 10 s later (session clusters have no job).
 */
export function settled(
  make: (opts: ResourceOptions) => KubeObject,
  specPatch: JsonRecord,
  opts: ResourceOptions = {},
): KubeObject {
  const probe = make({ spec: specPatch });
  const hasJob = isRecord(probe.spec?.job);
  const suspended = hasJob && isRecord(probe.spec?.job) && probe.spec.job.state === 'suspended';
  const times: JsonRecord = hasJob
    ? { jobStatus: { startTime: String(secondsAfter(20)), updateTime: String(secondsAfter(suspended ? 25 : 30)) } }
    : {};
  const status = opts.status === null ? null : (applyMergePatch(times, opts.status ?? {}) as JsonRecord);
  return make({ generation: 4, ...opts, spec: applyMergePatch(specPatch, opts.spec ?? {}) as JsonRecord, status });
}

/** Mid-upgrade: generation 4 observed, UPGRADING, the target spec reconciled with job.state suspended, job RECONCILING. */
export function upgrading(before: KubeObject, specPatch: JsonRecord): KubeObject {
  const edited = editSpec(before, specPatch);
  const reconciled = applyMergePatch(edited.spec, { job: { state: 'suspended' } });
  // status.conditions are left as they were: Running=True outlives the job it described
  // (docs/lifecycle.md#operator-traps).
  return writeStatus(edited, {
    observedGeneration: edited.metadata.generation,
    lifecycleState: 'UPGRADING',
    reconciliationStatus: { state: 'UPGRADING', lastReconciledSpec: reconciledSpecJson(reconciled) },
    jobStatus: { state: 'RECONCILING' },
  });
}

export interface Scenario {
  kind: EvidenceKind;
  plan: Plan;
  before?: unknown;
  /** Events listed right before submitting. */
  baselineEvents?: unknown[];
  /** Events listed now besides the baseline ones (same name: replaces the listed one). */
  events?: unknown[];
  resource?: unknown;
  snapshot?: unknown;
  sessionCluster?: unknown;
  previousJobId?: string;
  upgradeMode?: UpgradeMode;
  submittedGeneration?: number;
  /** Transient failure key → when the worker first saw it (default: now). */
  transientSince?: Record<string, number>;
  failureGraceMs?: number;
  /** Flink REST can be read (deep verification), and what it said. */
  deep?: boolean;
  rest?: RestReading;
  checkpointAfterChange?: boolean;
  /** scale: the vertices read before the change and the old default parallelism. */
  baselineVertices?: BaselineVertex[];
  oldParallelism?: number;
}

/** One evaluation with the baseline taken at SUBMITTED_AT and the observation made at NOW. */
export function judge(s: Scenario): EvidenceVerdict {
  const baselineEvents = s.baselineEvents ?? [];
  // The API keeps one object per event name: a later version (count bumped) replaces the listed one.
  const byName = new Map<unknown, unknown>();
  for (const e of [...baselineEvents, ...(s.events ?? [])])
    byName.set(isRecord(e) && isRecord(e.metadata) ? e.metadata.name : e, e);
  return evaluateEvidence({
    kind: s.kind,
    plan: s.plan,
    baseline: takeEventBaseline(baselineEvents, SUBMITTED_AT),
    observation: {
      resource: s.resource,
      events: [...byName.values()],
      now: NOW,
      ...(s.snapshot === undefined ? {} : { snapshot: s.snapshot }),
      ...(s.sessionCluster === undefined ? {} : { sessionCluster: s.sessionCluster }),
      ...(s.rest === undefined ? {} : { rest: s.rest }),
    },
    ...(s.before === undefined ? {} : { before: s.before }),
    ...(s.previousJobId === undefined ? {} : { previousJobId: s.previousJobId }),
    ...(s.upgradeMode === undefined ? {} : { upgradeMode: s.upgradeMode }),
    ...(s.submittedGeneration === undefined ? {} : { submittedGeneration: s.submittedGeneration }),
    ...(s.transientSince === undefined ? {} : { transientSince: s.transientSince }),
    ...(s.failureGraceMs === undefined ? {} : { failureGraceMs: s.failureGraceMs }),
    ...(s.deep === undefined ? {} : { deep: s.deep }),
    ...(s.checkpointAfterChange === undefined ? {} : { checkpointAfterChange: s.checkpointAfterChange }),
    ...(s.baselineVertices === undefined ? {} : { baselineVertices: s.baselineVertices }),
    ...(s.oldParallelism === undefined ? {} : { oldParallelism: s.oldParallelism }),
  });
}

/** criterion name → met, for compact assertions. */
export function metMap(v: EvidenceVerdict): Record<string, boolean> {
  return Object.fromEntries(v.criteria.map((c) => [c.name, c.met]));
}

export function unmet(v: EvidenceVerdict): string[] {
  return v.criteria.filter((c) => !c.met).map((c) => c.name);
}
