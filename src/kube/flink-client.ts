// The FlinkClient port: only the Kubernetes calls this bot makes, with AbortSignal and timeout on each.
import type { Target, TargetKind } from '../domain/model/target.js';

/** A Kubernetes object as plain JSON; fields are read defensively by src/domain/resource.ts. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    generation?: number;
    resourceVersion?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    [key: string]: unknown;
  };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface KubeEvent extends KubeObject {
  type?: string;
  reason?: string;
  message?: string;
  count?: number;
  firstTimestamp?: string;
  lastTimestamp?: string;
  involvedObject?: { apiVersion?: string; kind?: string; name?: string; namespace?: string; uid?: string };
  source?: { component?: string };
}

export interface CallOptions {
  signal?: AbortSignal;
  /** Milliseconds; defaults to the client's. */
  timeoutMs?: number;
}

/** A write's options: also the Slack user it is made for (docs/deployment.md#kubernetes-attribution). */
export interface WriteOptions extends CallOptions {
  /** The operation's requester; with KUBE_IMPERSONATE=slack the write is made as `slack:<requester>`. */
  requester?: string;
}

export type FlinkResourceKind = TargetKind | 'FlinkStateSnapshot';

export interface FlinkClient {
  /** The object, or undefined when it does not exist. */
  get(kind: FlinkResourceKind, namespace: string, name: string, options?: CallOptions): Promise<KubeObject | undefined>;
  list(
    kind: FlinkResourceKind,
    namespace: string,
    options?: CallOptions & { labelSelector?: string },
  ): Promise<KubeObject[]>;
  /** JSON merge patch with `metadata.resourceVersion` as optimistic-concurrency precondition. */
  mergePatch(
    target: Target,
    patch: Record<string, unknown>,
    resourceVersion: string,
    options?: WriteOptions,
  ): Promise<KubeObject>;
  createSnapshot(namespace: string, snapshot: Record<string, unknown>, options?: WriteOptions): Promise<KubeObject>;
  /**
   * Name, lifecycle state and job state of every resource of a kind in a namespace (for `list`): read as the
   * API server's Table of the CRD's printer columns, so thousands of resources cost a few bytes each.
   */
  listSummaries(kind: TargetKind, namespace: string, options?: CallOptions): Promise<ResourceSummary[]>;
  /** Events whose involvedObject is the given object (by uid). */
  listEvents(namespace: string, involvedUid: string, options?: CallOptions): Promise<KubeEvent[]>;
  /** Namespaces this client can read (for policy globs). */
  listNamespaces(options?: CallOptions): Promise<string[]>;
}

/** One line of `list`. */
export interface ResourceSummary {
  name: string;
  lifecycleState?: string;
  jobState?: string;
}

export { FIELD_MANAGER } from '../domain/model/plan.js';

export const FLINK_GROUP = 'flink.apache.org';
export const FLINK_VERSION = 'v1beta1';
export const FLINK_API_VERSION = `${FLINK_GROUP}/${FLINK_VERSION}`;

export const PLURALS = {
  FlinkDeployment: 'flinkdeployments',
  FlinkSessionJob: 'flinksessionjobs',
  FlinkStateSnapshot: 'flinkstatesnapshots',
} as const satisfies Record<FlinkResourceKind, string>;
