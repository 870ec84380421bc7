// `flink-chatops serve --role bot` in Socket Mode as a real process (docs/operating.md#health-metrics-and-logs): it
// connects to the simulated Slack with SLACK_APP_TOKEN, /readyz reports the socket as `slack-socket` (and /metrics as a
// dependency), turns 503 while the socket stays down and 200 again once the bot reconnects; a command typed meanwhile
// is answered once.
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
 * Resolves at the bot's next apps.connections.open (a reconnect attempt) with what `atAttempt` saw then; the listener
 * runs before the simulated Slack can take the connection that follows, so `atAttempt` may still let it in.
 */
function nextReconnectAttempt<T>(atAttempt: () => T): Promise<T> {
  return new Promise((resolve) => {
    const off = slack.on('call', (call) => {
      if (call.method !== 'apps.connections.open') return;
      off();
      resolve(atAttempt());
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
    // A command typed while the socket is down waits at Slack for the next connection.
    const responseUrl = slack.responseUrl('while-down', { channel: 'C0OPS', user: 'U0ALICE' });
    const envelope = socketEnvelope(slashCommandBody({ text: 'help', response_url: responseUrl }));
    const acked = slack.socket.deliver(envelope.type, envelope.payload, { timeoutMs: 60_000 });
    const delivery = slack.socket.deliveries.at(-1);
    expect((await readyz(base)).status).toBe(503);
    // Until the bot tries to reconnect nothing can carry the command: at that attempt it has still not been sent.
    // Slack stops refusing right then, so this attempt is the one that connects.
    const sendsAtAttempt = await nextReconnectAttempt(() => {
      slack.socket.refuse(false);
      return delivery?.sends.length;
    });
    expect(sendsAtAttempt).toBe(0);
    expect((await acked).attempt).toBe(0);
    await eventually('/readyz to pass', async () => (await readyz(base)).status === 200, READYZ_POLL);
    await slack.waitFor(() => slack.responses.find((r) => r.id === 'while-down'), 10_000);
    expect(slack.responses.filter((r) => r.id === 'while-down')).toHaveLength(1);
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
