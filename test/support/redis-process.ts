// Real `redis-server` processes for the highly available Redis tests (docs/configuration.md#redis-modes): starting and
// probing them on free loopback ports, the shape of a topology (HaRedis), and the SIGKILL-then-await-promotion step
// both topologies share.
import { spawn, type ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { Redis } from 'ioredis';
import { eventually, GiveUp } from './poll.js';
import { freePort } from './redis-server.js';

export const HOST = '127.0.0.1';
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

/** How the HA helpers poll a node: its state has no event to await, and a probe costs a connection. */
export const PROBE_POLL = { timeoutMs: 15_000, intervalMs: 50 };

/** A one-shot command on a plain connection that never retries (for probing nodes, dead ones included). */
export async function probe<T>(port: number, fn: (r: Redis) => Promise<T>, timeoutMs = 500): Promise<T> {
  const r = new Redis({
    host: HOST,
    port,
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  r.on('error', () => undefined);
  try {
    await r.connect();
    return await fn(r);
  } finally {
    r.disconnect();
  }
}

export function info(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split(/\r?\n/)
      .filter((l) => l.includes(':') && !l.startsWith('#'))
      .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1)]),
  );
}

export function startProcess(name: string, port: number, args: string[], cwd: string): RedisProcess {
  const child = spawn('redis-server', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  const keep = (chunk: Buffer) => {
    output.push(...chunk.toString().split('\n').filter(Boolean));
    output.splice(0, Math.max(0, output.length - 40));
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.once('error', (error: NodeJS.ErrnoException) =>
    output.push(error.code === 'ENOENT' ? 'redis-server is not on the PATH' : String(error)),
  );
  const alive = () => child.exitCode === null && child.signalCode === null && child.pid !== undefined;
  return { name, port, address: `${HOST}:${port}`, child, exited, output, alive };
}

/** Every data node keeps nothing on disk; `extra` adds the mode's own settings. */
export function dataArgs(port: number, extra: string[]): string[] {
  // A replica's first full sync starts at once (the diskless default waits 5 s for more replicas to join).
  return [
    '--port',
    String(port),
    '--bind',
    HOST,
    '--save',
    '',
    '--appendonly',
    'no',
    '--protected-mode',
    'no',
    '--repl-diskless-sync-delay',
    '0',
    ...extra,
  ];
}

export async function waitAnswers(p: RedisProcess, timeoutMs = 10_000): Promise<void> {
  await eventually(
    `${p.name} (${p.address}) to answer PING`,
    async () => {
      if (!p.alive()) throw new GiveUp(`${p.name} exited: ${p.output.slice(-5).join(' | ')}`);
      return (await probe(p.port, (r) => r.ping())) === 'PONG';
    },
    { ...PROBE_POLL, timeoutMs },
  ).catch((error: unknown) => {
    throw new Error(`${String(error)}\n${p.name} said: ${p.output.slice(-10).join('\n')}`);
  });
}

/**
 * Starts `name` on fresh free ports (`count` of them; `argsFor` makes its arguments) and waits for its PING. A port
 * taken between picking and binding (the process exits "Address already in use") is picked again, a few times.
 */
export async function startAnswering(
  name: string,
  dir: string,
  count: number,
  argsFor: (ports: number[]) => string[] | Promise<string[]>,
): Promise<RedisProcess> {
  for (let attempt = 1; ; attempt++) {
    const ports: number[] = [];
    for (let i = 0; i < count; i++) ports.push(await freePort());
    const p = startProcess(name, ports[0] as number, await argsFor(ports), dir);
    try {
      await waitAnswers(p);
      return p;
    } catch (error) {
      if (p.alive()) p.child.kill('SIGKILL');
      await p.exited;
      if (attempt === 3 || !p.output.some((l) => l.includes('Address already in use'))) throw error;
    }
  }
}

/** Every process `starts` made, or, when one failed, the others stopped and the first failure thrown. */
export async function allStarted(starts: Promise<RedisProcess>[], processes: RedisProcess[]): Promise<RedisProcess[]> {
  const settled = await Promise.allSettled(starts);
  const started = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  processes.push(...started);
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
  return started;
}

export async function stopAll(processes: readonly RedisProcess[], dir: string): Promise<void> {
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

/** SIGKILLs `killed` and resolves once `promotedWhen` holds: the failover a test measures. */
export async function killAndAwaitPromotion(
  killed: RedisProcess,
  promoted: RedisProcess,
  promotedWhen: () => Promise<boolean>,
  what: string,
  timeoutMs: number,
): Promise<Promotion> {
  killed.child.kill('SIGKILL');
  const killedAt = Date.now();
  await killed.exited;
  await eventually(what, promotedWhen, { ...PROBE_POLL, timeoutMs });
  return { killed, promoted, killedAt, promotedAt: Date.now() };
}

/** `stop()` of a topology: disconnects the test-side clients it handed out, then stops every process. */
export function stopper(
  clients: readonly Redis[],
  processes: readonly RedisProcess[],
  dir: string,
): () => Promise<void> {
  return async () => {
    for (const c of clients) c.disconnect();
    await stopAll(processes, dir);
  };
}

export async function closedPort(): Promise<number> {
  return freePort();
}
