// Highly available Redis for tests (SPEC §9): a primary + replica watched by 3 sentinels, or a 3-primary Cluster
// with one replica each, all real `redis-server` processes on free loopback ports. Nothing is kept on disk but the
// sentinel and cluster config files, in a temp dir removed at stop. The primary is killed with SIGKILL and the
// promotion of its replica awaited the way clients see it (Sentinel's master address, the Cluster's slot owner).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Cluster, Redis } from 'ioredis';
import { freePort } from './redis-server.js';

const HOST = '127.0.0.1';
export const SENTINEL_MASTER = 'mymaster';
/** Sentinel's `down-after-milliseconds` and the Cluster's `cluster-node-timeout`: a dead primary is noticed in ~1 s. */
export const DOWN_AFTER_MS = 1000;

/** One redis-server process (data node or sentinel). */
export interface RedisProcess {
  readonly name: string;
  readonly port: number;
  readonly address: string;
  readonly child: ChildProcess;
  readonly exited: Promise<void>;
  /** Its last output lines (for failure messages). */
  readonly output: string[];
  alive(): boolean;
}

export interface Promotion {
  /** The primary killed and the replica that took its place. */
  killed: RedisProcess;
  promoted: RedisProcess;
  killedAt: number;
  /** Date.now() once the promotion was seen (Sentinel: every sentinel names the new master; Cluster: the slot's owner). */
  promotedAt: number;
}

export interface HaRedis {
  readonly kind: 'sentinel' | 'cluster';
  readonly nodes: readonly RedisProcess[];
  /**
   * The app's environment for this topology (REDIS_SENTINELS + REDIS_SENTINEL_MASTER, or REDIS_CLUSTER_NODES).
   * REDIS_URL points at a port where nothing listens: a process that ignored the HA setting could not connect.
   */
  env(): Record<string, string>;
  /** A test-side client that follows failovers (ioredis' own Sentinel or Cluster client). */
  client(options?: { blocking?: boolean }): Redis;
  /** The data node that is primary for `prefix`'s hash tag now. */
  primaryFor(prefix: string): Promise<RedisProcess>;
  /** SIGKILLs the primary of `prefix`'s slot and resolves once its replica is promoted and answers as primary. */
  killPrimary(prefix: string, timeoutMs?: number): Promise<Promotion>;
  stop(): Promise<void>;
}

/** Polls `check` every `intervalMs` until it returns a value (not undefined/false); errors count as "not yet". */
export async function until<T>(check: () => Promise<T | undefined | false>, what: string, timeoutMs = 15_000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? ` (last error: ${String(lastError)})` : ''}`);
    await sleep(intervalMs);
  }
}

/** A one-shot command on a plain connection that never retries (for probing nodes, dead ones included). */
async function probe<T>(port: number, fn: (r: Redis) => Promise<T>, timeoutMs = 500): Promise<T> {
  const r = new Redis({ host: HOST, port, lazyConnect: true, connectTimeout: timeoutMs, commandTimeout: timeoutMs, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false });
  r.on('error', () => undefined);
  try {
    await r.connect();
    return await fn(r);
  } finally {
    r.disconnect();
  }
}

function info(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split(/\r?\n/)
      .filter((l) => l.includes(':') && !l.startsWith('#'))
      .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1)]),
  );
}

function startProcess(name: string, port: number, args: string[], cwd: string): RedisProcess {
  const child = spawn('redis-server', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  const keep = (chunk: Buffer) => {
    output.push(...chunk.toString().split('\n').filter(Boolean));
    output.splice(0, Math.max(0, output.length - 40));
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.once('error', (error: NodeJS.ErrnoException) => output.push(error.code === 'ENOENT' ? 'redis-server is not on the PATH' : String(error)));
  const alive = () => child.exitCode === null && child.signalCode === null && child.pid !== undefined;
  return { name, port, address: `${HOST}:${port}`, child, exited, output, alive };
}

/** Every data node keeps nothing on disk; `extra` adds the mode's own settings. */
function dataArgs(port: number, extra: string[]): string[] {
  // A replica's first full sync starts at once (the diskless default waits 5 s for more replicas to join).
  return ['--port', String(port), '--bind', HOST, '--save', '', '--appendonly', 'no', '--protected-mode', 'no', '--repl-diskless-sync-delay', '0', ...extra];
}

async function waitAnswers(p: RedisProcess, timeoutMs = 10_000): Promise<void> {
  await until(
    async () => {
      if (!p.alive()) throw new Error(`${p.name} exited: ${p.output.slice(-5).join(' | ')}`);
      return (await probe(p.port, (r) => r.ping())) === 'PONG';
    },
    `${p.name} (${p.address}) to answer PING`,
    timeoutMs,
  ).catch((error: unknown) => {
    throw new Error(`${String(error)}\n${p.name} said: ${p.output.slice(-10).join('\n')}`);
  });
}

async function stopAll(processes: readonly RedisProcess[], dir: string): Promise<void> {
  await Promise.all(
    processes.map(async (p) => {
      if (!p.alive()) return;
      p.child.kill('SIGTERM');
      const killed = setTimeout(() => p.alive() && p.child.kill('SIGKILL'), 3000);
      await p.exited;
      clearTimeout(killed);
    }),
  );
  await rm(dir, { recursive: true, force: true });
}

async function closedPort(): Promise<number> {
  return freePort();
}

/** Sentinel: `primary` + `replica` + 3 sentinels (quorum 2) watching master `mymaster`. */
export async function startSentinelRedis(): Promise<HaRedis> {
  const dir = await mkdtemp(join(tmpdir(), 'redis-sentinel-'));
  const processes: RedisProcess[] = [];
  try {
    const [primaryPort, replicaPort] = [await freePort(), await freePort()];
    const primary = startProcess('primary', primaryPort, dataArgs(primaryPort, ['--dir', dir]), dir);
    const replica = startProcess('replica', replicaPort, dataArgs(replicaPort, ['--dir', dir, '--replicaof', HOST, String(primaryPort)]), dir);
    processes.push(primary, replica);
    await Promise.all([waitAnswers(primary), waitAnswers(replica)]);
    await until(async () => info(await probe(replicaPort, (r) => r.info('replication'))).master_link_status === 'up', 'the replica to sync');
    const sentinels: RedisProcess[] = [];
    // Each sentinel is told its own id and the others' (and the replica) up front, instead of discovering them
    // through hello messages every 2 s: the topology is ready for a failover in well under a second.
    const ids = [0, 1, 2].map(() => randomBytes(20).toString('hex'));
    const ports = [await freePort(), await freePort(), await freePort()];
    for (let i = 0; i < 3; i++) {
      const port = ports[i] as number;
      const file = join(dir, `sentinel-${port}.conf`);
      await writeFile(
        file,
        [
          `port ${port}`,
          `bind ${HOST}`,
          `dir ${dir}`,
          `sentinel myid ${ids[i]}`,
          `sentinel monitor ${SENTINEL_MASTER} ${HOST} ${primaryPort} 2`,
          `sentinel down-after-milliseconds ${SENTINEL_MASTER} ${DOWN_AFTER_MS}`,
          `sentinel failover-timeout ${SENTINEL_MASTER} 4000`,
          `sentinel parallel-syncs ${SENTINEL_MASTER} 1`,
          `sentinel known-replica ${SENTINEL_MASTER} ${HOST} ${replicaPort}`,
          ...ports.flatMap((other, j) => (j === i ? [] : [`sentinel known-sentinel ${SENTINEL_MASTER} ${HOST} ${other} ${ids[j]}`])),
          '',
        ].join('\n'),
      );
      const s = startProcess(`sentinel-${i + 1}`, port, [file, '--sentinel'], dir);
      sentinels.push(s);
      processes.push(s);
    }
    await Promise.all(sentinels.map((s) => waitAnswers(s)));
    // Ready for a failover once every sentinel knows the replica and the two other sentinels.
    await until(
      async () => {
        for (const s of sentinels) {
          const ok = await probe(s.port, async (r) => {
            const replicas = (await r.call('SENTINEL', 'REPLICAS', SENTINEL_MASTER)) as string[][];
            const others = (await r.call('SENTINEL', 'SENTINELS', SENTINEL_MASTER)) as string[][];
            return replicas.length === 1 && others.length === 2;
          });
          if (!ok) return false;
        }
        return true;
      },
      'the sentinels to discover the replica and each other',
      20_000,
    );
    const dataNodes = [primary, replica];
    const masterAddr = async (s: RedisProcess): Promise<string> => {
      const [host, port] = (await probe(s.port, (r) => r.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', SENTINEL_MASTER))) as [string, string];
      return `${host}:${port}`;
    };
    const current = async (): Promise<RedisProcess> => {
      const address = await masterAddr(sentinels.find((s) => s.alive()) as RedisProcess);
      const node = dataNodes.find((n) => n.address === address);
      if (!node) throw new Error(`the sentinels name ${address}, not one of ours`);
      return node;
    };
    const unreachable = await closedPort();
    const clients: Redis[] = [];
    return {
      kind: 'sentinel',
      nodes: processes,
      env: () => ({
        REDIS_URL: `redis://${HOST}:${unreachable}`,
        REDIS_SENTINELS: sentinels.map((s) => s.address).join(','),
        REDIS_SENTINEL_MASTER: SENTINEL_MASTER,
      }),
      client() {
        const c = new Redis({ sentinels: sentinels.map((s) => ({ host: HOST, port: s.port })), name: SENTINEL_MASTER, maxRetriesPerRequest: null });
        c.on('error', () => undefined);
        clients.push(c);
        return c;
      },
      primaryFor: () => current(),
      async killPrimary(_prefix, timeoutMs = 20_000) {
        const killed = await current();
        const promoted = dataNodes.find((n) => n !== killed) as RedisProcess;
        killed.child.kill('SIGKILL');
        const killedAt = Date.now();
        await killed.exited;
        await until(
          async () => {
            for (const s of sentinels) if ((await masterAddr(s)) !== promoted.address) return false;
            return info(await probe(promoted.port, (r) => r.info('replication'))).role === 'master';
          },
          `the sentinels to promote ${promoted.name} (${promoted.address})`,
          timeoutMs,
        );
        return { killed, promoted, killedAt, promotedAt: Date.now() };
      },
      async stop() {
        for (const c of clients) c.disconnect();
        await stopAll(processes, dir);
      },
    };
  } catch (error) {
    await stopAll(processes, dir);
    throw error;
  }
}

interface ClusterNodeLine {
  id: string;
  address: string;
  flags: string[];
  master: string;
  slots: [number, number][];
}

function parseClusterNodes(text: string): ClusterNodeLine[] {
  return text
    .trim()
    .split('\n')
    .map((line) => {
      const [id = '', addr = '', flags = '', master = '', , , , , ...slots] = line.trim().split(' ');
      return {
        id,
        address: addr.split('@')[0] as string,
        flags: flags.split(','),
        master,
        slots: slots
          .filter((s) => !s.startsWith('['))
          .map((s) => {
            const [a, b] = s.split('-').map(Number) as [number, number | undefined];
            return [a, b ?? a] as [number, number];
          }),
      };
    });
}

/** Cluster: 6 nodes, `redis-cli --cluster create … --cluster-replicas 1`: 3 primaries, each with one replica. */
export async function startClusterRedis(): Promise<HaRedis> {
  const dir = await mkdtemp(join(tmpdir(), 'redis-cluster-'));
  const processes: RedisProcess[] = [];
  try {
    for (let i = 0; i < 6; i++) {
      const port = await freePort();
      const extra = [
        '--dir', dir,
        '--cluster-enabled', 'yes',
        '--cluster-config-file', `nodes-${port}.conf`,
        // The bus port on a free port of its own (the default, port + 10000, may be taken).
        '--cluster-port', String(await freePort()),
        '--cluster-node-timeout', String(DOWN_AFTER_MS),
        // A replica that lost its primary a moment ago may always take over (the test kills it on purpose).
        '--cluster-replica-validity-factor', '0',
      ];
      processes.push(startProcess(`node-${i + 1}`, port, dataArgs(port, extra), dir));
    }
    await Promise.all(processes.map((p) => waitAnswers(p)));
    const created = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const cli = spawn('redis-cli', ['--cluster', 'create', ...processes.map((p) => p.address), '--cluster-replicas', '1', '--cluster-yes'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      cli.stdout.on('data', (c: Buffer) => (out += c.toString()));
      cli.stderr.on('data', (c: Buffer) => (out += c.toString()));
      cli.once('error', (error) => resolve({ code: -1, out: String(error) }));
      cli.once('exit', (code) => resolve({ code, out }));
    });
    if (created.code !== 0) throw new Error(`redis-cli --cluster create failed (${created.code}):\n${created.out}`);
    // Ready once every node sees the whole cluster as ok and every replica is in sync with its primary.
    await until(
      async () => {
        for (const p of processes) {
          const state = await probe(p.port, async (r) => ({ cluster: info(String(await r.call('CLUSTER', 'INFO'))), repl: info(await r.info('replication')) }));
          if (state.cluster.cluster_state !== 'ok' || state.cluster.cluster_known_nodes !== '6') return false;
          if (state.repl.role === 'slave' && state.repl.master_link_status !== 'up') return false;
        }
        return true;
      },
      'the cluster to be ok on every node with every replica in sync',
      30_000,
    );
    const byAddress = (address: string) => processes.find((p) => p.address === address);
    const nodesSeenBy = async (p: RedisProcess) => parseClusterNodes(String(await probe(p.port, (r) => r.call('CLUSTER', 'NODES'))));
    const slotOf = async (prefix: string): Promise<number> => {
      const alive = processes.find((p) => p.alive()) as RedisProcess;
      return Number(await probe(alive.port, (r) => r.call('CLUSTER', 'KEYSLOT', `{${prefix}}`)));
    };
    const ownerSeenBy = async (p: RedisProcess, slot: number): Promise<ClusterNodeLine | undefined> =>
      (await nodesSeenBy(p)).find((n) => n.flags.includes('master') && !n.flags.includes('fail') && n.slots.some(([a, b]) => a <= slot && slot <= b));
    const primaryFor = async (prefix: string): Promise<RedisProcess> => {
      const slot = await slotOf(prefix);
      const alive = processes.find((p) => p.alive()) as RedisProcess;
      const owner = await ownerSeenBy(alive, slot);
      const node = owner && byAddress(owner.address);
      if (!node) throw new Error(`no node owns slot ${slot} of {${prefix}}`);
      return node;
    };
    const unreachable = await closedPort();
    const clients: Redis[] = [];
    return {
      kind: 'cluster',
      nodes: processes,
      env: () => ({ REDIS_URL: `redis://${HOST}:${unreachable}`, REDIS_CLUSTER_NODES: processes.map((p) => p.address).join(',') }),
      client() {
        const c = new Cluster(
          processes.map((p) => ({ host: HOST, port: p.port })),
          { redisOptions: { maxRetriesPerRequest: null }, retryDelayOnClusterDown: 200, retryDelayOnFailover: 200, maxRedirections: 50, clusterRetryStrategy: () => 200 },
        );
        c.on('error', () => undefined);
        // The stores take a Redis; a Cluster client answers the same commands (every key shares one slot).
        const asRedis = c as unknown as Redis;
        clients.push(asRedis);
        return asRedis;
      },
      primaryFor,
      async killPrimary(prefix, timeoutMs = 20_000) {
        const slot = await slotOf(prefix);
        const killed = await primaryFor(prefix);
        const all = await nodesSeenBy(killed);
        const killedId = all.find((n) => n.address === killed.address)?.id;
        const replicaLine = all.find((n) => n.master === killedId);
        const promoted = replicaLine && byAddress(replicaLine.address);
        if (!promoted) throw new Error(`${killed.name} has no replica: ${JSON.stringify(all)}`);
        killed.child.kill('SIGKILL');
        const killedAt = Date.now();
        await killed.exited;
        await until(
          async () => {
            // The replica is master of the slot in its own view and in every other live node's, and answers.
            for (const p of processes.filter((n) => n.alive())) {
              if ((await ownerSeenBy(p, slot))?.address !== promoted.address) return false;
              if (info(String(await probe(p.port, (r) => r.call('CLUSTER', 'INFO')))).cluster_state !== 'ok') return false;
            }
            return info(await probe(promoted.port, (r) => r.info('replication'))).role === 'master';
          },
          `${promoted.name} (${promoted.address}) to own slot ${slot} of {${prefix}}`,
          timeoutMs,
        );
        return { killed, promoted, killedAt, promotedAt: Date.now() };
      },
      async stop() {
        for (const c of clients) c.disconnect();
        await stopAll(processes, dir);
      },
    };
  } catch (error) {
    await stopAll(processes, dir);
    throw error;
  }
}

export function startHaRedis(kind: 'sentinel' | 'cluster'): Promise<HaRedis> {
  return kind === 'sentinel' ? startSentinelRedis() : startClusterRedis();
}

/**
 * Every live lease of `prefix` (`{prefix}:lease:*`, found through the `{prefix}:leases` set, so it works on a
 * Cluster too) with its remaining time to live in ms (-1: no expiry, which would be a stuck lease).
 */
export async function leasesWithTtl(redis: Redis, prefix: string): Promise<{ key: string; pttl: number; value: string }[]> {
  const keys = await redis.smembers(`{${prefix}}:leases`);
  const out: { key: string; pttl: number; value: string }[] = [];
  for (const key of keys) {
    const [pttl, value] = await Promise.all([redis.pttl(key), redis.get(key)]);
    if (pttl === -2 || value === null) continue;
    out.push({ key, pttl, value });
  }
  return out;
}
