// Ack latency of the bot's slash command: 200 concurrent signed commands against our app and, in the same run,
// against a bare Bolt app that only acks; prints p50/p99 of the HTTP response time for both and the ratio.
// The simulated cluster and Slack run in a child process and the load comes from a worker thread, so the measured
// process holds only the two apps (as in production, where Slack and Kubernetes are remote).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Worker } from 'node:worker_threads';
import { Redis } from 'ioredis';
import { stringify } from 'yaml';
import { loadConfig } from '../src/config.js';
import { ClientNodeFlinkClient, loadKubeConfig } from '../src/kube/client-node.js';
import { hasOperatorStatus } from '../src/domain/model/resource.js';
import { createLogger } from '../src/log.js';
import { startBot } from '../src/roles/bot.js';
import { eventually } from '../test/support/poll.js';
import { redisAnswers, startPrivateRedis, type PrivateRedis } from '../test/support/redis-server.js';
import { slashCommandBody } from '../test/support/slack.js';
import { startBareBolt } from './bare-bolt.js';

const CONCURRENCY = 200;
const ROUNDS = 6;
const SECRET = 'bench-signing-secret';
const TOKEN = 'xoxb-bench';
const CHANNEL = 'C0BENCH';
const USER = 'U0ONCALL';
/** Operations on a dev target: the heaviest path after the ack (plan, record, card, queue). */
const TEXT = 'restart streaming-dev/orders';

// Both apps share one process and so one heap: the garbage our planning and delivery leave behind would otherwise be
// collected during whichever burst comes next, often the bare app's, and the comparison would swing with the order.
// The bare app's bursts start on a collected heap; ours never do, so ours pays for the garbage it leaves itself.
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

/** Signs exactly as test/support/slack.ts does (string body, bare content-type), off the measured event loop. */
const CLIENT = `
const { parentPort } = require('node:worker_threads');
const { createHmac } = require('node:crypto');
const { performance } = require('node:perf_hooks');
parentPort.on('message', async ({ url, bodies, secret }) => {
  const times = await Promise.all(bodies.map(async (body) => {
    const ts = Math.floor(Date.now() / 1000);
    const headers = {
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': String(ts),
      'x-slack-signature': 'v0=' + createHmac('sha256', secret).update('v0:' + ts + ':' + body).digest('hex'),
    };
    const started = performance.now();
    const res = await fetch(url, { method: 'POST', body, headers });
    await res.text();
    return res.status === 200 ? performance.now() - started : -res.status;
  }));
  parentPort.postMessage(times);
});
`;

interface Sims {
  kubeconfig: string;
  apiUrl: string;
  url: string;
  stop(): Promise<void>;
}

async function startSims(): Promise<Sims> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, 'ack-sims.ts'), TOKEN, CHANNEL, USER],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
  const info = JSON.parse(line) as Omit<Sims, 'stop'>;
  return {
    ...info,
    stop: async () => {
      child.stdin.end();
      if (child.exitCode === null) await once(child, 'exit');
    },
  };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

/** Sends `CONCURRENCY` signed commands at once; resolves with each one's response time (ms). */
async function burst(client: Worker, url: string, sims: Sims, tag: string): Promise<number[]> {
  const bodies = Array.from({ length: CONCURRENCY }, (_, i) =>
    // An id the simulator never issued is accepted at its first use.
    slashCommandBody({
      text: TEXT,
      user_id: USER,
      channel_id: CHANNEL,
      response_url: `${sims.url}/response/${tag}-${i}`,
    }),
  );
  const times = await new Promise<number[]>((resolve, reject) => {
    const done = (value: number[]) => {
      client.off('error', reject);
      resolve(value);
    };
    client.once('message', done);
    client.once('error', reject);
    client.postMessage({ url, bodies, secret: SECRET });
  });
  const failed = times.find((t) => t < 0);
  if (failed !== undefined) throw new Error(`a command was answered ${-failed}`);
  return times;
}

async function redisUrl(): Promise<{ url: string; own?: PrivateRedis }> {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  if (await redisAnswers(url)) return { url };
  const own = await startPrivateRedis();
  return { url: own.url, own };
}

/** The seed's target is planned against only once the operator has reconciled it. */
async function untilReconciled(kubeconfig: string): Promise<void> {
  const kube = new ClientNodeFlinkClient(loadKubeConfig(kubeconfig));
  // The simulators run in another process here: their store's changes cannot be subscribed to.
  await eventually(
    'the simulated operator to reconcile streaming-dev/orders',
    async () => hasOperatorStatus(await kube.get('FlinkDeployment', 'streaming-dev', 'orders')),
    { intervalMs: 50 },
  );
}

/** Counts enqueues (nothing consumes the queue here) and lets a burst wait until all its operations are queued. */
function countingEnqueuer() {
  let count = 0;
  let waiter: { target: number; resolve: () => void } | undefined;
  return {
    get count() {
      return count;
    },
    enqueue: async (): Promise<void> => {
      count++;
      if (waiter && count >= waiter.target) waiter.resolve();
    },
    /** Scheduled operations are not part of the benchmark. */
    enqueueAt: async (): Promise<void> => undefined,
    async until(target: number, timeoutMs: number): Promise<void> {
      if (count >= target) return;
      const timer = setTimeout(() => waiter?.resolve(), timeoutMs);
      await new Promise<void>((resolve) => (waiter = { target, resolve }));
      clearTimeout(timer);
      if (count < target) throw new Error(`only ${count} of ${target} operations were queued within ${timeoutMs} ms`);
    },
  };
}

function report(name: string, values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    name,
    n: sorted.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.at(-1) as number,
  };
}

async function main(): Promise<void> {
  const redis = await redisUrl();
  const prefix = `bench-ack-${randomBytes(4).toString('hex')}`;
  const sims = await startSims();
  await untilReconciled(sims.kubeconfig);
  const dir = await mkdtemp(join(tmpdir(), 'bench-ack-'));
  const policyFile = join(dir, 'policy.yaml');
  await writeFile(policyFile, stringify({ version: 1, namespaces: [{ name: 'streaming-dev' }], rules: [] }));
  const env = {
    SLACK_BOT_TOKEN: TOKEN,
    SLACK_SIGNING_SECRET: SECRET,
    SLACK_API_URL: sims.apiUrl,
    PORT: '0',
    REDIS_URL: redis.url,
    REDIS_PREFIX: prefix,
    KUBECONFIG: sims.kubeconfig,
    POLICY_FILE: policyFile,
    // Every command of the bench is one person's: each is counted (one Redis INCR right after its ack), and none is
    // refused, so what follows the ack is the same work as without the limit.
    COMMAND_RATE_LIMIT: '100000',
  };
  const loaded = loadConfig(env, 'bot');
  if (!loaded.ok) throw new Error(loaded.problems.join('\n'));
  const queue = countingEnqueuer();
  // Every card goes to one channel: at Slack's 1 post/s pace, 200 cards take over 3 minutes. The ack is what is
  // measured here, so posts are paced at 5 ms (the pacing itself is measured by notifier-pacing.test.ts).
  const slackPace = { channelIntervalMs: 5 };
  const ours = await startBot(loaded.config, {
    logger: createLogger('silent'),
    enqueuer: queue,
    notifier: process.env.BENCH_NOTIFIER !== '0',
    slackPace,
  });
  const bare = await startBareBolt(TOKEN, SECRET, sims.apiUrl);
  const client = new Worker(CLIENT, { eval: true });
  const samples = { ours: [] as number[], bare: [] as number[] };
  /** p99 ratio of adjacent bursts: less sensitive to load elsewhere on the machine than the pooled ratio. */
  const roundRatios: number[] = [];
  /** Each round's p99 in ms, ours/bare. */
  const rounds: string[] = [];
  // Each burst of ours ends only when all its operations are recorded and queued, so rounds never overlap.
  const oursBurst = async (tag: string): Promise<number[]> => {
    const target = queue.count + CONCURRENCY;
    const times = await burst(client, ours.url as string, sims, tag);
    await queue.until(target, 60_000);
    return times;
  };
  const bareBurst = (tag: string): Promise<number[]> => {
    collect();
    return burst(client, bare.url, sims, tag);
  };
  // The first burst after start: every cache cold (users.info, policy, the target's read), nothing warm.
  const first = { ours: [] as number[], bare: [] as number[] };
  try {
    first.bare = await bareBurst('warm-bare');
    first.ours = await oursBurst('warm-ours');
    // Alternating which app goes first keeps order effects (JIT, GC debt) out of the comparison.
    for (let round = 0; round < ROUNDS; round++) {
      let mine: number[] = [];
      if (round % 2 === 1) mine = await oursBurst(`ours-${round}`);
      const theirs = await bareBurst(`bare-${round}`);
      if (round % 2 === 0) mine = await oursBurst(`ours-${round}`);
      samples.ours.push(...mine);
      samples.bare.push(...theirs);
      const p99 = { mine: report('', mine).p99, theirs: report('', theirs).p99 };
      roundRatios.push(p99.mine / p99.theirs);
      rounds.push(`${p99.mine.toFixed(0)}/${p99.theirs.toFixed(0)}`);
    }
  } finally {
    await client.terminate();
    await bare.stop();
    await ours.close();
    await sims.stop();
    const r = new Redis(redis.url);
    const keys = await r.keys(`*{${prefix}}*`);
    if (keys.length > 0) await r.del(...keys);
    r.disconnect();
    await redis.own?.stop();
    await rm(dir, { recursive: true, force: true });
  }
  const o = report('flink-chatops', samples.ours);
  const b = report('bare Bolt (ack only)', samples.bare);
  const line = (r: typeof o) =>
    `${r.name.padEnd(22)} n=${r.n}  p50 ${r.p50.toFixed(1)} ms  p99 ${r.p99.toFixed(1)} ms  max ${r.max.toFixed(1)} ms`;
  process.stdout.write(
    `ack latency: ${CONCURRENCY} concurrent signed slash commands × ${ROUNDS} rounds per app (loopback)\n`,
  );
  process.stdout.write(`${line(o)}\n${line(b)}\n`);
  const median = [...roundRatios].sort((x, y) => x - y)[Math.floor(roundRatios.length / 2)] as number;
  process.stdout.write(
    `p99 ratio ours/bare: pooled ${(o.p99 / b.p99).toFixed(2)}, median of rounds ${median.toFixed(2)} (target ≤ 1.20)\n`,
  );
  process.stdout.write(
    `per-round p99 ratios: ${roundRatios.map((r) => r.toFixed(2)).join(' ')}; operations recorded and queued: ${queue.count}\n`,
  );
  process.stdout.write(
    `per-round p99 ms, ours/bare: ${rounds.join(' ')} (the bare app's bursts start on a collected heap)\n`,
  );
  const f = { ours: report('flink-chatops, first', first.ours), bare: report('bare Bolt, first', first.bare) };
  process.stdout.write(
    `first round after start (not pooled): ${line(f.ours)}\n${' '.repeat(38)}${line(f.bare)}\n` +
      `first-round p99 ratio ours/bare: ${(f.ours.p99 / f.bare.p99).toFixed(2)} (target ≤ 1.50)\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:ack failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
