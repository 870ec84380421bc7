// Child process of bench/scale.ts, out of the measured processes (in production Kubernetes and Slack are remote).
//   scale-sims.ts cluster <count> <namespaces,…>  one simulated cluster (store, operator, API server) holding <count>
//       FlinkDeployments spread over the namespaces, created in its store and reconciled to STABLE before the
//       child reports ready. Prints {"url"}; its request counts are at <url>/sim/stats.
//   scale-sims.ts slack <token> <channel,…> <user>  the simulated Slack Web API without rate limits. Prints
//       {"apiUrl","url"}, then one {"response"} line per response_url POST; on a stdin line `calls` prints
//       {"calls": {method: count}} (Web API calls so far).
// Both run until stdin closes.
import { createInterface } from 'node:readline';
import { startSimCluster, type SimCluster } from '@flink-chatops/sim/kube/cluster';
import { DEFAULT_RATE_LIMITS, startSimSlack, type RecordedResponse, type SimSlack } from '@flink-chatops/sim/slack-api';
import { isStable, statusOf } from '@flink-chatops/sim/testing/sim';
import { deployment } from '@flink-chatops/sim/testing/sim-resources';
import { eventually } from '../test/support/poll.js';

const send = (value: unknown): void => void process.stdout.write(`${JSON.stringify(value)}\n`);

async function cluster(count: number, namespaces: string[]): Promise<SimCluster> {
  const sim = await startSimCluster({ port: 0, seed: 'none', speed: 'fast' });
  for (let i = 0; i < count; i++) {
    const namespace = namespaces[i % namespaces.length] as string;
    sim.store.create('flinkdeployments', deployment(`job-${i}`, namespace, { upgradeMode: 'last-state' }));
  }
  const stable = () => sim.store.list('flinkdeployments').filter((o) => isStable(statusOf(o), o)).length;
  // Polled, not checked at each store change: with thousands of objects a full count per change costs more.
  await eventually(`all ${count} FlinkDeployments to become STABLE`, () => stable() === count, {
    timeoutMs: 180_000,
    intervalMs: 250,
  }).catch((error: unknown) => {
    throw new Error(`${String(error)} (${stable()} are)`);
  });
  sim.server.resetStats();
  send({ url: sim.url });
  return sim;
}

/** What the parent needs of a response_url answer: when it arrived and how big it was. */
function summary(r: RecordedResponse): Record<string, unknown> {
  const body = typeof r.body === 'string' ? { text: r.body } : r.body;
  const blocks = Array.isArray(body.blocks) ? (body.blocks as unknown[]) : [];
  return {
    id: r.id,
    at: r.at,
    status: r.status,
    error: r.error,
    bytes: JSON.stringify(body).length,
    blocks: blocks.length,
    text: String(body.text ?? '').slice(0, 200),
  };
}

async function slack(token: string, channels: string[], user: string): Promise<SimSlack> {
  const unlimited = Object.fromEntries(Object.keys(DEFAULT_RATE_LIMITS).map((m) => [m, Infinity]));
  const sim = await startSimSlack({
    botToken: token,
    users: [{ id: user, name: 'oncall' }],
    channels: channels.map((id) => ({ id, name: id.toLowerCase() })),
    chatPostMessagePerChannelPerSecond: Infinity,
    chatPostMessageBurst: Infinity,
    rateLimits: { ...unlimited, 'chat.postMessage': Infinity },
    responseUrlMaxUses: 1000,
  });
  sim.on('response', (r) => send({ response: summary(r) }));
  createInterface({ input: process.stdin }).on('line', (line) => {
    if (line.trim() !== 'calls') return;
    const calls: Record<string, number> = {};
    for (const c of sim.calls) {
      const method =
        c.method === 'chat.postMessage' && c.args.thread_ts !== undefined
          ? 'chat.postMessage (thread reply)'
          : c.method;
      calls[method] = (calls[method] ?? 0) + 1;
    }
    send({ calls });
  });
  send({ apiUrl: sim.apiUrl, url: sim.url });
  return sim;
}

const [mode, ...args] = process.argv.slice(2);
const running: { close(): Promise<void> } =
  mode === 'cluster'
    ? await cluster(Number(args[0]), String(args[1]).split(','))
    : await slack(args[0] as string, String(args[1]).split(','), args[2] as string);
process.stdin.resume();
process.stdin.on('end', () => void running.close().then(() => process.exit(0)));
