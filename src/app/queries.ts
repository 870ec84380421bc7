// Read-only queries (docs/commands.md#queries): the views behind status, list, ops, op, explain and locks; they never
// write.
import { describeCrds, operatorOnCrds } from '../domain/model/crd-schema.js';
import { resolveSchedule } from '../domain/kit/schedule/resolve.js';
import type { OperationIntent } from '../domain/kinds/index.js';
import type { Query } from '../domain/engines/language/requests.js';
import type { OperationRecord } from '../domain/engines/operation.js';
import { checkRequest, findNamespace, unmanagedMessage } from '../domain/engines/policy/evaluate.js';
import type { Policy } from '../domain/engines/policy/schema.js';
import {
  annotationsOf,
  imageOf,
  jobSpecOf,
  jobStatusStateOf,
  lastSavepoint,
  lifecycleStateOf,
  parallelismOf,
  statusErrorOf,
  upgradeModeOf,
} from '../domain/model/resource.js';
import { formatTarget, type Target } from '../domain/model/target.js';
import { isRevert } from '../domain/kit/evidence/reverts.js';
import { ANNOTATION_GITOPS_PAUSED_BY, detectGitops, ownerWords } from '../domain/model/gitops.js';
import type { ExplainView, LocksView, StatusView } from './views.js';
import { assess, listedNamespaces, readLive, resolveTarget } from './assess.js';
import { assessDeps, type BotDeps } from './context.js';
import { HistoryQueries, type HistoryAnswer } from './history.js';
import { LogsQueries, type LogsAnswer } from './logs.js';
import { ListQueries, type ListAnswer } from './list.js';
import type { Freeze } from './ports/freezes.js';

export type QueryAnswer =
  | { kind: 'help'; verb?: string }
  | { kind: 'status'; view: StatusView }
  | ListAnswer
  | { kind: 'ops'; records: OperationRecord[]; target?: Target }
  | { kind: 'op'; record: OperationRecord }
  | { kind: 'explain'; view: ExplainView }
  | { kind: 'locks'; view: LocksView }
  | HistoryAnswer
  | LogsAnswer
  | { kind: 'refused'; message: string };

/** The id `explain` plans under: valid, never recorded. */
export const EXPLAIN_OP_ID = 'op-explain0';
const AUDIT_LINES = 20;

export class QueryService {
  private readonly history: HistoryQueries;
  private readonly logs: LogsQueries;
  private readonly lists: ListQueries;

  constructor(private readonly deps: BotDeps) {
    this.history = new HistoryQueries(deps);
    this.logs = new LogsQueries(deps);
    this.lists = new ListQueries(deps);
  }

  /** Kubernetes and Redis faults throw; the caller answers them in words. */
  async answer(query: Query, asker: string): Promise<QueryAnswer> {
    switch (query.kind) {
      case 'help':
        return query.verb === undefined ? { kind: 'help' } : { kind: 'help', verb: query.verb };
      case 'status':
        return this.status(query.target);
      case 'list':
        return this.lists.answer(query);
      case 'ops': {
        const records = query.target
          ? await this.deps.store.recentForTarget(query.target, query.limit)
          : await this.deps.store.recent(query.limit);
        return query.target ? { kind: 'ops', records, target: query.target } : { kind: 'ops', records };
      }
      case 'op': {
        const record = await this.deps.store.get(query.opId);
        return record
          ? { kind: 'op', record }
          : refused(`there is no operation ${query.opId} (records are kept for 30 days)`);
      }
      case 'explain':
        return this.explain(query.intent, asker);
      case 'locks':
        return this.locks();
      case 'savepoints':
        return this.history.savepoints(query.target, query.limit);
      case 'exceptions':
        return this.history.exceptions(query.target, query.limit);
      case 'logs':
        return this.logs.answer(query, asker);
    }
  }

  private async status(target: Target): Promise<QueryAnswer> {
    const state = await this.deps.policy.current();
    if (state.ok && !findNamespace(state.policy, target.namespace, target.cluster))
      return refused(unmanagedMessage(state.policy, target.namespace, target.cluster));
    const hints = state.ok ? { namespaces: listedNamespaces(state.policy, target.cluster) } : undefined;
    const live = await readLive(target, this.deps.clusters.kube(target), undefined, hints);
    if (!live.ok) return refused(live.refusal);
    const resource = live.resource;
    const [savepoint, lease, freeze, last, catalog] = await Promise.all([
      this.lastSavepoint(target, resource),
      this.deps.leases.holder(target),
      this.deps.freezes.get(target),
      this.deps.store.recentForTarget(target, 1),
      this.deps.clusters.crds?.(target).catalog(),
    ]);
    const environment = state.ok
      ? findNamespace(state.policy, target.namespace, target.cluster)?.environment
      : undefined;
    const view: StatusView = {
      target,
      ...defined({
        environment,
        lifecycleState: lifecycleStateOf(resource),
        jobState: jobStatusStateOf(resource),
        image: imageOf(resource),
        parallelism: parallelismOf(resource),
        upgradeMode: upgradeModeOf(resource) ?? (jobSpecOf(resource) ? 'stateless (not set)' : undefined),
        lastSavepoint: savepoint,
        lease: lease ? { opId: lease.opId, since: lease.since } : undefined,
        freeze: freeze
          ? {
              by: freeze.by,
              reason: freeze.reason,
              at: freeze.at,
              ...(freeze.until === undefined ? {} : { until: freeze.until }),
            }
          : undefined,
        lastOperation: last[0] ? pickLast(last[0]) : undefined,
        error: statusErrorOf(resource),
        gitops: gitopsOf(resource),
        lastRevert: last[0]?.history.findLast(isRevert),
        crds: catalog ? describeCrds(catalog.crds, catalog.unreadable) : undefined,
        operator: catalog ? operatorOnCrds(resource, catalog.crds.FlinkDeployment) : undefined,
      }),
    };
    return { kind: 'status', view };
  }

  /**
   * The last savepoint (docs/lifecycle.md#savepoints); a snapshot list the bot may not read leaves the legacy field as
   * the answer.
   */
  private async lastSavepoint(
    target: Target,
    resource: unknown,
  ): Promise<{ location: string; at?: number } | undefined> {
    let snapshots: unknown[] = [];
    try {
      snapshots = await this.deps.clusters
        .kube(target)
        .list('FlinkStateSnapshot', target.namespace, { labelSelector: `job-reference.name=${target.name}` });
    } catch (error) {
      this.deps.logger.warn(
        { err: error, target: formatTarget(target) },
        'could not list FlinkStateSnapshots for status',
      );
    }
    const found = lastSavepoint(target, snapshots, resource);
    return found ? { location: found.location, ...(found.at === undefined ? {} : { at: found.at }) } : undefined;
  }

  /** The plan and decision the command would get now, without recording anything; refusals are answered as such. */
  private async explain(intent: OperationIntent, asker: string): Promise<QueryAnswer> {
    const state = await this.deps.policy.current();
    if (!state.ok) return refused(state.message);
    const resolved = await resolveTarget(intent, { getOperation: (id) => this.deps.store.get(id) });
    if (!resolved.ok) return refused(`it would be refused: ${resolved.refusal}`);
    const membership = this.deps.membership.for(state.policy, state.hash);
    const request = {
      namespace: resolved.target.namespace,
      cluster: resolved.target.cluster,
      requester: asker,
      // A missing reason is listed with what the request would need, not refused (docs/commands.md#what-explain-shows).
      hasReason: true,
      intentKind: intent.kind,
      breakGlass: intent.breakGlass === true,
    };
    const check = await checkRequest(state.policy, request, membership);
    if (!check.ok) return refused(`it would be refused: ${check.message}`);
    const missing = missingFromRequest(intent, state.policy, check.namespaceEntry.environment);
    const scheduled = resolveSchedule(intent, state.policy, this.deps.now());
    if (!scheduled.ok) return refused(`it would be refused: ${scheduled.message}`);
    const assessed = await assess(
      state.policy,
      { intent, opId: EXPLAIN_OP_ID, requester: asker },
      assessDeps(this.deps),
    );
    if (!assessed.ok) return refused(`it would be refused: ${assessed.refusal}`);
    const environment = check.namespaceEntry.environment;
    const view: ExplainView = {
      intent,
      target: assessed.target,
      plan: assessed.plan,
      decision: assessed.decision,
      ...defined({ environment, schedule: scheduled.schedule }),
      ...(missing.length === 0 ? {} : { missing }),
    };
    return { kind: 'explain', view };
  }

  private async locks(): Promise<QueryAnswer> {
    const [leases, freezes, audit] = await Promise.all([
      this.deps.leases.listLeases(),
      this.deps.freezes.list(),
      this.deps.freezes.auditLog(AUDIT_LINES),
    ]);
    const view: LocksView = {
      leases: leases.map((l) => ({ target: formatTarget(l.target), opId: l.opId, since: l.since })),
      freezes: freezes.map(freezeView),
      audit: audit.map((a) => ({ what: a.what, target: formatTarget(a.target), by: a.by, reason: a.reason, at: a.at })),
    };
    return { kind: 'locks', view };
  }
}

function refused(message: string): QueryAnswer {
  return { kind: 'refused', message };
}

/** The target's GitOps owner as the status shows it; undefined when none is detected. */
function gitopsOf(resource: unknown): StatusView['gitops'] {
  const owner = detectGitops(resource);
  if (!owner) return undefined;
  const pausedBy = annotationsOf(resource)[ANNOTATION_GITOPS_PAUSED_BY];
  return {
    owner: ownerWords(owner),
    paused: owner.paused,
    ...(pausedBy ? { pausedBy } : {}),
    ...(owner.skipped ? { skipped: owner.skipped } : {}),
  };
}

function pickLast(r: OperationRecord): NonNullable<StatusView['lastOperation']> {
  return { id: r.id, kind: r.kind, state: r.state, requester: r.requester, updatedAt: r.updatedAt };
}

/** Drops undefined fields, so views carry only what is known. */
function defined<T extends Record<string, unknown>>(o: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}

/** A freeze as `/flink locks` and App Home show it, with its end when it has one. */
export function freezeView(f: Freeze): LocksView['freezes'][number] {
  return {
    target: formatTarget(f.target),
    by: f.by,
    reason: f.reason,
    at: f.at,
    ...(f.until === undefined ? {} : { until: f.until }),
  };
}

/** What the typed command lacks that the request itself would be refused for: a reason where one is required. */
function missingFromRequest(intent: OperationIntent, policy: Policy, environment: string | undefined): string[] {
  if (intent.reason !== undefined) return [];
  if (intent.breakGlass === true) return ['a --reason is required (--break-glass always needs one)'];
  if (environment !== undefined && policy.approval.requireReason.includes(environment))
    return [`a --reason is required (the policy requires one in ${environment} namespaces)`];
  return [];
}
