// End-to-end worker throughput against the fast simulated cluster: operations per second, Kubernetes requests
// per operation beyond the shared watches, and Redis commands per operation (INFO commandstats deltas).
// The simulated cluster runs in its own process (`flink-chatops sim-cluster`), so this process's CPU is the
// worker's (plus the bot-side planning done before the clock starts).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { Redis } from 'ioredis';
import { assess } from '../src/app/assess.js';
import { DEFAULT_CLUSTER, loadConfig, redactUrl } from '../src/config.js';
import type { OperationIntent } from '../src/domain/kinds/index.js';
import { newOperationId } from '../src/domain/engines/operation.js';
import { isTerminal, TERMINAL_STATES } from '../src/domain/model/lifecycle.js';
import type { Target } from '../src/domain/model/target.js';
import { ClientNodeFlinkClient, loadKubeConfig } from '../src/kube/client-node.js';
import { createLogger } from '../src/log.js';
import { parsePolicyText } from '../src/app/policy-load.js';
import { OperationQueue } from '../src/queue/queue.js';
import type { RequestStatsSnapshot } from '@flink-chatops/sim/kube/faults';
import { lastEventId, waitForEvents } from '../src/store/events.js';
import { FreezeStore } from '../src/store/freezes.js';
import { OperationStore } from '../src/store/operations.js';
import { startWorker } from '../src/roles/worker.js';
import { eventually } from '../test/support/poll.js';
import { redisAnswers, startPrivateRedis } from '../test/support/redis-server.js';
import { isStable, statusOf } from '@flink-chatops/sim/testing/sim';
import { deployment } from '@flink-chatops/sim/testing/sim-resources';

interface Params {
  targets: number;
  perTarget: number;
  concurrency: number;
}

const NS = 'bench';
const POLICY = `version: 1\nnamespaces:\n  - name: ${NS}\n`;
const SCENARIOS: Params[] = parseScenarios(process.argv.slice(2));

function parseScenarios(argv: string[]): Params[] {
  if (argv.length === 0) {
    return [
      { targets: 200, perTarget: 1, concurrency: 32 },
      { targets: 50, perTarget: 4, concurrency: 32 },
    ];
  }
  const p: Params = { targets: 100, perTarget: 1, concurrency: 32 };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i]?.replace(/^--/, '') as keyof Params;
    const value = Number(argv[i + 1]);
    if (!(key in p) || !Number.isInteger(value) || value < 1)
      throw new Error(
        `usage: bench/worker.ts [--targets N] [--perTarget N] [--concurrency N]; bad "${argv[i]} ${argv[i + 1]}"`,
      );
    p[key] = value;
  }
  return [p];
}

/** Every op on a target is a different change, so each one has something to do after the ones before it. */
function intentFor(t: Target, round: number): OperationIntent {
  const kinds: OperationIntent[] = [
    { kind: 'scale', target: t, parallelism: 3, incidentChannels: [] },
    { kind: 'restart', target: t, incidentChannels: [] },
    { kind: 'scale', target: t, parallelism: 5, incidentChannels: [] },
    { kind: 'upgrade', target: t, image: 'flink:1.20.1', incidentChannels: [] },
  ];
  return kinds[round % kinds.length] as OperationIntent;
}

async function commandCount(redis: Redis): Promise<Map<string, number>> {
  const info = await redis.info('commandstats');
  const counts = new Map<string, number>();
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) counts.set(m[1] as string, Number(m[2]));
  return counts;
}

async function scenario(url: string, params: Params): Promise<void> {
  const prefix = `bench-${randomBytes(4).toString('hex')}`;
  const dir = await mkdtemp(join(tmpdir(), 'bench-worker-'));
  const policyPath = join(dir, 'policy.yaml');
  await writeFile(policyPath, POLICY);
  const cluster = await startSimProcess(join(dir, 'kubeconfig'));
  const redis = new Redis(url, { maxRetriesPerRequest: null });
  const blocking = new Redis(url, { maxRetriesPerRequest: null });
  const store = new OperationStore(redis, { prefix });
  const queue = new OperationQueue({ connection: redis, prefix, cluster: DEFAULT_CLUSTER });
  const kube = new ClientNodeFlinkClient(loadKubeConfig(cluster.kubeconfigPath));
  const parsed = parsePolicyText(POLICY);
  if (!parsed.ok) throw new Error(parsed.errors.join('; '));
  const freezes = new FreezeStore(redis, { prefix });
  try {
    const targets = Array.from({ length: params.targets }, (_, i): Target => ({
      kind: 'FlinkDeployment',
      namespace: NS,
      name: `job-${i}`,
    }));
    await createTargets(cluster.kubeconfigPath, kube, targets);

    // The bot's part, before the clock starts: plan, record, queue (in each target's order).
    const ids: { id: string; revision: number }[] = [];
    for (let round = 0; round < params.perTarget; round++) {
      for (const t of targets) {
        const id = newOperationId(() => randomBytes(16));
        const intent = intentFor(t, round);
        const a = await assess(
          parsed.policy,
          { intent, opId: id, requester: 'U0BENCH' },
          {
            clients: () => ({ kube }),
            getFreeze: (target) => freezes.get(target),
            getOperation: (opId) => store.get(opId),
            now: () => new Date(),
            nonce: () => Date.now(),
          },
        );
        if (!a.ok) throw new Error(a.refusal);
        await store.create(
          {
            id,
            kind: intent.kind,
            intent,
            target: t,
            requester: 'U0BENCH',
            channel: 'C0BENCH',
            incidentChannels: [],
            plan: a.plan,
            decision: a.decision,
          },
          'U0BENCH',
        );
        await store.transition(id, { from: ['ACCEPTED'], to: 'QUEUED', actor: 'U0BENCH', role: 'bot' });
        ids.push({ id, revision: a.plan.revision });
      }
    }

    const config = loadConfig(
      {
        REDIS_URL: url,
        REDIS_PREFIX: prefix,
        KUBECONFIG: cluster.kubeconfigPath,
        POLICY_FILE: policyPath,
        WORKER_CONCURRENCY: String(params.concurrency),
        LEASE_TTL: '30s',
        LOG_LEVEL: 'silent',
      },
      'worker',
    );
    if (!config.ok) throw new Error(config.problems.join('; '));
    let roundTrips = 0;
    const worker = await startWorker(config.config, {
      logger: createLogger('silent'),
      sweepIntervalMs: 3_600_000,
      // Every command ioredis sends from the worker's own connections (scripts count once) goes through here.
      instrumentRedis: (connection) => {
        // Standalone here: the factory made a plain ioredis client.
        const plain = connection as Redis;
        const send = plain.sendCommand.bind(plain);
        plain.sendCommand = ((...args: Parameters<typeof send>) => {
          roundTrips++;
          return send(...args);
        }) as typeof plain.sendCommand;
      },
    });
    await cluster.stats('DELETE');
    const before = await commandCount(redis);
    let after = await lastEventId(blocking, prefix);
    const pending = new Set(ids.map((o) => o.id));
    roundTrips = 0;
    const cpuBefore = {
      worker: process.cpuUsage(),
      sim: await processCpuMs(cluster.child.pid),
      redis: await redisCpuMs(redis),
    };
    const started = performance.now();
    for (const { id, revision } of ids) await queue.enqueue(id, revision);
    const states = new Map<string, number>();
    while (pending.size > 0) {
      const events = await waitForEvents(blocking, prefix, after, 1000, 1000);
      if (events.length > 0) after = (events.at(-1) as { id: string }).id;
      for (const e of events) {
        if (e.type === 'state' && (TERMINAL_STATES as readonly string[]).includes(e.name) && pending.delete(e.op))
          states.set(e.name, (states.get(e.name) ?? 0) + 1);
      }
      if (performance.now() - started > 120_000) throw new Error(`${pending.size} operations still open after 120 s`);
    }
    const seconds = (performance.now() - started) / 1000;
    const workerTrips = roundTrips;
    const workerCpu = process.cpuUsage(cpuBefore.worker);
    const cpu = {
      worker: (workerCpu.user + workerCpu.system) / 1000,
      sim: (await processCpuMs(cluster.child.pid)) - cpuBefore.sim,
      redis: (await redisCpuMs(redis)) - cpuBefore.redis,
    };
    const afterCounts = await commandCount(redis);
    const stats = await cluster.stats('GET');
    const watchRequests = worker.watches.stats().reduce((sum, w) => sum + w.opened + w.relists, 0);
    await worker.close();
    const ops = ids.length;
    const redisCommands = [...afterCounts]
      .map(([k, v]) => [k, v - (before.get(k) ?? 0)] as const)
      .filter(([, v]) => v > 0);
    const redisTotal = redisCommands.reduce((s, [, v]) => s + v, 0);
    const check = await store.getMany(ids.map((o) => o.id));
    if (check.some((r) => !isTerminal(r.state))) throw new Error('an operation is not terminal');
    console.log(
      `worker bench: ${params.targets} targets × ${params.perTarget} ops = ${ops} operations, WORKER_CONCURRENCY ${params.concurrency}, fast simulation, Redis ${redactUrl(url)}`,
    );
    console.log(`  outcomes: ${[...states].map(([s, n]) => `${n} ${s}`).join(', ')}`);
    console.log(
      `  throughput: ${(ops / seconds).toFixed(1)} operations/s end to end (${seconds.toFixed(2)} s from enqueue to the last outcome)`,
    );
    // Flink REST reads go through the API server's service proxy: counted apart from the Kubernetes API calls.
    const restRequests = Object.entries(stats.requests)
      .filter(([k]) => k.includes('services/proxy'))
      .reduce((sum, [, v]) => sum + v, 0);
    const kubeTotal = stats.total - restRequests;
    console.log(
      `  Kubernetes: ${((kubeTotal - watchRequests) / ops).toFixed(2)} requests per operation beyond the shared watches (${kubeTotal} total, ${watchRequests} for watches)`,
    );
    console.log(
      `  Flink REST (through the service proxy): ${(restRequests / ops).toFixed(2)} requests per operation (${restRequests} total)`,
    );
    console.log(
      `    ${Object.entries(stats.requests)
        .map(([k, v]) => `${k}: ${v}`)
        .join(', ')}`,
    );
    const share = (ms: number): string =>
      `${(ms / 1000).toFixed(2)} s (${((100 * ms) / (seconds * 1000)).toFixed(0)}% of a core)`;
    console.log(
      `  CPU in that window: worker process ${share(cpu.worker)}, simulated cluster ${share(cpu.sim)}, redis-server ${share(cpu.redis)}`,
    );
    const top = redisCommands.sort((a, b) => b[1] - a[1]).slice(0, 8);
    console.log(
      `  Redis: ${(workerTrips / ops).toFixed(1)} commands sent per operation by the worker's connections (a script call counts once; BullMQ's blocking duplicate not counted)`,
    );
    console.log(
      `    server side, scripts' inner commands included (worker, bench enqueue and monitor): ${(redisTotal / ops).toFixed(1)} per operation`,
    );
    console.log(`    top: ${top.map(([k, v]) => `${k} ${(v / ops).toFixed(1)}`).join(', ')}`);
  } finally {
    await queue.close();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `*{${prefix}}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
    redis.disconnect();
    blocking.disconnect();
    cluster.child.kill('SIGTERM');
    await once(cluster.child, 'exit');
    await rm(dir, { recursive: true, force: true });
  }
}

/** user+system CPU of a process in ms, from /proc (Linux); 0 elsewhere. */
async function processCpuMs(pid: number | undefined): Promise<number> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return 0;
  }
}

async function redisCpuMs(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  const read = (name: string): number => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return (read('used_cpu_sys') + read('used_cpu_user')) * 1000;
}

interface SimProcess {
  child: ChildProcess;
  kubeconfigPath: string;
  stats(method: 'GET' | 'DELETE'): Promise<RequestStatsSnapshot>;
}

async function startSimProcess(kubeconfigPath: string): Promise<SimProcess> {
  const child = spawn(
    process.execPath,
    ['bin/flink-chatops.js', 'sim-cluster', '--speed', 'fast', '--seed', 'none', '--kubeconfig', kubeconfigPath],
    {
      cwd: new URL('..', import.meta.url),
      env: { ...process.env, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const [line] = (await once(createInterface({ input: child.stdout as NodeJS.ReadableStream }), 'line')) as [string];
  const { server } = JSON.parse(line) as { server: string };
  return {
    child,
    kubeconfigPath,
    stats: async (method) => (await (await fetch(`${server}/sim/stats`, { method })).json()) as RequestStatsSnapshot,
  };
}

/** Creates the FlinkDeployments through the API and waits (polling the list) until each runs its spec. */
async function createTargets(kubeconfigPath: string, kube: ClientNodeFlinkClient, targets: Target[]): Promise<void> {
  const api = loadKubeConfig(kubeconfigPath).makeApiClient(CustomObjectsApi);
  for (const t of targets) {
    await api.createNamespacedCustomObject({
      group: 'flink.apache.org',
      version: 'v1beta1',
      namespace: NS,
      plural: 'flinkdeployments',
      body: deployment(t.name, NS),
    });
  }
  const stable = async () =>
    (await kube.list('FlinkDeployment', NS)).filter((o) => isStable(statusOf(o as never), o as never)).length ===
    targets.length;
  await eventually('every target to become STABLE', stable, { timeoutMs: 60_000, intervalMs: 250 });
}

let url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const privateRedis = (await redisAnswers(url)) ? undefined : await startPrivateRedis();
if (privateRedis) url = privateRedis.url;
try {
  for (const params of SCENARIOS) await scenario(url, params);
} finally {
  await privateRedis?.stop();
}
