// The demo seed: realistic Flink jobs in streaming-prod and streaming-dev, one suspended, one manual savepoint.
import { API_VERSION } from './spec-json.js';
import type { KubeObject, SimStore } from './store.js';

export const DEMO_NAMESPACES = ['streaming-prod', 'streaming-dev'] as const;
const JAR = 'local:///opt/flink/examples/streaming/StateMachineExample.jar';

interface JobOptions {
  parallelism?: number;
  upgradeMode: 'savepoint' | 'last-state' | 'stateless';
  conf?: Record<string, string>;
  replicas?: number;
  state?: 'running' | 'suspended';
}

function stateConf(namespace: string, name: string): Record<string, string> {
  return {
    'taskmanager.numberOfTaskSlots': '2',
    'state.backend.type': 'rocksdb',
    'state.backend.incremental': 'true',
    // Short enough that a production change (which waits for a checkpoint after it, SPEC §5a) completes in seconds.
    'execution.checkpointing.interval': '10s',
    'state.savepoints.dir': `s3://flink-state/${namespace}/${name}/savepoints`,
    'state.checkpoints.dir': `s3://flink-state/${namespace}/${name}/checkpoints`,
    'high-availability.type': 'kubernetes',
    'high-availability.storageDir': `s3://flink-state/${namespace}/${name}/ha`,
  };
}

function flinkDeployment(namespace: string, name: string, options: JobOptions | undefined): KubeObject {
  const spec: Record<string, unknown> = {
    image: 'flink:1.20',
    flinkVersion: 'v1_20',
    serviceAccount: 'flink',
    flinkConfiguration: { ...stateConf(namespace, name), ...options?.conf },
    jobManager: { replicas: 1, resource: { memory: '2048m', cpu: 1 } },
    taskManager: { resource: { memory: '4096m', cpu: 2 }, ...(options?.replicas !== undefined ? { replicas: options.replicas } : {}) },
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
    metadata: { name, namespace, labels: { app: name, team: 'data-platform' } },
    spec,
  };
}

/** The demo resources, in creation order. */
export function demoResources(): { resource: 'flinkdeployments' | 'flinksessionjobs'; object: KubeObject }[] {
  const prod = 'streaming-prod';
  const dev = 'streaming-dev';
  const deployments = [
    flinkDeployment(prod, 'orders', { parallelism: 4, upgradeMode: 'savepoint' }),
    flinkDeployment(prod, 'payments', { parallelism: 4, upgradeMode: 'last-state', replicas: 3 }),
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
    flinkDeployment(prod, 'fraud-detection', { parallelism: 8, upgradeMode: 'last-state' }),
    flinkDeployment(prod, 'ledger-export', { parallelism: 2, upgradeMode: 'savepoint' }),
    flinkDeployment(prod, 'session-cluster', undefined),
    flinkDeployment(dev, 'orders', {
      parallelism: 2,
      upgradeMode: 'savepoint',
      conf: { 'kubernetes.operator.deployment.rollback.enabled': 'true', 'kubernetes.operator.deployment.readiness.timeout': '2 min' },
    }),
  ];
  const sessionJob: KubeObject = {
    apiVersion: API_VERSION,
    kind: 'FlinkSessionJob',
    metadata: { name: 'sessionjob-etl', namespace: prod, labels: { team: 'data-platform' } },
    spec: {
      deploymentName: 'session-cluster',
      job: { jarURI: 'https://artifacts.example.com/flink-jobs/etl-1.4.2.jar', parallelism: 2, upgradeMode: 'savepoint', state: 'running' },
    },
  };
  return [
    ...deployments.map((object) => ({ resource: 'flinkdeployments' as const, object })),
    { resource: 'flinksessionjobs' as const, object: sessionJob },
  ];
}

/**
 * Creates the demo resources. Once `ledger-export` runs it is suspended (with a savepoint), and once
 * streaming-prod/orders runs a manual FlinkStateSnapshot of it is taken, so "last savepoint" has data.
 * Resolves when both follow-ups were submitted; `signal` ends the wait early.
 */
export function seedDemo(store: SimStore, signal?: AbortSignal): Promise<void> {
  for (const namespace of DEMO_NAMESPACES) store.ensureNamespace(namespace);
  for (const { resource, object } of demoResources()) store.create(resource, object);
  const followUps = [
    whenRunning(store, 'ledger-export', signal).then((ok) => {
      if (ok) store.update('flinkdeployments', 'streaming-prod', 'ledger-export', (d) => ({ ...d, spec: { ...d.spec, job: { ...(d.spec?.job as object), state: 'suspended' } } }));
    }),
    whenRunning(store, 'orders', signal).then((ok) => {
      if (!ok) return;
      store.create('flinkstatesnapshots', {
        apiVersion: API_VERSION,
        kind: 'FlinkStateSnapshot',
        metadata: { name: 'orders-savepoint-baseline', namespace: 'streaming-prod' },
        spec: { backoffLimit: 2, jobReference: { kind: 'FlinkDeployment', name: 'orders' }, savepoint: { disposeOnDelete: false, formatType: 'CANONICAL' } },
      });
    }),
  ];
  return Promise.all(followUps).then(() => undefined);
}

/** Resolves true once streaming-prod/<name> reports its job RUNNING, false when aborted. */
function whenRunning(store: SimStore, name: string, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    const running = (): boolean =>
      (store.get('flinkdeployments', 'streaming-prod', name)?.status?.jobStatus as { state?: string } | undefined)?.state === 'RUNNING';
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
