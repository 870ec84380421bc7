// The pods of a Flink cluster and their logs, over the real @kubernetes/client-node (docs/commands.md#flink-logs):
// `pods: list` by the operator's labels and `pods/log: get` with `tailLines` and `limitBytes`, both opt-in in the bot's read-only role
// (docs/deployment.md#pod-logs). Failures are KubeErrors, as every other call of the bot's.
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { abortable, type AbortableOptions } from './abortable.js';
import { classify } from './client-node.js';
import type { KubeError } from './errors.js';
import type { CallOptions } from './flink-client.js';
import { makeApiClient } from './agents.js';

/** A pod as `/flink logs` needs it. */
export interface PodSummary {
  name: string;
  labels: Record<string, string>;
  /** `status.phase`: Running, Pending, … */
  phase?: string;
  /** ms; absent when unknown. */
  createdAt?: number;
  containers: string[];
}

/** What one `pods/log` read asks for. */
export interface LogRead {
  container: string;
  tailLines: number;
  limitBytes: number;
}

/** The port: only the two calls `/flink logs` makes. */
export interface PodLogs {
  listPods(namespace: string, labelSelector: string, options?: CallOptions): Promise<PodSummary[]>;
  /** The container's last `tailLines` lines as one text, its first `limitBytes` bytes at most (the API server cuts). */
  readLog(namespace: string, pod: string, read: LogRead, options?: CallOptions): Promise<string>;
}

export interface PodLogsOptions {
  timeoutMs?: number;
  /** The cluster's name, carried by every KubeError (several clusters). */
  cluster?: string;
  onCall?: (call: { method: string; resource: string; status: number }) => void;
}

type Raw = Record<string, unknown>;
const rec = (v: unknown): Raw => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Raw) : {});

export class ClientNodePodLogs implements PodLogs {
  private readonly core: CoreV1Api;

  constructor(
    kubeConfig: KubeConfig,
    private readonly options: PodLogsOptions = {},
  ) {
    this.core = makeApiClient(kubeConfig, CoreV1Api);
  }

  async listPods(namespace: string, labelSelector: string, options?: CallOptions): Promise<PodSummary[]> {
    const result = await this.call('list', 'pods', options, (o) =>
      this.core.listNamespacedPod({ namespace, labelSelector }, o),
    );
    const items = Array.isArray(rec(result).items) ? (rec(result).items as unknown[]) : [];
    return items.map((item) => summaryOf(item));
  }

  async readLog(namespace: string, pod: string, read: LogRead, options?: CallOptions): Promise<string> {
    const { container, tailLines, limitBytes } = read;
    const text = await this.call('get', 'pods/log', options, (o) =>
      this.core.readNamespacedPodLog({ namespace, name: pod, container, tailLines, limitBytes }, o),
    );
    return typeof text === 'string' ? text : String(text ?? '');
  }

  /** One request with a deadline and the caller's signal; every failure a KubeError naming the cluster. */
  private async call<T>(
    method: string,
    resource: string,
    options: CallOptions | undefined,
    request: (o: AbortableOptions) => Promise<T>,
  ): Promise<T> {
    const deadline = AbortSignal.timeout(options?.timeoutMs ?? this.options.timeoutMs ?? 10_000);
    const signal = options?.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
    try {
      const result = await request(abortable(signal));
      this.options.onCall?.({ method, resource, status: 200 });
      return result;
    } catch (error) {
      const classified: KubeError = classify(error, deadline, options?.signal).in(this.options.cluster);
      this.options.onCall?.({ method, resource, status: classified.status ?? 0 });
      throw classified;
    }
  }
}

function summaryOf(item: unknown): PodSummary {
  const metadata = rec(rec(item).metadata);
  const labels = Object.fromEntries(
    Object.entries(rec(metadata.labels)).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
  const containers = (
    Array.isArray(rec(rec(item).spec).containers) ? (rec(rec(item).spec).containers as unknown[]) : []
  )
    .map((c) => rec(c).name)
    .filter((n): n is string => typeof n === 'string');
  const created = metadata.creationTimestamp;
  const createdAt = created instanceof Date ? created.getTime() : Date.parse(String(created ?? ''));
  const phase = rec(rec(item).status).phase;
  return {
    name: String(metadata.name ?? ''),
    labels,
    containers,
    ...(typeof phase === 'string' ? { phase } : {}),
    ...(Number.isFinite(createdAt) ? { createdAt } : {}),
  };
}
