// The simulated Slack's App Home: views.publish validated as Slack validates views, DMs to a user id, and the
// app_home_opened Events API request it signs and delivers to the app.
import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { webApi } from '@slack/bolt';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimSlack, type SimSlack } from '../../src/slack-api.js';

const TOKEN = 'xoxb-sim-views';
let sim: SimSlack | undefined;

afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function start(): Promise<{ sim: SimSlack; client: webApi.WebClient }> {
  sim = await startSimSlack({
    botToken: TOKEN,
    users: [{ id: 'U0ALICE', name: 'alice' }],
    channels: [{ id: 'C0OPS', name: 'ops' }],
  });
  return {
    sim,
    client: new webApi.WebClient(TOKEN, {
      slackApiUrl: sim.apiUrl,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
    }),
  };
}

const section = (i: number) => ({ type: 'section', text: { type: 'mrkdwn', text: `row ${i}` } });

describe('views.publish', () => {
  it('stores a valid Home view per user, up to 100 blocks, and refuses what Slack refuses', async () => {
    const { sim: s, client } = await start();
    const blocks = Array.from({ length: 100 }, (_, i) => section(i));
    const ok = await client.views.publish({ user_id: 'U0ALICE', view: { type: 'home', blocks } as never });
    expect(ok.ok).toBe(true);
    expect(s.homeView('U0ALICE')?.view.blocks).toHaveLength(100);

    const refuse = async (args: Record<string, unknown>) =>
      client.apiCall('views.publish', args).catch((e: { data?: { error?: string } }) => e.data?.error);
    expect(await refuse({ user_id: 'U0ALICE', view: { type: 'home', blocks: [...blocks, section(100)] } })).toBe(
      'invalid_arguments',
    );
    expect(await refuse({ user_id: 'U0ALICE', view: { type: 'modal', blocks } })).toBe('invalid_arguments');
    expect(await refuse({ user_id: 'U0ALICE', view: { type: 'home', blocks: [{ type: 'section' }] } })).toBe(
      'invalid_arguments',
    );
    expect(await refuse({ user_id: 'U0NOBODY', view: { type: 'home', blocks } })).toBe('user_not_found');
    expect(await refuse({ user_id: 'U0ALICE', hash: 'stale', view: { type: 'home', blocks } })).toBe('hash_conflict');
    expect(s.homeView('U0ALICE')?.view.blocks).toHaveLength(100);
  });

  it('a user id as channel posts to the DM with the app', async () => {
    const { sim: s, client } = await start();
    await client.chat.postMessage({ channel: 'U0ALICE', text: 'refused: you are not in leads' });
    expect(s.messages('D0ALICE').map((m) => m.text)).toEqual(['refused: you are not in leads']);
  });
});

describe('app_home_opened', () => {
  it('is a signed Events API JSON request with the user and tab', async () => {
    const { sim: s } = await start();
    const got: { headers: Record<string, string | string[] | undefined>; body: string }[] = [];
    const app = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        got.push({ headers: req.headers, body });
        res.writeHead(200).end();
      });
    });
    app.listen(0, '127.0.0.1');
    await once(app, 'listening');
    try {
      const url = `http://127.0.0.1:${(app.address() as AddressInfo).port}/slack/events`;
      expect((await s.openHome('U0ALICE', { url, signingSecret: 'shh' })).status).toBe(200);
      const [req] = got;
      const body = JSON.parse(req?.body ?? '{}') as { type: string; event: Record<string, unknown> };
      expect(body).toMatchObject({
        type: 'event_callback',
        event: { type: 'app_home_opened', user: 'U0ALICE', tab: 'home' },
      });
      const ts = String(req?.headers['x-slack-request-timestamp']);
      expect(req?.headers['content-type']).toBe('application/json');
      expect(req?.headers['x-slack-signature']).toBe(
        `v0=${createHmac('sha256', 'shh')
          .update(`v0:${ts}:${req?.body ?? ''}`)
          .digest('hex')}`,
      );
    } finally {
      app.close();
    }
  });
});
