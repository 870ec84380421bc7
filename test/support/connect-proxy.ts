// Egress-proxy test support: a small CONNECT proxy that counts what passes (and the local ports of the sockets it
// opens, so a server can tell a proxied connection from a direct one), and a counting front for the simulated Slack
// that records the peer port of every request it forwards.
import { once } from 'node:events';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

export interface Tunnel {
  /** host:port of the CONNECT request. */
  target: string;
  /** The Proxy-Authorization header as sent, if any. */
  authorization: string | undefined;
  /** The local port of the proxy's socket to the target: what the target sees as the peer port. */
  localPort: number | undefined;
  accepted: boolean;
}

export interface TestProxy {
  /** http://127.0.0.1:PORT (add credentials yourself: http://user:pass@127.0.0.1:PORT). */
  url: string;
  port: number;
  tunnels: Tunnel[];
  /** Plain (absolute-URI) proxy requests: not supported, answered 501, counted so a test notices them. */
  forwardRequests: string[];
  /** Local ports of every socket the proxy opened to a target. */
  outgoingPorts: Set<number>;
  close(): Promise<void>;
}

/** A CONNECT proxy on loopback; with `credentials` ("user:pass") it answers 407 to tunnels without them. */
export async function startConnectProxy(opts: { credentials?: string } = {}): Promise<TestProxy> {
  const tunnels: Tunnel[] = [];
  const forwardRequests: string[] = [];
  const outgoingPorts = new Set<number>();
  const sockets = new Set<Socket>();
  const expected =
    opts.credentials === undefined ? undefined : `Basic ${Buffer.from(opts.credentials).toString('base64')}`;
  const server: Server = createServer((req, res) => {
    forwardRequests.push(`${req.method ?? '?'} ${req.url ?? ''}`);
    res.writeHead(501, { 'content-type': 'text/plain' }).end('this test proxy only tunnels (CONNECT)');
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    const target = req.url ?? '';
    const authorization = req.headers['proxy-authorization'];
    const tunnel: Tunnel = { target, authorization, localPort: undefined, accepted: false };
    tunnels.push(tunnel);
    if (expected !== undefined && authorization !== expected) {
      client.end(
        'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\nContent-Length: 0\r\n\r\n',
      );
      return;
    }
    const match = /^\[?([^\]]+?)\]?:(\d+)$/.exec(target);
    if (!match?.[1] || !match[2]) {
      client.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const upstream = connect(Number(match[2]), match[1]);
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('connect', () => {
      tunnel.localPort = upstream.localPort;
      tunnel.accepted = true;
      if (upstream.localPort !== undefined) outgoingPorts.add(upstream.localPort);
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => {
      if (!tunnel.accepted) client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n');
      else client.destroy();
    });
    client.on('close', () => upstream.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    tunnels,
    forwardRequests,
    outgoingPorts,
    async close() {
      for (const s of sockets) s.destroy();
      const closed = once(server, 'close');
      server.close();
      server.closeAllConnections();
      await closed;
    },
  };
}

export interface FrontRequest {
  method: string;
  path: string;
  /** The peer port of the connection the request came on. */
  peerPort: number | undefined;
}

export interface SlackFront {
  /** http://127.0.0.1:PORT: use `${url}/api/` as SLACK_API_URL. */
  url: string;
  port: number;
  requests: FrontRequest[];
  /** A URL of the simulated Slack (a response_url) moved onto the front. */
  rewrite(url: string): string;
  close(): Promise<void>;
}

/**
 * An HTTP front for the simulated Slack at `target` (its url): forwards every request and records its method, path
 * and peer port. With the bot pointed at the front, `requests` are exactly the Slack calls it made — compare them
 * with the sim's own record to see that none went around the front, and their peer ports with a proxy's
 * `outgoingPorts` to see which passed the proxy.
 */
export async function startSlackFront(target: string): Promise<SlackFront> {
  const upstream = new URL(target);
  const requests: FrontRequest[] = [];
  const server = createServer((req, res) => {
    requests.push({ method: req.method ?? '?', path: req.url ?? '', peerPort: req.socket.remotePort });
    const out = request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(out);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    port,
    requests,
    rewrite: (u) => (u.startsWith(upstream.origin) ? url + u.slice(upstream.origin.length) : u),
    async close() {
      const closed = once(server, 'close');
      server.close();
      server.closeAllConnections();
      await closed;
    },
  };
}
