// Memory of the bot under an unsigned 200 MB POST to /slack/events (docs/deployment.md#request-limits): the bot runs in
// this process, the POST comes from a child process, and this process's RSS is sampled every 2 ms while it lasts;
// prints the peak growth over the RSS before it for each shape of the POST, then the same POST to a bare Bolt app.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Redis } from 'ioredis';
import { stringify } from 'yaml';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';
import { startBot } from '../src/roles/bot.js';
import { redisAnswers, startPrivateRedis } from '../test/support/redis-server.js';
import { startBareBolt } from './bare-bolt.js';

const MB = 1024 * 1024;
const BODY_BYTES = 200 * MB;
const SECRET = 'bench-signing-secret';
const TOKEN = 'xoxb-bench';
const TARGET_MB = 10;

setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

/** The sending side, in its own process so its buffers are not counted: streams BODY_BYTES, prints the outcome. */
const SENDER = `
const http = require('node:http');
const [url, mode, total] = [process.argv[1], process.argv[2], Number(process.argv[3])];
const now = String(Math.floor(Date.now() / 1000));
const headers = { 'content-type': 'application/x-www-form-urlencoded' };
if (mode !== 'no-headers') Object.assign(headers, { 'x-slack-request-timestamp': now, 'x-slack-signature': 'v0=' + '0'.repeat(64) });
if (mode === 'chunked') headers['transfer-encoding'] = 'chunked'; else headers['content-length'] = String(total);
const started = Date.now();
let sent = 0;
let done = false;
const finish = (status) => { if (done) return; done = true; console.log(JSON.stringify({ status, sent, ms: Date.now() - started })); process.exit(0); };
const req = http.request(url, { method: 'POST', headers });
req.on('response', (res) => { res.resume(); finish(res.statusCode); });
req.on('error', () => finish(0));
const chunk = Buffer.alloc(64 * 1024, 'a');
const pump = () => {
  while (!done && sent < total) { sent += chunk.length; if (!req.write(chunk)) return req.once('drain', pump); }
  if (!done) req.end();
};
pump();
`;

interface Outcome {
  status: number;
  sent: number;
  ms: number;
}

/** Sends one POST from a child process while sampling this process's RSS; the peak growth in MB and the outcome. */
async function measure(url: string, mode: string): Promise<{ growthMb: number; outcome: Outcome }> {
  collect();
  const before = process.memoryUsage.rss();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 2);
  const child = spawn(process.execPath, ['-e', SENDER, url, mode, String(BODY_BYTES)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage.rss());
  return { growthMb: (peak - before) / MB, outcome: JSON.parse(line) as Outcome };
}

async function startSims(): Promise<{ kubeconfig: string; apiUrl: string; stop(): Promise<void> }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, 'ack-sims.ts'), TOKEN, 'C0BENCH', 'U0BENCH'],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
  const info = JSON.parse(line) as { kubeconfig: string; apiUrl: string };
  return {
    ...info,
    stop: async () => {
      child.stdin.end();
      if (child.exitCode === null) await once(child, 'exit');
    },
  };
}

const MODES = [
  ['no signing headers, Content-Length 200 MB', 'no-headers'],
  ['fresh timestamp, forged signature, Content-Length 200 MB', 'length'],
  ['fresh timestamp, forged signature, chunked 200 MB', 'chunked'],
] as const;

function line(name: string, r: { growthMb: number; outcome: Outcome }): string {
  const o = r.outcome;
  return (
    `${name.padEnd(58)} → ${o.status || 'closed'} after ${o.ms} ms, ${(o.sent / MB).toFixed(1)} MB sent, ` +
    `peak RSS growth ${r.growthMb.toFixed(1)} MB`
  );
}

async function main(): Promise<void> {
  const envUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const own = (await redisAnswers(envUrl)) ? undefined : await startPrivateRedis();
  const redisUrl = own?.url ?? envUrl;
  const prefix = `bench-post-${randomBytes(4).toString('hex')}`;
  const sims = await startSims();
  const dir = await mkdtemp(join(tmpdir(), 'bench-post-'));
  const policyFile = join(dir, 'policy.yaml');
  await writeFile(policyFile, stringify({ version: 1, namespaces: [{ name: 'streaming-dev' }], rules: [] }));
  const env = {
    SLACK_BOT_TOKEN: TOKEN,
    SLACK_SIGNING_SECRET: SECRET,
    SLACK_API_URL: sims.apiUrl,
    PORT: '0',
    REDIS_URL: redisUrl,
    REDIS_PREFIX: prefix,
    KUBECONFIG: sims.kubeconfig,
    POLICY_FILE: policyFile,
  };
  const loaded = loadConfig(env, 'bot');
  if (!loaded.ok) throw new Error(loaded.problems.join('\n'));
  const bot = await startBot(loaded.config, { logger: createLogger('silent'), sweep: false });
  const bare = await startBareBolt(TOKEN, SECRET, sims.apiUrl);
  const worst: number[] = [];
  try {
    process.stdout.write(`unsigned ${BODY_BYTES / MB} MB POSTs to /slack/events; RSS sampled every 2 ms\n`);
    for (const [name, mode] of MODES) {
      const result = await measure(bot.url as string, mode);
      worst.push(result.growthMb);
      process.stdout.write(`flink-chatops  ${line(name, result)}\n`);
    }
    const reference = await measure(bare.url, 'length');
    process.stdout.write(`bare Bolt 4.7  ${line(MODES[1][0], reference)}\n`);
  } finally {
    await bare.stop();
    await bot.close();
    await sims.stop();
    const r = new Redis(redisUrl);
    const keys = await r.keys(`*{${prefix}}*`);
    if (keys.length > 0) await r.del(...keys);
    r.disconnect();
    await own?.stop();
    await rm(dir, { recursive: true, force: true });
  }
  const max = Math.max(...worst);
  process.stdout.write(`flink-chatops peak RSS growth: ${max.toFixed(1)} MB (target < ${TARGET_MB} MB)\n`);
  if (max >= TARGET_MB) process.exitCode = 1;
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:post failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
