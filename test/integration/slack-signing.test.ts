// A real Bolt 4.7 App behind its HTTP receiver: signed requests reach handlers, forged or stale ones never do,
// and the handlers' respond()/say()/client calls land in the simulated Slack.
import type { Server } from 'node:http';
import { App, LogLevel, type BlockAction, type ButtonAction, type SlashCommand } from '@slack/bolt';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSimSlack, type SimSlack } from '@flink-chatops/sim/slack-api';
import { blockActionsBody, nowSeconds, postSigned, slashCommandBody, slackEventsUrl } from '../support/slack.js';

const TOKEN = 'xoxb-signing-test';
const SECRET = 'sim-signing-secret';
const OPS = 'C0OPS';

let sim: SimSlack;
let app: App;
let eventsUrl: string;
const commands: SlashCommand[] = [];
const clicks: { user: string; value: string; blockId: string }[] = [];

beforeAll(async () => {
  sim = await startSimSlack({
    botToken: TOKEN,
    users: [
      { id: 'U0ALICE', name: 'alice' },
      { id: 'U0BOB', name: 'bob' },
    ],
    channels: [{ id: OPS, name: 'ops' }],
    chatPostMessagePerChannelPerSecond: Infinity,
  });
  app = new App({
    token: TOKEN,
    signingSecret: SECRET,
    logLevel: LogLevel.ERROR,
    clientOptions: { slackApiUrl: sim.apiUrl, retryConfig: { retries: 0 } },
  });
  app.command('/flink', async ({ command, ack, respond, say }) => {
    await ack();
    commands.push(command);
    await respond({ text: `planning ${command.text}` });
    await say(`said ${command.text}`);
  });
  app.action<BlockAction<ButtonAction>>('flink_ops_approve', async ({ action, body, ack, respond, client }) => {
    await ack();
    clicks.push({ user: body.user.id, value: action.value ?? '', blockId: action.block_id });
    await respond({ replace_original: true, text: `approved ${action.value}` });
    await client.chat.postMessage({
      channel: body.channel?.id ?? '',
      thread_ts: body.message?.ts,
      text: `approval by <@${body.user.id}>`,
    });
  });
  eventsUrl = slackEventsUrl((await app.start(0)) as Server);
});

afterAll(async () => {
  await app.stop();
  await sim.close();
});

beforeEach(() => {
  commands.length = 0;
  clicks.length = 0;
});

function command(text: string, id: string): string {
  return slashCommandBody({
    text,
    user_id: 'U0ALICE',
    channel_id: OPS,
    response_url: sim.responseUrl(id, { channel: OPS, user: 'U0ALICE' }),
  });
}

const said = (text: string) => () => sim.messages(OPS).find((m) => m.text === `said ${text}`);

describe('signed requests into a real Bolt App', () => {
  it('runs the command handler for a correctly signed slash command; respond() and say() reach the simulator', async () => {
    const res = await postSigned(eventsUrl, command('status prod/job-a', 'ok-1'), SECRET);
    expect(res.status).toBe(200);
    await sim.waitFor(said('status prod/job-a'));
    expect(commands).toHaveLength(1);
    expect(commands[0]).toMatchObject({
      command: '/flink',
      text: 'status prod/job-a',
      user_id: 'U0ALICE',
      channel_id: OPS,
    });
    const reply = await sim.waitFor(() => sim.responses.find((r) => r.id === 'ok-1'));
    expect(reply).toMatchObject({ status: 200, body: { text: 'planning status prod/job-a' } });
    expect(sim.ephemerals(OPS, 'U0ALICE').map((e) => e.text)).toContain('planning status prod/job-a');
    expect(sim.calls.map((c) => c.method)).toContain('auth.test');
  });

  it.each([
    ['a forged signature', { badSignature: true }],
    ['a timestamp older than 5 minutes', { ts: nowSeconds() - 301 }],
  ])('answers 401 to %s and never runs the handler', async (_name, opts) => {
    const refused = await postSigned(eventsUrl, command('restart prod/job-a', 'bad'), SECRET, opts);
    expect(refused.status).toBe(401);
    // Bolt answered the refusal before this request is sent, so a handler run for it would already be recorded.
    expect((await postSigned(eventsUrl, command('status after', 'after'), SECRET)).status).toBe(200);
    await sim.waitFor(said('status after'));
    expect(commands.map((c) => c.text)).toEqual(['status after']);
    expect(sim.responses.some((r) => r.id === 'bad')).toBe(false);
  });

  it('refuses a form body sent with a charset in its content-type (Bolt parses only the exact type)', async () => {
    const res = await postSigned(eventsUrl, command('status x', 'charset'), SECRET, {
      contentType: 'application/x-www-form-urlencoded;charset=UTF-8',
    });
    expect(res.status).toBe(400);
    expect(commands).toEqual([]);
  });

  it('hands a signed block_actions click to the action handler; respond() replaces the card, client posts in its thread', async () => {
    const card = await app.client.chat.postMessage({ channel: OPS, text: 'op-abc123 State: AWAITING_APPROVAL' });
    const body = blockActionsBody({
      user: 'U0BOB',
      channel: OPS,
      message_ts: card.ts!,
      action_id: 'flink_ops_approve',
      value: 'op-abc123',
      block_id: 'approval:0123456789abcdef',
      response_url: sim.responseUrl(undefined, { channel: OPS, user: 'U0BOB', messageTs: card.ts! }),
      message: sim.messages(OPS).find((m) => m.ts === card.ts) as unknown as Record<string, unknown>,
    });
    expect((await postSigned(eventsUrl, body, SECRET)).status).toBe(200);
    const reply = await sim.waitFor(() => sim.replies(OPS, card.ts!)[1]);
    expect(reply).toMatchObject({ text: 'approval by <@U0BOB>', thread_ts: card.ts });
    expect(clicks).toEqual([{ user: 'U0BOB', value: 'op-abc123', blockId: 'approval:0123456789abcdef' }]);
    expect(sim.messages(OPS).find((m) => m.ts === card.ts)?.text).toBe('approved op-abc123');
  });
});
