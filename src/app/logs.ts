// The `logs` query (docs/commands.md#flink-logs): who may read (policy `logs.allowedFor`, checked before anything is
// read), which pod (the JobManager, or TaskManager n; a session job's session cluster), its last lines through
// `pods/log` with `tailLines` and `limitBytes`, masked (docs/policy.md#logs), never answered in the channel.
import { MASK, maskedLines } from '../domain/kit/logs/mask.js';
import { MAX_LOG_LINES } from '../domain/kit/language/logs.js';
import type { Query } from '../domain/engines/language/requests.js';
import { logsAccess } from '../domain/engines/policy/logs.js';
import { unmanagedMessage } from '../domain/engines/policy/evaluate.js';
import { restClusterOf } from '../domain/model/rest-address.js';
import { formatTarget, type Target } from '../domain/model/target.js';
import { isKubeError } from '../kube/errors.js';
import type { PodLogs, PodSummary } from '../kube/pod-logs.js';
import { readLive } from './assess.js';
import { describeFault, type BotDeps } from './context.js';
import type { LogsView } from './views.js';

export type LogsQuery = Extract<Query, { kind: 'logs' }>;
export type LogsAnswer = { kind: 'logs'; view: LogsView } | { kind: 'refused'; message: string };

/** The container Flink runs in, in the operator's pod templates. */
export const FLINK_CONTAINER = 'flink-main-container';
const POD_LOGS_DOC = 'docs/deployment.md#pod-logs';
/** `limitBytes` of every read: 500 lines of the 1,000 characters shown, with room; the API server cuts there. */
export const LOG_READ_BYTES = 512 * 1024;

/** A 403 on pods or pods/log: the opt-in RBAC rule is missing (docs/deployment.md#pod-logs). */
export function podLogsForbidden(namespace: string): string {
  return `the bot may not read pod logs in ${namespace}: enable the \`pod-logs\` component (${POD_LOGS_DOC})`;
}

const refused = (message: string): LogsAnswer => ({ kind: 'refused', message });

export class LogsQueries {
  constructor(private readonly deps: BotDeps) {}

  /** Kubernetes faults other than a refusal are answered in words; membership faults throw. */
  async answer(query: LogsQuery, asker: string): Promise<LogsAnswer> {
    const { target } = query;
    const state = await this.deps.policy.current();
    if (!state.ok) return refused(`${state.message}; /flink logs needs a valid policy (logs.allowedFor)`);
    const membership = this.deps.membership.for(state.policy, state.hash);
    const access = await logsAccess(
      state.policy,
      {
        namespace: target.namespace,
        ...(target.cluster === undefined ? {} : { cluster: target.cluster }),
        user: asker,
      },
      membership,
      () => unmanagedMessage(state.policy, target.namespace, target.cluster),
    );
    if (!access.ok) return refused(access.message);
    const pods = this.deps.clusters.pods?.(target);
    if (pods === undefined) return refused('this installation cannot read pod logs (no Kubernetes client for pods)');
    try {
      return await this.read(query, pods, access.settings.redactPatterns);
    } catch (error) {
      if (isKubeError(error, 'forbidden')) return refused(podLogsForbidden(target.namespace));
      this.deps.logger.warn({ err: error, target: formatTarget(target) }, 'could not read pod logs');
      if (isKubeError(error, 'rejected') || isKubeError(error, 'not-found'))
        return refused(`the log could not be read: ${error.message}`);
      return refused(describeFault(error));
    }
  }

  private async read(query: LogsQuery, pods: PodLogs, redact: RegExp[]): Promise<LogsAnswer> {
    const { target } = query;
    const live = await readLive(target, this.deps.clusters.kube(target));
    if (!live.ok) return refused(live.refusal);
    const named = restClusterOf(target, live.resource);
    if (!named.ok && named.missing)
      return refused(
        `${formatTarget(target)} names no session cluster (spec.deploymentName), so there is no log to read`,
      );
    // The name goes into a label selector: one that is not a DNS-1123 label is refused, not read.
    if (!named.ok) return refused(`the log was not read: ${named.message}`);
    const cluster = named.clusterId;
    const component = query.tm === undefined ? 'jobmanager' : 'taskmanager';
    const found = await pods.listPods(target.namespace, `app=${cluster},component=${component}`);
    const pod = pickPod(found, query.tm);
    if (pod === undefined) return refused(noPod(target, cluster, query.tm, found));
    const read = query.grep === undefined ? query.lines : MAX_LOG_LINES;
    const text = await pods.readLog(target.namespace, pod.name, {
      container: FLINK_CONTAINER,
      tailLines: read,
      limitBytes: LOG_READ_BYTES,
    });
    const cut = Buffer.byteLength(text) >= LOG_READ_BYTES;
    const raw = text.split('\n');
    if (raw.at(-1) === '') raw.pop();
    const lines = maskedLines(raw, {
      redact,
      limit: query.lines,
      ...(query.grep === undefined ? {} : { grep: query.grep }),
    });
    const notes =
      target.kind === 'FlinkSessionJob'
        ? [
            `${formatTarget(target)} runs on session cluster ${cluster}: this is that cluster's ${component === 'jobmanager' ? 'JobManager' : 'TaskManager'} log, which all its jobs share`,
          ]
        : [];
    const view: LogsView = {
      target,
      cluster,
      pod: pod.name,
      container: FLINK_CONTAINER,
      role: query.tm === undefined ? { kind: 'jobmanager' } : { kind: 'taskmanager', n: query.tm },
      lines,
      requested: query.lines,
      read: raw.length,
      masked: lines.filter((l) => l.includes(MASK)).length,
      notes,
      ...(query.grep === undefined ? {} : { grep: query.grep }),
      ...(cut ? { cutAtBytes: LOG_READ_BYTES } : {}),
    };
    return { kind: 'logs', view };
  }
}

/** TaskManager n: the pod named `…-taskmanager-<attempt>-<n>` (the newest attempt); the JobManager: the newest running pod. */
function pickPod(pods: readonly PodSummary[], tm: number | undefined): PodSummary | undefined {
  const newest = (a: PodSummary, b: PodSummary) => (b.createdAt ?? 0) - (a.createdAt ?? 0);
  const candidates = tm === undefined ? [...pods] : pods.filter((p) => taskManagerNumber(p.name) === tm);
  const running = candidates.filter((p) => p.phase === 'Running').sort(newest);
  return running[0] ?? candidates.sort(newest)[0];
}

function taskManagerNumber(pod: string): number | undefined {
  const m = /-taskmanager-\d+-(\d+)$/.exec(pod);
  return m ? Number(m[1]) : undefined;
}

function noPod(target: Target, cluster: string, tm: number | undefined, found: readonly PodSummary[]): string {
  if (tm === undefined)
    return `no JobManager pod of ${cluster} is running in ${target.namespace} (is ${formatTarget(target)} suspended?)`;
  const numbers = found.map((p) => taskManagerNumber(p.name)).filter((n): n is number => n !== undefined);
  const running =
    numbers.length === 0 ? 'none is running' : `running: ${[...new Set(numbers)].sort((a, b) => a - b).join(', ')}`;
  return `${cluster} has no TaskManager ${tm} in ${target.namespace} (${running})`;
}
