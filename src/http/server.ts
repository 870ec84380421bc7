// A small node:http server for /healthz, /readyz and /metrics where Bolt's HTTP receiver is not running:
// the worker role and Socket Mode (every process serves them on PORT: docs/operating.md#health-metrics-and-logs).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { healthRoutes, send, type HealthOptions } from './health.js';

export interface HealthServerOptions extends HealthOptions {
  /** 0 = a free port (the chosen one is returned and logged). */
  port: number;
  /** Default: every interface, so the kubelet's probes reach it. */
  host?: string;
}

export interface HealthServer {
  port: number;
  /** Base URL on loopback, for tests and logs. */
  url: string;
  close(): Promise<void>;
}

export async function startHealthServer(options: HealthServerOptions): Promise<HealthServer> {
  const routes = new Map(healthRoutes(options).map((route) => [route.path, route]));
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const route = routes.get(path);
    if (!route) return send(res, 404, 'text/plain; charset=utf-8', `not found: ${path}\n`);
    if (!route.method.includes(req.method ?? '')) {
      res.setHeader('allow', route.method.join(', '));
      return send(res, 405, 'text/plain; charset=utf-8', `method ${req.method ?? ''} not allowed on ${path}\n`);
    }
    route.handler(req, res);
  });
  await listen(server, options.port, options.host);
  const port = (server.address() as AddressInfo).port;
  options.logger?.info({ port, paths: [...routes.keys()] }, 'health server listening');
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    close: () => close(server),
  };
}

function listen(server: Server, port: number, host: string | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      const where = `${host ?? '*'}:${port}`;
      reject(
        new Error(
          error.code === 'EADDRINUSE'
            ? `health server: port ${where} is already in use (set PORT)`
            : `health server: cannot listen on ${where}: ${error.message}`,
        ),
      );
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

/** Stops accepting and drops idle keep-alive connections (a scraper's) so shutdown is not held up by them. */
function close(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    server.closeIdleConnections();
  });
}
