// The sandbox page's HTTP server: static page, SSE stream of Slack and cluster changes, and the page's API, which
// turns what a person does on the page into signed Slack requests to the bot (the bot cannot tell it from Slack).
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { panelRows, type PanelCluster } from './page-cluster.js';
import { backendPanel, BadRequest, PageApi, type PageBackend, type PageEphemeral } from './page-api.js';
import { buildState } from './page-state.js';

export type { PageBackend } from './page-api.js';

export interface PageServer {
  url: string;
  port: number;
  /** Until connected the page's API answers 503 (the static page is served at once). */
  connect(backend: PageBackend): void;
  close(): Promise<void>;
}

export interface PageServerOptions {
  /** A port to use as is (0 = any free one); unset: 3000, or the next free one up to 3099. */
  port?: number;
  host?: string;
}

const PAGE_FILES = [
  'index.html',
  'app.js',
  'api.js',
  'blocks.js',
  'messages.js',
  'cluster.js',
  'composer.js',
  'dom.js',
  'events.js',
  'home.js',
  'dms.js',
  'sidebar.js',
  'base.css',
  'messages.css',
  'composer.css',
  'cluster.css',
];
const STATIC: Record<string, string> = {
  '/': 'index.html',
  ...Object.fromEntries(PAGE_FILES.map((f) => [`/${f}`, f])),
};
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'";
const MAX_BODY = 64 * 1024;
const LOOPBACK_HOST = /^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/;

/** page/ next to this module: the package runs from its sources, so the page is always there. */
function pageDir(): string {
  return fileURLToPath(new URL('./page/', import.meta.url));
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) throw new BadRequest('the request body is larger than 64 KiB');
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new BadRequest('the request body is not JSON');
  }
}

class Connected {
  /** The simulated clusters, each with its knobs. */
  readonly panel: readonly PanelCluster[];
  readonly api: PageApi;
  private readonly clients = new Set<ServerResponse>();
  private readonly unsubscribe: (() => void)[] = [];
  private clusterTimer: NodeJS.Timeout | undefined;
  private lastCluster = '';
  private readonly heartbeat: NodeJS.Timeout;

  constructor(readonly backend: PageBackend) {
    this.panel = backendPanel(backend);
    this.api = new PageApi(backend, this.panel, {
      ephemeral: (e) => this.broadcast('message', { kind: 'ephemeral', channel: e.channel, ephemeral: e }),
      cluster: () => this.scheduleCluster(0),
    });
    this.unsubscribe.push(backend.slack.on('message', (event) => this.broadcast('message', event)));
    this.unsubscribe.push(
      backend.slack.on('call', (call) => {
        const user = call.args.user_id;
        if (call.method !== 'views.publish' || call.response.ok !== true || typeof user !== 'string') return;
        this.broadcast('home', { user, view: backend.slack.homeView(user)?.view });
      }),
    );
    for (const { cluster } of this.panel) {
      this.unsubscribe.push(
        cluster.store.subscribe((change) => {
          if (change.resource !== 'events') this.scheduleCluster(50);
        }),
      );
    }
    this.heartbeat = setInterval(() => this.clients.forEach((res) => res.write(': ping\n\n')), 15_000).unref();
  }

  state(): ReturnType<typeof buildState> {
    const b = this.backend;
    return buildState({
      slack: b.slack,
      panel: this.panel,
      policy: b.policy,
      policyFile: b.policyFile,
      command: b.command,
      acks: (): PageEphemeral[] => this.api.acks,
    });
  }

  subscribe(req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
    });
    res.write('retry: 1000\n\n');
    this.clients.add(res);
    req.on('close', () => this.clients.delete(res));
    // The full state first: the page never has to reconcile a fetch with events that raced it.
    write(res, 'state', this.state());
  }

  private broadcast(event: string, data: unknown): void {
    for (const res of this.clients) write(res, event, data);
  }

  private scheduleCluster(delayMs: number): void {
    if (this.clusterTimer !== undefined) return;
    this.clusterTimer = setTimeout(() => {
      this.clusterTimer = undefined;
      const rows = panelRows(this.panel);
      const text = JSON.stringify(rows);
      if (text === this.lastCluster) return;
      this.lastCluster = text;
      this.broadcast('cluster', rows);
    }, delayMs);
  }

  close(): void {
    clearInterval(this.heartbeat);
    clearTimeout(this.clusterTimer);
    this.unsubscribe.forEach((fn) => fn());
    for (const res of this.clients) res.end();
    this.clients.clear();
  }
}

function write(res: ServerResponse, event: string, data: unknown): void {
  if (!res.writableEnded) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

async function serveStatic(res: ServerResponse, file: string): Promise<void> {
  const body = await readFile(join(pageDir(), file));
  res.writeHead(200, {
    'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
    'content-length': body.length,
    'cache-control': 'no-cache',
    'content-security-policy': CSP,
    'x-content-type-options': 'nosniff',
  });
  res.end(body);
}

/** `/archives/C…/p1700000000123456[?thread_ts=…]` (chat.getPermalink's links) → the page, at that message. */
function permalinkTarget(url: URL): string | undefined {
  const m = /^\/archives\/([A-Z0-9]+)\/p(\d{7,})$/.exec(url.pathname);
  if (!m) return undefined;
  const digits = m[2] as string;
  const ts = `${digits.slice(0, -6)}.${digits.slice(-6)}`;
  const thread = url.searchParams.get('thread_ts') ?? ts;
  return `/#${encodeURIComponent(m[1] as string)}/${encodeURIComponent(thread)}/${encodeURIComponent(ts)}`;
}

async function route(req: IncomingMessage, res: ServerResponse, connected: Connected | undefined): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://page.local');
  const method = req.method ?? 'GET';
  const file = STATIC[url.pathname];
  if (method === 'GET' && file !== undefined) return serveStatic(res, file);
  const link = method === 'GET' ? permalinkTarget(url) : undefined;
  if (link !== undefined) {
    res.writeHead(302, { location: link });
    res.end();
    return;
  }
  if (url.pathname === '/favicon.ico') {
    res.writeHead(204);
    res.end();
    return;
  }
  if (url.pathname === '/healthz') return sendJson(res, 200, { ok: true, ready: connected !== undefined });
  if (url.pathname !== '/events' && !url.pathname.startsWith('/api/'))
    return sendJson(res, 404, { ok: false, error: `no page at ${url.pathname}` });
  if (connected === undefined)
    return sendJson(res, 503, { ok: false, error: 'the sandbox is still starting; try again in a moment' });
  if (method === 'GET' && url.pathname === '/events') return connected.subscribe(req, res);
  if (method === 'GET' && url.pathname === '/api/state') return sendJson(res, 200, connected.state());
  if (method === 'POST') {
    // Only this page's own scripts: a form on another site cannot send JSON, and a rebound name is refused.
    if (!(req.headers['content-type'] ?? '').startsWith('application/json'))
      throw new BadRequest('send JSON (content-type: application/json)', 415);
    if (!LOOPBACK_HOST.test(req.headers.host ?? ''))
      throw new BadRequest(`the sandbox answers only on loopback, not for host ${req.headers.host ?? '(none)'}`, 403);
    const body = await readJson(req);
    const answer = await connected.api.handle(url.pathname, body);
    if (answer !== undefined) return sendJson(res, 200, answer);
  }
  sendJson(res, 404, { ok: false, error: `no ${method} ${url.pathname}` });
}

async function listen(server: Server, port: number, host: string): Promise<number> {
  await new Promise<void>((ok, fail) => {
    const onError = (error: Error): void => {
      server.off('listening', onListening);
      fail(error);
    };
    const onListening = (): void => {
      server.off('error', onError);
      ok();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
  return (server.address() as AddressInfo).port;
}

/** Listens at once (3000 or the next free port by default); `connect` brings the API to life. */
export async function startPageServer(options: PageServerOptions = {}): Promise<PageServer> {
  const host = options.host ?? '127.0.0.1';
  let connected: Connected | undefined;
  const server = createServer((req, res) => {
    route(req, res, connected).catch((error: unknown) => {
      const status = error instanceof BadRequest ? error.status : 500;
      if (status === 500) connected?.backend.logger?.error({ err: error, url: req.url }, 'sandbox page request failed');
      if (!res.headersSent)
        sendJson(res, status, { ok: false, error: error instanceof Error ? error.message : String(error) });
      else res.end();
    });
  });
  let port: number | undefined;
  if (options.port !== undefined) port = await listen(server, options.port, host);
  for (let candidate = 3000; port === undefined && candidate < 3100; candidate++) {
    try {
      port = await listen(server, candidate, host);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    }
  }
  if (port === undefined) throw new Error('no free port between 3000 and 3099 for the sandbox page; pass --port N');
  return {
    url: `http://${host}:${port}`,
    port,
    connect(backend) {
      connected?.close();
      connected = new Connected(backend);
    },
    async close() {
      connected?.close();
      await new Promise<void>((ok) => {
        server.close(() => ok());
        server.closeAllConnections();
      });
    },
  };
}
