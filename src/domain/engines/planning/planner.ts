// Plans an operation against the live target: preconditions, the exact merge patch or snapshot, diff and digest.
import { canonicalDigest } from '../../model/canonical.js';
import { joinWords } from '../../kit/policy/schedule.js';
import { OP_ID_PATTERN } from '../../kit/language/intent-base.js';
import type { UpgradeMode } from '../../model/upgrade-mode.js';
import { kindModule, kindsWhere, type KindIntent, type KindName } from '../../kinds/index.js';
import { getPath, setPath, type JsonRecord } from '../../model/merge-patch.js';
import {
  ANNOTATION_OPERATION_ID,
  ANNOTATION_REQUESTED_BY,
  type FieldChange,
  type Plan,
  type PlanChange,
} from '../../model/plan.js';
import type { FieldEdit } from '../../kit/planning/edits.js';
import {
  deploymentNameOf,
  jobStateOf,
  generationOf,
  hasOperatorStatus,
  isSessionCluster,
  kindOf,
  nameOf,
  namespaceOf,
  resourceVersionOf,
  uidOf,
} from '../../model/resource.js';
import { formatTarget, type Target } from '../../model/target.js';
import { fallbackNote, preflightRefusal } from './preflight.js';
import { blueGreenParent } from '../../kit/planning/target-refusals.js';

export interface PlanContext {
  opId: string;
  /** Slack user id of the requester (the `requested-by` annotation). */
  requester: string;
  /** A fresh int64-safe integer (e.g. the clock in ms) for restartNonce / savepointRedeployNonce. */
  nonce: number;
  /** 1 for the first plan (default); the caller passes the next one when re-planning. */
  revision?: number;
}

export interface LiveTarget {
  resource: unknown;
  /** The session cluster of a FlinkSessionJob, when read (its configuration lies under the job's). */
  sessionCluster?: unknown;
  /** Vertex id → name from Flink REST, when the caller read them (to name the autoscaler's vertices). */
  vertexNames?: Record<string, string>;
}

export type PlanResult = { ok: true; plan: Plan } | { ok: false; refusal: string };

export const SNAPSHOT_API_VERSION = 'flink.apache.org/v1beta1';
const MAX_NAME = 253;

/**
 * The plan of one operation (every kind but undo), or the reason it is refused (docs/lifecycle.md#refused-or-denied).
 */
export function planOperation(intent: KindIntent, live: LiveTarget, ctx: PlanContext): PlanResult {
  checkContext(ctx);
  const identity = identify(intent.target, live.resource);
  if (!identity.ok) return identity;
  const sessionCluster = intent.target.kind === 'FlinkDeployment' && isSessionCluster(live.resource);
  const preflight = {
    intent,
    resource: live.resource,
    sessionCluster,
    sessionClusterResource: live.sessionCluster,
    ...(live.vertexNames ? { vertexNames: live.vertexNames } : {}),
  };
  const why =
    blueGreenParent(intent.target, live.resource) ??
    notApplicable(intent.kind, intent.target, live.resource, sessionCluster) ??
    suspendedRefusal(intent.kind, intent.target, live.resource) ??
    preflightRefusal(preflight);
  if (why !== undefined) return { ok: false, refusal: why };

  const input = {
    intent,
    resource: live.resource,
    sessionCluster,
    nonce: ctx.nonce,
    sessionClusterResource: live.sessionCluster,
  };
  const outcome = kindModule(intent.kind).plan(input);
  if (!outcome.ok) return outcome;
  if (outcome.type === 'create-snapshot')
    return { ok: true, plan: snapshotPlan(intent.target, identity, ctx, outcome.savepointPath) };
  const fallback = fallbackNote(preflight);
  const plan = patchPlan({
    target: intent.target,
    identity,
    edits: outcome.edits,
    notes: fallback === undefined ? outcome.notes : [...outcome.notes, fallback],
    effectiveUpgradeMode: outcome.effectiveUpgradeMode,
    ctx,
  });
  return { ok: true, plan };
}

export interface Identity {
  ok: true;
  uid: string;
  generation: number;
  resourceVersion: string;
  resource: unknown;
}

/** The target's identity, or why it cannot be planned against (no operator status, not what was asked for). */
export function identify(target: Target, resource: unknown): Identity | { ok: false; refusal: string } {
  const shown = formatTarget(target);
  const kind = kindOf(resource);
  if (kind !== undefined && kind !== target.kind) {
    return { ok: false, refusal: `${shown} is a ${kind}, not a ${target.kind}` };
  }
  const name = nameOf(resource);
  const namespace = namespaceOf(resource);
  if ((name !== undefined && name !== target.name) || (namespace !== undefined && namespace !== target.namespace)) {
    return {
      ok: false,
      refusal: `the resource read for ${shown} is ${namespace ?? '?'}/${name ?? '?'}; request again`,
    };
  }
  const uid = uidOf(resource);
  const generation = generationOf(resource);
  if (uid === undefined || generation === undefined) {
    return {
      ok: false,
      refusal: `${shown} as read from the cluster has no metadata.uid or metadata.generation; cannot plan against it`,
    };
  }
  if (!hasOperatorStatus(resource)) {
    return {
      ok: false,
      refusal: `${shown} is not reconciled by the Flink operator yet (it has no status); check that the operator watches namespace ${target.namespace}`,
    };
  }
  return { ok: true, uid, generation, resourceVersion: resourceVersionOf(resource) ?? '', resource };
}

function checkContext(ctx: PlanContext): void {
  if (!OP_ID_PATTERN.test(ctx.opId))
    throw new TypeError(`plan: "${ctx.opId}" is not an operation id (op- and 6–12 of a-z0-9)`);
  if (ctx.requester.length === 0) throw new TypeError('plan: the requester is empty');
  if (!Number.isSafeInteger(ctx.nonce) || ctx.nonce < 0)
    throw new TypeError(`plan: nonce ${ctx.nonce} is not a non-negative safe integer`);
  if (ctx.revision !== undefined && (!Number.isSafeInteger(ctx.revision) || ctx.revision < 1)) {
    throw new TypeError(`plan: revision ${ctx.revision} is not a positive integer`);
  }
}

function annotations(ctx: PlanContext): Record<string, string> {
  return { [ANNOTATION_OPERATION_ID]: ctx.opId, [ANNOTATION_REQUESTED_BY]: ctx.requester };
}

/** sha256 of canonical JSON of kind, namespace, name, uid, planned generation and change (never resourceVersion). */
export function planDigest(args: { target: Target; uid: string; generation: number; change: PlanChange }): string {
  const { target, uid, generation, change } = args;
  return canonicalDigest({
    kind: target.kind,
    namespace: target.namespace,
    name: target.name,
    uid,
    generation,
    change,
  });
}

export interface PatchPlanInput {
  target: Target;
  identity: Identity;
  edits: readonly FieldEdit[];
  notes: string[];
  effectiveUpgradeMode: UpgradeMode | undefined;
  ctx: PlanContext;
}

/** A merge-patch plan from field edits: the patch carries the two annotations; the diff does not. */
export function patchPlan(input: PatchPlanInput): Plan {
  const { target, identity, edits, ctx } = input;
  const patch: JsonRecord = { metadata: { annotations: annotations(ctx) } };
  const diff: FieldChange[] = [];
  for (const edit of edits) {
    setPath(patch, edit.path, edit.after);
    diff.push({ path: edit.path.join('.'), before: getPath(identity.resource, edit.path) ?? null, after: edit.after });
  }
  const plan = assemblePlan(target, identity, { type: 'patch', patch }, diff, input.notes, ctx);
  return input.effectiveUpgradeMode === undefined
    ? plan
    : { ...plan, effectiveUpgradeMode: input.effectiveUpgradeMode };
}

/** The plan around a change: identity as planned, the digest approvals bind to, the revision. */
function assemblePlan(
  target: Target,
  identity: Identity,
  change: PlanChange,
  diff: FieldChange[],
  notes: string[],
  ctx: PlanContext,
): Plan {
  return {
    revision: ctx.revision ?? 1,
    target,
    uid: identity.uid,
    generation: identity.generation,
    resourceVersion: identity.resourceVersion,
    change,
    diff,
    digest: planDigest({ target, uid: identity.uid, generation: identity.generation, change }),
    notes,
  };
}

/**
 * `<target name>-<op id>`, at most 253 characters. The op id is kept whole (it makes the name unique and lets
 * a worker find its own snapshot after a lost response); the target's part is cut, and trailing `-`/`.` are
 * dropped so the result stays a valid DNS-1123 subdomain.
 */
export function snapshotName(targetName: string, opId: string): string {
  const room = MAX_NAME - opId.length - 1;
  const head = targetName.length <= room ? targetName : targetName.slice(0, room).replace(/[-.]+$/, '');
  return `${head}-${opId}`;
}

function snapshotPlan(target: Target, identity: Identity, ctx: PlanContext, savepointPath: string | undefined): Plan {
  const name = snapshotName(target.name, ctx.opId);
  const savepoint: JsonRecord =
    savepointPath === undefined ? { disposeOnDelete: false } : { disposeOnDelete: false, path: savepointPath };
  const snapshot: JsonRecord = {
    apiVersion: SNAPSHOT_API_VERSION,
    kind: 'FlinkStateSnapshot',
    metadata: { name, namespace: target.namespace, annotations: annotations(ctx) },
    spec: {
      jobReference: { kind: target.kind, name: target.name },
      // Deleting the record must never delete the data; -1 (the default) means no retry up to 1.15.
      savepoint,
      backoffLimit: 2,
    },
  };
  const change: PlanChange = { type: 'create-snapshot', snapshot };
  const diff: FieldChange[] = [
    { path: 'snapshot.name', before: null, after: `${target.namespace}/${name}` },
    { path: 'snapshot.spec.jobReference', before: null, after: `${target.kind}/${target.name}` },
    { path: 'snapshot.spec.savepoint.disposeOnDelete', before: null, after: false },
    { path: 'snapshot.spec.backoffLimit', before: null, after: 2 },
    ...(savepointPath === undefined
      ? []
      : [{ path: 'snapshot.spec.savepoint.path', before: null, after: savepointPath }]),
  ];
  const notes = [
    `creates FlinkStateSnapshot ${target.namespace}/${name}; the spec of ${formatTarget(target)} does not change`,
  ];
  return assemblePlan(target, identity, change, diff, notes, ctx);
}

/**
 * Refused before planning (docs/lifecycle.md#refused-or-denied): a change the operator would only record on a suspended
 * job.
 */
function suspendedRefusal(kind: KindName, target: Target, resource: unknown): string | undefined {
  if (!kindModule(kind).traits.refusedWhileSuspended || jobStateOf(resource) !== 'suspended') return undefined;
  return `${formatTarget(target)} is suspended: the operator records the change but applies it only at resume; resume first`;
}

/**
 * Why `kind` does not apply to this target, or undefined when it does (docs/lifecycle.md#refused-or-denied); from the
 * kind's traits.
 */
export function notApplicable(
  kind: KindName,
  target: Target,
  resource: unknown,
  sessionCluster: boolean,
): string | undefined {
  const module = kindModule(kind);
  const traits = module.traits;
  if (target.kind === 'FlinkSessionJob' && !traits.onSessionJob) {
    const deployment = deploymentNameOf(resource);
    const cluster = deployment === undefined ? '' : ` (${target.namespace}/${deployment})`;
    return `${module.sessionJobRefusal ?? `${kind} does not apply to session jobs`}; ${kind} the session cluster${cluster}`;
  }
  if (sessionCluster && !traits.onSessionCluster) {
    const allowed = joinWords(kindsWhere('onSessionCluster'));
    return (
      `${formatTarget(target)} is a session cluster (a FlinkDeployment without spec.job): only ${allowed} apply to it; ` +
      `to ${kind} one of its jobs, target the job as sessionjob:${target.namespace}/<name>`
    );
  }
  return undefined;
}
