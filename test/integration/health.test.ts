// /healthz, /readyz and /metrics over real HTTP — standalone and as Bolt custom routes — with readiness checks
// against a real Redis and the simulated Kubernetes API, and metrics fed by the real store and kube client.
import type { Server } from 'node:http';
import { createServer } from 'node:net';
import { Writable } from 'node:stream';
import { App, LogLevel } from '@slack/bolt';
import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EntryInput } from '../../src/domain/engines/operation.js';
import type { OperationState } from '../../src/domain/model/lifecycle.js';
import type { Target } from '../../src/domain/model/target.js';
import {
  crdsInfo,
  healthRoutes,
  kubeReady,
  readiness,
  redisReady,
  type ReadinessCheck,
} from '../../src/http/health.js';
import { InstalledCrds } from '../../src/kube/crds.js';
import { startSimCluster } from '@flink-chatops/sim/kube/cluster';
import { createMetrics, type Metrics } from '../../src/http/metrics.js';
import { storeSources } from '../../src/http/metric-sources.js';
import { startHealthServer, type HealthServer } from '../../src/http/server.js';
import { ClientNodeFlinkClient } from '../../src/kube/client-node.js';
import { createLogger } from '../../src/log.js';
import { OperationStore, type NewOperation } from '../../src/store/operations.js';
import { kubeConfigFor, startSimApi, type SimApi } from '@flink-chatops/sim/testing/kube';
import { redisForTest, type TestRedis } from '../support/redis.js';

const PROMETHEUS_TEXT = 'text/plain; version=0.0.4';

let t: TestRedis;
let sim: SimApi;
let metrics: Metrics;
const closers: (() => Promise<void> | void)[] = [];

beforeEach(async () => {
  t = await redisForTest('health');
  sim = await startSimApi();
  metrics = createMetrics();
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await sim.close().catch(() => undefined);
  await t.cleanup();
});

async function serve(
  checks: Record<string, ReadinessCheck>,
  options: { timeoutMs?: number } = {},
): Promise<{ server: HealthServer; probe: ReturnType<typeof readiness> }> {
  const probe = readiness(checks, options);
  const server = await startHealthServer({ port: 0, host: '127.0.0.1', ready: probe, metrics });
  closers.push(() => server.close());
  return { server, probe };
}

async function get(base: string, path: string): Promise<{ status: number; type: string; text: string }> {
  const response = await fetch(`${base}${path}`);
  return { status: response.status, type: response.headers.get('content-type') ?? '', text: await response.text() };
}

async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe('standalone health server (worker role, Socket Mode)', () => {
  it('is live and ready when Redis and the Kubernetes API answer', async () => {
    const { server } = await serve({ redis: redisReady(t.redis), kube: kubeReady(kubeConfigFor(sim.server.url)) });
    const live = await get(server.url, '/healthz');
    expect(live).toMatchObject({ status: 200, type: 'application/json; charset=utf-8' });
    expect(JSON.parse(live.text)).toEqual({ ok: true });
    const ready = await get(server.url, '/readyz');
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.text)).toEqual({ ok: true, checks: { redis: 'ok', kube: 'ok' } });
  });

  it('answers 503 naming the failed dependency, and stays live', async () => {
    const down = new Redis({
      host: '127.0.0.1',
      port: await closedPort(),
      lazyConnect: false,
      maxRetriesPerRequest: 1,
      retryStrategy: () => 60_000,
    });
    down.on('error', () => undefined);
    closers.push(() => down.disconnect());
    await new Promise((resolve) => down.once('reconnecting', resolve));
    const kubeConfig = kubeConfigFor(sim.server.url);
    const { server } = await serve({ redis: redisReady(down), kube: kubeReady(kubeConfig) });
    await sim.close();

    const ready = await get(server.url, '/readyz');
    expect(ready.status).toBe(503);
    const body = JSON.parse(ready.text) as { ok: boolean; checks: Record<string, string> };
    expect(body.ok).toBe(false);
    expect(body.checks.redis).toBe('Redis connection is reconnecting');
    expect(body.checks.kube).toMatch(/^Kubernetes API unreachable: /);
    expect((await get(server.url, '/healthz')).status).toBe(200);
  });

  it('names the installed Flink CRDs of each cluster, and stays ready when they cannot be read (docs/deployment.md#operator-versions)', async () => {
    const [eu, us] = [await startSimCluster({ crdVersion: '1.16' }), await startSimCluster({ crdVersion: '1.15' })];
    closers.push(
      () => eu.close(),
      () => us.close(),
    );
    us.server.faults.inject({ kind: 'error-403', resource: 'customresourcedefinitions', times: 4 });
    const info = crdsInfo([
      { name: 'eu', crds: new InstalledCrds(kubeConfigFor(eu.url)) },
      { name: 'us', crds: new InstalledCrds(kubeConfigFor(us.url)) },
    ]);
    const probe = readiness({ redis: redisReady(t.redis) }, { info });
    const server = await startHealthServer({ port: 0, host: '127.0.0.1', ready: probe });
    closers.push(() => server.close());
    const ready = await get(server.url, '/readyz');
    expect(ready.status).toBe(200);
    const body = JSON.parse(ready.text) as { capabilities: Record<string, string> };
    expect(body.capabilities['crds:eu']).toBe(
      'operator 1.16 CRDs; with jobManager/taskManager.resources; flinkVersion up to v2_4',
    );
    expect(body.capabilities['crds:us']).toMatch(/^unknown: the installed CRDs could not be read: /);
  });

  it('bounds a check that never answers, and fails every probe once draining', async () => {
    const hang: ReadinessCheck = (signal) =>
      new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));
    const { server } = await serve({ redis: redisReady(t.redis), slow: hang }, { timeoutMs: 150 });
    const ready = await get(server.url, '/readyz');
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.text)).toEqual({ ok: false, checks: { redis: 'ok', slow: 'no answer within 150ms' } });

    const healthy = await serve({ redis: redisReady(t.redis) });
    expect((await get(healthy.server.url, '/readyz')).status).toBe(200);
    healthy.probe.drain();
    const draining = await get(healthy.server.url, '/readyz');
    expect(draining.status).toBe(503);
    expect(JSON.parse(draining.text)).toEqual({ ok: false, checks: { shutdown: 'draining: the process is stopping' } });
  });

  it('answers 503 when the probe itself throws, and logs readiness changes once each', async () => {
    const lines: { level: string; msg: string; checks: Record<string, string> }[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean))
          lines.push(JSON.parse(line) as (typeof lines)[number]);
        done();
      },
    });
    const answers = [
      new Error('store exploded'),
      { ok: false, checks: { redis: 'down' } },
      { ok: true, checks: { redis: 'ok' } },
    ];
    const ready = async () => {
      const next = answers.shift();
      if (next instanceof Error) throw next;
      return next ?? { ok: true, checks: {} };
    };
    const server = await startHealthServer({ port: 0, host: '127.0.0.1', ready, logger: createLogger('info', stream) });
    closers.push(() => server.close());
    const first = await get(server.url, '/readyz');
    expect(first.status).toBe(503);
    expect(JSON.parse(first.text)).toEqual({ ok: false, checks: { probe: 'store exploded' } });
    expect((await get(server.url, '/readyz')).status).toBe(503);
    expect((await get(server.url, '/readyz')).status).toBe(200);
    expect(lines.filter((l) => l.msg !== 'health server listening').map((l) => [l.level, l.msg])).toEqual([
      ['warn', 'not ready'],
      ['info', 'ready'],
    ]);
  });

  it.each([
    ['/nope', 'GET', 404],
    ['/healthz', 'POST', 405],
    ['/metrics', 'DELETE', 405],
  ])('%s with %s → %i', async (path, method, status) => {
    const { server } = await serve({});
    const response = await fetch(`${server.url}${path}`, { method });
    expect(response.status).toBe(status);
  });

  it('says which port is taken', async () => {
    const { server } = await serve({});
    await expect(startHealthServer({ port: server.port, host: '127.0.0.1', ready: readiness({}) })).rejects.toThrow(
      `health server: port 127.0.0.1:${server.port} is already in use (set PORT)`,
    );
  });
});

describe('/metrics', () => {
  const orders: Target = { kind: 'FlinkDeployment', namespace: 'streaming-prod', name: 'orders' };
  const newOp = (id: string, kind: 'restart' | 'savepoint'): NewOperation => ({
    id,
    kind,
    intent: { kind, target: orders, incidentChannels: [] },
    target: orders,
    requester: 'U0REQ',
    channel: 'C0OPS',
    incidentChannels: [],
  });
  const to = (name: OperationState, role: 'bot' | 'worker'): EntryInput => ({ type: 'state', name, actor: role, role });

  it('serves Prometheus text with every flink_chatops metric after observations', async () => {
    const store = new OperationStore(t.redis, { prefix: t.prefix });
    for (const [id, kind] of [
      ['op-queued1', 'restart'],
      ['op-queued2', 'restart'],
      ['op-awaiting1', 'savepoint'],
      ['op-denied1', 'restart'],
    ] as const) {
      await store.create(newOp(id, kind), 'U0REQ');
    }
    await store.apply('op-queued1', () => ({ entries: [to('QUEUED', 'bot')] }));
    await store.apply('op-queued2', () => ({ set: { reenqueues: 5 }, entries: [to('QUEUED', 'bot')] }));
    await store.apply('op-awaiting1', () => ({ entries: [to('AWAITING_APPROVAL', 'bot')] }));
    await store.apply('op-denied1', () => ({ entries: [to('DENIED', 'bot')] }));
    metrics.setSources({
      ...storeSources(store),
      collectQueue: async () => [
        { cluster: 'default', state: 'waiting', count: 2 },
        { cluster: 'default', state: 'delayed', count: 1 },
      ],
    });

    const kube = new ClientNodeFlinkClient(kubeConfigFor(sim.server.url), {
      onCall: (call) => metrics.kubeCall({ cluster: 'default', ...call }),
    });
    expect(await kube.get('FlinkDeployment', 'streaming-prod', 'missing')).toBeUndefined();
    expect(await kube.list('FlinkDeployment', 'streaming-prod')).toEqual([]);
    metrics.observeAck(0.012);
    metrics.observeLockWait(4);
    metrics.slackCall('chat.postMessage', 'ok');
    metrics.slackCall('chat.postMessage', 'not_in_channel');

    const { server } = await serve({});
    const scrape = await get(server.url, '/metrics');
    expect(scrape.status).toBe(200);
    expect(scrape.type.startsWith(PROMETHEUS_TEXT)).toBe(true);
    const lines = scrape.text.split('\n');
    for (const expected of [
      'flink_chatops_operations{kind="restart",state="QUEUED"} 2',
      'flink_chatops_operations{kind="savepoint",state="AWAITING_APPROVAL"} 1',
      'flink_chatops_operations_stuck 1',
      'flink_chatops_queue_depth{cluster="default",state="waiting"} 2',
      'flink_chatops_queue_depth{cluster="default",state="delayed"} 1',
      'flink_chatops_ack_latency_seconds_bucket{le="0.025"} 1',
      'flink_chatops_ack_latency_seconds_count 1',
      'flink_chatops_lock_wait_seconds_bucket{le="5"} 1',
      'flink_chatops_slack_api_calls_total{method="chat.postMessage",status="ok"} 1',
      'flink_chatops_slack_api_calls_total{method="chat.postMessage",status="not_in_channel"} 1',
      'flink_chatops_slack_api_errors_total{method="chat.postMessage",status="not_in_channel"} 1',
      'flink_chatops_kube_api_calls_total{cluster="default",method="get",resource="FlinkDeployment",status="404"} 1',
      'flink_chatops_kube_api_calls_total{cluster="default",method="list",resource="FlinkDeployment",status="200"} 1',
      'flink_chatops_kube_api_errors_total{cluster="default",method="get",resource="FlinkDeployment",status="404"} 1',
    ]) {
      expect(lines).toContain(expected);
    }
    expect(scrape.text).not.toMatch(/state="DENIED"/);
    expect(scrape.text).not.toMatch(/slack_api_errors_total\{[^}]*status="ok"/);
    expect(scrape.text).toMatch(/^process_cpu_user_seconds_total \d/m);
  });

  it('still answers when a source fails or hangs, counting each failure', async () => {
    metrics = createMetrics({ sourceTimeoutMs: 100 });
    metrics.setSources({
      collectOperations: async () => Promise.reject(new Error('redis down')),
      collectQueue: () => new Promise(() => undefined),
    });
    const { server } = await serve({});
    const first = await get(server.url, '/metrics');
    expect(first.status).toBe(200);
    expect(first.text.split('\n')).toContain('flink_chatops_collect_errors_total{source="operations"} 1');
    expect(first.text.split('\n')).toContain('flink_chatops_collect_errors_total{source="queue"} 1');
    expect(first.text).not.toMatch(/^flink_chatops_(operations|queue_depth)\{/m);
  });
});

describe('as Bolt custom routes (HTTP mode: same port as /slack/events)', () => {
  it('serves the three paths next to the Slack endpoint', async () => {
    const app = new App({
      token: 'xoxb-health-test',
      signingSecret: 'health-secret',
      botId: 'B0HEALTH',
      botUserId: 'U0HEALTH',
      logLevel: LogLevel.ERROR,
      customRoutes: healthRoutes({ ready: readiness({ redis: redisReady(t.redis) }), metrics }),
    });
    const server = (await app.start(0)) as Server;
    closers.push(async () => {
      await app.stop();
    });
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    metrics.observeAck(0.2);

    expect((await get(base, '/healthz')).status).toBe(200);
    expect(await get(base, '/readyz')).toMatchObject({
      status: 200,
      text: `${JSON.stringify({ ok: true, checks: { redis: 'ok' } })}\n`,
    });
    const scrape = await get(base, '/metrics');
    expect(scrape.type.startsWith(PROMETHEUS_TEXT)).toBe(true);
    expect(scrape.text.split('\n')).toContain('flink_chatops_ack_latency_seconds_count 1');
    const unsigned = await fetch(`${base}/slack/events`, {
      method: 'POST',
      body: 'command=/flink',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(unsigned.status).toBe(401);
  });
});
