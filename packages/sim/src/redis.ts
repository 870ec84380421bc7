// The sandbox's Redis: the one at REDIS_URL when it answers, else a private redis-server child, else how to install one.
import { spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { freePort } from './ports.js';

export const INSTALL_REDIS_MESSAGE =
  'flink-chatops sandbox needs Redis (6.2 or newer), and none answers at REDIS_URL and no redis-server is on the PATH.\n' +
  'Install it, then run this again:\n' +
  '  Debian/Ubuntu: sudo apt-get install -y redis-server\n' +
  '  macOS:         brew install redis\n' +
  'or point REDIS_URL at a Redis that runs elsewhere.';

/** True when a PING at `url` answers PONG within `timeoutMs`; never throws. */
export async function redisAnswers(url: string, timeoutMs = 1000): Promise<boolean> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

export interface PrivateRedis {
  url: string;
  process: ChildProcess;
  /** SIGTERM, then waits for the exit; idempotent. */
  stop(): Promise<void>;
}

export class RedisNotInstalled extends Error {
  constructor(command: string) {
    super(`${command} is not on the PATH`);
  }
}

/**
 * Starts `redis-server` on a free loopback port, keeping nothing on disk. Throws `RedisNotInstalled` when the
 * command cannot be found, and an Error when it starts but does not answer.
 */
export async function startPrivateRedis(
  command = 'redis-server',
  env: NodeJS.ProcessEnv = process.env,
): Promise<PrivateRedis> {
  const port = await freePort();
  const child = spawn(command, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
    env,
  });
  // Not events.once: it would reject (unhandled) on the 'error' of a missing command.
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const failed = new Promise<never>((_, reject) => {
    child.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'ENOENT' ? new RedisNotInstalled(command) : error),
    );
    child.once('exit', (code, signal) => reject(new Error(`${command} exited at start (${signal ?? `code ${code}`})`)));
  });
  failed.catch(() => undefined);
  const url = `redis://127.0.0.1:${port}`;
  const ready = (async () => {
    for (let attempt = 0; attempt < 100 && child.exitCode === null; attempt++) {
      if (await redisAnswers(url, 200)) return;
      await sleep(50);
    }
    throw new Error(`${command} did not answer on ${url} within 5 s`);
  })();
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
      child.kill('SIGTERM');
      await exited;
    })());
  try {
    await Promise.race([ready, failed]);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, process: child, stop };
}

export type SandboxRedis =
  | { kind: 'external'; url: string; stop(): Promise<void> }
  | { kind: 'private'; url: string; stop(): Promise<void> }
  | { kind: 'missing'; message: string };

/** The Redis the sandbox uses, in the order README.md#try-it gives; a missing one is a value, not an exception. */
export async function sandboxRedis(url: string, env: NodeJS.ProcessEnv = process.env): Promise<SandboxRedis> {
  if (await redisAnswers(url)) return { kind: 'external', url, stop: async () => undefined };
  try {
    const started = await startPrivateRedis('redis-server', env);
    return { kind: 'private', url: started.url, stop: started.stop };
  } catch (error) {
    if (error instanceof RedisNotInstalled) return { kind: 'missing', message: INSTALL_REDIS_MESSAGE };
    throw error;
  }
}
