// Finds a Redis for the test run: REDIS_URL (default 127.0.0.1:6379) when it answers, else a private redis-server.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';

export async function redisAnswers(url: string, timeoutMs = 1000): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, connectTimeout: timeoutMs, maxRetriesPerRequest: 0, retryStrategy: () => null });
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

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

export interface PrivateRedis {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Starts `redis-server` on a free loopback port, keeping nothing on disk. Throws when it is not installed. */
export async function startPrivateRedis(command = 'redis-server'): Promise<PrivateRedis> {
  const port = await freePort();
  const child = spawn(command, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  const failed = new Promise<never>((_, reject) => {
    child.once('error', (error) => reject(error));
    child.once('exit', (code) => reject(new Error(`redis-server exited with code ${code}`)));
  });
  const url = `redis://127.0.0.1:${port}`;
  const ready = (async () => {
    for (let attempt = 0; attempt < 100; attempt++) {
      if (await redisAnswers(url, 200)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`redis-server did not answer on ${url}`);
  })();
  await Promise.race([ready, failed]);
  return {
    url,
    process: child,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}
