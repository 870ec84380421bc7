// A TCP proxy in front of a real Redis that can lose a reply the way a failover does: the next blocking read
// (`XREADGROUP … BLOCK`) sent on any proxied connection is forwarded to Redis, but that connection's replies are
// dropped from then on while its socket stays open. Every other connection, and every new one, is forwarded as is.
import { startTcpForwarder } from './tcp-forwarder.js';

export interface RedisProxy {
  /** redis://127.0.0.1:PORT/DB: the proxied Redis. */
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
    url: `redis://127.0.0.1:${forwarder.port}${target.pathname}`,
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
