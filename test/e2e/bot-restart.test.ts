// A bot process killed (SIGKILL) mid-operation and started again loses no update and posts no reply twice
// (docs/lifecycle.md#delivery-and-pacing): the notifier runs in real `serve --role bot` processes.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { threadReplyWanted } from '../../src/slack/blocks/index.js';
import { createLogger } from '../../src/log.js';
import type { SimCluster } from '@flink-chatops/sim/kube/cluster';
import { startWorker } from '../../src/roles/worker.js';
import { startBotEnv, startTestCluster, USERS } from '../support/bot-env.js';
import { startBotProcess } from '../support/bot-process.js';

let cluster: SimCluster;

beforeAll(async () => {
  cluster = await startTestCluster();
});
afterAll(async () => {
  await cluster.close();
});

it('a bot process SIGKILLed mid-operation: the next one finishes the card and thread, no reply twice', async () => {
  // The in-process bot takes the commands; the notifier runs only in the child processes.
  const env = await startBotEnv(cluster, { overrides: { notifier: false } });
  const worker = await startWorker(env.config, { logger: createLogger('silent'), sweepIntervalMs: 60_000 });
  let first: ChildProcess | undefined = await startBotProcess(env, { leaseTtl: '5s' });
  let second: ChildProcess | undefined;
  try {
    const requested = await env.request('scale streaming-prod/fraud-detection 5 --reason "restart test"', USERS.alice);
    expect(requested.state).toBe('AWAITING_APPROVAL');
    const threadOf = () => env.sim.replies(env.channel, requested.card?.ts ?? '').slice(1);
    // Kill the first bot process as soon as it has posted its first thread reply (the approval).
    await (await env.click('approve', requested, USERS.lead1)).reply();
    await env.sim.waitFor(() => (threadOf().length > 0 ? true : undefined), 20_000);
    first.kill('SIGKILL');
    await once(first, 'exit');
    first = undefined;

    const done = await env.waitForState(requested.id, ['COMPLETED', 'FAILED', 'TIMED_OUT', 'ABORTED'], 60_000);
    expect(done.state).toBe('COMPLETED');
    second = await startBotProcess(env, { leaseTtl: '5s' });
    // The dead process's per-operation notifier lock and its stream claims lapse first (LEASE_TTL, 5 s here).
    const wanted = done.history.filter((e) => threadReplyWanted(e)).map((e) => e.seq);
    const thread = await env.sim.waitFor(() => {
      const replies = threadOf();
      const seqs = replies.map((r) => Number(r.metadata?.event_payload.seq));
      return wanted.every((seq) => seqs.includes(seq)) ? replies : undefined;
    }, 60_000);
    await env.cardIn(done, 'COMPLETED');
    const seqs = thread.map((r) => Number(r.metadata?.event_payload.seq));
    expect(new Set(seqs).size).toBe(seqs.length);
    expect([...seqs].sort((a, b) => a - b)).toEqual(wanted);
    expect(thread.every((r) => r.text.includes(done.id))).toBe(true);
  } finally {
    first?.kill('SIGKILL');
    if (second) {
      second.kill('SIGTERM');
      await once(second, 'exit');
    }
    await worker.close();
    await env.close();
  }
}, 150_000);
