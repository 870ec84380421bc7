// The reference the ack benchmarks compare against: a bare Bolt app that only acks /flink, on the simulated Slack.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, LogLevel } from '@slack/bolt';

export interface BareBolt {
  /** Its `/slack/events` URL. */
  url: string;
  stop(): Promise<void>;
}

export async function startBareBolt(token: string, signingSecret: string, slackApiUrl: string): Promise<BareBolt> {
  const app = new App({
    token,
    signingSecret,
    botId: 'B0SIMBOT',
    botUserId: 'U0SIMBOT',
    tokenVerificationEnabled: false,
    logLevel: LogLevel.ERROR,
    clientOptions: { slackApiUrl },
  });
  app.command('/flink', async ({ ack }) => {
    await ack();
  });
  const server = (await app.start(0)) as Server;
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`,
    stop: async () => {
      await app.stop();
    },
  };
}
