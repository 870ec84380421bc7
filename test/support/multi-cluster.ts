// Several simulated clusters for one bot (docs/deployment.md#several-clusters): each its own store, operator and API
// server on loopback, one kubeconfig with a context per cluster, and an API server that can be stopped and started
// again on its port (the cluster "goes away" and comes back with its state), with the writes it served counted.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { FlinkRest } from '@flink-chatops/sim/kube/flink-rest';
import { startSimOperator, type SimOperator } from '@flink-chatops/sim/kube/operator';
import { startSimApiServer, validateSpec, type SimApiServer } from '@flink-chatops/sim/kube/server';
import { SimStore } from '@flink-chatops/sim/kube/store';
import { waitStable } from '@flink-chatops/sim/testing/sim';
import { deployment, type DeploymentOptions } from '@flink-chatops/sim/testing/sim-resources';

export class RestartableCluster {
  private server: SimApiServer | undefined;
  private readonly rest: FlinkRest;
  /** Writes served by earlier incarnations of the API server (before a stop). */
  private patchesBefore = 0;

  private constructor(
    readonly name: string,
    readonly store: SimStore,
    readonly operator: SimOperator,
    public port: number,
  ) {
    this.rest = new FlinkRest({ store, speed: 'fast', settings: (object) => operator.settingsOf(object) });
  }

  static async start(name: string): Promise<RestartableCluster> {
    const store = new SimStore({ validate: validateSpec });
    const cluster = new RestartableCluster(name, store, startSimOperator({ store, speed: 'fast' }), 0);
    await cluster.up();
    return cluster;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Starts the API server (again), on the same port once it had one. */
  async up(): Promise<void> {
    if (this.server) return;
    this.server = await startSimApiServer({ store: this.store, flinkRest: this.rest, port: this.port });
    this.port = this.server.port;
  }

  /** Stops answering: connections are refused until `up()`; the cluster's state and operator go on. */
  async down(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.patchesBefore += this.patchesNow(server);
    this.server = undefined;
    await server.close();
  }

  /** PATCH and create requests on Flink resources this cluster's API server has served, in every incarnation. */
  writes(): number {
    return this.patchesBefore + (this.server ? this.patchesNow(this.server) : 0);
  }

  private patchesNow(server: SimApiServer): number {
    const { requests } = server.stats();
    return Object.entries(requests)
      .filter(([key]) => /^(patch|create) flink/.test(key))
      .reduce((sum, [, n]) => sum + n, 0);
  }

  /** Creates a FlinkDeployment and waits until it runs on its spec. */
  async deploy(name: string, namespace: string, options: DeploymentOptions = {}): Promise<void> {
    this.store.create('flinkdeployments', deployment(name, namespace, { ...options, state: 'running' }));
    await waitStable(this.store, namespace, name);
  }

  parallelismOf(namespace: string, name: string): unknown {
    const object = this.store.get('flinkdeployments', namespace, name) as
      { spec?: { job?: { parallelism?: unknown } } } | undefined;
    return object?.spec?.job?.parallelism;
  }

  async close(): Promise<void> {
    await this.down();
    await this.operator.close();
  }
}

export interface SimClusters {
  byName: Record<string, RestartableCluster>;
  /** One kubeconfig, one context per cluster named after it (KUBE_CONTEXTS=<names>). */
  kubeconfigPath: string;
  close(): Promise<void>;
}

export async function startSimClusters(names: readonly string[]): Promise<SimClusters> {
  const dir = await mkdtemp(join(tmpdir(), 'multi-cluster-'));
  const clusters = await Promise.all(names.map((name) => RestartableCluster.start(name)));
  const kubeconfigPath = join(dir, 'kubeconfig');
  await writeFile(
    kubeconfigPath,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      // client-node 1.x talks plain http only with insecure-skip-tls-verify
      // (docs/development.md#the-simulated-cluster).
      clusters: clusters.map((c) => ({ name: c.name, cluster: { server: c.url, 'insecure-skip-tls-verify': true } })),
      users: clusters.map((c) => ({ name: `${c.name}-user`, user: {} })),
      contexts: clusters.map((c) => ({ name: c.name, context: { cluster: c.name, user: `${c.name}-user` } })),
      'current-context': names[0],
    }),
    { mode: 0o600 },
  );
  return {
    byName: Object.fromEntries(clusters.map((c) => [c.name, c])),
    kubeconfigPath,
    async close() {
      for (const c of clusters) await c.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
