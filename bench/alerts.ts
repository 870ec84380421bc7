// Job alerts at scale (docs/alerts.md#cost): 2,000 watched jobs across 3 simulated clusters, two worker processes
// (replicas) per cluster (`flink-chatops serve --role worker`, built), first with a policy without `alerts:`, then with
// one entry watching every job. Prints Flink REST reads per watched job per minute for all replicas together (goal ≤ 3
// requests: one read of numRestarts, checkpoints and the job) and the RSS each worker gains with alerts on (goal ≤ 100 MB).
// Numbers only; nothing is asserted.
// Usage: npm run bench:alerts [-- --jobs 2000 --replicas 2 --minutes 2 --settle 20]
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { stringify } from 'yaml';
import { RedisAlertStore } from '../src/store/alerts.js';
import { freePort, redisAnswers, startPrivateRedis } from '../test/support/redis-server.js';
import { CLUSTERS, deleteKeys, kubeconfig, startClusters, type SimClusterHandle } from './scale-env.js';
import { buildForBench, startRole, stopAll, type RoleProcess } from './scale-procs.js';

const NAMESPACES = ['alerts-a', 'alerts-b'];
const PROXY = 'get services/proxy';

interface Params {
  jobs: number;
  /** Worker processes per cluster. */
  replicas: number;
  minutes: number;
  settle: number;
}

function parseParams(argv: string[]): Params {
  const p: Params = { jobs: 2000, replicas: 2, minutes: 2, settle: 20 };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i]?.replace(/^--/, '') as keyof Params;
    const value = Number(argv[i + 1]);
    if (!(key in p) || !(value > 0))
      throw new Error(
        `usage: bench/alerts.ts [--jobs N] [--replicas N] [--minutes N] [--settle S]; bad "${argv[i]} ${argv[i + 1]}"`,
      );
    p[key] = value;
  }
  return p;
}

const log = (line: string): void => void process.stderr.write(`${line}\n`);
const mb = (bytes: number | undefined) => (bytes === undefined ? '?' : `${(bytes / 2 ** 20).toFixed(0)} MB`);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function policy(alerts: boolean): string {
  return stringify({
    version: 1,
    namespaces: NAMESPACES.map((name) => ({ name })),
    ...(alerts ? { alerts: [{ name: 'every-job', namespaces: ['alerts-*'], channel: 'C0BENCH' }] } : {}),
  });
}

/** Current resident set size (VmRSS) of a worker, Linux only. */
async function rss(worker: RoleProcess): Promise<number | undefined> {
  const status = await readFile(`/proc/${worker.child.pid}/status`, 'utf8').catch(() => '');
  const kb = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
  return kb === undefined ? undefined : Number(kb) * 1024;
}

/** `worker-<cluster>-<n>` of every replica, cluster by cluster. */
const workerNames = (replicas: number): { cluster: string; name: string }[] =>
  CLUSTERS.flatMap((cluster) =>
    Array.from({ length: replicas }, (_, i) => ({ cluster, name: `worker-${cluster}-${i + 1}` })),
  );

interface Phase {
  rss: (number | undefined)[];
  peak: (number | undefined)[];
  proxy: number[];
  seconds: number;
}

async function phase(
  name: string,
  env: Record<string, string>,
  clusters: SimClusterHandle[],
  params: Params,
  measure: boolean,
): Promise<Phase> {
  const workers = await Promise.all(
    workerNames(params.replicas).map(async (w) =>
      startRole(`${w.name} (${name})`, 'worker', await freePort(), { ...env, WORKER_CLUSTERS: w.cluster }),
    ),
  );
  log(`  ${name}: ${workers.length} workers ready; settling ${params.settle} s`);
  await pause(params.settle * 1000);
  await Promise.all(clusters.map((c) => c.stats('DELETE')));
  const started = Date.now();
  if (measure) {
    log(`  ${name}: counting Flink REST requests for ${params.minutes} min`);
    await pause(params.minutes * 60_000);
  }
  const seconds = (Date.now() - started) / 1000;
  const proxy = await Promise.all(clusters.map(async (c) => (await c.stats()).requests[PROXY] ?? 0));
  const result = {
    rss: await Promise.all(workers.map(rss)),
    peak: await Promise.all(workers.map((w) => w.peakRss())),
    proxy,
    seconds,
  };
  await Promise.all(workers.map((w) => w.stop()));
  return result;
}

async function main(): Promise<void> {
  const params = parseParams(process.argv.slice(2));
  const perCluster = Math.ceil(params.jobs / CLUSTERS.length);
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const own = (await redisAnswers(url)) ? undefined : await startPrivateRedis();
  const redisUrl = own?.url ?? url;
  const prefix = `bench-alerts-${randomBytes(4).toString('hex')}`;
  const dir = await mkdtemp(join(tmpdir(), 'bench-alerts-'));
  try {
    log(`bench:alerts: ${CLUSTERS.length} clusters × ${perCluster} FlinkDeployments (${params.jobs} watched jobs)`);
    const clusters = await startClusters(perCluster, NAMESPACES);
    await writeFile(join(dir, 'kubeconfig'), kubeconfig(clusters), { mode: 0o600 });
    await buildForBench();
    const env = (file: string): Record<string, string> => ({
      REDIS_URL: redisUrl,
      REDIS_PREFIX: prefix,
      KUBECONFIG: join(dir, 'kubeconfig'),
      KUBE_CONTEXTS: CLUSTERS.join(','),
      POLICY_FILE: join(dir, file),
    });
    await writeFile(join(dir, 'without.yaml'), policy(false));
    await writeFile(join(dir, 'with.yaml'), policy(true));
    const without = await phase('without alerts', env('without.yaml'), clusters, params, false);
    const withAlerts = await phase('with alerts', env('with.yaml'), clusters, params, true);
    const redis = new Redis(redisUrl);
    const open = (await new RedisAlertStore(redis, prefix).listOpen()).length;
    redis.disconnect();
    report(perCluster, params.replicas, without, withAlerts, open);
  } finally {
    await stopAll();
    await deleteKeys(redisUrl, prefix).catch(() => 0);
    await own?.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Flink REST requests in one read of a watched job: numRestarts, checkpoints, and the job for its clock. */
const REQUESTS_PER_READ = 3;

function report(perCluster: number, replicas: number, without: Phase, withAlerts: Phase, open: number): void {
  const minutes = withAlerts.seconds / 60;
  const requests = withAlerts.proxy.reduce((a, b) => a + b, 0);
  const perJob = requests / (perCluster * CLUSTERS.length) / minutes;
  const lines = [
    '',
    `Job alerts, ${perCluster * CLUSTERS.length} watched jobs over ${CLUSTERS.length} clusters, ${replicas} worker replicas each, measured ${withAlerts.seconds.toFixed(0)} s:`,
    `  Flink REST requests per watched job per minute, all replicas: ${perJob.toFixed(2)} (goal ≤ 3; one read = numRestarts + checkpoints + the job for its clock)`,
    `  Flink REST reads per watched job per minute, all replicas:    ${(perJob / REQUESTS_PER_READ).toFixed(2)} (goal ≤ 1)`,
    `  REST requests per cluster: ${withAlerts.proxy.join(', ')}; without alerts (settle only): ${without.proxy.join(', ')}`,
    `  open incidents after the run: ${open} (the simulated jobs are healthy)`,
    '  RSS per worker (VmRSS now; peak VmHWM), without → with alerts, and the delta (goal ≤ 100 MB):',
  ];
  workerNames(replicas).forEach(({ name }, i) => {
    const a = without.rss[i];
    const b = withAlerts.rss[i];
    const delta = a === undefined || b === undefined ? undefined : b - a;
    lines.push(
      `    ${name}: ${mb(a)} → ${mb(b)} (peak ${mb(without.peak[i])} → ${mb(withAlerts.peak[i])}); delta ${mb(delta)}`,
    );
  });
  process.stdout.write(`${lines.join('\n')}\n`);
}

process.on('SIGINT', () => void stopAll().finally(() => process.exit(130)));
await main();
