// A secret-named configuration value through signed slash commands, a real worker, the simulated Slack and cluster
// and the Redis audit chain (docs/policy.md#secret-values): it reaches the cluster, but no message, reply or audit
// event shows it; the audit keeps its SHA-256.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { startWorker } from '../../src/roles/worker.js';
import { RedisAuditLog } from '../../src/store/audit-log.js';
import { testPolicy, USERS, useBotEnvs, type BotEnv } from '../support/bot-env.js';

const bots = useBotEnvs();

function allowing(allow: string[]) {
  return (channel: string) => ({
    ...testPolicy(channel),
    config: { allow, deny: ['high-availability*', 'kubernetes.operator.*'] },
  });
}

describe('a secret-named key', () => {
  const SECRET_VALUE = 'S3cr3t-Value-7f1c9e';
  const digest = `sha256:${createHash('sha256').update(SECRET_VALUE).digest('hex')}`;

  async function auditText(e: BotEnv): Promise<string> {
    const log = new RedisAuditLog(e.redis.redis, { prefix: e.redis.prefix });
    return JSON.stringify(await log.readAfter(0, 1000));
  }

  it('is applied with its value, which no message, reply, DM or audit event shows', async () => {
    const e = await bots.start({ policy: allowing(['execution.checkpointing.*', 's3.*']) });
    const worker = await startWorker(e.config, { logger: createLogger('silent'), sweepIntervalMs: 60_000 });
    try {
      const explained = await (
        await e.command(`explain config streaming-dev/orders set s3.secret-key=${SECRET_VALUE}`, USERS.alice)
      ).reply();
      expect(JSON.stringify(explained.body)).toContain('spec.flinkConfiguration.s3.secret-key: (unset) → •••');

      const requested = await e.request(
        `config streaming-dev/orders set s3.secret-key=${SECRET_VALUE} execution.checkpointing.interval=12s`,
        USERS.alice,
      );
      const done = await e.waitForState(requested.id, ['COMPLETED', 'FAILED', 'TIMED_OUT', 'ABORTED'], 60_000);
      expect(done.state).toBe('COMPLETED');
      const conf = bots.cluster.store.get('flinkdeployments', 'streaming-dev', 'orders')?.spec?.flinkConfiguration as
        Record<string, unknown> | undefined;
      expect(conf?.['s3.secret-key']).toBe(SECRET_VALUE);

      const card = JSON.stringify((await e.cardIn(done, 'COMPLETED')).blocks);
      expect(card).toContain('spec.flinkConfiguration.s3.secret-key: (unset) → •••');
      expect(card).toContain('spec.flinkConfiguration.execution.checkpointing.interval: 10s → 12s');
      expect(card).toContain('set s3.secret-key=••• execution.checkpointing.interval=12s');
      const op = await (await e.command(`op ${done.id}`, USERS.alice)).reply();
      expect(JSON.stringify(op.body)).toContain('s3.secret-key: (unset) → •••');
      const again = await (
        await e.command(`config streaming-dev/orders set s3.secret-key=${SECRET_VALUE}`, USERS.alice)
      ).reply();
      expect(again.text).toContain('s3.secret-key is already •••');
      const malformed = await (
        await e.command(`config streaming-dev/orders set s3.secret-key=${SECRET_VALUE}=x`, USERS.alice)
      ).reply();
      expect(malformed.text).toContain('the value of s3.secret-key contains "=" ("•••")');

      await e.sim.waitFor(() => e.sim.replies(e.channel, done.card?.ts ?? '').length > 2 || undefined, 10_000);
      const slack = JSON.stringify([e.sim.calls.map((c) => c.args), e.sim.responses.map((r) => r.body)]);
      expect(slack).not.toContain(SECRET_VALUE);

      const audit = await auditText(e);
      expect(audit).toContain('"action":"submitted"');
      expect(audit).not.toContain(SECRET_VALUE);
      expect(audit).toContain(digest);
    } finally {
      await worker.close();
    }
  }, 90_000);
});
