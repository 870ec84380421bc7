// The bot role and a worker together (what `serve --role all` runs): a slash command ends COMPLETED, the card
// shows it, and the thread tells the story — through the real Bolt app, notifier, queue, worker and bots.cluster;
// over signed HTTP and over Socket Mode alike.
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { startWorker } from '../../src/roles/worker.js';
import { INCIDENTS, TRANSPORTS, USERS, useBotEnvs } from '../support/bot-env.js';

const bots = useBotEnvs();

describe.each(TRANSPORTS)('over %s', (transport) => {
  it('a production scale approved by a lead runs to COMPLETED; card, thread and incident digests follow', async () => {
    const env = await bots.start({ transport });
    const worker = await startWorker(env.config, { logger: createLogger('silent'), sweepIntervalMs: 60_000 });
    try {
      // The file shares one cluster: each transport scales to its own parallelism, so neither is a no-op.
      const parallelism = transport === 'http' ? 6 : 7;
      const requested = await env.request(
        `scale streaming-prod/fraud-detection ${parallelism} --reason "e2e"`,
        USERS.alice,
      );
      expect(requested.state).toBe('AWAITING_APPROVAL');
      await (await env.click('approve', requested, USERS.lead1)).reply();
      const done = await env.waitForState(requested.id, ['COMPLETED', 'FAILED', 'TIMED_OUT', 'ABORTED'], 60_000);
      expect(done.state).toBe('COMPLETED');
      await env.cardIn(done, 'COMPLETED');
      const thread = await env.sim.waitFor(() => {
        const replies = env.sim.replies(env.channel, done.card?.ts ?? '').slice(1);
        return replies.some((r) => r.text.includes('COMPLETED')) ? replies : undefined;
      }, 20_000);
      expect(thread.every((r) => r.text.includes(done.id))).toBe(true);
      // Uneventful: two replies, submitted and the verdict, posted in seq order so none can follow the verdict
      // (docs/lifecycle.md#the-thread); the approval and the criteria met on the way were on the card.
      expect(thread.map((r) => /\*(SUBMITTED|COMPLETED)\*/.exec(JSON.stringify(r.blocks))?.[1])).toEqual([
        'SUBMITTED',
        'COMPLETED',
      ]);
      const verdict = JSON.stringify(thread[1]?.blocks);
      const criteria = (done.evidence as { verdict: { criteria: { name: string; source: string }[] } }).verdict
        .criteria;
      expect(criteria.length).toBeGreaterThan(3);
      for (const c of criteria) expect(verdict).toContain(`\`${c.name}\``);
      for (const c of criteria) expect(verdict).toContain(c.source);
      expect(thread.map((r) => r.metadata?.event_payload.op)).toEqual(thread.map(() => done.id));
      // The namespace's incident channel gets a digest at the start and at the end.
      const digests = await env.sim.waitFor(() => {
        const found = env.sim.messages(INCIDENTS).filter((m) => m.text.includes(done.id));
        return found.length >= 2 ? found : undefined;
      }, 20_000);
      expect(digests).toHaveLength(2);
    } finally {
      await worker.close();
      await env.close();
    }
  }, 90_000);
});
