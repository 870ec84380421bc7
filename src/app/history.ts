// The `savepoints` and `exceptions` queries (docs/commands.md#queries): read the target, its snapshots, or its events
// and Flink's exception history, and build the views.
import { flinkExceptionHistory, HISTORY_READ, type FlinkExceptionHistory } from '../domain/model/exception-history.js';
import { jobExceptions } from '../domain/model/job-exceptions.js';
import { jobStatusStateOf, uidOf } from '../domain/model/resource.js';
import { restAddressOf } from '../domain/model/rest-address.js';
import { snapshotHistory, LAST_STATE_PLACEHOLDER } from '../domain/model/snapshot-history.js';
import { formatTarget, type Target } from '../domain/model/target.js';
import { uriProblem } from '../domain/kit/language/values.js';
import { findNamespace, unmanagedMessage } from '../domain/engines/policy/evaluate.js';
import { readRestHealth } from '../domain/kit/evidence/regression.js';
import { isKubeError } from '../kube/errors.js';
import { readLive } from './assess.js';
import { describeFault, type BotDeps } from './context.js';
import type { ExceptionsView, SavepointsView } from './views.js';

export type HistoryAnswer =
  | { kind: 'savepoints'; view: SavepointsView }
  | { kind: 'exceptions'; view: ExceptionsView }
  | { kind: 'refused'; message: string };

/** Flink's exception history comes from its REST API (docs/commands.md#where-exceptions-come-from); said when unread. */
export const REST_NOT_READ =
  "Flink's REST API is not reachable from the bot, so only the operator's events are shown (Kubernetes keeps them for about an hour)";
/** Said when Flink held more exceptions than the bot reads. */
export const HISTORY_CUT = `Flink's exception history holds more than ${HISTORY_READ}; older ones were not read`;

/** `restore <target> --from <path>` (without the slash command), or undefined when the parser would refuse the path. */
export function restoreCommand(target: Target, path: string): string | undefined {
  if (path === LAST_STATE_PLACEHOLDER || uriProblem(path) !== undefined) return undefined;
  return `restore ${formatTarget(target)} --from ${path}`;
}

type FlinkHistory = FlinkExceptionHistory & { restarts?: number };

/** What the answer says about Flink's history: not read, cut by the bot, or shorter than the run's restarts. */
function historyNotes(history: FlinkHistory | undefined): string[] {
  if (history === undefined) return [REST_NOT_READ];
  if (history.truncated) return [HISTORY_CUT];
  const kept = history.entries.length;
  if (history.restarts === undefined || history.restarts <= kept) return [];
  return [
    `Flink counts ${history.restarts} restarts of the job's current run (numRestarts); its exception history keeps the newest ${kept}`,
  ];
}

function problemOf(error: unknown, target: Target): string {
  if (isKubeError(error, 'forbidden'))
    return `the bot may not read them in namespace ${target.namespace} (add a RoleBinding)`;
  return describeFault(error);
}

export class HistoryQueries {
  constructor(private readonly deps: BotDeps) {}

  async savepoints(target: Target, limit: number): Promise<HistoryAnswer> {
    const live = await this.readTarget(target);
    if (!live.ok) return { kind: 'refused', message: live.message };
    let snapshots: unknown[] = [];
    let problem: string | undefined;
    try {
      // The label narrows the listing; kind and namespace are checked on each (snapshotHistory).
      snapshots = await this.deps.clusters
        .kube(target)
        .list('FlinkStateSnapshot', target.namespace, { labelSelector: `job-reference.name=${target.name}` });
    } catch (error) {
      this.deps.logger.warn(
        { err: error, target: formatTarget(target) },
        'could not list FlinkStateSnapshots for savepoints',
      );
      problem = `the FlinkStateSnapshots could not be listed: ${problemOf(error, target)}`;
    }
    const history = snapshotHistory(target, snapshots, live.resource, limit);
    const view: SavepointsView = {
      target,
      snapshots: history.snapshots.map((s) => {
        const restore = s.state === 'COMPLETED' && s.path !== undefined ? restoreCommand(target, s.path) : undefined;
        return restore === undefined ? s : { ...s, restore };
      }),
      total: history.total,
      limit,
    };
    if (history.recorded !== undefined) {
      const restore = restoreCommand(target, history.recorded);
      view.recorded = { path: history.recorded, ...(restore === undefined ? {} : { restore }) };
    }
    if (problem !== undefined) view.problem = problem;
    return { kind: 'savepoints', view };
  }

  async exceptions(target: Target, limit: number): Promise<HistoryAnswer> {
    const live = await this.readTarget(target);
    if (!live.ok) return { kind: 'refused', message: live.message };
    const notes: string[] = [];
    const uid = uidOf(live.resource);
    let events: unknown[] = [];
    if (uid !== undefined) {
      try {
        events = await this.deps.clusters.kube(target).listEvents(target.namespace, uid);
      } catch (error) {
        this.deps.logger.warn({ err: error, target: formatTarget(target) }, 'could not list events for exceptions');
        notes.push(`the events could not be read: ${problemOf(error, target)}`);
      }
    }
    const address = restAddressOf(target, live.resource);
    const history = address.ok ? await this.flinkHistory(target, address) : undefined;
    notes.push(
      ...(address.ok || address.missing ? historyNotes(history) : [`Flink REST was not read: ${address.message}`]),
    );
    const found = jobExceptions(target, live.resource, events, limit, uid, history?.entries);
    const jobState = jobStatusStateOf(live.resource);
    const view: ExceptionsView = {
      target,
      ...found,
      limit,
      notes,
      flinkHistory: history !== undefined,
      ...(jobState === undefined ? {} : { jobState }),
    };
    return { kind: 'exceptions', view };
  }

  /**
   * The job's exception history from Flink REST, newest first, with the run's `numRestarts` when it answers;
   * undefined when REST cannot be read.
   */
  private async flinkHistory(
    target: Target,
    { clusterId, jobId }: { clusterId: string; jobId: string },
  ): Promise<FlinkHistory | undefined> {
    const rest = this.deps.clusters.rest(target);
    if (rest === undefined) return undefined;
    const read = (path: string) => rest.get(target.namespace, clusterId, `/jobs/${jobId}${path}`, { timeoutMs: 2_000 });
    const [answer, metrics] = await Promise.all([
      read(`/exceptions?maxExceptions=${HISTORY_READ}`),
      read('/metrics?get=numRestarts'),
    ]);
    if (!answer.ok) return undefined;
    const restarts = metrics.ok ? readRestHealth({ metrics: metrics.value }).numRestarts : undefined;
    return { ...flinkExceptionHistory(answer.value), ...(restarts === undefined ? {} : { restarts }) };
  }

  private async readTarget(target: Target): Promise<{ ok: true; resource: unknown } | { ok: false; message: string }> {
    const state = await this.deps.policy.current();
    if (state.ok && !findNamespace(state.policy, target.namespace, target.cluster))
      return { ok: false, message: unmanagedMessage(state.policy, target.namespace, target.cluster) };
    const live = await readLive(target, this.deps.clusters.kube(target));
    return live.ok ? { ok: true, resource: live.resource } : { ok: false, message: live.refusal };
  }
}
