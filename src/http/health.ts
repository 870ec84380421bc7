// /healthz, /readyz and /metrics as Bolt custom routes, and the readiness checks behind /readyz
// (docs/operating.md#health-metrics-and-logs).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { VersionApi, type KubeConfig } from '@kubernetes/client-node';
import { describeCrds } from '../domain/model/crd-schema.js';
import { abortable } from '../kube/abortable.js';
import { makeApiClient } from '../kube/agents.js';
import type { CrdSource } from '../kube/crds.js';
import type { Logger } from '../log.js';
import type { Metrics } from './metrics.js';

export interface Readiness {
  ok: boolean;
  /** Check name → `ok` or why it failed. */
  checks: Record<string, string>;
  /**
   * What the process found that does not decide readiness: the installed Flink CRDs per cluster
   * (docs/deployment.md#operator-versions).
   */
  capabilities?: Record<string, string>;
}

/** Facts the readiness report names without judging them; bounded by the checks' timeout. */
export type ReadinessInfo = (signal: AbortSignal) => Promise<Record<string, string>>;

/** One dependency check: resolves when healthy, throws (with a readable message) when not. */
export type ReadinessCheck = (signal: AbortSignal) => Promise<void>;

/** A readiness probe; `drain()` makes every later probe fail, so a Service stops routing before shutdown. */
export interface ReadinessProbe {
  (): Promise<Readiness>;
  drain(): void;
}

export const DEFAULT_CHECK_TIMEOUT_MS = 2000;

/** Runs the checks side by side, each bounded by `timeoutMs`; ready only when every one passes. */
export function readiness(
  checks: Record<string, ReadinessCheck>,
  options: { timeoutMs?: number; info?: ReadinessInfo } = {},
): ReadinessProbe {
  const timeoutMs = options.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS;
  let draining = false;
  const probe = async (): Promise<Readiness> => {
    if (draining) return { ok: false, checks: { shutdown: 'draining: the process is stopping' } };
    const [results, capabilities] = await Promise.all([
      Promise.all(
        Object.entries(checks).map(async ([name, check]) => [name, await runCheck(check, timeoutMs)] as const),
      ),
      options.info ? runInfo(options.info, timeoutMs) : undefined,
    ]);
    const report: Readiness = {
      ok: results.every(([, result]) => result === 'ok'),
      checks: Object.fromEntries(results),
    };
    return capabilities && Object.keys(capabilities).length > 0 ? { ...report, capabilities } : report;
  };
  return Object.assign(probe, {
    drain: () => {
      draining = true;
    },
  });
}

async function runCheck(check: ReadinessCheck, timeoutMs: number): Promise<string> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<string>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve(`no answer within ${timeoutMs}ms`);
    }, timeoutMs);
  });
  const outcome = check(controller.signal).then(
    () => 'ok',
    (error: unknown) => (error instanceof Error ? error.message : String(error)),
  );
  try {
    return await Promise.race([outcome, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** The info, or nothing when it fails or takes longer than the checks may. */
async function runInfo(info: ReadinessInfo, timeoutMs: number): Promise<Record<string, string> | undefined> {
  const signal = AbortSignal.timeout(timeoutMs);
  const late = new Promise<undefined>((resolve) => signal.addEventListener('abort', () => resolve(undefined)));
  return Promise.race([info(signal).catch(() => undefined), late]);
}

/**
 * The installed Flink CRDs of each cluster in words (docs/deployment.md#operator-versions): `crds` with one cluster,
 * `crds:<name>` with several. Read at most every five minutes; never a reason to be unready.
 */
export function crdsInfo(clusters: readonly { name: string; crds: CrdSource }[]): ReadinessInfo {
  const named = clusters.length > 1;
  return async (signal) => {
    const read = await Promise.all(
      clusters.map(async ({ name, crds }) => {
        const catalog = await crds.catalog(signal);
        return [named ? `crds:${name}` : 'crds', describeCrds(catalog.crds, catalog.unreadable)] as const;
      }),
    );
    return Object.fromEntries(read);
  };
}

/** ioredis connection states in which a PING cannot succeed soon: fail at once instead of waiting out the timeout. */
const REDIS_DOWN_STATES = new Set(['reconnecting', 'close', 'end']);

/** The Redis connection answers PING within the check's timeout. */
export function redisReady(redis: { status: string; ping(): Promise<string> }): ReadinessCheck {
  return async () => {
    if (REDIS_DOWN_STATES.has(redis.status)) throw new Error(`Redis connection is ${redis.status}`);
    const reply = await redis.ping();
    if (reply !== 'PONG') throw new Error(`Redis answered PING with ${JSON.stringify(reply)}`);
  };
}

/**
 * Socket Mode: the bot's link to Slack is up (a bot whose socket stays down is not ready:
 * docs/operating.md#health-metrics-and-logs).
 */
export function socketReady(link: { readonly connected: boolean; describe(): string }): ReadinessCheck {
  return async () => {
    if (!link.connected) throw new Error(link.describe());
  };
}

/**
 * The Kubernetes API answers `GET /version`: proves reachability and credentials without needing any RBAC rule
 * (every authenticated identity may read /version), so a namespace's missing RoleBinding never fails readiness.
 */
export function kubeReady(kubeConfig: KubeConfig): ReadinessCheck {
  const api = makeApiClient(kubeConfig, VersionApi);
  return async (signal) => {
    try {
      await api.getCode(abortable(signal));
    } catch (error) {
      const e = error as { code?: unknown; message?: string };
      if (typeof e.code === 'number')
        throw new Error(`Kubernetes API answered /version with HTTP ${e.code}`, { cause: error });
      throw new Error(`Kubernetes API unreachable: ${e.message ?? String(error)}`, { cause: error });
    }
  };
}

export interface HealthOptions {
  ready: () => Promise<Readiness>;
  metrics?: Pick<Metrics, 'text' | 'contentType'>;
  logger?: Logger;
}

/** Structurally a Bolt `CustomRoute` (`customRoutes` option of App / HTTPReceiver / SocketModeReceiver). */
export interface HealthRoute {
  path: string;
  method: string[];
  handler: (req: IncomingMessage, res: ServerResponse) => void;
}

export const HEALTH_PATHS = { live: '/healthz', ready: '/readyz', metrics: '/metrics' } as const;

export function healthRoutes(options: HealthOptions): HealthRoute[] {
  // Probes come every few seconds: log readiness changes, not every failed probe.
  let wasReady: boolean | undefined;
  const onReport = (report: Readiness) => {
    if (report.ok === wasReady) return;
    wasReady = report.ok;
    if (report.ok) options.logger?.info({ checks: report.checks }, 'ready');
    else options.logger?.warn({ checks: report.checks }, 'not ready');
  };
  const routes: HealthRoute[] = [
    { path: HEALTH_PATHS.live, method: ['GET'], handler: (_req, res) => sendJson(res, 200, { ok: true }) },
    {
      path: HEALTH_PATHS.ready,
      method: ['GET'],
      handler: (_req, res) => void serveReady(res, options.ready, onReport),
    },
  ];
  const metrics = options.metrics;
  if (metrics)
    routes.push({
      path: HEALTH_PATHS.metrics,
      method: ['GET'],
      handler: (_req, res) => void serveMetrics(res, metrics, options.logger),
    });
  return routes;
}

async function serveReady(
  res: ServerResponse,
  ready: HealthOptions['ready'],
  onReport: (report: Readiness) => void,
): Promise<void> {
  let report: Readiness;
  try {
    report = await ready();
  } catch (error) {
    report = { ok: false, checks: { probe: error instanceof Error ? error.message : String(error) } };
  }
  onReport(report);
  sendJson(res, report.ok ? 200 : 503, report);
}

async function serveMetrics(
  res: ServerResponse,
  metrics: Pick<Metrics, 'text' | 'contentType'>,
  logger: Logger | undefined,
): Promise<void> {
  try {
    const text = await metrics.text();
    send(res, 200, metrics.contentType, text);
  } catch (error) {
    logger?.error({ err: error }, 'metrics scrape failed');
    send(res, 500, 'text/plain; charset=utf-8', 'metrics unavailable\n');
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  send(res, status, 'application/json; charset=utf-8', `${JSON.stringify(body)}\n`);
}

export function send(res: ServerResponse, status: number, contentType: string, body: string): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store' });
  res.end(body);
}
