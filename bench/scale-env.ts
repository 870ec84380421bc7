// The rig of bench/scale.ts: simulated clusters and Slack in child processes, one kubeconfig with a context per
// cluster, a policy where every operation runs without approval, bare Bolt apps, and the bot and worker processes.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { stringify } from 'yaml';
import type { RequestStatsSnapshot } from '@flink-chatops/sim/kube/faults';
import { freePort, redisAnswers, startPrivateRedis, type PrivateRedis } from '../test/support/redis-server.js';
import { CHANNELS, Responses, SECRET, TOKEN, USER } from './scale-load.js';
import { buildForBench, startRole, startScript, stopAll, type RoleProcess } from './scale-procs.js';

export const CLUSTERS = ['c1', 'c2', 'c3'] as const;
/** Dev namespaces (no rules: nothing needs approval); deployment job-i is in NAMESPACES[i % 4]. */
export const NAMESPACES = ['streaming-dev', 'analytics-dev', 'ingest-dev', 'payments-dev'] as const;

export interface SimClusterHandle {
  name: string;
  url: string;
  stats(method?: 'GET' | 'DELETE'): Promise<RequestStatsSnapshot>;
}

export interface Rig {
  redisUrl: string;
  prefix: string;
  clusters: SimClusterHandle[];
  slackUrl: string;
  /** Web API calls the simulated Slack has answered so far, by method. */
  slackCalls(): Promise<Record<string, number>>;
  responses: Responses;
  bare: string[];
  bots: RoleProcess[];
  workers: RoleProcess[];
  /** Seconds each phase of the set-up took. */
  setup: Record<string, number>;
  close(): Promise<void>;
}

async function redisFor(): Promise<{ url: string; own?: PrivateRedis }> {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  if (await redisAnswers(url)) return { url };
  const own = await startPrivateRedis();
  return { url: own.url, own };
}

/** A kubeconfig with one context per simulated cluster (also the alerts bench's). */
export function kubeconfig(clusters: readonly Pick<SimClusterHandle, 'name' | 'url'>[]): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    // client-node 1.x talks plain http only with insecure-skip-tls-verify.
    clusters: clusters.map((c) => ({ name: c.name, cluster: { server: c.url, 'insecure-skip-tls-verify': true } })),
    users: clusters.map((c) => ({ name: `${c.name}-user`, user: {} })),
    contexts: clusters.map((c) => ({ name: c.name, context: { cluster: c.name, user: `${c.name}-user` } })),
    'current-context': clusters[0]?.name,
  });
}

/** One simulated cluster process per name, each seeded with `perCluster` FlinkDeployments across `namespaces`. */
export async function startClusters(
  perCluster: number,
  namespaces: readonly string[] = NAMESPACES,
  names: readonly string[] = CLUSTERS,
): Promise<SimClusterHandle[]> {
  return Promise.all(
    names.map(async (name) => {
      const { info } = await startScript<{ url: string }>(`sim cluster ${name}`, 'scale-sims.ts', [
        'cluster',
        String(perCluster),
        namespaces.join(','),
      ]);
      return {
        name,
        url: info.url,
        stats: async (method = 'GET') =>
          (await (await fetch(`${info.url}/sim/stats`, { method })).json()) as RequestStatsSnapshot,
      };
    }),
  );
}

/** Deletes every key of the run's prefix (store, events, BullMQ queues). */
export async function deleteKeys(url: string, prefix: string): Promise<number> {
  const redis = new Redis(url);
  let deleted = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `*${prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) deleted += await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
  return deleted;
}

export async function startRig(perCluster: number, log: (line: string) => void): Promise<Rig> {
  const redis = await redisFor();
  const prefix = `bench-scale-${randomBytes(4).toString('hex')}`;
  const dir = await mkdtemp(join(tmpdir(), 'bench-scale-'));
  const setup: Record<string, number> = {};
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      await stopAll();
      await deleteKeys(redis.url, prefix).catch(() => 0);
      await redis.own?.stop();
      await rm(dir, { recursive: true, force: true });
    })());
  try {
    let t = performance.now();
    const responses = new Responses();
    const pendingCalls: ((calls: Record<string, number>) => void)[] = [];
    const onLine = (value: unknown): void => {
      const calls = (value as { calls?: Record<string, number> }).calls;
      if (calls) for (const resolve of pendingCalls.splice(0)) resolve(calls);
      else responses.onLine(value);
    };
    const slackStart = startScript<{ apiUrl: string; url: string }>(
      'sim slack',
      'scale-sims.ts',
      ['slack', TOKEN, CHANNELS.join(','), USER],
      onLine,
    );
    const [clusters, slack] = await Promise.all([startClusters(perCluster), slackStart]);
    setup['simulated clusters seeded and STABLE'] = (performance.now() - t) / 1000;
    log(
      `  ${CLUSTERS.length} simulated clusters × ${perCluster} FlinkDeployments STABLE in ${setup['simulated clusters seeded and STABLE']?.toFixed(1)} s`,
    );
    const kubeconfigPath = join(dir, 'kubeconfig');
    await writeFile(kubeconfigPath, kubeconfig(clusters), { mode: 0o600 });
    const policyFile = join(dir, 'policy.yaml');
    await writeFile(
      policyFile,
      stringify({
        version: 1,
        namespaces: NAMESPACES.map((name) => ({ name })),
        channels: Object.fromEntries(CHANNELS.map((c, i) => [c, { defaultCluster: CLUSTERS[i] }])),
      }),
    );
    const env = {
      SLACK_BOT_TOKEN: TOKEN,
      SLACK_SIGNING_SECRET: SECRET,
      SLACK_API_URL: slack.info.apiUrl,
      REDIS_URL: redis.url,
      REDIS_PREFIX: prefix,
      KUBECONFIG: kubeconfigPath,
      KUBE_CONTEXTS: CLUSTERS.join(','),
      POLICY_FILE: policyFile,
    };
    await buildForBench();
    t = performance.now();
    const bare = await Promise.all(
      CLUSTERS.map(
        async (_, i) =>
          (
            await startScript<{ url: string }>(`bare Bolt ${i + 1}`, 'scale-bare.ts', [
              TOKEN,
              SECRET,
              slack.info.apiUrl,
            ])
          ).info.url,
      ),
    );
    const bots = await Promise.all(
      CLUSTERS.map(async (_, i) => startRole(`bot-${i + 1}`, 'bot', await freePort(), env)),
    );
    const workers = await Promise.all(
      CLUSTERS.map(async (c) => startRole(`worker-${c}`, 'worker', await freePort(), { ...env, WORKER_CLUSTERS: c })),
    );
    setup['processes ready'] = (performance.now() - t) / 1000;
    log(`  3 bare Bolt apps, 3 bots and 3 workers ready in ${setup['processes ready']?.toFixed(1)} s`);
    return {
      redisUrl: redis.url,
      prefix,
      clusters,
      slackUrl: slack.info.url,
      slackCalls: () =>
        new Promise((resolve) => {
          pendingCalls.push(resolve);
          slack.send('calls');
        }),
      responses,
      bare,
      bots,
      workers,
      setup,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
