// The simulated Kubernetes API server: HTTP on loopback for the Flink CRDs, Events and Namespaces, with fault injection.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { admin } from './admin.js';
import { answerCrds, CRD_GROUP, type SimCrds } from './crds.js';
import { discovery } from './discovery.js';
import { gitopsAdmin } from './gitops/admin.js';
import type { SimGitOps } from './gitops/gitops.js';
import { DEFAULT_SIM_USER, FaultInjector, RequestStats, type FaultSpec, type RequestStatsSnapshot } from './faults.js';
import { impersonationDenial, impersonationOf } from './impersonation.js';
import { openApiV3 } from './openapi.js';
import { getObject, listObjects, namespaces, watchObjects, type Answer, type RequestContext } from './reads.js';
import { answerPods, sendPods } from './pods-api.js';
import type { SimPods } from './pods.js';
import { parseRoute, requestInfo, type RequestInfo, type Route } from './routes.js';
import type { FlinkRest } from './flink-rest.js';
import { errors, failure, forbidden } from './status.js';
import { ApiError, type SimStore } from './store.js';
import { WatchHub } from './watch.js';
import { createObject, deleteCollection, deleteObject, patchObject, replaceObject } from './writes.js';

export { validateSpec } from './validation.js';
export { FaultInjector } from './faults.js';

export interface SimApiServer {
  url: string;
  port: number;
  faults: FaultInjector;
  /** Requests served so far, by verb and resource (the /sim endpoints are not counted). */
  stats(): RequestStatsSnapshot;
  resetStats(): void;
  /**
   * Calls `listener` once each API request has been answered successfully (for a watch: once its stream is open
   * and its initial events are written), so tests can wait for a watcher instead of sleeping. Error answers and
   * lost responses are not reported. Returns the unsubscribe function.
   */
  onRequest(listener: (info: RequestInfo) => void): () => void;
  close(): Promise<void>;
}

export type { RequestInfo } from './routes.js';

export interface SimApiServerOptions {
  store: SimStore;
  /** 0 (default) = a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** How often watches that allow bookmarks get one; default 60 s, as kube-apiserver. */
  bookmarkIntervalMs?: number;
  /** Serves `services/<cluster-id>-rest/proxy/…`; without it every such request is 503. */
  flinkRest?: FlinkRest;
  /** Serves `/sim/gitops`; without it that endpoint is 404. */
  gitops?: SimGitOps;
  /** Serves `pods` and `pods/<name>/log` (read-only); without it those paths are 404. */
  pods?: SimPods;
  /** Serves the installed CRDs (`apiextensions.k8s.io/v1`, read-only); without it those paths are 404. */
  crds?: SimCrds;
  /** false: `fieldValidation` is ignored and unknown fields are pruned silently (an API server before 1.25). */
  fieldValidation?: boolean;
}

/** kube-apiserver's limit on request bodies. */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

class BodyTooLarge extends Error {}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new BodyTooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJsonBody(raw: string, method: string): unknown {
  if (raw.trim() === '') {
    if (method === 'DELETE') return undefined;
    throw errors.badRequest('the request body is empty; a JSON object is required');
  }
  try {
    return JSON.parse(raw);
  } catch (error) {
    throw errors.badRequest(`the request body is not valid JSON: ${(error as Error).message}`);
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown, contentType = 'application/json'): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': contentType,
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-cache, private',
  });
  res.end(text);
}

function sendError(res: ServerResponse, error: unknown): void {
  const apiError =
    error instanceof ApiError ? error : errors.internal(error instanceof Error ? error.message : String(error));
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(res, apiError.code, failure(apiError));
}

function rbacDenial(info: RequestInfo, user: string): ApiError {
  const resource = info.subresource ? `${info.resource}/${info.subresource}` : (info.resource ?? '');
  const group =
    info.resource === 'customresourcedefinitions'
      ? CRD_GROUP
      : info.resource === 'events' ||
          info.resource === 'configmaps' ||
          info.resource === 'namespaces' ||
          info.resource === 'services' ||
          info.resource === 'pods'
        ? ''
        : 'flink.apache.org';
  const ctx = { user, verb: info.verb, resource, group } as Parameters<typeof forbidden>[0];
  if (info.namespace !== undefined) ctx.namespace = info.namespace;
  if (info.name !== undefined) ctx.name = info.name;
  return forbidden(ctx);
}

function execute(
  ctx: RequestContext,
  route: Route,
  info: RequestInfo,
  raw: string,
  contentType: string,
  faults: FaultInjector,
  crds: SimCrds | undefined,
): Answer {
  if (route.kind === 'namespaces') return namespaces(ctx, route.name, info.verb);
  if (route.kind === 'crds') {
    if (!crds) throw errors.notFoundPath();
    return { kind: 'json', status: 200, body: answerCrds(crds, info.verb, route.name) };
  }
  if (route.kind !== 'resource') throw errors.notFoundPath();
  const needsBody = info.verb === 'create' || info.verb === 'update' || info.verb === 'patch' || info.verb === 'delete';
  if (
    (info.verb === 'create' || info.verb === 'update') &&
    contentType !== '' &&
    !contentType.startsWith('application/json')
  ) {
    throw new ApiError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format (${contentType}) - accepted media types include: application/json`,
    );
  }
  const body = needsBody ? parseJsonBody(raw, info.method) : undefined;
  const named = route.name === undefined ? undefined : { ...route, name: route.name };
  switch (info.verb) {
    case 'get':
      return getObject(ctx, named as typeof route & { name: string });
    case 'list':
      return listObjects(ctx, route);
    case 'watch':
      return watchObjects(ctx, route, () => faults.takeWatchExpiry());
    case 'create':
      return createObject(ctx, route, body);
    case 'update':
      if (!named) throw errors.methodNotAllowed(info.method, route.def.plural);
      return replaceObject(ctx, named, body);
    case 'patch':
      if (!named) throw errors.methodNotAllowed(info.method, route.def.plural);
      return patchObject(ctx, named, body, contentType);
    case 'delete':
      return deleteObject(ctx, named as typeof route & { name: string }, body);
    case 'deletecollection':
      return deleteCollection(ctx, route);
    default:
      throw errors.methodNotAllowed(info.method, route.def.plural);
  }
}

interface Parts {
  store: SimStore;
  faults: FaultInjector;
  stats: RequestStats;
  hub: WatchHub;
  address: () => string;
  served: Set<(info: RequestInfo) => void>;
  /** The JobManagers' REST API behind `services/<id>-rest/proxy`; absent: every proxy request is 503. */
  flinkRest: FlinkRest | undefined;
  gitops: SimGitOps | undefined;
  pods: SimPods | undefined;
  crds: SimCrds | undefined;
  fieldValidation: boolean;
}

/** Applies the faults that answer instead of the server; returns whether the response must be lost. */
async function applyFaults(hits: FaultSpec[], info: RequestInfo): Promise<boolean> {
  const denied = hits.find((f) => f.kind === 'error-403');
  if (denied) throw rbacDenial(info, denied.user ?? DEFAULT_SIM_USER);
  if (hits.some((f) => f.kind === 'error-500'))
    throw errors.internal('injected fault: the server failed before applying the request');
  for (const f of hits) if (f.kind === 'delay') await sleep(f.ms ?? 0);
  return hits.some((f) => f.kind === 'lose-response');
}

async function handle(req: IncomingMessage, res: ServerResponse, parts: Parts): Promise<void> {
  const method = (req.method ?? 'GET').toUpperCase();
  const url = new URL(req.url ?? '/', 'http://sim.local');
  let raw: string;
  try {
    raw = await readBody(req);
  } catch (error) {
    if (!(error instanceof BodyTooLarge)) throw error;
    res.setHeader('Connection', 'close');
    sendError(res, errors.tooLarge(MAX_BODY_BYTES));
    return;
  }
  if (url.pathname === '/sim/faults' || url.pathname === '/sim/stats') {
    const answer = admin(method, url.pathname, raw, parts.faults, parts.stats);
    sendJson(res, answer.status, answer.body);
    return;
  }
  if (url.pathname === '/sim/gitops') {
    const answer = gitopsAdmin(method, raw, parts.gitops);
    sendJson(res, answer.status, answer.body);
    return;
  }
  const route = parseRoute(url.pathname);
  const info = requestInfo(method, url.pathname, route, url.searchParams);
  const impersonated = impersonationOf(req);
  if (impersonated) info.impersonate = impersonated;
  parts.stats.count(info);
  // Impersonation is checked before anything else, as kube-apiserver's filter does (docs/sandbox.md#impersonation).
  const caller = parts.faults.impersonationDeniedTo();
  if (impersonated && caller !== undefined) throw impersonationDenial(impersonated, caller);
  if (route.kind === 'other') {
    const doc =
      method === 'GET'
        ? discovery(url.pathname, req.headers.accept ?? '', parts.address(), parts.crds !== undefined)
        : undefined;
    const openApi = method === 'GET' && url.pathname.startsWith('/openapi/v3') ? openApiV3(url.pathname) : undefined;
    if (doc) sendJson(res, 200, doc.body, doc.contentType);
    else if (openApi !== undefined) sendJson(res, 200, openApi);
    else sendError(res, errors.notFoundPath());
    return;
  }
  const user = parts.faults.forbiddenUser(info.namespace);
  if (user) throw rbacDenial(info, user);
  const lose = await applyFaults(parts.faults.take(info), info);
  if (route.kind === 'proxy') {
    const proxied = parts.flinkRest?.get(
      route.namespace,
      route.service,
      url.pathname.slice(url.pathname.indexOf('/proxy') + '/proxy'.length) || '/',
      url.searchParams,
    );
    if (lose) req.socket.destroy();
    else if (method !== 'GET') sendError(res, errors.methodNotAllowed(method, 'services/proxy'));
    else if (!proxied)
      sendError(res, new ApiError(503, 'ServiceUnavailable', `no endpoints available for service "${route.service}"`));
    else sendJson(res, proxied.status, proxied.body);
    for (const listener of parts.served) listener(info);
    return;
  }
  if (route.kind === 'pods') {
    if (!parts.pods) throw errors.notFoundPath();
    const sources = { store: parts.store, rest: parts.flinkRest };
    const answer = answerPods(parts.pods, sources, route, method, url.searchParams);
    if (lose) return void req.socket.destroy();
    sendPods(res, answer);
    for (const listener of parts.served) listener(info);
    return;
  }
  const query = new URLSearchParams(url.searchParams);
  // An API server before 1.25 knows no fieldValidation: whatever is asked, unknown fields go without a word.
  if (!parts.fieldValidation) query.set('fieldValidation', 'Ignore');
  if (route.kind === 'crds' && info.verb === 'watch' && parts.crds) {
    parts.crds.watch(res, url.searchParams);
    for (const listener of parts.served) listener(info);
    return;
  }
  const ctx: RequestContext = {
    store: parts.store,
    query,
    accept: req.headers.accept ?? '',
    userAgent: req.headers['user-agent'] ?? '',
  };
  let answer: Answer | undefined;
  let failed: unknown;
  try {
    const contentType = (req.headers['content-type'] ?? '').toLowerCase();
    answer = execute(ctx, route, info, raw, contentType, parts.faults, parts.crds);
  } catch (error) {
    failed = error;
  }
  if (lose) {
    // The write (if any) happened; the client never learns the outcome.
    req.socket.destroy();
    return;
  }
  if (failed !== undefined || !answer) throw failed;
  if (answer.kind === 'watch') parts.hub.open(res, answer.spec);
  else {
    if (answer.warnings) res.setHeader('Warning', answer.warnings);
    sendJson(res, answer.status, answer.body);
  }
  for (const listener of parts.served) listener(info);
}

export async function startSimApiServer(opts: SimApiServerOptions): Promise<SimApiServer> {
  const host = opts.host ?? '127.0.0.1';
  const faults = new FaultInjector();
  const stats = new RequestStats();
  const hub = new WatchHub(opts.store, opts.bookmarkIntervalMs ?? 60_000);
  faults.onCloseWatches((how) => hub.closeAll(how));
  let port = 0;
  const served = new Set<(info: RequestInfo) => void>();
  const parts: Parts = {
    store: opts.store,
    faults,
    stats,
    hub,
    address: () => `${host}:${port}`,
    served,
    flinkRest: opts.flinkRest,
    gitops: opts.gitops,
    pods: opts.pods,
    crds: opts.crds,
    fieldValidation: opts.fieldValidation ?? true,
  };
  const server = createServer({ noDelay: true, keepAlive: true }, (req, res) => {
    res.on('error', () => undefined);
    // The API server's clock is the cluster's (SimStore.now), which may be set apart from this process's.
    res.setHeader('Date', opts.store.now().toUTCString());
    handle(req, res, parts).catch((error: unknown) => sendError(res, error));
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    port,
    faults,
    stats: () => stats.snapshot(),
    resetStats: () => stats.reset(),
    onRequest(listener) {
      served.add(listener);
      return () => served.delete(listener);
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        hub.shutdown();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
