// Benchmark of the simulated API server's watch fan-out: many resources, many client-node watchers, a burst of status writes.
// The server runs in this process; the watchers run in a child process (real client-node Watch over HTTP), so the
// server's RSS is its own (importing client-node alone costs ~115 MB of RSS, so only the child loads it) and latency
// includes the wire and the client's parsing.
import { fork } from 'node:child_process';
import { startSimApiServer } from '@flink-chatops/sim/kube/server';
import { SimStore, type KubeObject } from '@flink-chatops/sim/kube/store';
import { validateSpec } from '@flink-chatops/sim/kube/validation';

interface Params {
  resources: number;
  namespaces: number;
  watchers: number;
  clusterWatchers: number;
  updates: number;
  batch: number;
  /** Pause between batches; 0 = just yield (a burst, which measures saturation more than latency). */
  intervalMs: number;
  timeoutMs: number;
}

const DEFAULTS: Params = {
  resources: 1000,
  namespaces: 4,
  watchers: 50,
  clusterWatchers: 10,
  updates: 5000,
  batch: 100,
  intervalMs: 0,
  timeoutMs: 60_000,
};

type ChildMessage =
  | { type: 'ready' }
  | { type: 'done'; latencies: number[]; firstAt: number; lastAt: number; rssMb: number; received: number };

/** Epoch milliseconds with sub-millisecond resolution, comparable across processes on one machine. */
const nowMs = (): number => performance.timeOrigin + performance.now();
const rssMb = (): number => Math.round((process.memoryUsage().rss / 1024 / 1024) * 10) / 10;
const namespaceOf = (i: number, p: Params): string => `bench-${i % p.namespaces}`;

function parseParams(argv: string[]): Params {
  const params = { ...DEFAULTS };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i]?.replace(/^--/, '') as keyof Params;
    const value = Number(argv[i + 1]);
    if (!(key in DEFAULTS) || !Number.isInteger(value) || value < 0) {
      throw new Error(
        `usage: bench/sim-watch.ts [--${Object.keys(DEFAULTS).join(' N] [--')} N]; bad "${argv[i]} ${argv[i + 1]}"`,
      );
    }
    params[key] = value;
  }
  return params;
}

function deployment(i: number, p: Params): KubeObject {
  const name = `job-${String(i).padStart(4, '0')}`;
  return {
    apiVersion: 'flink.apache.org/v1beta1',
    kind: 'FlinkDeployment',
    metadata: { name, namespace: namespaceOf(i, p), labels: { app: name, tier: i % 2 === 0 ? 'gold' : 'silver' } },
    spec: {
      image: 'flink:1.20',
      flinkVersion: 'v1_20',
      flinkConfiguration: { 'taskmanager.numberOfTaskSlots': '2', 'state.savepoints.dir': `s3://bench/${name}/sp` },
      jobManager: { resource: { memory: '2048m', cpu: 1 } },
      taskManager: { resource: { memory: '2048m', cpu: 1 } },
      job: {
        jarURI: 'local:///opt/flink/examples/streaming/StateMachineExample.jar',
        parallelism: 2,
        upgradeMode: 'savepoint',
        state: 'running',
      },
    },
    status: { lifecycleState: 'STABLE', jobStatus: { state: 'RUNNING' } },
  };
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

/** How many watch events the writes produce: namespace watchers of the object's namespace plus cluster-wide ones. */
function expectedDeliveries(p: Params): number {
  const nsWatchers = p.watchers - p.clusterWatchers;
  let total = 0;
  for (let u = 0; u < p.updates; u++) {
    const ns = (u % p.resources) % p.namespaces;
    const perNs = Math.floor(nsWatchers / p.namespaces) + (ns < nsWatchers % p.namespaces ? 1 : 0);
    total += perNs + p.clusterWatchers;
  }
  return total;
}

async function runChild(): Promise<void> {
  const send = (m: ChildMessage) => process.send?.(m);
  const { url, params, resourceVersion, expected } = JSON.parse(process.argv[3] as string) as {
    url: string;
    params: Params;
    resourceVersion: string;
    expected: number;
  };
  const { Watch } = await import('@kubernetes/client-node');
  const { kubeConfigFor } = await import('@flink-chatops/sim/testing/kube');
  const watch = new Watch(kubeConfigFor(url));
  const latencies: number[] = [];
  let firstAt = 0;
  let lastAt = 0;
  const onEvent = (_type: string, object: KubeObject) => {
    const at = nowMs();
    const writtenAt = (object.status as { benchWrittenAt?: number } | undefined)?.benchWrittenAt;
    if (writtenAt === undefined) return;
    latencies.push(at - writtenAt);
    firstAt ||= at;
    lastAt = at;
    if (latencies.length === expected)
      send({ type: 'done', latencies, firstAt, lastAt, rssMb: rssMb(), received: latencies.length });
  };
  for (let w = 0; w < params.watchers; w++) {
    const clusterWide = w < params.clusterWatchers;
    const path = clusterWide
      ? '/apis/flink.apache.org/v1beta1/flinkdeployments'
      : `/apis/flink.apache.org/v1beta1/namespaces/bench-${(w - params.clusterWatchers) % params.namespaces}/flinkdeployments`;
    await watch.watch(path, { resourceVersion }, onEvent, (err) => {
      if (latencies.length < expected) process.stderr.write(`watch ${path} ended early: ${String(err)}\n`);
    });
  }
  send({ type: 'ready' });
}

async function runParent(p: Params): Promise<void> {
  const store = new SimStore({ validate: validateSpec, historySize: Math.max(10_000, p.updates + p.resources) });
  for (let i = 0; i < p.resources; i++) store.create('flinkdeployments', deployment(i, p));
  const server = await startSimApiServer({ store });
  const expected = expectedDeliveries(p);
  const child = fork(import.meta.filename, [
    '--child',
    JSON.stringify({ url: server.url, params: p, resourceVersion: store.resourceVersion, expected }),
  ]);
  const timeout = setTimeout(() => {
    process.stderr.write(`bench timed out after ${p.timeoutMs} ms\n`);
    child.kill();
    process.exit(1);
  }, p.timeoutMs);
  const messages = (type: ChildMessage['type']) =>
    new Promise<ChildMessage>((resolve) => child.on('message', (m: ChildMessage) => m.type === type && resolve(m)));
  const done = messages('done');
  await messages('ready');
  const setupRss = rssMb();
  const started = nowMs();
  for (let u = 0; u < p.updates; u += p.batch) {
    for (let k = u; k < Math.min(u + p.batch, p.updates); k++) {
      const i = k % p.resources;
      store.update(
        'flinkdeployments',
        namespaceOf(i, p),
        deployment(i, p).metadata.name,
        (o) => ({ ...o, status: { ...o.status, benchWrittenAt: nowMs(), seq: k } }),
        {
          subresource: 'status',
        },
      );
    }
    // Yield between batches so the server can flush sockets, as it would between operator reconciles.
    if (p.intervalMs > 0) await new Promise<void>((resolve) => setTimeout(resolve, p.intervalMs));
    else await new Promise<void>((resolve) => setImmediate(resolve));
  }
  const writesDone = nowMs();
  const result = (await done) as Extract<ChildMessage, { type: 'done' }>;
  clearTimeout(timeout);
  const sorted = [...result.latencies].sort((a, b) => a - b);
  const seconds = (result.lastAt - started) / 1000;
  const report = {
    resources: p.resources,
    namespaces: p.namespaces,
    watchers: `${p.watchers} (${p.clusterWatchers} cluster-wide)`,
    updates: p.updates,
    batch: `${p.batch} every ${p.intervalMs} ms`,
    deliveries: result.received,
    serverRssMbAfterSetup: setupRss,
    serverRssMbAfterRun: rssMb(),
    watcherProcessRssMb: result.rssMb,
    writeMs: Math.round(writesDone - started),
    latencyMs: {
      p50: round(percentile(sorted, 50)),
      p99: round(percentile(sorted, 99)),
      max: round(sorted[sorted.length - 1] ?? NaN),
    },
    eventsPerSecond: Math.round(result.received / seconds),
    updatesPerSecond: Math.round(p.updates / ((writesDone - started) / 1000)),
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  child.kill();
  await server.close();
}

const round = (n: number): number => Math.round(n * 100) / 100;

if (process.argv[2] === '--child') {
  await runChild();
} else {
  await runParent(parseParams(process.argv.slice(2)));
}
