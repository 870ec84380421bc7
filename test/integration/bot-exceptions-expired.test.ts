// `/flink exceptions` after the operator's JobException events expired (kube-apiserver --event-ttl, one hour; the
// simulated cluster's TTL shortened): the exceptions still come from Flink's exception history, which the JobMaster
// keeps for the run (docs/commands.md#flink-exceptions). Real Bolt app, simulated Slack and cluster, real Redis.
import { describe, expect, it } from 'vitest';
import { EVENT_TTL_MS } from '@flink-chatops/sim/kube/event-ttl';
import { validateBlocks } from '@flink-chatops/sim/slack-api';
import { waitFor, waitStable } from '@flink-chatops/sim/testing/sim';
import { deployment } from '@flink-chatops/sim/testing/sim-resources';
import { type BotEnv, useBotEnvs } from '../support/bot-env.js';

const bots = useBotEnvs();
const NS = 'streaming-prod';
const NAME = 'fraud-detection';

async function ask(e: BotEnv, text: string) {
  const sent = await e.command(text);
  expect(sent.status).toBe(200);
  const reply = await sent.reply();
  const blocks = reply.body.blocks as { text?: { text?: string }; fields?: { text: string }[] }[];
  return { blocks, all: JSON.stringify(reply.body) };
}

describe('exceptions once the events expired', () => {
  it("lists the job's failovers from Flink's exception history, counted, each saying it came from Flink", async () => {
    const e = await bots.start();
    const c = bots.cluster;
    const uid = c.store.get('flinkdeployments', NS, NAME)?.metadata.uid;
    const warnings = () =>
      c.store
        .list('events', NS)
        .filter((ev) => ev.reason === 'JobException' && (ev.involvedObject as { uid?: string }).uid === uid);
    c.operator.setScenario(NS, NAME, 'job-exceptions=2');
    await waitFor(c.store, () => warnings().length === 2, 15_000, '2 JobException events', warnings);
    try {
      c.eventExpiry.setTtl(0);
      await waitFor(c.store, () => warnings().length === 0, 5_000, 'the JobException events to expire', warnings);

      const answer = await ask(e, `exceptions ${NS}/${NAME}`);
      expect(validateBlocks(answer.blocks)).toEqual({ ok: true });
      const listed = answer.blocks.map((b) => b.text?.text ?? '').filter((t) => t.includes('Simulated task failure'));
      expect(listed).toHaveLength(2);
      for (const t of listed) {
        expect(t).toMatch(/<!date\^\d+\^/);
        expect(t).toMatch(
          /Source: Kafka events -&gt; Map|KeyedProcess -&gt; Filter|Window\(TumblingEventTimeWindows\)/,
        );
        expect(t).toContain('· _Flink_');
      }
      for (const n of [1, 2]) expect(listed.filter((t) => t.includes(`Simulated task failure #${n} `))).toHaveLength(1);
      const failovers = answer.blocks.flatMap((b) => b.fields ?? []).map((f) => f.text);
      expect(failovers).toContain('*Task failovers*\n2');
      expect(answer.all).not.toContain('No JobException warnings');
    } finally {
      c.eventExpiry.setTtl(EVENT_TTL_MS);
    }
  });

  it("says when the job restarted more often than Flink's exception history keeps (web.exception-history-size)", async () => {
    const e = await bots.start();
    const c = bots.cluster;
    c.store.create(
      'flinkdeployments',
      deployment('short-history', NS, { conf: { 'web.exception-history-size': '2' } }),
    );
    const job = await waitStable(c.store, NS, 'short-history');
    const warnings = () =>
      c.store
        .list('events', NS)
        .filter(
          (ev) => ev.reason === 'JobException' && (ev.involvedObject as { uid?: string }).uid === job.metadata.uid,
        );
    c.operator.setScenario(NS, 'short-history', 'job-exceptions=3');
    await waitFor(c.store, () => warnings().length === 3, 15_000, '3 JobException events', warnings);
    try {
      c.eventExpiry.setTtl(0);
      await waitFor(c.store, () => warnings().length === 0, 5_000, 'the JobException events to expire', warnings);
      const answer = await ask(e, `exceptions ${NS}/short-history`);
      expect(answer.blocks.filter((b) => b.text?.text?.includes('Simulated task failure'))).toHaveLength(2);
      expect(answer.all).toContain(
        "Flink counts 3 restarts of the job's current run (numRestarts); its exception history keeps the newest 2",
      );
    } finally {
      c.eventExpiry.setTtl(EVENT_TTL_MS);
    }
  });
});
