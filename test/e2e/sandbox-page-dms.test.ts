// The sandbox page's "Direct messages" in headless Chromium, without the bot: the page server on the simulated Slack, a
// stand-in bot that records clicks and edits the DM. Each person sees only the app's DMs to them; a DM's buttons work.
import { existsSync } from 'node:fs';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { webApi } from '@slack/bolt';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimCluster, type SimCluster } from '@flink-chatops/sim/kube/cluster';
import { startPageServer, type PageServer } from '@flink-chatops/sim/page-server';
import { startSimSlack, type SimSlack } from '@flink-chatops/sim/slack-api';
import { BOT, CHANNELS, TEAM, USERGROUPS, USERS } from '@flink-chatops/sim/workspace';
import { eventually, holds } from '../support/poll.js';

const CHROMIUM = '/usr/bin/chromium';
const DM = 'D0LEAD1';
const CHANNEL = 'C0DATAPLATFORM';
const approval = (op: string) => [
  { type: 'section', text: { type: 'mrkdwn', text: `*${op}* waits for your approval` } },
  {
    type: 'actions',
    block_id: 'approval:0123456789abcdef',
    elements: [
      { type: 'button', text: { type: 'plain_text', text: 'Approve' }, action_id: 'flink_ops_approve', value: op },
    ],
  },
];

let slack: SimSlack;
let cluster: SimCluster;
let pageServer: PageServer;
let bot: Server;
let browser: Browser;
let page: Page;
let client: webApi.WebClient;
const clicks: Record<string, unknown>[] = [];

/** The stand-in bot: records each click and, as the real one does once decided, edits the clicked message. */
async function startBot(): Promise<string> {
  bot = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      res.writeHead(200).end();
      const form = new URLSearchParams(body).get('payload');
      if (form === null) return; // app_home_opened: the view is already published
      const payload = JSON.parse(form) as {
        channel: { id: string };
        container: { message_ts: string };
        user: { id: string };
      };
      clicks.push(payload);
      void client.chat.update({
        channel: payload.channel.id,
        ts: payload.container.message_ts,
        text: `approved by ${payload.user.id}`,
        blocks: [],
      });
    });
  });
  bot.listen(0, '127.0.0.1');
  await once(bot, 'listening');
  return `http://127.0.0.1:${(bot.address() as AddressInfo).port}/slack/events`;
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(`Chromium is missing at ${CHROMIUM}: install it: apt-get install -y chromium`);
  pageServer = await startPageServer({ port: 0 });
  slack = await startSimSlack({
    users: [...USERS],
    channels: CHANNELS.map(({ topic: _t, ...c }) => c),
    usergroups: [...USERGROUPS],
    ...BOT,
    ...TEAM,
    permalinkBase: pageServer.url,
  });
  cluster = await startSimCluster({ seed: 'none', speed: 'fast' });
  client = new webApi.WebClient('xoxb-page', { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
  pageServer.connect({
    slack,
    cluster,
    botEventsUrl: await startBot(),
    signingSecret: 'shh',
    command: '/flink',
    policy: undefined,
    policyFile: 'policy.yaml',
  });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu'],
    headless: true,
  });
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(pageServer.url);
  await page.locator('body.ready').waitFor();
});

afterAll(async () => {
  await browser?.close();
  await pageServer?.close();
  bot?.close();
  await Promise.all([slack?.close(), cluster?.close()]);
});

/** Resolves once the text `read` takes from the live page (nothing there to subscribe to) matches `expected`. */
function shows(read: () => Promise<string | null>, expected: string | RegExp): Promise<true> {
  return eventually(
    `the page to show ${String(expected)}`,
    holds(async () => expect((await read()) ?? '').toMatch(expected)),
  );
}

async function actAs(id: string): Promise<void> {
  await page.locator(`[data-user="${id}"]`).click();
  await shows(() => page.locator(`[data-user="${id}"]`).getAttribute('aria-pressed'), /^true$/);
}

describe('sandbox page: direct messages', () => {
  it('shows the app’s DMs to the person acting, live, with working buttons', async () => {
    await page.locator('[data-channel="DMS"]').click();
    await shows(() => page.locator('#messages').innerText(), 'No direct messages');

    await client.conversations.open({ users: 'U0LEAD1' });
    const posted = await client.chat.postMessage({
      channel: DM,
      text: 'op-dm1 waits for your approval',
      blocks: approval('op-dm1'),
    });
    await actAs('U0LEAD1');
    const dm = page.locator(`#messages .message.from-bot[data-ts="${posted.ts ?? ''}"]`);
    expect(await dm.innerText()).toContain('op-dm1 waits for your approval');
    await dm.getByRole('button', { name: 'Approve' }).click();
    await shows(() => dm.innerText(), 'approved by U0LEAD1');
    expect(clicks.at(-1)).toMatchObject({
      user: { id: 'U0LEAD1' },
      channel: { id: DM, name: 'directmessage' },
      container: { channel_id: DM },
    });
    expect(await dm.locator('.bk-button').count()).toBe(0);

    await actAs('U0ALICE');
    await shows(() => page.locator('#messages').innerText(), 'No direct messages');
  });

  it('channels, threads and the unread count of the DM still work next to it', async () => {
    const card = await client.chat.postMessage({ channel: CHANNEL, text: 'op-ch1', blocks: approval('op-ch1') });
    await client.chat.postMessage({ channel: CHANNEL, thread_ts: card.ts ?? '', text: 'op-ch1: a reply' });
    await page.locator(`[data-channel="${CHANNEL}"]`).click();
    await page.locator('#messages .message', { hasText: 'op-ch1' }).locator('.replies-link').click();
    await shows(() => page.locator('#thread-messages').innerText(), 'op-ch1: a reply');

    await actAs('U0LEAD1');
    await client.chat.postMessage({ channel: DM, text: 'op-dm2 reminder' });
    await shows(() => page.locator('[data-channel="DMS"] .badge').innerText(), /^1$/);
    await page.locator('[data-channel="DMS"]').click();
    await shows(() => page.locator('#messages').innerText(), 'op-dm2 reminder');
    expect(await page.locator('[data-channel="DMS"] .badge').count()).toBe(0);

    await client.views.publish({
      user_id: 'U0LEAD1',
      view: {
        type: 'home',
        blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'Approvals waiting for you' } }],
      },
    });
    await page.locator('[data-channel="HOME"]').click();
    await shows(() => page.locator('#messages').innerText(), 'Approvals waiting for you');
    expect(await page.locator('#messages').innerText()).not.toContain('op-dm2'); // DMs have their own place now
  });
});
