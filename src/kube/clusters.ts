// The Kubernetes clusters a process sees (docs/deployment.md#several-clusters): one kubeconfig context each
// (KUBE_CONTEXTS), or the one current context (or in-cluster account) named CLUSTER_NAME; each cluster's clients are
// made on first use.
import { KubeConfig } from '@kubernetes/client-node';
import type { KubeImpersonate } from '../config.js';
import { clusterOf, type Target } from '../domain/model/target.js';
import { ClientNodeFlinkClient, loadKubeConfig, type ClientNodeOptions } from './client-node.js';
import { InstalledCrds } from './crds.js';
import { ClientNodeFlinkRest } from './flink-rest.js';
import { ClientNodePodLogs } from './pod-logs.js';

export interface ClusterSpec {
  /** Cluster names: the contexts of KUBE_CONTEXTS, or [CLUSTER_NAME]. */
  names: readonly string[];
  /** True when the names are kubeconfig contexts to select; false: the kubeconfig's current context. */
  fromContexts: boolean;
}

/** One cluster's clients, sharing its credentials. */
export interface ClusterClients {
  readonly name: string;
  readonly kubeConfig: KubeConfig;
  readonly kube: ClientNodeFlinkClient;
  readonly rest: ClientNodeFlinkRest;
  /** Pods and their logs, for `/flink logs` (docs/deployment.md#pod-logs). */
  readonly pods: ClientNodePodLogs;
  /** The installed Flink CRDs (docs/deployment.md#operator-versions). */
  readonly crds: InstalledCrds;
}

export interface KubeClustersOptions {
  /** Observes every Kubernetes call (metrics, benchmarks), with the cluster it went to. */
  onCall?: (call: { cluster: string; method: string; resource: string; status: number }) => void;
  timeoutMs?: number;
  /** KUBE_IMPERSONATE of the Flink client's writes (docs/deployment.md#kubernetes-attribution); default off. */
  impersonate?: KubeImpersonate;
  /** Concurrent reads of one object share one request (the bot: docs/operating.md#under-a-burst). */
  sharedReads?: boolean;
}

/** Thrown at start when KUBE_CONTEXTS names a context the kubeconfig does not have (a config error). */
export class UnknownContextError extends Error {}

export class KubeClusters {
  private readonly made = new Map<string, ClusterClients>();

  private constructor(
    private readonly base: KubeConfig,
    readonly spec: ClusterSpec,
    private readonly options: KubeClustersOptions,
  ) {}

  /** Loads the kubeconfig (file, else default, else in-cluster) and checks that every named context is in it. */
  static load(spec: ClusterSpec, kubeconfigPath: string | undefined, options: KubeClustersOptions = {}): KubeClusters {
    const base = loadKubeConfig(kubeconfigPath);
    if (spec.fromContexts) {
      const known = base.getContexts().map((c) => c.name);
      const missing = spec.names.filter((n) => !known.includes(n));
      if (missing.length > 0) {
        throw new UnknownContextError(
          `KUBE_CONTEXTS: ${missing.join(', ')} not in the kubeconfig (its contexts: ${known.join(', ') || 'none'})`,
        );
      }
    }
    return new KubeClusters(base, spec, options);
  }

  get names(): readonly string[] {
    return this.spec.names;
  }

  /** Several clusters: targets carry their cluster and cards show it. */
  get multi(): boolean {
    return this.spec.names.length > 1;
  }

  /** The cluster a target is in: its own, else the first (a single-cluster installation's only one). */
  nameOf(target: Pick<Target, 'cluster'>): string {
    return clusterOf(target, this.spec.names);
  }

  /** The clients of the cluster a target is in. */
  of(target: Pick<Target, 'cluster'>): ClusterClients {
    return this.get(this.nameOf(target));
  }

  kube(target: Pick<Target, 'cluster'>): ClientNodeFlinkClient {
    return this.of(target).kube;
  }

  rest(target: Pick<Target, 'cluster'>): ClientNodeFlinkRest {
    return this.of(target).rest;
  }

  pods(target: Pick<Target, 'cluster'>): ClientNodePodLogs {
    return this.of(target).pods;
  }

  crds(target: Pick<Target, 'cluster'>): InstalledCrds {
    return this.of(target).crds;
  }

  /** The clients of a named cluster, made on first use; throws for a name this process does not see. */
  get(name: string): ClusterClients {
    const made = this.made.get(name);
    if (made) return made;
    if (!this.spec.names.includes(name))
      throw new Error(`cluster "${name}" is not one of this process's clusters (${this.spec.names.join(', ')})`);
    const kubeConfig = this.configFor(name);
    const label = this.multi ? name : undefined;
    const onCall = this.options.onCall;
    const kubeOptions: ClientNodeOptions = {
      ...(label ? { cluster: label } : {}),
      ...(this.options.timeoutMs ? { timeoutMs: this.options.timeoutMs } : {}),
      ...(onCall ? { onCall: (call) => onCall({ cluster: name, ...call }) } : {}),
      ...(this.options.sharedReads ? { sharedReads: true } : {}),
    };
    const rest = new ClientNodeFlinkRest(
      kubeConfig,
      onCall
        ? { onCall: ({ status }) => onCall({ cluster: name, method: 'get', resource: 'services/proxy', status }) }
        : {},
    );
    const clients: ClusterClients = {
      name,
      kubeConfig,
      kube: new ClientNodeFlinkClient(kubeConfig, { ...kubeOptions, impersonate: this.options.impersonate ?? 'off' }),
      rest,
      pods: new ClientNodePodLogs(kubeConfig, kubeOptions),
      crds: new InstalledCrds(kubeConfig),
    };
    this.made.set(name, clients);
    return clients;
  }

  private configFor(name: string): KubeConfig {
    if (!this.spec.fromContexts) return this.base;
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: this.base.getClusters(),
      users: this.base.getUsers(),
      contexts: this.base.getContexts(),
      currentContext: name,
    });
    return kc;
  }
}
