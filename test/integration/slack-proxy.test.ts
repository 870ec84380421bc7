// The egress proxy (docs/configuration.md#configuration): with HTTP_PROXY (the simulated Slack is http://127.0.0.1:…)
// every Slack call of a full operation — Web API calls of the bot, the notifier and Bolt, and response_url posts —
// passes a local CONNECT proxy; none goes around it; and NO_PROXY naming the host makes them go direct (so the test can
// tell the two apart).
//
// How a bypass shows: the bot talks to a counting HTTP front of the simulated Slack, not to the sim itself. The
// front's requests match the sim's own record one for one (so nothing reached the sim around the front), and the
// peer port of each is a port the proxy opened (so nothing reached the front around the proxy).
import { expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { startWorker } from '../../src/roles/worker.js';
import { USERS, useBotEnvs, type BotEnv } from '../support/bot-env.js';
import { startConnectProxy, startSlackFront, type SlackFront, type TestProxy } from '../support/connect-proxy.js';

const bots = useBotEnvs();

const USER = 'flink';
const PASSWORD = 's3cr@t:pw';
const CREDENTIALS = `${USER}:${PASSWORD}`;

/** A bot env whose Slack is behind a counting front, with `env` (proxy settings) naming the front's host. */
async function startBehindFront(
  proxyEnv: (front: SlackFront) => Record<string, string>,
  logs: string[],
): Promise<{ env: BotEnv; front: SlackFront }> {
  let front: SlackFront | undefined;
  const env = await bots.start({
    overrides: { logger: createLogger('debug', { write: (line: string) => void logs.push(line) }) },
    beforeBot: async (sim) => {
      const started = await startSlackFront(sim.url);
      front = started;
      // The response_urls the test's Slack hands out point at the front too.
      const issue = sim.responseUrl.bind(sim);
      sim.responseUrl = (id, context) => started.rewrite(issue(id, context));
      return { SLACK_API_URL: `${started.url}/api/`, ...proxyEnv(started) };
    },
  });
  if (!front) throw new Error('the front did not start');
  return { env, front };
}

/** Once every request the front forwarded is in the sim's record: the front's requests, checked one for one. */
async function settled(env: BotEnv, front: SlackFront): Promise<SlackFront['requests']> {
  const api = () => front.requests.filter((r) => r.path.startsWith('/api/'));
  const posts = () => front.requests.filter((r) => r.path.startsWith('/response/'));
  await env.sim
    .waitFor(() => api().length === env.sim.calls.length && posts().length === env.sim.responses.length, 5_000)
    .catch(() => undefined);
  // One for one, not in order: calls made side by side (a card edit beside an approver DM) may pass the front in one
  // order and reach the sim in the other.
  const sorted = (methods: string[]) => [...methods].sort();
  expect(sorted(api().map((r) => r.path.slice('/api/'.length)))).toEqual(sorted(env.sim.calls.map((c) => c.method)));
  expect(posts()).toHaveLength(env.sim.responses.length);
  expect(front.requests).toHaveLength(api().length + posts().length);
  return front.requests;
}

it('every Slack call of an approved operation passes the proxy, with its credentials, and none bypasses it', async () => {
  const proxy: TestProxy = await startConnectProxy({ credentials: CREDENTIALS });
  const logs: string[] = [];
  const { env, front } = await startBehindFront(
    () => ({
      HTTP_PROXY: `http://${USER}:${encodeURIComponent(PASSWORD)}@127.0.0.1:${proxy.port}`,
      NO_PROXY: 'localhost,.example.com,127.0.0.1:1',
    }),
    logs,
  );
  const worker = await startWorker(env.config, { logger: createLogger('silent'), sweepIntervalMs: 60_000 });
  try {
    const requested = await env.request('scale streaming-prod/fraud-detection 6 --reason "proxy"', USERS.alice);
    expect(requested.state).toBe('AWAITING_APPROVAL');
    // lead2 is a lead through the user group: the bot's own client reads usergroups.users.list.
    expect((await (await env.click('approve', requested, USERS.lead2)).reply()).text).toContain(
      `You approved ${requested.id}`,
    );
    const done = await env.waitForState(requested.id, ['COMPLETED', 'FAILED', 'TIMED_OUT', 'ABORTED'], 60_000);
    expect(done.state).toBe('COMPLETED');
    await env.cardIn(done, 'COMPLETED');
    await env.sim.waitFor(
      () => env.sim.replies(env.channel, done.card?.ts ?? '').some((r) => r.text.includes('COMPLETED')),
      20_000,
    );

    const requests = await settled(env, front);
    const methods = new Set(env.sim.calls.map((c) => c.method));
    // The bot's client (auth.test, usergroups), the notifier's (card, edits, thread) and a response_url post.
    for (const method of ['auth.test', 'usergroups.users.list', 'chat.postMessage', 'chat.update'])
      expect(methods).toContain(method);
    expect(env.sim.responses.length).toBeGreaterThan(0);
    const bypassed = requests.filter((r) => r.peerPort === undefined || !proxy.outgoingPorts.has(r.peerPort));
    expect(bypassed).toEqual([]);
    expect(proxy.tunnels.length).toBeGreaterThan(0);
    expect(proxy.tunnels.every((t) => t.accepted && t.target === `127.0.0.1:${front.port}`)).toBe(true);
    expect(new Set(proxy.tunnels.map((t) => t.authorization))).toEqual(
      new Set([`Basic ${Buffer.from(CREDENTIALS).toString('base64')}`]),
    );
    expect(proxy.forwardRequests).toEqual([]);
    // The bot logged at debug level; the proxy's password is in none of it.
    expect(logs.length).toBeGreaterThan(0);
    const all = logs.join('\n');
    expect(all).not.toContain('s3cr');
    expect(all).not.toContain(encodeURIComponent(PASSWORD));
    expect(all).not.toContain(Buffer.from(CREDENTIALS).toString('base64'));
  } finally {
    await worker.close();
    await env.close();
    await front.close();
    await proxy.close();
  }
}, 90_000);

it('NO_PROXY naming the Slack host sends every call around the proxy, and the test sees it', async () => {
  const proxy = await startConnectProxy();
  const { env, front } = await startBehindFront(
    () => ({ HTTP_PROXY: proxy.url, NO_PROXY: 'slack.example.com, 127.0.0.1' }),
    [],
  );
  try {
    const requested = await env.request('scale streaming-dev/orders 3', USERS.bob);
    expect(requested.state).toBe('QUEUED');
    await (await env.click('approve', requested, USERS.lead1)).reply();
    const requests = await settled(env, front);
    expect(requests.length).toBeGreaterThan(2);
    expect(requests.filter((r) => r.path.startsWith('/response/')).length).toBeGreaterThan(0);
    expect(requests.filter((r) => r.peerPort !== undefined && proxy.outgoingPorts.has(r.peerPort))).toEqual([]);
    expect(proxy.tunnels).toEqual([]);
  } finally {
    await env.close();
    await front.close();
    await proxy.close();
  }
}, 60_000);
