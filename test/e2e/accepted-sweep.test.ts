// A bot process SIGKILLed right after recording ACCEPTED (its card post in flight, never delivered): the sweep of
// the next bot process posts the card and records the decision within a minute, exactly once
// (docs/lifecycle.md#the-sweep, issue 18).
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { SimCluster } from '@flink-chatops/sim/kube/cluster';
import { SECRET, startBotEnv, startTestCluster, USERS } from '../support/bot-env.js';
import { startBotProcess } from '../support/bot-process.js';
import { freePort } from '../support/redis-server.js';
import { postSigned, slashCommandBody } from '../support/slack.js';

let cluster: SimCluster;

beforeAll(async () => {
  cluster = await startTestCluster();
});
afterAll(async () => {
  await cluster.close();
});

/** Forwards Slack Web API calls to the simulator, except `chat.postMessage`: held unanswered, reported to `onHeld`. */
async function slackProxy(target: string, onHeld: () => void): Promise<{ url: string; close(): Promise<void> }> {
  const origin = new URL(target);
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.url?.includes('chat.postMessage')) {
      onHeld();
      return;
    }
    const upstream = request(
      { host: origin.hostname, port: origin.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(upstream);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${origin.pathname}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

it('a bot SIGKILLed after recording ACCEPTED: within a minute the next bot posts the card and decides, once', async () => {
  // The in-process bot takes no part: no sweep, no notifier; the processes below do the work.
  const env = await startBotEnv(cluster, { overrides: { sweep: false, notifier: false } });
  let first: ChildProcess | undefined;
  let second: ChildProcess | undefined;
  let killedAt = 0;
  const proxy = await slackProxy(env.sim.apiUrl, () => {
    // The card post is the first call after the record is written: the record is ACCEPTED now, the card unsent.
    killedAt = Date.now();
    first?.kill('SIGKILL');
  });
  try {
    const port = await freePort();
    first = await startBotProcess(env, { port, slackApiUrl: proxy.url });
    const exited = once(first, 'exit');
    const responseUrl = env.sim.responseUrl('cmd-killed', { channel: env.channel, user: USERS.alice });
    const body = slashCommandBody({
      text: 'scale streaming-prod/fraud-detection 5 --reason "sweep test"',
      user_id: USERS.alice,
      channel_id: env.channel,
      response_url: responseUrl,
    });
    expect((await postSigned(`http://127.0.0.1:${port}/slack/events`, body, SECRET)).status).toBe(200);
    await exited;
    first = undefined;
    const [opId] = await env.bot.deps.store.activeIds();
    expect(opId).toBeDefined();
    const left = await env.record(opId as string);
    expect(left.state).toBe('ACCEPTED');
    expect(left.card).toBeUndefined();
    expect(env.sim.messages(env.channel)).toEqual([]);

    second = await startBotProcess(env, { port: await freePort() });
    const decided = await env.waitForState(
      opId as string,
      ['AWAITING_APPROVAL', 'QUEUED', 'DENIED', 'CANCELLED'],
      60_000,
    );
    expect(Date.now() - killedAt).toBeLessThan(60_000);
    expect(decided.state).toBe('AWAITING_APPROVAL');
    expect(decided.card?.channel).toBe(env.channel);
    const cards = env.sim
      .messages(env.channel)
      .filter((m) => m.text.includes(opId as string) && m.thread_ts === undefined);
    expect(cards.map((m) => m.ts)).toEqual([decided.card?.ts]);
    const decisions = decided.history.filter((e) => e.type === 'state' && e.name !== 'ACCEPTED');
    expect(decisions.map((e) => e.name)).toEqual(['AWAITING_APPROVAL']);
    expect(decided.reenqueues).toBe(1);
  } finally {
    first?.kill('SIGKILL');
    if (second) {
      second.kill('SIGTERM');
      await once(second, 'exit');
    }
    await proxy.close();
    await env.close();
  }
}, 120_000);
