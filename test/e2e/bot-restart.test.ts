// A bot process killed (SIGKILL) mid-operation and started again loses no update and posts no reply twice
// (SPEC §8 "Delivery"): the notifier runs in real `serve --role bot` processes.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { threadReplyWanted } from '../../src/slack/blocks/index.js';
import { createLogger } from '../../src/log.js';
import type { SimCluster } from '../../src/sandbox/kube/cluster.js';
import { startWorker } from '../../src/roles/worker.js';
import { SECRET, startBotEnv, startTestCluster, TOKEN, USERS, type BotEnv } from '../support/bot-env.js';

const REPO = new URL('../..', import.meta.url).pathname;
let cluster: SimCluster;

beforeAll(async () => {
  cluster = await startTestCluster();
});
afterAll(async () => {
  await cluster.close();
});

/** A `serve --role bot` process sharing the test's Redis, Slack and cluster; resolves once it has started. */
async function botProcess(env: BotEnv): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['bin/flink-chatops.js', 'serve', '--role', 'bot'], {
    cwd: REPO,
    env: {
      PATH: process.env.PATH ?? '',
      PORT: '0',
      SLACK_BOT_TOKEN: TOKEN,
      SLACK_SIGNING_SECRET: SECRET,
      SLACK_API_URL: env.sim.apiUrl,
      REDIS_URL: env.config.redis.url,
      REDIS_PREFIX: env.config.redis.prefix,
      KUBECONFIG: env.config.kubeconfig ?? '',
      POLICY_FILE: env.config.policyFile,
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      if (line.includes('bot started')) resolve();
    });
    createInterface({ input: child.stderr! }).on('line', (line) => lines.push(line));
    child.once('exit', (code) => reject(new Error(`bot process exited ${code}: ${lines.slice(-5).join('\n')}`)));
  });
  return child;
}

it('a bot process SIGKILLed mid-operation: the next one finishes the card and thread, no reply twice', async () => {
  // The in-process bot takes the commands; the notifier runs only in the child processes.
  const env = await startBotEnv(cluster, { overrides: { notifier: false } });
  const worker = await startWorker(env.config, { logger: createLogger('silent'), sweepIntervalMs: 60_000 });
  let first: ChildProcess | undefined = await botProcess(env);
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
    second = await botProcess(env);
    // The dead process's per-operation notifier lock must expire first (its TTL, 30 s, bounds the wait).
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
