// The demo seeds: realistic Flink jobs in streaming-prod and streaming-dev, one suspended, one manual savepoint
// (`demo`, the sandbox's cluster eu); and a smaller second cluster (`demo-us`, the sandbox's us) with its own
// streaming-prod/orders, the same namespace/name as in eu, plus a namespace of its own.
import { seedDemoBlueGreen } from './bluegreen.js';
import { JOB_GRAPH_ANNOTATION } from './job-graph.js';
import { API_VERSION } from './spec-json.js';
import type { KubeObject, SimStore } from './store.js';

export const DEMO_NAMESPACES = ['streaming-prod', 'streaming-dev'] as const;
export const DEMO_US_NAMESPACES = ['streaming-prod', 'streaming-analytics'] as const;
/** The seeds with resources; `demo-us` is the sandbox's second cluster. */
export type DemoSeed = 'demo' | 'demo-us';
const JAR = 'local:///opt/flink/examples/streaming/StateMachineExample.jar';

interface JobOptions {
  parallelism?: number;
  upgradeMode: 'savepoint' | 'last-state' | 'stateless';
  conf?: Record<string, string>;
  replicas?: number;
  state?: 'running' | 'suspended';
  /** The job's shape (job-graph.ts): vertices with their own parallelism, bounded branches. */
  graph?: string;
}

/**
 * Shapes of real jobs for some demo jobs (the others run the default three-vertex graph): a sink the code runs
 * at parallelism 1, a bounded bootstrap branch that finishes while the job keeps running.
 */
const GRAPHS = {
  fraudDetection: 'Source: Kafka transactions; Score -> Enrich; Sink: alerts [p=1]',
  payments: 'Source: Kafka payments; Enrich -> Validate; KeyedProcess -> Dedupe; Sink: results [p=1]',
  ledgerExport: 'Source: Kafka ledger; Source: bootstrap ledger [bounded=20s]; Join -> Format; Sink: S3 export [p=1]',
  sessionizer:
    'Source: Kafka clicks; Source: bootstrap sessions [bounded=30s]; SessionWindow -> Aggregate; Sink: sessions',
} as const;

function stateConf(namespace: string, name: string, bucket: string): Record<string, string> {
  return {
    'taskmanager.numberOfTaskSlots': '2',
    'state.backend.type': 'rocksdb',
    'state.backend.incremental': 'true',
    // Short enough that a production change (which waits for a checkpoint after it, docs/deep-verification.md#policy)
    // completes in seconds.
    'execution.checkpointing.interval': '10s',
    'state.savepoints.dir': `s3://${bucket}/${namespace}/${name}/savepoints`,
    'state.checkpoints.dir': `s3://${bucket}/${namespace}/${name}/checkpoints`,
    'high-availability.type': 'kubernetes',
    'high-availability.storageDir': `s3://${bucket}/${namespace}/${name}/ha`,
  };
}

function flinkDeployment(
  namespace: string,
  name: string,
  options: JobOptions | undefined,
  bucket = 'flink-state',
): KubeObject {
  const spec: Record<string, unknown> = {
    image: 'flink:1.20',
    flinkVersion: 'v1_20',
    serviceAccount: 'flink',
    flinkConfiguration: { ...stateConf(namespace, name, bucket), ...options?.conf },
    jobManager: { replicas: 1, resource: { memory: '2048m', cpu: 1 } },
    taskManager: {
      resource: { memory: '4096m', cpu: 2 },
      ...(options?.replicas !== undefined ? { replicas: options.replicas } : {}),
    },
  };
  if (options) {
    spec.job = {
      jarURI: JAR,
      ...(options.parallelism !== undefined ? { parallelism: options.parallelism } : {}),
      upgradeMode: options.upgradeMode,
      state: options.state ?? 'running',
    };
  }
  return {
    apiVersion: API_VERSION,
    kind: 'FlinkDeployment',
    metadata: {
      name,
      namespace,
      labels: { app: name, team: 'data-platform' },
      ...(options?.graph !== undefined ? { annotations: { [JOB_GRAPH_ANNOTATION]: options.graph } } : {}),
    },
    spec,
  };
}

type SeedResource = { resource: 'flinkdeployments' | 'flinksessionjobs'; object: KubeObject };

/** The resources of a demo seed, in creation order. */
export function demoResources(seed: DemoSeed = 'demo'): SeedResource[] {
  if (seed === 'demo-us') return demoUsResources();
  const prod = 'streaming-prod';
  const dev = 'streaming-dev';
  const deployments = [
    flinkDeployment(prod, 'orders', { parallelism: 4, upgradeMode: 'savepoint' }),
    flinkDeployment(prod, 'payments', {
      parallelism: 4,
      upgradeMode: 'last-state',
      replicas: 3,
      graph: GRAPHS.payments,
    }),
    flinkDeployment(prod, 'clickstream', {
      parallelism: 6,
      upgradeMode: 'savepoint',
      conf: {
        'job.autoscaler.enabled': 'true',
        'job.autoscaler.scaling.enabled': 'true',
        'job.autoscaler.stabilization.interval': '1m',
        'job.autoscaler.metrics.window': '5m',
        'job.autoscaler.target.utilization': '0.6',
        'jobmanager.scheduler': 'adaptive',
        'pipeline.max-parallelism': '720',
      },
    }),
    flinkDeployment(prod, 'fraud-detection', {
      parallelism: 8,
      upgradeMode: 'last-state',
      graph: GRAPHS.fraudDetection,
    }),
    flinkDeployment(prod, 'ledger-export', { parallelism: 2, upgradeMode: 'savepoint', graph: GRAPHS.ledgerExport }),
    flinkDeployment(prod, 'session-cluster', undefined),
    flinkDeployment(dev, 'orders', {
      parallelism: 2,
      upgradeMode: 'savepoint',
      conf: {
        'kubernetes.operator.deployment.rollback.enabled': 'true',
        'kubernetes.operator.deployment.readiness.timeout': '2 min',
      },
    }),
  ];
  const sessionJob: KubeObject = {
    apiVersion: API_VERSION,
    kind: 'FlinkSessionJob',
    metadata: { name: 'sessionjob-etl', namespace: prod, labels: { team: 'data-platform' } },
    spec: {
      deploymentName: 'session-cluster',
      job: {
        jarURI: 'https://artifacts.example.com/flink-jobs/etl-1.4.2.jar',
        parallelism: 2,
        upgradeMode: 'savepoint',
        state: 'running',
      },
    },
  };
  return [
    ...deployments.map((object) => ({ resource: 'flinkdeployments' as const, object })),
    { resource: 'flinksessionjobs' as const, object: sessionJob },
  ];
}

/**
 * The second cluster (`us`, operator 1.16): its own streaming-prod/orders (same namespace/name as in `demo`, other
 * parallelism and state bucket) and a namespace only it has, streaming-analytics, with one job, whose TaskManager
 * takes its memory and cpu from `resources` (docs/sandbox.md#operator-releases).
 */
function demoUsResources(): SeedResource[] {
  const bucket = 'flink-state-us';
  const sessionizer = flinkDeployment(
    'streaming-analytics',
    'sessionizer',
    { parallelism: 2, upgradeMode: 'last-state', graph: GRAPHS.sessionizer },
    bucket,
  );
  const taskManager = sessionizer.spec?.taskManager as Record<string, unknown>;
  taskManager.resources = { requests: { memory: '3Gi', cpu: '1' }, limits: { memory: '4Gi' } };
  return [
    flinkDeployment('streaming-prod', 'orders', { parallelism: 3, upgradeMode: 'savepoint' }, bucket),
    sessionizer,
  ].map((object) => ({ resource: 'flinkdeployments' as const, object }));
}

/**
 * Creates a demo seed's resources. `demo`: once `ledger-export` runs it is suspended (with a savepoint); in both
 * seeds, once streaming-prod/orders runs a manual FlinkStateSnapshot of it is taken, so "last savepoint" has
 * data. Resolves when the follow-ups were submitted; `signal` ends the wait early.
 */
export function seedDemo(store: SimStore, signal?: AbortSignal, seed: DemoSeed = 'demo'): Promise<void> {
  for (const namespace of seed === 'demo-us' ? DEMO_US_NAMESPACES : DEMO_NAMESPACES) store.ensureNamespace(namespace);
  for (const { resource, object } of demoResources(seed)) store.create(resource, object);
  if (seed === 'demo') seedDemoBlueGreen(store);
  const followUps = [
    whenRunning(store, 'orders', signal).then((ok) => {
      if (!ok) return;
      store.create('flinkstatesnapshots', {
        apiVersion: API_VERSION,
        kind: 'FlinkStateSnapshot',
        metadata: { name: 'orders-savepoint-baseline', namespace: 'streaming-prod' },
        spec: {
          backoffLimit: 2,
          jobReference: { kind: 'FlinkDeployment', name: 'orders' },
          savepoint: { disposeOnDelete: false, formatType: 'CANONICAL' },
        },
      });
    }),
  ];
  if (seed === 'demo') {
    followUps.push(
      whenRunning(store, 'ledger-export', signal).then((ok) => {
        if (ok)
          store.update('flinkdeployments', 'streaming-prod', 'ledger-export', (d) => ({
            ...d,
            spec: { ...d.spec, job: { ...(d.spec?.job as object), state: 'suspended' } },
          }));
      }),
    );
  }
  return Promise.all(followUps).then(() => undefined);
}

/** Resolves true once streaming-prod/<name> reports its job RUNNING, false when aborted. */
function whenRunning(store: SimStore, name: string, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    const running = (): boolean =>
      (store.get('flinkdeployments', 'streaming-prod', name)?.status?.jobStatus as { state?: string } | undefined)
        ?.state === 'RUNNING';
    let unsubscribe = (): void => undefined;
    const finish = (ok: boolean): void => {
      unsubscribe();
      signal?.removeEventListener('abort', onAbort);
      // Deferred: the store is in the middle of notifying listeners when this fires.
      setImmediate(() => resolve(ok));
    };
    const onAbort = (): void => finish(false);
    if (signal?.aborted) return resolve(false);
    signal?.addEventListener('abort', onAbort, { once: true });
    unsubscribe = store.subscribe(() => {
      if (running()) finish(true);
    });
    if (running()) finish(true);
  });
}
