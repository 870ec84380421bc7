// Approval and Slack flows (docs/policy.md#approvals, docs/lifecycle.md#the-card) end to end through the real Bolt app,
// notifier, queue, worker and simulated cluster: a dev operation that needs no approval, and an approval window that
// expires (over HTTP and over Socket Mode).
import { DEFAULT_CLUSTER } from '../../src/config.js';
import { expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { startWorker } from '../../src/roles/worker.js';
import { Sweep } from '../../src/app/sweep.js';
import { TRANSPORTS, USERS, useBotEnvs } from '../support/bot-env.js';

const bots = useBotEnvs();

it('a dev operation runs without approval to COMPLETED; the card keeps no buttons and the thread has the outcome', async () => {
  const env = await bots.start();
  const worker = await startWorker(env.config, { logger: createLogger('silent'), sweepIntervalMs: 60_000 });
  try {
    const requested = await env.request('scale streaming-dev/orders 3', USERS.bob);
    expect(requested.state).toBe('QUEUED');
    expect(requested.history.some((e) => e.type === 'approval')).toBe(false);
    const done = await env.waitForState(requested.id, ['COMPLETED', 'FAILED', 'TIMED_OUT', 'ABORTED'], 60_000);
    expect(done.state).toBe('COMPLETED');
    const card = await env.cardIn(done, 'COMPLETED');
    expect(JSON.stringify(card.blocks)).not.toContain('"type":"actions"');
    const outcome = await env.sim.waitFor(
      () => env.sim.replies(env.channel, done.card?.ts ?? '').find((r) => r.text.includes('COMPLETED')),
      20_000,
    );
    expect(outcome.text).toContain(done.id);
    const live = bots.cluster.store.get('flinkdeployments', 'streaming-dev', 'orders');
    expect((live?.spec?.job as { parallelism?: number }).parallelism).toBe(3);
  } finally {
    await worker.close();
    await env.close();
  }
}, 90_000);

it.each(TRANSPORTS)(
  'an approval window that passes ends EXPIRED: buttons gone, a late click is answered and changes nothing (%s)',
  async (transport) => {
    const env = await bots.start({ transport, overrides: { sweep: false } });
    try {
      const requested = await env.request('restart streaming-prod/orders --reason "expiry test"', USERS.alice);
      expect(requested.state).toBe('AWAITING_APPROVAL');
      expect(requested.expiresAt).toBeGreaterThan(0);
      const sweep = new Sweep({
        store: env.bot.deps.store,
        queues: { clusters: [DEFAULT_CLUSTER], of: () => env.queue },
        leases: env.bot.deps.leases,
        logger: createLogger('silent'),
        now: () => (requested.expiresAt as number) + 1,
      });
      expect((await sweep.run()).expired).toEqual([requested.id]);
      const expired = await env.record(requested.id);
      expect(expired.state).toBe('EXPIRED');
      expect(expired.history.at(-1)).toMatchObject({ type: 'state', name: 'EXPIRED', actor: 'sweep' });
      const card = await env.cardIn(expired, 'EXPIRED');
      expect(JSON.stringify(card.blocks)).not.toContain('flink_ops_approve');

      const late = await (await env.click('approve', requested, USERS.lead1)).reply();
      expect(late.text).toMatch(/EXPIRED|expired|already/);
      const after = await env.record(requested.id);
      expect(after.state).toBe('EXPIRED');
      expect(after.approvals).toEqual([]);
      expect(after.version).toBe(expired.version);
    } finally {
      await env.close();
    }
  },
  60_000,
);
