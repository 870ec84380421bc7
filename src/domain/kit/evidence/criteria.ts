// The named criteria evidence is made of, read from one observation of the target (the base predicate,
// docs/lifecycle.md#evidence).
import type { Criterion, Observation } from './types.js';
import { describeEvent, isNonBlocking, type EventView } from './events.js';
import type { UpgradeMode } from '../../model/upgrade-mode.js';
import { jsonEqual } from '../../model/canonical.js';
import { getPath, patchLeaves, type JsonRecord } from '../../model/merge-patch.js';
import { shownAt } from '../../model/secret-config.js';
import { ANNOTATION_OPERATION_ID, type Plan } from '../../model/plan.js';
import { amountOf, type Amount } from '../../model/resource-requirements.js';
import type { BaselineVertex } from '../../model/rest-vertices.js';
import {
  generationOf,
  jobIdOf,
  jobManagerStatusOf,
  jobStatusStateOf,
  lifecycleStateOf,
  observedGenerationOf,
  reconciliationStateOf,
  resourceVersionOf,
  statusErrorOf,
} from '../../model/resource.js';

/** Everything one judgement reads, resolved once from the input. */
export interface Ctx {
  /** The kind the evidence is judged as (an undo: the kind it inverts). */
  kind: string;
  plan: Plan;
  observation: Observation;
  resource: unknown;
  now: number;
  /** The generation our patch produced: status must have observed at least this one. */
  submitted: number;
  sessionJob: boolean;
  sessionCluster: boolean;
  /** The parsed `spec` of `lastReconciledSpec`. */
  reconciled: JsonRecord | undefined;
  /** Events about the target after the submission. */
  events: EventView[];
  /** Events about our FlinkStateSnapshot after the submission (savepoint only). */
  snapshotEvents: EventView[];
  before: unknown;
  previousJobId: string | undefined;
  upgradeMode: UpgradeMode;
  /** Flink REST can be read (the worker has a client): deeper criteria are asked for. */
  deep: boolean;
  /** A checkpoint after the change is required (policy verify.checkpointAfterChange), else noted when seen. */
  checkpointAfterChange: boolean;
  /** scale: the vertices before the change and the old default parallelism (absent: no baseline). */
  baselineVertices?: readonly BaselineVertex[];
  oldParallelism?: number;
}

export const PATH = {
  generation: 'metadata.generation, status.observedGeneration',
  reconciliation: 'status.reconciliationStatus.state',
  reconciled: 'status.reconciliationStatus.lastReconciledSpec',
  jobManager: 'status.jobManagerDeploymentStatus',
  job: 'status.jobStatus.state',
  jobId: 'status.jobStatus.jobId',
  lifecycle: 'status.lifecycleState',
  upgradeSavepointPath: 'status.jobStatus.upgradeSavepointPath',
  error: 'status.error',
  events: 'events after the submission',
} as const;

export function criterion(ctx: Ctx, name: string, met: boolean, observed: unknown, source: string): Criterion {
  return { name, met, observed: observed ?? null, source, at: ctx.now };
}

/** `metadata.generation == status.observedGeneration`, at or past the generation we submitted. */
export function generationObserved(ctx: Ctx): Criterion {
  const generation = generationOf(ctx.resource);
  const observed = observedGenerationOf(ctx.resource);
  const met = generation !== undefined && observed === generation && observed >= ctx.submitted;
  return criterion(
    ctx,
    'generation-observed',
    met,
    { generation, observedGeneration: observed, submitted: ctx.submitted },
    PATH.generation,
  );
}

/**
 * The object observed is the one our write produced, or a later one: it carries this operation's
 * `flink-chatops/operation-id`, which only our patch writes. What a metadata-only change (no new generation, nothing
 * written by the operator) is judged on, instead of the generation.
 */
export function submissionObserved(ctx: Ctx): Criterion {
  const ours = ctx.plan.change.type === 'patch' ? operationIdOf(ctx.plan.change.patch) : undefined;
  const seen = operationIdOf(ctx.resource);
  return criterion(
    ctx,
    'submission-observed',
    ours !== undefined && seen === ours,
    { operationId: seen ?? null, resourceVersion: resourceVersionOf(ctx.resource) ?? null },
    `metadata.annotations[${ANNOTATION_OPERATION_ID}], metadata.resourceVersion`,
  );
}

function operationIdOf(object: unknown): string | undefined {
  const id = getPath(object, ['metadata', 'annotations', ANNOTATION_OPERATION_ID]);
  return typeof id === 'string' ? id : undefined;
}

export function reconciledDeployed(ctx: Ctx): Criterion {
  const state = reconciliationStateOf(ctx.resource);
  return criterion(ctx, 'reconciled-deployed', state === 'DEPLOYED', state, PATH.reconciliation);
}

/** A spec field the patch sets, and the value the operator must have reconciled for it. */
export interface DesiredField {
  /** `spec.job.parallelism` */
  path: string;
  /** Path inside the reconciled `spec`. */
  specPath: string[];
  value: unknown;
}

/**
 * The operator rewrites `job.upgradeMode` with the mode it really used (docs/lifecycle.md#operator-traps): not
 * comparable.
 */
const UNCOMPARABLE = new Set(['spec.job.upgradeMode']);

/** The spec fields the plan's patch sets (annotations and upgradeMode excluded). */
export function desiredFields(plan: Plan): DesiredField[] {
  if (plan.change.type !== 'patch') return [];
  return patchLeaves(plan.change.patch)
    .filter((leaf) => leaf.path[0] === 'spec' && !UNCOMPARABLE.has(leaf.path.join('.')))
    .map((leaf) => ({ path: leaf.path.join('.'), specPath: leaf.path.slice(1), value: leaf.value }));
}

/** How the operator writes a field that is unset: job.state means running; job.parallelism is a Java int (0). */
const UNSET_READS_AS: Readonly<Record<string, unknown>> = { 'spec.job.state': 'running', 'spec.job.parallelism': 0 };

/** A memory or CPU amount of either resource field: compared as a number (`4Gi` is `4294967296` is `4096m`). */
const RESOURCE_AMOUNT = /^spec\.(?:jobManager|taskManager)\.(?:resource|resources\.(?:requests|limits))\.(memory|cpu)$/;

function reconciledMatches(field: DesiredField, actual: unknown): boolean {
  const amount = RESOURCE_AMOUNT.exec(field.path)?.[1] as Amount | undefined;
  if (amount !== undefined && field.value !== null) {
    const wanted = amountOf(amount, field.value);
    return wanted !== undefined && amountOf(amount, actual) === wanted;
  }
  // A removed field (undo back to "unset") reads as absent, null, or the operator's own value for unset.
  if (field.value === null)
    return (
      actual === undefined ||
      actual === null ||
      (Object.hasOwn(UNSET_READS_AS, field.path) && actual === UNSET_READS_AS[field.path])
    );
  return jsonEqual(actual, field.value);
}

/** `spec-reconciled:<path>` for every field the patch sets. */
export function specReconciled(ctx: Ctx): Criterion[] {
  return desiredFields(ctx.plan).map((field) => {
    const actual = getPath(ctx.reconciled, field.specPath);
    return criterion(
      ctx,
      `spec-reconciled:${field.path}`,
      reconciledMatches(field, actual),
      shownAt(field.path, actual),
      `${PATH.reconciled} ${field.path}`,
    );
  });
}

/** The reconciled spec says the job runs (during UPGRADING it says suspended). Skipped when the patch sets job.state. */
export function reconciledRunning(ctx: Ctx): Criterion[] {
  if (desiredFields(ctx.plan).some((f) => f.path === 'spec.job.state')) return [];
  const state = getPath(ctx.reconciled, ['job', 'state']);
  return [criterion(ctx, 'reconciled-running', state === 'running', state, `${PATH.reconciled} spec.job.state`)];
}

export function jobManagerReady(ctx: Ctx): Criterion {
  const jm = jobManagerStatusOf(ctx.resource);
  return criterion(ctx, 'jobmanager-ready', jm === 'READY', jm, PATH.jobManager);
}

export function jobStateIn(ctx: Ctx, name: string, accepted: readonly string[]): Criterion {
  const state = jobStatusStateOf(ctx.resource);
  return criterion(ctx, name, state !== undefined && accepted.includes(state), state, PATH.job);
}

export function lifecycleIs(ctx: Ctx, name: string, expected: string): Criterion {
  const state = lifecycleStateOf(ctx.resource);
  return criterion(ctx, name, state === expected, state, PATH.lifecycle);
}

export function noBlockingWarnings(ctx: Ctx, blocking: readonly string[]): Criterion {
  return criterion(ctx, 'no-blocking-warnings', blocking.length === 0, [...blocking], PATH.events);
}

/** Warning events split by what they mean for this kind; Normal events mean nothing here. */
export interface WarningSplit {
  failures: EventView[];
  /** Reported, not blocking (autoscaler activity, retried snapshot attempts). */
  notes: string[];
  blocking: string[];
}

export function splitWarnings(
  events: readonly EventView[],
  classify: (event: EventView) => 'failure' | 'note' | 'blocking' | undefined,
): WarningSplit {
  const split: WarningSplit = { failures: [], notes: [], blocking: [] };
  for (const event of events) {
    if (event.type !== 'Warning') continue;
    const verdict = classify(event) ?? (isNonBlocking(event.reason) ? 'note' : 'blocking');
    if (verdict === 'failure') split.failures.push(event);
    else if (verdict === 'note') split.notes.push(describeEvent(event));
    else split.blocking.push(describeEvent(event));
  }
  return split;
}

/**
 * Status that describes our generation after a deploy: observedGeneration reached it and the operator is
 * no longer mid-upgrade. Failure fields read before that (a FAILED job being restarted, a JobManager in
 * ERROR being upgraded) belong to the previous spec, not to ours.
 */
export function settledOnOurs(ctx: Ctx): boolean {
  const observed = observedGenerationOf(ctx.resource);
  const state = reconciliationStateOf(ctx.resource);
  return observed !== undefined && observed >= ctx.submitted && (state === 'DEPLOYED' || state === 'ROLLED_BACK');
}

function rawError(resource: unknown): unknown {
  return getPath(resource, ['status', 'error']);
}

/** status.error's message when it is set and is not the one already there before the submission. */
export function newStatusError(ctx: Ctx): string | undefined {
  const message = statusErrorOf(ctx.resource);
  if (message === undefined) return undefined;
  if (ctx.before !== undefined && jsonEqual(rawError(ctx.before) ?? null, rawError(ctx.resource) ?? null))
    return undefined;
  return message;
}

/** jobStatus.updateTime / startTime (strings of epoch ms). */
export function jobTimes(resource: unknown): { start?: number; update?: number } {
  const read = (key: string): number | undefined => {
    const raw = getPath(resource, ['status', 'jobStatus', key]);
    const n = typeof raw === 'string' && /^\d{1,16}$/.test(raw) ? Number(raw) : typeof raw === 'number' ? raw : NaN;
    return Number.isSafeInteger(n) && n > 0 ? n : undefined;
  };
  const start = read('startTime');
  const update = read('updateTime');
  return { ...(start === undefined ? {} : { start }), ...(update === undefined ? {} : { update }) };
}

export function previousJobIdOf(ctx: { before?: unknown; previousJobId?: string }): string | undefined {
  return ctx.previousJobId ?? jobIdOf(ctx.before);
}
