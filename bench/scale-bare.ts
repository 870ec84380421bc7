// Child process of bench/scale.ts: a bare Bolt app that only acks /flink, the reference for the bots' ack latency
// (one per bot, each its own process as the bots are). Prints {"url"}; runs until stdin closes.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, LogLevel } from '@slack/bolt';

const [token, secret, apiUrl] = process.argv.slice(2) as [string, string, string];
const app = new App({
  token,
  signingSecret: secret,
  botId: 'B0SIMBOT',
  botUserId: 'U0SIMBOT',
  tokenVerificationEnabled: false,
  logLevel: LogLevel.ERROR,
  clientOptions: { slackApiUrl: apiUrl },
});
app.command('/flink', async ({ ack }) => {
  await ack();
});
const server = (await app.start(0)) as Server;
process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events` })}\n`);
process.stdin.resume();
process.stdin.on('end', () => void app.stop().then(() => process.exit(0)));
