// The sandbox (npm start; its subcommand is sandbox-command.ts): Redis, two simulated clusters (eu and us) and Slack,
// the bot, a worker per cluster and the page, on loopback, until closed. The bot and workers are configured through loadConfig exactly as
// `serve` configures them: one kubeconfig with a context per cluster, KUBE_CONTEXTS, and WORKER_CLUSTERS
// (docs/deployment.md#several-clusters).
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createLogger,
  loadConfig,
  loadPolicyFile,
  startBot,
  startWorker,
  type Config,
  type Logger,
  type Policy,
} from './bot.js';
import { startSimCluster, type Seed, type SimCluster } from './kube/cluster.js';
import type { OperatorVersion } from './kube/versions.js';
import { writeMultiKubeconfig } from './kube/kubeconfig.js';
import type { Speed } from './kube/speed.js';
import { laterFloorSeconds } from './page-knobs.js';
import { startPageServer, type PageServer } from './page-server.js';
import { sandboxRedis } from './redis.js';
import { openAuditFile } from './sandbox-audit.js';
import { startSimSlack, type SimSlack } from './slack-api.js';
import { BOT, CHANNELS, TEAM, USERGROUPS, USERS } from './workspace.js';

const PACKAGE_ROOT = fileURLToPath(new URL('../', import.meta.url));
export const SANDBOX_POLICY = resolve(PACKAGE_ROOT, 'sandbox-policy.yaml');

/**
 * The sandbox's simulated clusters (README.md#try-it): their names are the kubeconfig contexts and the clusters of
 * targets and policy. Both have streaming-prod/orders; eu has the demo jobs (and streaming-dev), us a few of its own.
 * eu runs operator 1.15, us 1.16 (docs/sandbox.md#operator-releases).
 */
export const SANDBOX_CLUSTERS: readonly { name: string; seed: Seed; operatorVersion: OperatorVersion }[] = [
  { name: 'eu', seed: 'demo', operatorVersion: '1.15' },
  { name: 'us', seed: 'demo-us', operatorVersion: '1.16' },
];

export interface SandboxOptions {
  speed: Speed;
  /** unset: 3000 or the next free port; 0: any free port. */
  port?: number;
  policyFile: string;
  /** How long the clusters keep Events (kube-apiserver --event-ttl); unset: an hour. */
  eventTtlMs?: number;
}

export interface RunningSandbox {
  url: string;
  policyFile: string;
  redis: { url: string; kind: 'external' | 'private' };
  prefix: string;
  /** The simulated clusters, in SANDBOX_CLUSTERS order. */
  clusters: SandboxCluster[];
  /** The kubeconfig with one context per cluster that the bot and the workers use. */
  kubeconfigPath: string;
  /** Per worker: the clusters whose operations it executes (its WORKER_CLUSTERS). */
  workers: { clusters: readonly string[] }[];
  slack: SimSlack;
  page: PageServer;
  config: Config;
  /** The file the roles write their audit lines to (docs/audit.md#in-the-sandbox). */
  auditPath: string;
  close(): Promise<void>;
}

export interface SandboxCluster {
  name: string;
  cluster: SimCluster;
}

export type SandboxStart = { ok: true; sandbox: RunningSandbox } | { ok: false; message: string };

/**
 * The sandbox's FAILURE_GRACE per speed, in real seconds: short, so the walkthrough's broken upgrade ends FAILED in
 * seconds (production: 2 minutes); the knobs the operator recovers from stay well inside it
 * (docs/sandbox.md#knob-timings).
 */
export const SANDBOX_FAILURE_GRACE_SECONDS = { fast: 3, realistic: 20 } as const satisfies Record<Speed, number>;

/**
 * The environment `serve` would be given for this sandbox; loadConfig turns it into the Config. `contexts` is
 * KUBE_CONTEXTS; `workerClusters`, when given, the worker's WORKER_CLUSTERS.
 */
export function sandboxEnv(parts: {
  slackApiUrl: string;
  redisUrl: string;
  prefix: string;
  kubeconfig: string;
  contexts: readonly string[];
  workerClusters?: readonly string[];
  policyFile: string;
  signingSecret: string;
  speed: Speed;
  logLevel?: string | undefined;
}): Record<string, string> {
  return {
    SLACK_BOT_TOKEN: `xoxb-sandbox-${randomBytes(12).toString('hex')}`,
    SLACK_SIGNING_SECRET: parts.signingSecret,
    SLACK_API_URL: parts.slackApiUrl,
    REDIS_URL: parts.redisUrl,
    REDIS_PREFIX: parts.prefix,
    KUBECONFIG: parts.kubeconfig,
    KUBE_CONTEXTS: parts.contexts.join(','),
    ...(parts.workerClusters ? { WORKER_CLUSTERS: parts.workerClusters.join(',') } : {}),
    POLICY_FILE: parts.policyFile,
    PORT: '0',
    LOG_LEVEL: parts.logLevel ?? 'warn',
    // The fast simulation does in milliseconds what takes the operator seconds: short deadlines show a stuck one.
    FAILURE_GRACE: `${SANDBOX_FAILURE_GRACE_SECONDS[parts.speed]}s`,
    ...(parts.speed === 'fast' ? { LEASE_TTL: '5s', VERIFY_TIMEOUT: '60s', VERIFY_TIMEOUT_SAVEPOINT: '60s' } : {}),
  };
}

/** Starts every part; whatever started is stopped again when a later part fails. */
export async function startSandbox(
  options: SandboxOptions,
  env: NodeJS.ProcessEnv = process.env,
  logger?: Logger,
): Promise<SandboxStart> {
  const log = logger ?? createLogger(env.LOG_LEVEL ?? 'warn', process.stderr);
  const clusterNames = SANDBOX_CLUSTERS.map((c) => c.name);
  const loaded = await loadPolicyFile(options.policyFile, { clusters: clusterNames });
  if (!loaded.ok)
    return {
      ok: false,
      message: `the sandbox policy ${options.policyFile} is not usable:\n  ${loaded.errors.join('\n  ')}`,
    };
  const redis = await sandboxRedis(env.REDIS_URL ?? 'redis://127.0.0.1:6379', env);
  if (redis.kind === 'missing') return { ok: false, message: redis.message };
  const closers: (() => Promise<unknown>)[] = [() => redis.stop()];
  const closeAll = async (): Promise<void> => {
    for (const close of closers.reverse())
      await close().catch((error: unknown) => log.warn({ err: error }, 'a part of the sandbox did not stop cleanly'));
  };
  try {
    const prefix = `sandbox-${randomBytes(4).toString('hex')}`;
    const page = await startPageServer(options.port === undefined ? {} : { port: options.port });
    closers.push(() => page.close());
    const kubeDir = await mkdtemp(join(tmpdir(), 'flink-sandbox-'));
    closers.push(() => rm(kubeDir, { recursive: true, force: true }));
    const [slack, ...started] = await Promise.all([
      startSimSlack({
        users: [...USERS],
        channels: CHANNELS.map(({ topic: _t, ...c }) => c),
        usergroups: [...USERGROUPS],
        ...BOT,
        ...TEAM,
        permalinkBase: page.url,
        // Slack paces posts to 1/s per channel but lets short bursts through; a person typing a command while
        // the notifier fills a thread in the same channel is such a burst.
        chatPostMessageBurst: 10,
      }),
      // Each cluster its own store, operator and API server, with its own kubeconfig under kubeDir (unused).
      ...SANDBOX_CLUSTERS.map(({ name, seed, operatorVersion }) =>
        startSimCluster({
          seed,
          operatorVersion,
          speed: options.speed,
          ...(options.eventTtlMs === undefined ? {} : { eventTtlMs: options.eventTtlMs }),
          logger: log.child({ cluster: name }),
          kubeconfigPath: join(kubeDir, `kubeconfig-${name}`),
        }),
      ),
    ]);
    const clusters: SandboxCluster[] = SANDBOX_CLUSTERS.map(({ name }, i) => ({
      name,
      cluster: started[i] as SimCluster,
    }));
    closers.push(
      ...clusters.map(
        ({ cluster }) =>
          () =>
            cluster.close(),
      ),
      () => slack.close(),
    );
    // One kubeconfig, one context per cluster, as a multi-cluster installation's bot gets from its Secret.
    const kubeconfigPath = join(kubeDir, 'kubeconfig');
    await writeMultiKubeconfig(
      kubeconfigPath,
      clusters.map(({ name, cluster }) => ({ name, server: cluster.url })),
    );
    const signingSecret = randomBytes(24).toString('hex');
    const parts = {
      slackApiUrl: slack.apiUrl,
      redisUrl: redis.url,
      prefix,
      kubeconfig: kubeconfigPath,
      contexts: clusterNames,
      policyFile: options.policyFile,
      signingSecret,
      speed: options.speed,
      logLevel: env.LOG_LEVEL,
    };
    const config = loadConfig(sandboxEnv(parts), 'all');
    if (!config.ok) throw new Error(`the sandbox's own configuration is invalid: ${config.problems.join('; ')}`);
    // A worker per cluster, each executing only its own cluster's operations, as the multi-cluster install runs them.
    const workerConfigs = clusterNames.map((name) => {
      const worker = loadConfig(sandboxEnv({ ...parts, workerClusters: [name] }), 'worker');
      if (!worker.ok)
        throw new Error(`the sandbox's worker configuration for ${name} is invalid: ${worker.problems.join('; ')}`);
      return worker.config;
    });
    // Closed in reverse: the roles first, then the audit file, this run's keys, the simulators, the page and Redis.
    if (redis.kind === 'external') closers.push(() => dropKeys(redis.url, prefix));
    const audit = await openAuditFile();
    closers.push(() => audit.close());
    const roles = await startRoles(config.config, workerConfigs, log, audit.lines);
    closers.push(() => roles.close());
    page.connect({
      slack,
      clusters,
      botEventsUrl: roles.botEventsUrl,
      signingSecret,
      command: config.config.slack.command,
      policy: loaded.policy as Policy,
      policyFile: options.policyFile,
      logger: log,
      laterFloor: laterFloorSeconds(options.speed),
    });
    let closing: Promise<void> | undefined;
    const sandbox: RunningSandbox = {
      url: page.url,
      policyFile: options.policyFile,
      redis: { url: redis.url, kind: redis.kind },
      prefix,
      clusters,
      kubeconfigPath,
      workers: workerConfigs.map((w) => ({ clusters: w.clusters.worker })),
      slack,
      page,
      config: config.config,
      auditPath: audit.path,
      close: () => (closing ??= closeAll()),
    };
    return { ok: true, sandbox };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

/**
 * The bot (with its notifier) as `serve --role bot` starts it, and one worker per config as `serve --role worker`
 * starts it (each with its WORKER_CLUSTERS), side by side in this process; their audit lines go to `auditLines`.
 */
async function startRoles(
  config: Config,
  workerConfigs: readonly Config[],
  logger: Logger,
  auditLines: Logger,
): Promise<{ botEventsUrl: string; close(): Promise<void> }> {
  const [bot, ...workers] = await Promise.allSettled([
    startBot(config, { logger, host: '127.0.0.1', auditLines }),
    ...workerConfigs.map((w) =>
      startWorker(w, { logger: logger.child({ worker: w.clusters.worker.join(',') }), auditLines }),
    ),
  ]);
  const close = async (): Promise<void> => {
    // As serve: the bot first (its notifier sends what is pending), then the workers hand back what they hold.
    if (bot.status === 'fulfilled') await bot.value.close();
    await Promise.all(workers.map((w) => (w.status === 'fulfilled' ? w.value.close() : undefined)));
  };
  const failed = [bot, ...workers].find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed || bot.status === 'rejected') {
    await close();
    throw (failed as PromiseRejectedResult).reason;
  }
  if (bot.value.url === undefined) {
    await close();
    throw new Error('the bot started without an HTTP receiver');
  }
  return { botEventsUrl: bot.value.url, close };
}

/** Removes this run's keys from a Redis the sandbox did not start (the simulated cluster they describe is gone). */
async function dropKeys(url: string, prefix: string): Promise<void> {
  const { Redis } = await import('ioredis');
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `{${prefix}}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await client.unlink(...keys);
    } while (cursor !== '0');
  } finally {
    client.disconnect();
  }
}
