// A TCP forwarder on loopback in front of a local server: counts the connections opened through it and, unless told
// how, passes every byte both ways. Closing either side of a pair closes the other.
import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

export interface TcpForwarder {
  port: number;
  /** How many connections were opened through it so far. */
  readonly connections: number;
  close(): Promise<void>;
}

/** Forwards to `host:port`; `relay` moves the bytes of each pair (default: both ways as they are). */
export async function startTcpForwarder(
  port: number,
  host = '127.0.0.1',
  relay: (client: Socket, upstream: Socket) => void = (client, upstream) => void client.pipe(upstream).pipe(client),
): Promise<TcpForwarder> {
  const sockets = new Set<Socket>();
  let connections = 0;
  const server: Server = createServer((client) => {
    connections++;
    const upstream = connect(port, host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => {
        sockets.delete(s);
        client.destroy();
        upstream.destroy();
      });
    }
    relay(client, upstream);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    get connections() {
      return connections;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
