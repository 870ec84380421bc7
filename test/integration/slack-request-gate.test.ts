// The Slack HTTP endpoint refuses before it reads (docs/deployment.md#request-limits): an oversized body is cut with
// 413, a stale, future or missing timestamp is refused with 401 from the headers alone, and a signed request is acted
// on once however often it is replayed; Events API retries still reach the app.
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { startBot } from '../../src/roles/bot.js';
import { USERS, SECRET, type BotEnv, useBotEnvs } from '../support/bot-env.js';
import { headersOnly, streamChunked } from '../support/raw-http.js';
import { nowSeconds, signSlackRequest, slashCommandBody } from '../support/slack.js';

const bots = useBotEnvs();
const LIMIT = 1024 * 1024;

function commandBody(e: BotEnv, text: string, responseId: string, user: string = USERS.alice): string {
  const response_url = e.sim.responseUrl(responseId, { channel: e.channel, user });
  return slashCommandBody({ text, user_id: user, channel_id: e.channel, response_url });
}

/** A correctly signed `help` is answered afterwards: a refused request handled late would have been answered first. */
async function nothingHandled(e: BotEnv, refusedIds: string[]): Promise<void> {
  await (await e.command('help')).reply();
  expect(await e.operationCount()).toBe(0);
  expect(e.sim.responses.filter((r) => refusedIds.includes(r.id ?? ''))).toEqual([]);
}

describe('the body limit', () => {
  it('answers 413 to a signed request announcing more than 1 MB, without waiting for its body, and runs nothing', async () => {
    const e = await bots.start();
    const body = commandBody(e, 'restart streaming-dev/orders', 'big');
    const answer = await headersOnly(e.bot.url as string, signSlackRequest(SECRET, body), LIMIT + 1);
    expect(answer).toMatchObject({ status: 413, closed: true });
    expect(answer.body).toContain(`cut at ${LIMIT} bytes`);
    await nothingHandled(e, ['big']);
  });

  it('cuts a chunked body where it passes 1 MB with 413 and closes the connection', async () => {
    const e = await bots.start();
    const answer = await streamChunked(e.bot.url as string, signSlackRequest(SECRET, 'unsent'), {
      chunkBytes: 64 * 1024,
      maxBytes: 64 * LIMIT,
    });
    expect(answer).toMatchObject({ status: 413, closed: true });
    // The answer came while the body was still streaming: far less than the 64 MB offered was sent.
    expect(answer.bytesSent).toBeLessThan(16 * LIMIT);
    await nothingHandled(e, []);
  });
});

describe('the timestamp, judged before the body', () => {
  it.each([
    ['older than five minutes', (ts: number) => ({ 'x-slack-request-timestamp': String(ts - 301) })],
    ['more than a minute ahead', (ts: number) => ({ 'x-slack-request-timestamp': String(ts + 120) })],
    ['missing', () => ({ 'x-slack-request-timestamp': '' })],
  ])('a timestamp %s is answered 401 though the body never comes', async (_name, stamp) => {
    const e = await bots.start();
    const body = commandBody(e, 'restart streaming-dev/orders', 'stamped');
    const headers = { ...signSlackRequest(SECRET, body), ...stamp(nowSeconds()) };
    const answer = await headersOnly(e.bot.url as string, headers, Buffer.byteLength(body));
    expect(answer.status).toBe(401);
    expect(answer.body).toMatch(/X-Slack-Request-Timestamp/);
    await nothingHandled(e, ['stamped']);
  });

  it('refuses a correctly signed command dated two minutes ahead, and records nothing', async () => {
    const e = await bots.start();
    const sent = await e.command('restart streaming-dev/orders', USERS.alice, { ts: nowSeconds() + 120 });
    expect(sent.status).toBe(401);
    await nothingHandled(e, ['cmd-1']);
  });
});

describe('replays', () => {
  it('acts on a signed slash command once: its replay within the five minutes is refused', async () => {
    const e = await bots.start();
    const body = commandBody(e, 'restart streaming-dev/orders --reason "replayed"', 'once');
    const headers = signSlackRequest(SECRET, body);
    const post = (extra: Record<string, string> = {}) =>
      fetch(e.bot.url as string, { method: 'POST', body, headers: { ...headers, ...extra } });
    const first = await post();
    expect(first.status).toBe(200);
    await first.text();
    const replay = await post();
    expect(replay.status).toBe(401);
    expect(await replay.text()).toMatch(/already received/);
    // Claiming to be a retry changes nothing: Slack never retries a slash command.
    const claimedRetry = await post({ 'x-slack-retry-num': '1' });
    expect(claimedRetry.status).toBe(401);
    await claimedRetry.text();
    // The first one's card; a later signed `help` is answered after anything the replay could have started.
    const cards = () => e.sim.calls.filter((c) => c.method === 'chat.postMessage' && c.args.channel === e.channel);
    await e.sim.waitFor(() => cards()[0]);
    await (await e.command('help')).reply();
    expect(await e.operationCount()).toBe(1);
    expect(cards()).toHaveLength(1);
  });

  it('refuses the replay at another replica behind the same load balancer (the signatures live in Redis)', async () => {
    const e = await bots.start();
    const other = await startBot(e.config, { logger: createLogger('silent'), sweep: false, notifier: false });
    try {
      const body = commandBody(e, 'status streaming-dev/orders', 'across');
      const headers = signSlackRequest(SECRET, body);
      const first = await fetch(e.bot.url as string, { method: 'POST', body, headers });
      expect(first.status).toBe(200);
      await first.text();
      const replay = await fetch(other.url as string, { method: 'POST', body, headers });
      expect(replay.status).toBe(401);
      expect(await replay.text()).toMatch(/already received/);
      await e.sim.waitFor(() => e.sim.responses.find((r) => r.id === 'across'));
      await (await e.command('help')).reply();
      expect(e.sim.responses.filter((r) => r.id === 'across')).toHaveLength(1);
    } finally {
      await other.close();
    }
  });

  it('still lets Events API retries through (X-Slack-Retry-Num), each retry once', async () => {
    const e = await bots.start();
    const { teamId, botUserId } = e.bot.identity;
    const body = JSON.stringify({
      token: 'verification-token',
      team_id: teamId,
      api_app_id: 'A0SIMAPP',
      event: { type: 'app_home_opened', user: USERS.lead1, channel: 'D0LEAD1', tab: 'home', event_ts: '1.000001' },
      type: 'event_callback',
      event_id: 'Ev0RETRIED',
      event_time: nowSeconds(),
      authorizations: [{ team_id: teamId, user_id: botUserId, is_bot: true, is_enterprise_install: false }],
    });
    const headers = signSlackRequest(SECRET, body, nowSeconds(), 'application/json');
    const deliver = async (retry?: string) => {
      const extra: Record<string, string> =
        retry === undefined ? {} : { 'x-slack-retry-num': retry, 'x-slack-retry-reason': 'http_timeout' };
      const res = await fetch(e.bot.url as string, { method: 'POST', body, headers: { ...headers, ...extra } });
      await res.text();
      return res.status;
    };
    expect(await deliver()).toBe(200);
    expect(await deliver('1')).toBe(200);
    expect(await deliver('2')).toBe(200);
    expect(await deliver('2')).toBe(401);
    await e.sim.waitFor(() => e.sim.calls.find((c) => c.method === 'views.publish' && c.args.user_id === USERS.lead1));
  });
});
