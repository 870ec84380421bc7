// A TCP proxy in front of a real Redis that can lose a reply the way a failover does: the next blocking read
// (`XREADGROUP … BLOCK`) sent on any proxied connection is forwarded to Redis, but that connection's replies are
// dropped from then on while its socket stays open. Every other connection, and every new one, is forwarded as is.
import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

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
  const sockets = new Set<Socket>();
  let armed = false;
  let swallowed = 0;
  let connections = 0;
  const server: Server = createServer((client) => {
    connections++;
    const upstream = connect(Number(target.port || 6379), target.hostname);
    let lost = false;
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => {
        sockets.delete(s);
        client.destroy();
        upstream.destroy();
      });
    }
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
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `redis://127.0.0.1:${port}${target.pathname}`,
    loseNextBlockingRead: () => {
      armed = true;
    },
    get swallowed() {
      return swallowed;
    },
    get connections() {
      return connections;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
