// Free loopback ports for child processes (redis-server, redis-sentinel, the bot) that bind them a moment later.
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';

/** Ports below this are left alone: well-known and registered services live there. */
const LOWEST = 10_000;
const TRIES = 20;

/**
 * The low end of the kernel's ephemeral range, where the kernel picks the local port of every outgoing connection
 * (and of `listen(0)`); undefined where it cannot be read (not Linux).
 */
export async function ephemeralLow(file = '/proc/sys/net/ipv4/ip_local_port_range'): Promise<number | undefined> {
  try {
    const low = Number((await readFile(file, 'utf8')).trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 0 ? low : undefined;
  } catch {
    return undefined;
  }
}

/** Listens on `port` (0: any) on loopback and closes again; the port it got, or undefined when it was taken. */
async function tryListen(port: number): Promise<number | undefined> {
  const server = createServer();
  server.listen(port, '127.0.0.1');
  const got = await Promise.race([
    once(server, 'listening').then(() => server.address()),
    once(server, 'error').then(() => undefined),
  ]);
  if (got === undefined) return undefined;
  server.close();
  await once(server, 'close');
  return got !== null && typeof got === 'object' ? got.port : undefined;
}

/**
 * A TCP port nobody listens on right now (loopback), for a child process to bind. Picked at random below the
 * ephemeral range where the machine says where that is: a port from inside it could be handed to someone's
 * outgoing connection before the child binds it (a redis-server then exits with "Address already in use").
 */
export async function freePort(rangeFile?: string): Promise<number> {
  const low = await ephemeralLow(rangeFile);
  if (low !== undefined && low > LOWEST + 1000) {
    for (let i = 0; i < TRIES; i++) {
      const port = await tryListen(LOWEST + Math.floor(Math.random() * (low - LOWEST)));
      if (port !== undefined) return port;
    }
  }
  const port = await tryListen(0);
  if (port === undefined) throw new Error('could not find a free port');
  return port;
}
