// The audit trail across a Redis Sentinel failover (real redis-server and redis-sentinel processes on loopback): the
// primary is SIGKILLed while operations commit their audit events and the webhook delivers them; the receiver ends
// with every event a commit reported, each seq once with one id, no gap, the chain intact (docs/audit.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditWebhook } from '../../src/audit/webhook.js';
import { AuditTrail } from '../../src/audit/trail.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { AuditEvent } from '../../src/domain/kit/audit/event.js';
import { verifyChain } from '../../src/domain/kit/audit/verify.js';
import { createLogger } from '../../src/log.js';
import { RedisAuditLog, RedisAuditPosition } from '../../src/store/audit-log.js';
import { createConnection, loggedReplicaWait, type RedisConnection } from '../../src/store/connection.js';
import { OperationStore } from '../../src/store/operations.js';
import { startAuditReceiver, type AuditReceiver } from '../support/audit-receiver.js';
import { newOp } from '../support/conformance/operation-store.js';
import { eventually } from '../support/poll.js';
import { startHaRedis, type HaRedis } from '../support/redis-ha.js';
import { uniquePrefix } from '../support/redis.js';

const SECRET = 'sentinel-audit-secret';
let ha: HaRedis;
beforeAll(async () => {
  ha = await startHaRedis('sentinel');
}, 60_000);
afterAll(async () => ha?.stop());

function configFor(prefix: string): Config {
  const loaded = loadConfig(
    { ...ha.env(), REDIS_PREFIX: prefix, KUBECONFIG: '/dev/null', POLICY_FILE: '/dev/null', LOG_LEVEL: 'silent' },
    'worker',
  );
  if (!loaded.ok) throw new Error(loaded.problems.join('; '));
  return loaded.config;
}

/** Operations created and queued one after another until `stopped()`. */
async function writeUntil(store: OperationStore, stopped: () => boolean, ids: string[]): Promise<void> {
  for (let i = 0; !stopped(); i++) {
    const id = `op-sent${String(i).padStart(6, '0')}`;
    ids.push(id);
    // During the failover a command fails (the connection gives up after its retries) as it would for the bot: that
    // operation is left as it is, and the next one goes on.
    await store
      .create(newOp(id), 'U0REQ')
      .then(() => store.transition(id, { from: ['ACCEPTED'], to: 'QUEUED', actor: 'U0REQ', role: 'bot' }))
      .catch(() => undefined);
    // A connection that fails every command at once must not turn this into a loop of microtasks that starves the
    // timers (the test's own deadlines included): each round gives the event loop a turn.
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('the audit trail across a Sentinel failover', () => {
  it('loses no audit event a commit reported, and the receiver sees one chain without a gap', async () => {
    const prefix = uniquePrefix('audit-ha');
    const config = configFor(prefix);
    const logger = createLogger('silent');
    const connections: RedisConnection[] = [];
    const connect = () => {
      const c = createConnection(config.redis, 'producer');
      c.on('error', () => undefined);
      connections.push(c);
      return c;
    };
    const writer = connect();
    const replicas = loggedReplicaWait(writer, config.redis, logger, 'an audit write');
    const reported: AuditEvent[] = [];
    const trail = new AuditTrail({ log: new RedisAuditLog(writer, { prefix }), logger });
    const store = new OperationStore(writer, {
      prefix,
      replicas,
      audit: { drafts: (r, e) => trail.drafts(r, e), written: (events) => void reported.push(...events) },
    });
    // Each answer held 20 ms, so delivery is still under way when the primary dies.
    const receiver: AuditReceiver = await startAuditReceiver(
      SECRET,
      () => new Promise((r) => setTimeout(() => r(200), 20)),
    );
    const hookRedis = connect();
    const hook = new AuditWebhook({
      redis: hookRedis,
      prefix,
      log: new RedisAuditLog(hookRedis, { prefix }),
      position: new RedisAuditPosition(hookRedis, prefix),
      webhook: { url: receiver.url, secret: SECRET },
      replicas: loggedReplicaWait(hookRedis, config.redis, logger, 'an audit delivery'),
      leaseTtlMs: 3000,
      pollMs: 25,
      backoff: { firstMs: 50, maxMs: 200 },
    });
    let stop = false;
    const ids: string[] = [];
    try {
      hook.start();
      const writing = writeUntil(store, () => stop, ids);
      await eventually('delivery under way', () => receiver.received.length >= 10, { timeoutMs: 20_000 });
      const promotion = await ha.killPrimary(prefix, 30_000);
      const reportedAtPromotion = reported.length;
      await eventually('commits after the promotion', () => reported.length >= reportedAtPromotion + 10, {
        timeoutMs: 30_000,
      });
      stop = true;
      await writing;
      const head = await new RedisAuditLog(writer, { prefix }).head();
      await eventually('every event delivered', () => new Set(receiver.received.map((r) => r.seq)).size >= head.seq, {
        timeoutMs: 30_000,
      });
      expect(promotion.promotedAt).toBeGreaterThan(promotion.killedAt);

      expect(receiver.received.every((r) => r.genuine)).toBe(true);
      const idOfSeq = new Map<number, string>();
      for (const got of receiver.received) {
        const event = JSON.parse(got.body) as AuditEvent;
        // One event per seq: a failover never gave a delivered seq out again to another event.
        expect(idOfSeq.get(event.seq) ?? event.id).toBe(event.id);
        idOfSeq.set(event.seq, event.id);
      }
      expect([...idOfSeq.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: head.seq }, (_x, i) => i + 1));
      for (const event of reported) expect(idOfSeq.get(event.seq)).toBe(event.id);
      const chain = [...idOfSeq.keys()]
        .sort((a, b) => a - b)
        .map((seq) => receiver.received.find((r) => r.seq === seq)?.body ?? '');
      expect(verifyChain(chain)).toMatchObject({ ok: true, count: head.seq });
    } finally {
      stop = true;
      await hook.stop();
      await receiver.close();
      for (const c of connections) c.disconnect();
    }
  });
});
