// The audit webhook (docs/audit.md#the-webhook) against a real HTTP receiver and real Redis: every event in order,
// signed; a failing receiver gets the same event again, never a later one first; one replica delivers at a time, and
// when it dies without releasing its lease, another takes over after the lease's TTL with no gap in seq.
import { spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { AuditWebhook, auditWebhookSource, type AuditWebhookOptions } from '../../src/audit/webhook.js';
import { createMetrics } from '../../src/http/metrics.js';
import { newAuditId, type AuditEvent } from '../../src/domain/kit/audit/event.js';
import { RedisAuditLog, RedisAuditPosition } from '../../src/store/audit-log.js';
import { storeKeys } from '../../src/store/keys.js';
import { startConnectProxy } from '../support/connect-proxy.js';
import { startAuditReceiver, type Received } from '../support/audit-receiver.js';
import { eventually } from '../support/poll.js';
import { redisForTest, type TestRedis } from '../support/redis.js';

const SECRET = 'receiver-shared-secret';

let t: TestRedis;
let log: RedisAuditLog;
const cleanups: (() => Promise<void>)[] = [];

beforeEach(async () => {
  t = await redisForTest('audit-webhook');
  log = new RedisAuditLog(t.redis, { prefix: t.prefix });
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await t.cleanup();
});

async function appendEvents(n: number): Promise<AuditEvent[]> {
  const events: AuditEvent[] = [];
  for (let i = 0; i < n; i++) {
    events.push(
      await log.append({
        id: newAuditId((size) => randomBytes(size)),
        at: new Date().toISOString(),
        actor: { user: 'U123', team: 'T123', name: 'Zoë' },
        action: 'requested',
        op: { id: `op-${i}`, kind: 'restart', cluster: 'eu', namespace: 'streaming', name: 'orders' },
      }),
    );
  }
  return events;
}

function webhook(url: string, opts: Partial<AuditWebhookOptions> = {}): AuditWebhook {
  const redis = opts.redis ?? t.redis;
  const hook = new AuditWebhook({
    redis,
    prefix: t.prefix,
    log: new RedisAuditLog(redis, { prefix: t.prefix }),
    position: new RedisAuditPosition(redis, t.prefix),
    webhook: { url, secret: SECRET },
    leaseTtlMs: 1500,
    pollMs: 25,
    backoff: { firstMs: 20, maxMs: 100 },
    ...opts,
  });
  cleanups.push(() => hook.stop());
  return hook;
}

async function receiver(answer?: (request: number) => number | Promise<number>) {
  const r = await startAuditReceiver(SECRET, answer);
  cleanups.push(r.close);
  return r;
}

const seqs = (received: readonly Received[]) => received.map((r) => r.seq);
const upTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe('AuditWebhook', () => {
  it('POSTs every event in order, as stored, signed and named by its id, then new ones as they come', async () => {
    const r = await receiver();
    const events = await appendEvents(5);
    const hook = webhook(r.url);
    hook.start();
    await eventually('five events delivered', () => r.received.length >= 5);
    await appendEvents(2);
    await eventually('seven events delivered', () => r.received.length >= 7);
    expect(seqs(r.received)).toEqual(upTo(7));
    for (const [i, event] of events.entries()) {
      const got = r.received[i] as Received;
      expect(got.body).toBe(JSON.stringify(event));
      expect(got.id).toBe(event.id);
      expect(got.contentType).toBe('application/json');
      expect(got.signature).toBe(`sha256=${createHmac('sha256', SECRET).update(got.body).digest('hex')}`);
    }
    await eventually('position at 7', async () => (await new RedisAuditPosition(t.redis, t.prefix).get()) === 7);
    expect(await hook.lagSeconds()).toBe(0);
    expect(hook.delivering).toBe(true);
  });

  it('retries an event the receiver refused, and sends nothing after it until it is taken', async () => {
    const r = await receiver((request) => (request <= 2 ? 500 : 200));
    await appendEvents(3);
    const position = new RedisAuditPosition(t.redis, t.prefix);
    webhook(r.url).start();
    await eventually('three events delivered', () => r.received.length >= 5);
    expect(seqs(r.received)).toEqual([1, 1, 1, 2, 3]);
    expect(new Set(r.received.slice(0, 3).map((got) => got.id)).size).toBe(1);
    await eventually('position at 3', async () => (await position.get()) === 3);
  });

  it('reports the age of the oldest undelivered event as its lag while the receiver refuses', async () => {
    const r = await receiver(() => 503);
    const [first] = await appendEvents(2);
    const later = Date.parse((first as AuditEvent).at) + 42_000;
    const hook = webhook(r.url, { now: () => later });
    hook.start();
    await eventually('the first event tried', () => r.received.length >= 2);
    expect(seqs(r.received).every((seq) => seq === 1)).toBe(true);
    expect(await hook.lagSeconds()).toBe(42);
    const registry = new Registry();
    createMetrics({ registry, defaultMetrics: false, sources: auditWebhookSource(hook) });
    expect(await registry.metrics()).toMatch(/^flink_chatops_audit_webhook_lag_seconds 42$/m);
    // A replica waiting for the lease reports 0 (an unlabelled gauge never goes absent): sum() is the deliverer's.
    const waiting = webhook(r.url, { now: () => later });
    waiting.start();
    const other = new Registry();
    createMetrics({ registry: other, defaultMetrics: false, sources: auditWebhookSource(waiting) });
    expect(waiting.delivering).toBe(false);
    expect(await other.metrics()).toMatch(/^flink_chatops_audit_webhook_lag_seconds 0$/m);
  });

  it('goes through HTTP_PROXY as Slack calls do, and straight out for a NO_PROXY host', async () => {
    const proxy = await startConnectProxy();
    cleanups.push(proxy.close);
    const r = await receiver();
    await appendEvents(2);
    const proxied = webhook(r.url, { proxy: { https: undefined, http: proxy.url, noProxy: undefined } });
    proxied.start();
    await eventually('two events delivered', () => r.received.length >= 2);
    expect(proxy.tunnels.map((tunnel) => tunnel.target)).toContain(new URL(r.url).host);
    await proxied.stop();
    const tunnels = proxy.tunnels.length;
    await appendEvents(1);
    webhook(r.url, { proxy: { https: undefined, http: proxy.url, noProxy: '127.0.0.1' } }).start();
    await eventually('the third event delivered', () => r.received.length >= 3);
    expect(proxy.tunnels.length).toBe(tunnels);
  });

  it('two replicas on one prefix: one delivers, each event once; when it stops, the other takes over', async () => {
    const r = await receiver();
    const a = webhook(r.url);
    const b = webhook(r.url);
    a.start();
    b.start();
    await appendEvents(10);
    await eventually('ten events delivered', () => r.received.length >= 10);
    expect(seqs(r.received)).toEqual(upTo(10));
    await eventually('one replica delivering', () => a.delivering !== b.delivering);
    const [holder, other] = a.delivering ? [a, b] : [b, a];
    await holder.stop();
    await appendEvents(2);
    await eventually('twelve events delivered', () => r.received.length >= 12, { timeoutMs: 5000 });
    expect(seqs(r.received)).toEqual(upTo(12));
    expect(other.delivering).toBe(true);
  });

  it('a replica that loses Redis mid-run keeps its lease until the TTL; the other then resumes, with no gap', async () => {
    const own = new Redis(t.url, { maxRetriesPerRequest: null });
    cleanups.push(async () => own.disconnect());
    let crashedAt = 0;
    const crash = () => {
      crashedAt = Date.now();
      own.disconnect();
    };
    // The receiver takes event 4, and the first replica's connection dies before it can move the position.
    const r = await receiver((request) => {
      if (request === 4) crash();
      return 200;
    });
    const a = webhook(r.url, { redis: own });
    a.start();
    await eventually('the first replica delivering', () => a.delivering);
    const b = webhook(r.url);
    b.start();
    const leaseKey = storeKeys(t.prefix).auditWebhookLease;
    const events = await appendEvents(12);
    await eventually('the first replica cut off', () => crashedAt > 0);
    expect(await t.redis.pttl(leaseKey)).toBeGreaterThan(0);
    await a.stop();
    await eventually('every event delivered', () => new Set(seqs(r.received)).size === 12, { timeoutMs: 10_000 });
    const seen = seqs(r.received);
    // In order, each seq at most repeated, never skipped: every step is +1 or a step back to redeliver.
    for (let i = 1; i < seen.length; i++) expect((seen[i] as number) <= (seen[i - 1] as number) + 1).toBe(true);
    expect([...new Set(seen)].sort((x, y) => x - y)).toEqual(upTo(12));
    for (const got of r.received) expect(got.id).toBe(events[got.seq - 1]?.id);
    // Nobody delivered while the dead replica's lease lived (renewed every 500 ms, so at least 1 s of it was left).
    const afterCrash = r.received.slice(4);
    expect((afterCrash[0] as Received).atMs - crashedAt).toBeGreaterThanOrEqual(900);
    expect(b.delivering).toBe(true);
    expect(a.delivering).toBe(false);
  });

  it('a replica SIGKILLed mid-delivery: another takes over after the lease TTL, with no gap in seq', async () => {
    // A slow receiver (20 ms an answer), so the kill lands while events are still waiting.
    const r = await receiver(() => new Promise((resolve) => setTimeout(() => resolve(200), 20)));
    const events = await appendEvents(30);
    // A whole process delivering through the same code, killed without a chance to release its lease.
    const script = `
      import { Redis } from 'ioredis';
      import { AuditWebhook } from './src/audit/webhook.ts';
      import { RedisAuditLog, RedisAuditPosition } from './src/store/audit-log.ts';
      const redis = new Redis(process.env.URL, { maxRetriesPerRequest: null });
      const prefix = process.env.PREFIX;
      new AuditWebhook({
        redis, prefix, log: new RedisAuditLog(redis, { prefix }), position: new RedisAuditPosition(redis, prefix),
        webhook: { url: process.env.HOOK, secret: 'receiver-shared-secret' }, leaseTtlMs: 1500, pollMs: 25,
      }).start();`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      env: { PATH: process.env.PATH ?? '', URL: t.url, PREFIX: t.prefix, HOOK: r.url },
      stdio: 'ignore',
    });
    cleanups.push(async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    await eventually('the child delivering', () => r.received.length >= 3, { timeoutMs: 20_000 });
    child.kill('SIGKILL');
    const killedAt = Date.now();
    await new Promise((resolve) => child.once('exit', resolve));
    const byChild = r.received.length;
    expect(byChild).toBeLessThan(30);
    const b = webhook(r.url);
    b.start();
    await eventually('every event delivered', () => new Set(seqs(r.received)).size === 30, { timeoutMs: 10_000 });
    const seen = seqs(r.received);
    for (let i = 1; i < seen.length; i++) expect((seen[i] as number) <= (seen[i - 1] as number) + 1).toBe(true);
    for (const got of r.received) expect(got.id).toBe(events[got.seq - 1]?.id);
    // The lease outlived the process: nothing came until it lapsed.
    expect((r.received[byChild] as Received).atMs - killedAt).toBeGreaterThanOrEqual(500);
  });
});
