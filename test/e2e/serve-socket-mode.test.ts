// `flink-chatops serve --role bot` in Socket Mode as a real process (docs/operating.md#health-metrics-and-logs): it
// connects to the simulated Slack with SLACK_APP_TOKEN, /readyz reports the socket as `slack-socket` (and /metrics as a
// dependency), turns 503 while the socket stays down and 200 again once the bot reconnects. A command typed meanwhile
// fails for the person at Slack (`dispatch_failed`: Slack never holds or resends commands); the next one is answered.
import { once } from 'node:events';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { SimCluster } from '@flink-chatops/sim/kube/cluster';
import type { SimSlack } from '@flink-chatops/sim/slack-api';
import { spawnBot } from '../support/bot-process.js';
import { eventually } from '../support/poll.js';
import { freePort } from '../support/redis-server.js';
import type { TestRedis } from '../support/redis.js';
import { startServeEnv, type ServeEnv } from '../support/serve-env.js';
import { socketEnvelope, slashCommandBody } from '../support/slack.js';

const BOT_TOKEN = 'xoxb-serve-socket-test';
const APP_TOKEN = 'xapp-1-A0SIMAPP-serve-socket-test';

let env: ServeEnv;
let cluster: SimCluster;
let slack: SimSlack;
let redis: TestRedis;

beforeAll(async () => {
  env = await startServeEnv('serve-socket', { seed: 'demo', slack: { botToken: BOT_TOKEN, appToken: APP_TOKEN } });
  ({ cluster, slack, redis } = env);
});
afterAll(async () => {
  await env.close();
});

async function readyz(base: string): Promise<{ status: number; checks: Record<string, string> }> {
  const res = await fetch(`${base}/readyz`);
  return { status: res.status, checks: ((await res.json()) as { checks: Record<string, string> }).checks };
}

/** How this file looks at the process's /readyz: it changes with the socket, and says nothing when it does. */
const READYZ_POLL = { timeoutMs: 30_000, intervalMs: 100 };

/**
 * Runs `atAttempt` at the bot's next apps.connections.open (a reconnect attempt); the listener runs before the
 * simulated Slack can take the connection that follows, so `atAttempt` may still let it in.
 */
function nextReconnectAttempt(atAttempt: () => void): Promise<void> {
  return new Promise((resolve) => {
    const off = slack.on('call', (call) => {
      if (call.method !== 'apps.connections.open') return;
      off();
      atAttempt();
      resolve();
    });
  });
}

it('serves readiness from the socket: 200 connected, 503 while it stays down, 200 after the reconnect', async () => {
  const port = await freePort();
  const { child, lines } = await spawnBot({
    PORT: String(port),
    REDIS_URL: redis.url,
    REDIS_PREFIX: redis.prefix,
    KUBECONFIG: cluster.kubeconfigPath,
    POLICY_FILE: env.policyFile,
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_APP_TOKEN: APP_TOKEN,
    SLACK_API_URL: slack.apiUrl,
  });
  const base = `http://127.0.0.1:${port}`;
  try {
    expect(await readyz(base)).toEqual({ status: 200, checks: { redis: 'ok', 'slack-socket': 'ok' } });
    expect(await (await fetch(`${base}/metrics`)).text()).toContain(
      'flink_chatops_dependency_up{dependency="slack-socket"} 1',
    );

    slack.socket.refuse(true);
    expect(slack.socket.drop()).toBe(1);
    const down = await eventually(
      '/readyz to fail',
      async () => {
        const r = await readyz(base);
        return r.status === 503 ? r : undefined;
      },
      READYZ_POLL,
    );
    expect(down.checks.redis).toBe('ok');
    expect(down.checks['slack-socket']).toMatch(/^Socket Mode link \w+ for [\d.]+s$/);
    // A command typed while the socket is down: no link carries it, so after 3 s Slack shows the person an error.
    const typed = (id: string) => {
      const responseUrl = slack.responseUrl(id, { channel: 'C0OPS', user: 'U0ALICE' });
      const envelope = socketEnvelope(slashCommandBody({ text: 'help', response_url: responseUrl }));
      return slack.socket.deliver(envelope.type, envelope.payload, { timeoutMs: 60_000 });
    };
    await expect(typed('while-down')).rejects.toThrow(/dispatch_failed/);
    expect(slack.socket.deliveries.at(-1)?.sends).toEqual([]);
    expect((await readyz(base)).status).toBe(503);
    // Slack stops refusing at the bot's next reconnect attempt, so that attempt is the one that connects.
    await nextReconnectAttempt(() => slack.socket.refuse(false));
    await eventually('/readyz to pass', async () => (await readyz(base)).status === 200, READYZ_POLL);
    expect((await typed('after')).attempt).toBe(0);
    await slack.waitFor(() => slack.responses.find((r) => r.id === 'after'), 10_000);
    expect(slack.responses.filter((r) => r.id === 'after')).toHaveLength(1);
    expect(slack.responses.filter((r) => r.id === 'while-down')).toEqual([]);
    expect(slack.socket.unacknowledged).toEqual([]);
  } finally {
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const [code] = (await exited) as [number | null];
    expect(code).toBe(0);
  }
  expect(lines.join('\n')).not.toContain(APP_TOKEN);
  expect(lines.join('\n')).not.toContain(BOT_TOKEN);
});
