// `flink-chatops serve` as a real process: every role serves /healthz, /readyz and /metrics on PORT, and
// drains (/readyz 503) then exits 0 on SIGTERM.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimCluster } from '@flink-chatops/sim/kube/cluster';
import type { SimSlack } from '@flink-chatops/sim/slack-api';
import { freePort } from '../support/redis-server.js';
import type { TestRedis } from '../support/redis.js';
import { startServeEnv, type ServeEnv } from '../support/serve-env.js';

const REPO = new URL('../..', import.meta.url).pathname;

let env: ServeEnv;
let cluster: SimCluster;
let slack: SimSlack;
let redis: TestRedis;

beforeAll(async () => {
  env = await startServeEnv('serve', { seed: 'none', slack: { botToken: 'xoxb-serve-test' } });
  ({ cluster, slack, redis } = env);
});
afterAll(async () => {
  await env.close();
});

interface Served {
  child: ChildProcess;
  base: string;
  lines: string[];
}

async function serve(role: string): Promise<Served> {
  const port = await freePort();
  const child = spawn(process.execPath, ['bin/flink-chatops.js', 'serve', '--role', role], {
    cwd: REPO,
    env: {
      PATH: process.env.PATH ?? '',
      RECORD_SIGNING_KEY: process.env.RECORD_SIGNING_KEY ?? '',
      PORT: String(port),
      REDIS_URL: redis.url,
      REDIS_PREFIX: redis.prefix,
      KUBECONFIG: cluster.kubeconfigPath,
      POLICY_FILE: env.policyFile,
      SLACK_BOT_TOKEN: 'xoxb-serve-test',
      SLACK_SIGNING_SECRET: 'serve-secret',
      SLACK_API_URL: slack.apiUrl,
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const started = new Promise<void>((resolve, reject) => {
    const expected = role === 'worker' ? 'worker started' : 'bot started';
    createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      if (line.includes(expected)) resolve();
    });
    createInterface({ input: child.stderr! }).on('line', (line) => lines.push(line));
    child.once('exit', (code) =>
      reject(new Error(`serve --role ${role} exited ${code}: ${lines.slice(-5).join('\n')}`)),
    );
  });
  await started;
  return { child, base: `http://127.0.0.1:${port}`, lines };
}

async function stop(served: Served): Promise<number | null> {
  const exited = once(served.child, 'exit');
  served.child.kill('SIGTERM');
  const [code] = (await exited) as [number | null];
  return code;
}

describe.each(['worker', 'bot'])('serve --role %s', (role) => {
  it('answers /healthz, /readyz (with its checks) and /metrics on PORT, then exits 0 on SIGTERM', async () => {
    const served = await serve(role);
    const live = await fetch(`${served.base}/healthz`);
    expect(live.status).toBe(200);
    const ready = await fetch(`${served.base}/readyz`);
    const report = (await ready.json()) as { ok: boolean; checks: Record<string, string> };
    expect(ready.status).toBe(200);
    expect(report.checks.redis).toBe('ok');
    if (role === 'worker') expect(report.checks.kubernetes).toBe('ok');
    const metrics = await fetch(`${served.base}/metrics`);
    expect(metrics.headers.get('content-type')).toContain('text/plain');
    const text = await metrics.text();
    for (const name of ['flink_chatops_operations', 'flink_chatops_queue_depth', 'flink_chatops_ack_latency_seconds'])
      expect(text).toContain(name);
    if (role === 'bot')
      expect(text).toMatch(/flink_chatops_slack_api_calls_total\{method="auth\.test",status="ok"\} 1/);
    expect(await stop(served)).toBe(0);
    expect(served.lines.join('\n')).not.toContain('xoxb-serve-test');
  });
});
