// A TCP proxy in front of a real Redis that can lose a reply the way a failover does: the next blocking read
// (`XREADGROUP … BLOCK`) sent on any proxied connection is forwarded to Redis, but that connection's replies are
// dropped from then on while its socket stays open. Every other connection, and every new one, is forwarded as is.
import { startTcpForwarder } from './tcp-forwarder.js';

export interface RedisProxy {
  /** The proxied Redis: its URL with the proxy's host and port (viaLocalPort). */
  url: string;
  /** Drops every reply of the connection that sends the next blocking read, from that read on. */
  loseNextBlockingRead(): void;
  /** How many connections had their replies dropped so far. */
  readonly swallowed: number;
  /** How many connections were opened through the proxy so far. */
  readonly connections: number;
  close(): Promise<void>;
}

const BLOCKING_READ = /XREADGROUP[\s\S]*BLOCK/i;

/** `redisUrl` with the host and port of a proxy on loopback; its credentials and database kept. */
export function viaLocalPort(redisUrl: string, port: number): string {
  const url = new URL(redisUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return url.toString();
}

export async function startRedisProxy(redisUrl: string): Promise<RedisProxy> {
  const target = new URL(redisUrl);
  let armed = false;
  let swallowed = 0;
  const forwarder = await startTcpForwarder(Number(target.port || 6379), target.hostname, (client, upstream) => {
    let lost = false;
    client.on('data', (chunk: Buffer) => {
      if (armed && BLOCKING_READ.test(chunk.toString('latin1'))) {
        armed = false;
        lost = true;
        swallowed++;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!lost) client.write(chunk);
    });
  });
  return {
    url: viaLocalPort(redisUrl, forwarder.port),
    loseNextBlockingRead: () => {
      armed = true;
    },
    get swallowed() {
      return swallowed;
    },
    get connections() {
      return forwarder.connections;
    },
    close: () => forwarder.close(),
  };
}
