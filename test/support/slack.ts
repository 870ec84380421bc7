// Signed Slack requests for tests: signatures, slash-command and block_actions bodies, a signed POST, and the same
// bodies as Socket Mode envelopes.
import { createHmac, randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { approvalBlockId } from '../../src/slack/blocks/index.js';
import type { AddressInfo } from 'node:net';

/** Bolt parses a form only for exactly this content-type (no charset), as Slack sends it. */
export const FORM_CONTENT_TYPE = 'application/x-www-form-urlencoded';

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** Headers of a request Slack signed: `v0=` HMAC-SHA256 of `v0:<ts>:<body>` with the signing secret. */
export function signSlackRequest(
  secret: string,
  body: string,
  ts: number = nowSeconds(),
  contentType: string = FORM_CONTENT_TYPE,
): Record<string, string> {
  return {
    'content-type': contentType,
    'x-slack-request-timestamp': String(ts),
    'x-slack-signature': `v0=${createHmac('sha256', secret).update(`v0:${ts}:${body}`).digest('hex')}`,
  };
}

const triggerId = (): string => `${Date.now()}.${randomBytes(4).readUInt32BE()}.${randomBytes(8).toString('hex')}`;

export interface SlashCommandFields {
  text: string;
  command?: string;
  user_id?: string;
  user_name?: string;
  channel_id?: string;
  channel_name?: string;
  response_url?: string;
  team_id?: string;
  team_domain?: string;
  api_app_id?: string;
  trigger_id?: string;
  [extra: string]: string | undefined;
}

/** A slash command's form body, fields in the order Slack sends them; defaults fill what a test leaves out. */
export function slashCommandBody(fields: SlashCommandFields): string {
  const userId = fields.user_id ?? 'U0ALICE';
  const teamId = fields.team_id ?? 'T0SIM';
  const all: Record<string, string | undefined> = {
    token: 'deprecated-verification-token',
    team_id: teamId,
    team_domain: fields.team_domain ?? 'sandbox',
    channel_id: fields.channel_id ?? 'C0OPS',
    channel_name: fields.channel_name ?? 'ops',
    user_id: userId,
    user_name: fields.user_name ?? userId.toLowerCase(),
    command: fields.command ?? '/flink',
    text: fields.text,
    api_app_id: fields.api_app_id ?? 'A0SIMAPP',
    is_enterprise_install: 'false',
    response_url:
      fields.response_url ?? `https://hooks.slack.com/commands/${teamId}/1/${randomBytes(8).toString('hex')}`,
    trigger_id: fields.trigger_id ?? triggerId(),
  };
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) all[key] = value;
  const defined = Object.entries(all).filter((e): e is [string, string] => e[1] !== undefined);
  return new URLSearchParams(defined).toString();
}

export interface BlockActionFields {
  user: string;
  channel: string;
  message_ts: string;
  action_id: string;
  value: string;
  block_id: string;
  response_url: string;
  user_name?: string;
  channel_name?: string;
  thread_ts?: string;
  /** The clicked message as the client shows it (e.g. from `sim.messages()`); a minimal bot message otherwise. */
  message?: Record<string, unknown>;
  button_text?: string;
  team_id?: string;
  /** An Enterprise Grid install's org: the payload's `enterprise` (the install's, whoever clicks). */
  enterprise_id?: string;
  api_app_id?: string;
}

/**
 * The `block_actions` payload of a button click (docs/lifecycle.md#what-slack-allows), as the form body
 * `payload=<json>`.
 */
export function blockActionsBody(fields: BlockActionFields): string {
  const teamId = fields.team_id ?? 'T0SIM';
  const userName = fields.user_name ?? fields.user.toLowerCase();
  const actionTs = `${(Date.now() / 1000).toFixed(6)}`;
  const payload = {
    type: 'block_actions',
    api_app_id: fields.api_app_id ?? 'A0SIMAPP',
    token: 'deprecated-verification-token',
    trigger_id: triggerId(),
    user: { id: fields.user, username: userName, name: userName, team_id: teamId },
    team: { id: teamId, domain: 'sandbox' },
    ...(fields.enterprise_id === undefined
      ? {}
      : { enterprise: { id: fields.enterprise_id, name: 'grid' }, is_enterprise_install: false }),
    channel: { id: fields.channel, name: fields.channel_name ?? 'ops' },
    container: {
      type: 'message',
      message_ts: fields.message_ts,
      channel_id: fields.channel,
      is_ephemeral: false,
      ...(fields.thread_ts === undefined ? {} : { thread_ts: fields.thread_ts }),
    },
    message: fields.message ?? {
      type: 'message',
      ts: fields.message_ts,
      bot_id: 'B0SIMBOT',
      user: 'U0SIMBOT',
      text: '',
      blocks: [],
    },
    state: { values: {} },
    response_url: fields.response_url,
    actions: [
      {
        type: 'button',
        action_id: fields.action_id,
        block_id: fields.block_id,
        value: fields.value,
        text: { type: 'plain_text', text: fields.button_text ?? fields.action_id, emoji: true },
        action_ts: actionTs,
      },
    ],
  };
  return `payload=${encodeURIComponent(JSON.stringify(payload))}`;
}

export interface PostSignedOptions {
  ts?: number;
  /** Signs with a different secret, as a forger would. */
  badSignature?: boolean;
  contentType?: string;
  headers?: Record<string, string>;
}

/** POSTs a string body signed as Slack would (never a URLSearchParams: fetch would add `;charset=UTF-8`). */
export async function postSigned(
  url: string,
  body: string,
  secret: string,
  opts: PostSignedOptions = {},
): Promise<Response> {
  const key = opts.badSignature === true ? `${secret}-forged` : secret;
  const headers = { ...signSlackRequest(key, body, opts.ts, opts.contentType), ...opts.headers };
  return fetch(url, { method: 'POST', body, headers });
}

type ResponseUrlIssuer = {
  responseUrl(id: string, ctx: { channel: string; user: string; messageTs?: string }): string;
};

/** Where a button is clicked: a message by channel and ts (a card, or a DM copy: `D…`), optionally as read back. */
export interface ClickedMessage {
  channel: string;
  ts: string;
  /** The message as the client shows it (e.g. from `sim.dms(user)`); a minimal bot message otherwise. */
  message?: Record<string, unknown>;
}

/**
 * A click of `user` on a button of any message (a channel card or a DM copy), answered through a response_url named
 * `responseId` that lands on that message. In a DM the payload's channel is `{id:'D…', name:'directmessage'}`.
 */
export function messageClickBody(
  sim: ResponseUrlIssuer,
  at: ClickedMessage,
  opts: {
    user: string;
    actionId: string;
    value: string;
    blockId: string;
    responseId: string;
    teamId?: string;
    enterpriseId?: string;
  },
): string {
  return blockActionsBody({
    user: opts.user,
    channel: at.channel,
    ...(at.channel.startsWith('D') ? { channel_name: 'directmessage' } : {}),
    message_ts: at.ts,
    action_id: opts.actionId,
    value: opts.value,
    block_id: opts.blockId,
    response_url: sim.responseUrl(opts.responseId, { channel: at.channel, user: opts.user, messageTs: at.ts }),
    ...(at.message ? { message: at.message } : {}),
    ...(opts.teamId ? { team_id: opts.teamId } : {}),
    ...(opts.enterpriseId ? { enterprise_id: opts.enterpriseId } : {}),
  });
}

/**
 * A card button click of `user` on the operation's card, answered through a response_url named `responseId`.
 * `at`: click the same buttons on another copy of the card instead, e.g. the DM an approver got.
 */
export function cardClickBody(
  sim: ResponseUrlIssuer,
  record: { id: string; card?: { channel: string; ts: string } | undefined; plan?: { digest: string } | undefined },
  opts: {
    user: string;
    actionId: string;
    responseId: string;
    blockId?: string;
    teamId?: string;
    enterpriseId?: string;
    at?: ClickedMessage;
  },
): string {
  const { card, plan } = record;
  const where = opts.at ?? card;
  if (!where || !plan) throw new Error(`${record.id} has no card or plan to click on`);
  return messageClickBody(sim, where, {
    user: opts.user,
    actionId: opts.actionId,
    value: record.id,
    blockId: opts.blockId ?? approvalBlockId(plan.digest),
    responseId: opts.responseId,
    ...(opts.teamId ? { teamId: opts.teamId } : {}),
    ...(opts.enterpriseId ? { enterpriseId: opts.enterpriseId } : {}),
  });
}

/** `http://127.0.0.1:<port>/slack/events` of a Bolt HTTP receiver started with `app.start(0)`. */

export function slackEventsUrl(server: Server): string {
  const address = server.address() as AddressInfo | null;
  if (address === null || typeof address === 'string')
    throw new Error('the Bolt server is not listening on a TCP port');
  return `http://127.0.0.1:${address.port}/slack/events`;
}

/**
 * The Socket Mode envelope Slack sends instead of an HTTP request with this form body: a slash command's fields as
 * a `slash_commands` payload, a click's `payload=<json>` as an `interactive` one (the same objects Bolt parses).
 */
export function socketEnvelope(formBody: string): {
  type: 'slash_commands' | 'interactive';
  payload: Record<string, unknown>;
} {
  const form = new URLSearchParams(formBody);
  const json = form.get('payload');
  if (json !== null) return { type: 'interactive', payload: JSON.parse(json) as Record<string, unknown> };
  return { type: 'slash_commands', payload: Object.fromEntries(form) };
}
