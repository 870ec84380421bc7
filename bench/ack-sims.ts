// Child process of bench/ack.ts: the simulated cluster and Slack Web API, out of the measured process (in production
// both are remote). Prints one JSON line with their addresses, then runs until stdin closes.
import { startSimCluster } from '@flink-chatops/sim/kube/cluster';
import { startSimSlack } from '@flink-chatops/sim/slack-api';

const [token, channel, user] = process.argv.slice(2) as [string, string, string];
const cluster = await startSimCluster({ port: 0, seed: 'demo', speed: 'fast' });
await cluster.seeded;
const sim = await startSimSlack({
  botToken: token,
  users: [{ id: user, name: 'oncall' }],
  channels: [{ id: channel, name: 'bench' }],
  chatPostMessagePerChannelPerSecond: Infinity,
  rateLimits: { 'chat.postMessage': Infinity },
  responseUrlMaxUses: 1000,
});
process.stdout.write(`${JSON.stringify({ kubeconfig: cluster.kubeconfigPath, apiUrl: sim.apiUrl, url: sim.url })}\n`);
process.stdin.resume();
process.stdin.on('end', () => {
  void Promise.all([sim.close(), cluster.close()]).then(() => process.exit(0));
});
