// FlinkClient over the real @kubernetes/client-node: merge patches, signals and timeouts, errors classified.
import { SingleFlight, withSignal } from '../concurrency/single-flight.js';
import {
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  Observable,
  PatchStrategy,
  type ConfigurationOptions,
  type ObservableMiddleware,
  type RequestContext,
  type ResponseContext,
} from '@kubernetes/client-node';
import type { KubeImpersonate } from '../config.js';
import { nameProblem, namespaceProblem, type Target, type TargetKind } from '../domain/model/target.js';
import { codeForStatus, KubeError } from './errors.js';
import { describeImpersonationDenial, impersonationFor, impersonationHeaders } from './impersonation.js';
import { EVENT_FIELD_SELECTOR } from './watch-hub.js';
import {
  FLINK_GROUP,
  FLINK_VERSION,
  FIELD_MANAGER,
  PLURALS,
  type CallOptions,
  type FlinkClient,
  type FlinkResourceKind,
  type KubeEvent,
  type KubeObject,
  type ResourceSummary,
  type WriteOptions,
} from './flink-client.js';
import { makeApiClient } from './agents.js';

export interface ClientNodeOptions {
  timeoutMs?: number;
  /**
   * The cluster's name, carried by every KubeError of this client (several clusters,
   * docs/deployment.md#several-clusters).
   */
  cluster?: string;
  /** Called after every request with its method, a path kind and the HTTP status (0 when none arrived). */
  onCall?: (call: { method: string; resource: string; status: number }) => void;
  /** `slack`: writes are made as their requester; reads never are (docs/deployment.md#kubernetes-attribution). */
  impersonate?: KubeImpersonate;
  /**
   * Concurrent `get`s of one object share one request (docs/operating.md#under-a-burst): the bot under a burst of
   * commands on one target. Each caller's own signal still ends its own wait.
   */
  sharedReads?: boolean;
}

/** What one request adds to client-node's own: its content type, a Table `Accept`, more headers. */
interface RequestExtras {
  contentType?: string;
  accept?: string;
  headers?: Record<string, string>;
}

export function loadKubeConfig(kubeconfigPath?: string): KubeConfig {
  const kc = new KubeConfig();
  if (kubeconfigPath) kc.loadFromFile(kubeconfigPath);
  else kc.loadFromDefault();
  return kc;
}

export class ClientNodeFlinkClient implements FlinkClient {
  private readonly custom: CustomObjectsApi;
  private readonly core: CoreV1Api;
  private readonly timeoutMs: number;
  private readonly reads = new SingleFlight<string, KubeObject | undefined>();

  constructor(
    readonly kubeConfig: KubeConfig,
    private readonly options: ClientNodeOptions = {},
  ) {
    this.custom = makeApiClient(kubeConfig, CustomObjectsApi);
    this.core = makeApiClient(kubeConfig, CoreV1Api);
    this.timeoutMs = options.timeoutMs ?? 10_000;
  }

  async get(
    kind: FlinkResourceKind,
    namespace: string,
    name: string,
    options?: CallOptions,
  ): Promise<KubeObject | undefined> {
    // No object has a name that is not a DNS-1123 subdomain: such a name (read from a resource, e.g. a session job's
    // spec.deploymentName) is never put into a URL (docs/deep-verification.md#how-rest-is-reached).
    if (nameProblem(name) !== undefined || namespaceProblem(namespace) !== undefined) return undefined;
    const once = async (callOptions: CallOptions | undefined): Promise<KubeObject | undefined> => {
      try {
        return (await this.call('get', kind, callOptions, (o) =>
          this.custom.getNamespacedCustomObject(
            { group: FLINK_GROUP, version: FLINK_VERSION, namespace, plural: PLURALS[kind], name },
            o,
          ),
        )) as KubeObject;
      } catch (error) {
        if (error instanceof KubeError && error.code === 'not-found') return undefined;
        throw error;
      }
    };
    if (!this.options.sharedReads) return once(options);
    // The shared request runs without any one caller's signal; each caller's own signal ends only its own wait.
    const { signal, ...rest } = options ?? {};
    return withSignal(
      this.reads.run(`${kind}/${namespace}/${name}`, () => once(rest)),
      signal,
    );
  }

  async list(
    kind: FlinkResourceKind,
    namespace: string,
    options?: CallOptions & { labelSelector?: string },
  ): Promise<KubeObject[]> {
    const result = (await this.call('list', kind, options, (o) =>
      this.custom.listNamespacedCustomObject(
        {
          group: FLINK_GROUP,
          version: FLINK_VERSION,
          namespace,
          plural: PLURALS[kind],
          labelSelector: options?.labelSelector,
        },
        o,
      ),
    )) as { items?: KubeObject[] };
    return result.items ?? [];
  }

  async listSummaries(kind: TargetKind, namespace: string, options?: CallOptions): Promise<ResourceSummary[]> {
    const result = await this.call(
      'list',
      kind,
      options,
      (o) =>
        this.custom.listNamespacedCustomObject(
          { group: FLINK_GROUP, version: FLINK_VERSION, namespace, plural: PLURALS[kind] },
          o,
        ),
      { accept: TABLE_ACCEPT },
    );
    return summariesOf(result);
  }

  async mergePatch(
    target: Target,
    patch: Record<string, unknown>,
    resourceVersion: string,
    options?: WriteOptions,
  ): Promise<KubeObject> {
    const headers = this.writeHeaders(options);
    const metadata = { ...((patch.metadata as Record<string, unknown> | undefined) ?? {}), resourceVersion };
    const body = { ...patch, metadata };
    return (await this.call(
      'patch',
      target.kind,
      options,
      (o) =>
        this.custom.patchNamespacedCustomObject(
          {
            group: FLINK_GROUP,
            version: FLINK_VERSION,
            namespace: target.namespace,
            plural: PLURALS[target.kind],
            name: target.name,
            body,
            fieldManager: FIELD_MANAGER,
            // A field the installed CRD lacks is refused, not silently dropped (docs/deployment.md#operator-versions).
            fieldValidation: 'Strict',
          },
          o,
        ),
      { contentType: PatchStrategy.MergePatch, headers },
    )) as KubeObject;
  }

  async createSnapshot(
    namespace: string,
    snapshot: Record<string, unknown>,
    options?: WriteOptions,
  ): Promise<KubeObject> {
    const headers = this.writeHeaders(options);
    return (await this.call(
      'create',
      'FlinkStateSnapshot',
      options,
      (o) =>
        this.custom.createNamespacedCustomObject(
          {
            group: FLINK_GROUP,
            version: FLINK_VERSION,
            namespace,
            plural: PLURALS.FlinkStateSnapshot,
            body: snapshot,
            fieldManager: FIELD_MANAGER,
          },
          o,
        ),
      { headers },
    )) as KubeObject;
  }

  /** The Impersonate-* headers of a write (none when KUBE_IMPERSONATE is off). */
  private writeHeaders(options: WriteOptions | undefined): Record<string, string> {
    const who = impersonationFor(this.options.impersonate ?? 'off', options?.requester);
    return who ? impersonationHeaders(who) : {};
  }

  /** A whole collection with its resourceVersion, to start a watch from (see watch-hub.ts). */
  async listCollection(
    kind: FlinkResourceKind | 'Event',
    namespace: string,
    options?: CallOptions,
  ): Promise<{ items: KubeObject[]; resourceVersion: string }> {
    const result =
      kind === 'Event'
        ? await this.call('list', 'Event', options, (o) =>
            this.core.listNamespacedEvent({ namespace, fieldSelector: EVENT_FIELD_SELECTOR }, o),
          )
        : await this.call('list', kind, options, (o) =>
            this.custom.listNamespacedCustomObject(
              { group: FLINK_GROUP, version: FLINK_VERSION, namespace, plural: PLURALS[kind] },
              o,
            ),
          );
    const list = result as { items?: KubeObject[]; metadata?: { resourceVersion?: string } };
    return { items: list.items ?? [], resourceVersion: list.metadata?.resourceVersion ?? '' };
  }

  async listEvents(namespace: string, involvedUid: string, options?: CallOptions): Promise<KubeEvent[]> {
    const result = await this.call('list', 'Event', options, (o) =>
      this.core.listNamespacedEvent({ namespace, fieldSelector: `involvedObject.uid=${involvedUid}` }, o),
    );
    return ((result as { items?: unknown[] }).items ?? []) as KubeEvent[];
  }

  async listNamespaces(options?: CallOptions): Promise<string[]> {
    const result = await this.call('list', 'Namespace', options, (o) => this.core.listNamespace({}, o));
    return ((result as { items?: { metadata?: { name?: string } }[] }).items ?? []).flatMap((n) =>
      n.metadata?.name ? [n.metadata.name] : [],
    );
  }

  /** Runs one request with a deadline and the caller's signal, mapping every failure to a KubeError. */
  private async call<T>(
    method: string,
    resource: string,
    options: CallOptions | undefined,
    request: (o: ConfigurationOptions<ObservableMiddleware>) => Promise<T>,
    extras: RequestExtras = {},
  ): Promise<T> {
    const { contentType, accept, headers = {} } = extras;
    const deadline = AbortSignal.timeout(options?.timeoutMs ?? this.timeoutMs);
    const signal = options?.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
    const middleware: ObservableMiddleware = {
      pre: (ctx: RequestContext) => {
        ctx.setSignal(signal);
        if (contentType) ctx.setHeaderParam('Content-Type', contentType);
        for (const [name, value] of Object.entries(headers)) ctx.setHeaderParam(name, value);
        if (accept) {
          ctx.setHeaderParam('Accept', accept);
          ctx.setQueryParam('includeObject', 'None');
        }
        return new Observable(Promise.resolve(ctx));
      },
      post: (response: ResponseContext) => new Observable(Promise.resolve(response)),
    };
    try {
      const result = await request({ middleware: [middleware], middlewareMergeStrategy: 'append' });
      this.options.onCall?.({ method, resource, status: 200 });
      return result;
    } catch (error) {
      const classified = classify(error, deadline, options?.signal).in(this.options.cluster);
      this.options.onCall?.({ method, resource, status: classified.status ?? 0 });
      throw classified;
    }
  }
}

/** Server-side printing (kube-apiserver answers any list with a Table when asked), falling back to a plain list. */
const TABLE_ACCEPT = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';

/** The CRDs' printer columns `Job Status` and `Lifecycle State` of a Table, or the same fields of plain items. */
function summariesOf(result: unknown): ResourceSummary[] {
  const body = result as {
    kind?: string;
    columnDefinitions?: { name?: string }[];
    rows?: { cells?: unknown[] }[];
    items?: KubeObject[];
  };
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  if (body.kind === 'Table') {
    const at = (name: string) => (body.columnDefinitions ?? []).findIndex((c) => c.name === name);
    const [name, job, lifecycle] = [at('Name'), at('Job Status'), at('Lifecycle State')];
    return (body.rows ?? []).flatMap((row) => {
      const cells = row.cells ?? [];
      const n = text(cells[name]);
      if (n === undefined) return [];
      const [jobState, lifecycleState] = [text(cells[job]), text(cells[lifecycle])];
      return [{ name: n, ...(lifecycleState ? { lifecycleState } : {}), ...(jobState ? { jobState } : {}) }];
    });
  }
  return (body.items ?? []).map((o) => {
    const status = (o.status ?? {}) as { lifecycleState?: unknown; jobStatus?: { state?: unknown } };
    const [lifecycleState, jobState] = [text(status.lifecycleState), text(status.jobStatus?.state)];
    return { name: o.metadata.name, ...(lifecycleState ? { lifecycleState } : {}), ...(jobState ? { jobState } : {}) };
  });
}

/** Any failure of a client-node request as a KubeError (also used by pod-logs.ts). */
export function classify(error: unknown, deadline: AbortSignal, callerSignal: AbortSignal | undefined): KubeError {
  if (error instanceof KubeError) return error;
  const e = error as { code?: unknown; body?: unknown; name?: string; message?: string; type?: string };
  if (typeof e.code === 'number' && e.code >= 100) {
    const status = statusBody(e.body);
    const message = status?.message ?? `HTTP ${e.code}`;
    // A refused impersonation says which rule the worker lacks (docs/deployment.md#kubernetes-attribution).
    const words = (e.code === 403 ? describeImpersonationDenial(message) : undefined) ?? message;
    return new KubeError(codeForStatus(e.code, status?.reason), words, e.code, { cause: error });
  }
  if (callerSignal?.aborted) return new KubeError('aborted', 'the call was cancelled', undefined, { cause: error });
  if (deadline.aborted || e.name === 'AbortError')
    return new KubeError('timeout', 'the Kubernetes API did not answer in time', undefined, { cause: error });
  return new KubeError('network', `the Kubernetes API connection failed: ${e.message ?? String(error)}`, undefined, {
    cause: error,
  });
}

function statusBody(body: unknown): { message?: string; reason?: string } | undefined {
  if (typeof body === 'string') {
    try {
      return JSON.parse(body) as { message?: string; reason?: string };
    } catch {
      return { message: body };
    }
  }
  return body && typeof body === 'object' ? (body as { message?: string; reason?: string }) : undefined;
}
