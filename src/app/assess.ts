// Assessment of one operation against the live cluster: read, plan, built-in checks and the policy decision.
// Shared by the bot (request, explain, approval re-check) and the worker (re-plan under the lease).
import type { PolicyDecision } from '../domain/model/decision.js';
import {
  lastSavepoint as findLastSavepoint,
  ownSavepointPaths,
  deploymentNameOf,
  isSessionCluster,
} from '../domain/model/resource.js';
import {
  isUndo,
  judgedKind,
  kindModule,
  type KindIntent,
  type KindName,
  type OperationIntent,
} from '../domain/kinds/index.js';
import type { OperationRecord } from '../domain/engines/operation.js';
import type { Plan } from '../domain/model/plan.js';
import { crdProblems } from '../domain/model/crd-schema.js';
import { planOperation, type PlanContext } from '../domain/engines/planning/planner.js';
import { CHECK, runChecks, type Freeze } from '../domain/engines/policy/checks.js';
import { evaluate, findNamespace } from '../domain/engines/policy/evaluate.js';
import { sessionJobsOn } from '../domain/kit/policy/session-jobs.js';
import { autoscalerOverrides } from '../domain/model/autoscaler.js';
import { verticesOf } from '../domain/model/rest-vertices.js';
import { restAddressOf } from '../domain/model/rest-address.js';
import type { Policy } from '../domain/engines/policy/schema.js';
import { formatTarget, type Target } from '../domain/model/target.js';
import { planUndo } from '../domain/engines/planning/undo.js';
import { isKubeError } from '../kube/errors.js';
import type { CrdSource } from '../kube/crds.js';
import type { FlinkClient } from '../kube/flink-client.js';
import type { FlinkRest } from '../kube/flink-rest.js';
import { gateContext, readHealth } from './health.js';
import { assessGitops } from '../domain/engines/planning/gitops.js';
import { gitopsFor } from '../domain/engines/policy/gitops.js';
import { clustersMatch, isGlob } from '../domain/kit/policy/glob.js';
import { unknownTargetRefusal } from './target-hints.js';

/** The clients of one cluster as assessment reads it: Kubernetes, and Flink REST for the health gate (absent: no gate). */
export interface ClusterReaders {
  kube: FlinkClient;
  rest?: FlinkRest | undefined;
  /** The installed CRDs: a plan needing a field they lack is refused (absent: not checked). */
  crds?: CrdSource | undefined;
}

export interface AssessDeps {
  /** The clients of the cluster the target is in (docs/deployment.md#several-clusters). */
  clients(target: Target): ClusterReaders;
  getFreeze(target: Target): Promise<Freeze | undefined>;
  /** The undone operation of an `undo`. */
  getOperation(id: string): Promise<OperationRecord | undefined>;
  now(): Date;
  /** A fresh int64-safe nonce for restartNonce / savepointRedeployNonce. */
  nonce(): number;
}

export interface AssessRequest {
  intent: OperationIntent;
  opId: string;
  requester: string;
  revision?: number;
  signal?: AbortSignal;
  /** The target as the caller has just read it (the worker, under the lease): saves reading it again. */
  current?: unknown;
}

export interface Assessment {
  ok: true;
  target: Target;
  plan: Plan;
  decision: PolicyDecision;
  /** The kind evidence and checks use: the inverted kind for an undo (recorded on its plan), else the intent's. */
  effectiveKind: KindName;
  resource: unknown;
}

export type AssessResult = Assessment | { ok: false; refusal: string };

/** The target an intent acts on (for undo: the undone operation's), or why there is none. */
export async function resolveTarget(
  intent: OperationIntent,
  deps: Pick<AssessDeps, 'getOperation'>,
): Promise<{ ok: true; target: Target; undone?: OperationRecord } | { ok: false; refusal: string }> {
  if (!isUndo(intent)) return { ok: true, target: intent.target };
  const undone = await deps.getOperation(intent.opId);
  if (!undone) return { ok: false, refusal: `there is no operation ${intent.opId} to undo` };
  return { ok: true, target: undone.target, undone };
}

export async function assess(policy: Policy, request: AssessRequest, deps: AssessDeps): Promise<AssessResult> {
  const resolved = await resolveTarget(request.intent, deps);
  if (!resolved.ok) return resolved;
  const { target, undone } = resolved;
  const { kube, rest, crds } = deps.clients(target);
  const live =
    request.current === undefined
      ? await readLive(target, kube, request.signal, { namespaces: listedNamespaces(policy, target.cluster) })
      : await withSessionCluster(target, request.current, kube, request.signal);
  if (!live.ok) return live;
  const ctx = {
    opId: request.opId,
    requester: request.requester,
    nonce: deps.nonce(),
    revision: request.revision ?? 1,
  };
  const planned = await withVertexNames(
    planFor(request.intent, undone, live, ctx),
    target,
    live,
    rest,
    request.signal,
    (named) => planFor(request.intent, undone, named, ctx),
  );
  if (!planned.ok) return planned;
  const missing = await missingFromCrd(planned.plan, crds, request.signal);
  if (missing) return { ok: false, refusal: missing };
  const effectiveKind = judgedKind(request.intent.kind, planned.plan);
  const now = deps.now();
  // The target's GitOps owner may add the pause to the patch, so it comes before anything reads the plan.
  const gitops = withGitops(policy, request.intent.kind, effectiveKind, planned.plan, live.resource, now);
  const { plan } = gitops;
  const checkIntent = isUndo(request.intent) ? inverseIntent(effectiveKind, target, plan) : request.intent;

  const freeze = await deps.getFreeze(target);
  const savepoints = kindModule(effectiveKind).traits.readsLastSavepoint
    ? await readSavepoints(target, live.resource, kube, request.signal)
    : undefined;
  const lastSavepoint = savepoints?.last;
  const environment = findNamespace(policy, target.namespace, target.cluster)?.environment;
  const reading = await readHealth(policy, target, live, rest, request.signal);
  const health = reading && { ...reading, context: gateContext(target, environment, isUndo(request.intent)) };
  const sessionJobs = redeploysSessionCluster(effectiveKind, target, live.resource)
    ? await readSessionJobs(target, kube, request.signal)
    : undefined;
  const builtIn = runChecks({
    ...(health ? { health } : {}),
    ...(sessionJobs ? { sessionJobs } : {}),
    ...(environment === undefined ? {} : { environment }),
    intent: checkIntent,
    resource: live.resource,
    sessionCluster: live.sessionCluster,
    ...(freeze ? { freeze } : {}),
    ...(plan.effectiveUpgradeMode ? { effectiveUpgradeMode: plan.effectiveUpgradeMode } : {}),
    ...(lastSavepoint ? { lastSavepoint } : {}),
    ...(savepoints ? { ownSavepoints: savepoints.own } : {}),
    policy: {
      ...(policy.config ? { config: policy.config } : {}),
      ...(policy.limits ? { limits: policy.limits } : {}),
      ...(policy.restore ? { restore: policy.restore } : {}),
    },
    now,
  });
  const checks = [...builtIn, ...gitops.checks];
  // A configuration key the policy does not allow, or a restore source outside the target's own state, is refused
  // (nothing recorded), naming it (docs/lifecycle.md#refused-or-denied, docs/policy.md#restore-sources).
  const refusedKeys = checks.find((c) => REFUSING_CHECKS.has(c.name) && c.outcome === 'fail');
  if (refusedKeys) return { ok: false, refusal: `${refusedKeys.message}; nothing was recorded` };
  const decision = evaluate(policy, {
    intentKind: request.intent.kind,
    namespace: target.namespace,
    ...(target.cluster === undefined ? {} : { cluster: target.cluster }),
    ...(plan.effectiveUpgradeMode ? { upgradeMode: plan.effectiveUpgradeMode } : {}),
    now,
    checks,
    // Authorised at request time (checkRequest); a re-plan or re-check keeps skipping what it skipped
    // (docs/policy.md#break-glass).
    ...(request.intent.breakGlass === true ? { breakGlass: true } : {}),
  });
  return { ok: true, target, plan, decision, effectiveKind, resource: live.resource };
}

/**
 * A patch needing fields the installed CRD does not declare, or values it does not admit, in words
 * (docs/deployment.md#operator-versions): the API server would drop or refuse them, so the plan is refused before
 * anything is recorded.
 */
async function missingFromCrd(
  plan: Plan,
  crds: CrdSource | undefined,
  signal?: AbortSignal,
): Promise<string | undefined> {
  if (plan.change.type !== 'patch' || !crds) return undefined;
  const facts = (await crds.catalog(signal)).crds[plan.target.kind];
  const problems = facts ? crdProblems(facts.schema, plan.change.patch, plan.target.kind) : [];
  if (problems.length === 0) return undefined;
  return `${problems.join('; ')}: the API server would not take it; nothing was recorded`;
}

/** The plan with what its target's GitOps owner means for it, and the `gitops` checks (docs/policy.md#gitops-managed-targets). */
function withGitops(
  policy: Policy,
  intentKind: OperationIntent['kind'],
  effectiveKind: KindName,
  plan: Plan,
  resource: unknown,
  now: Date,
): ReturnType<typeof assessGitops> {
  const { target } = plan;
  const settings = gitopsFor(policy, {
    namespace: target.namespace,
    ...(target.cluster === undefined ? {} : { cluster: target.cluster }),
    intentKind,
    ...(plan.effectiveUpgradeMode ? { upgradeMode: plan.effectiveUpgradeMode } : {}),
    now,
  });
  return assessGitops({ plan, resource, intentKind, effectiveKind, settings });
}

interface LiveRead {
  ok: true;
  resource: unknown;
  sessionCluster?: unknown;
  vertexNames?: Record<string, string>;
}

/** The target (and a session job's cluster), or a refusal in plain words for not-found and no-access. */
export async function readLive(
  target: Target,
  kube: FlinkClient,
  signal?: AbortSignal,
  hints?: { namespaces: readonly string[] },
): Promise<LiveRead | { ok: false; refusal: string }> {
  try {
    const resource = await kube.get(target.kind, target.namespace, target.name, signal ? { signal } : {});
    if (!resource && hints !== undefined)
      return { ok: false, refusal: await unknownTargetRefusal(target, kube, hints.namespaces, signal) };
    if (!resource) return { ok: false, refusal: `there is no ${target.kind} ${formatTarget(target)}` };
    return await withSessionCluster(target, resource, kube, signal);
  } catch (error) {
    if (isKubeError(error, 'forbidden')) {
      return { ok: false, refusal: `the bot has no access to namespace ${target.namespace} (add a RoleBinding)` };
    }
    throw error;
  }
}

/** A target already read, plus a session job's cluster (which planning checks need). */
async function withSessionCluster(
  target: Target,
  resource: unknown,
  kube: FlinkClient,
  signal?: AbortSignal,
): Promise<LiveRead> {
  if (target.kind !== 'FlinkSessionJob') return { ok: true, resource };
  const clusterName = deploymentNameOf(resource);
  const sessionCluster = clusterName
    ? await kube.get('FlinkDeployment', target.namespace, clusterName, signal ? { signal } : {})
    : undefined;
  return { ok: true, resource, sessionCluster };
}

/** Failed, these refuse the command instead of denying a recorded operation. */
const REFUSING_CHECKS: ReadonlySet<string> = new Set([CHECK.configKeys, CHECK.restoreSource]);

/** The target's last savepoint, and every savepoint of it on record (one list call). */
async function readSavepoints(target: Target, resource: unknown, kube: FlinkClient, signal?: AbortSignal) {
  const snapshots = await kube.list('FlinkStateSnapshot', target.namespace, {
    labelSelector: `job-reference.name=${target.name}`,
    ...(signal ? { signal } : {}),
  });
  const found = findLastSavepoint(target, snapshots, resource);
  const last = found ? { location: found.location, ...(found.at === undefined ? {} : { at: found.at }) } : undefined;
  return { last, own: ownSavepointPaths(target, snapshots, resource) };
}

/** A restart or upgrade of a session cluster: the operator deletes it, and with it every session job on it. */
function redeploysSessionCluster(kind: KindName, target: Target, resource: unknown): boolean {
  return target.kind === 'FlinkDeployment' && isSessionCluster(resource) && kindModule(kind).traits.redeploys;
}

async function readSessionJobs(target: Target, kube: FlinkClient, signal?: AbortSignal): Promise<unknown[]> {
  const items = await kube.list('FlinkSessionJob', target.namespace, signal ? { signal } : {});
  return sessionJobsOn(target.name, items);
}

const VERTEX_NAMES_TIMEOUT_MS = 2_000;

/**
 * A refusal on a target whose vertices the autoscaler holds is planned again with the vertices' names from Flink
 * REST (one read, only then), so it can name them; without REST or an answer the refusal shows vertex ids.
 */
async function withVertexNames(
  planned: Planned,
  target: Target,
  live: LiveRead,
  rest: FlinkRest | undefined,
  signal: AbortSignal | undefined,
  again: (live: LiveRead) => Planned,
): Promise<Planned> {
  if (planned.ok || rest === undefined || Object.keys(autoscalerOverrides(live.resource)).length === 0) return planned;
  const vertexNames = await readVertexNames(target, live.resource, rest, signal);
  return vertexNames === undefined ? planned : again({ ...live, vertexNames });
}

async function readVertexNames(
  target: Target,
  resource: unknown,
  rest: FlinkRest,
  signal?: AbortSignal,
): Promise<Record<string, string> | undefined> {
  const address = restAddressOf(target, resource);
  if (!address.ok) return undefined;
  const job = await rest.get(target.namespace, address.clusterId, `/jobs/${address.jobId}`, {
    timeoutMs: VERTEX_NAMES_TIMEOUT_MS,
    ...(signal ? { signal } : {}),
  });
  return job.ok ? Object.fromEntries(verticesOf(job.value).map((v) => [v.id, v.name])) : undefined;
}

type Planned = { ok: true; plan: Plan } | { ok: false; refusal: string };

/** The plan of the intent itself, or of an undo from the operation it undoes. */
function planFor(
  intent: OperationIntent,
  undone: OperationRecord | undefined,
  live: LiveRead,
  ctx: PlanContext,
): Planned {
  if (!isUndo(intent)) return planOperation(intent, live, ctx);
  if (!undone?.plan) return { ok: false, refusal: `${intent.opId} has no plan to undo` };
  return planUndo(
    { id: undone.id, kind: undone.kind, state: undone.state, plan: undone.plan, intent: undone.intent },
    live,
    ctx,
  );
}

/** The intent an undo behaves as, for the built-in checks (its patch holds the values it puts back). */
function inverseIntent(kind: KindName, target: Target, plan: Plan): KindIntent {
  const asInverse = kindModule(kind).asInverse;
  if (asInverse === undefined) throw new TypeError(`undo: ${kind} cannot be the kind an undo is judged as`);
  return asInverse(target, plan.change.type === 'patch' ? plan.change.patch : {}) as KindIntent;
}

/** The policy's exact namespaces on `cluster`: where an unknown target's name is looked for (target-hints.ts). */
export function listedNamespaces(policy: Pick<Policy, 'namespaces'>, cluster: string | undefined): string[] {
  return policy.namespaces.filter((n) => !isGlob(n.name) && clustersMatch(n.clusters, cluster)).map((n) => n.name);
}
