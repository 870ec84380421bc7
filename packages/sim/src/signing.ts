// Requests exactly as Slack sends them to an app: signed slash-command and block_actions form bodies, as Slack signs them.
import { createHmac, randomBytes } from 'node:crypto';

/** Bolt parses a form only for exactly this content-type (no charset), as Slack sends it. */
export const FORM_CONTENT_TYPE = 'application/x-www-form-urlencoded';

/** Headers of a signed request: `v0=` HMAC-SHA256 of `v0:<ts>:<body>` with the signing secret. */
export function signedHeaders(secret: string, body: string, nowSeconds: number): Record<string, string> {
  const ts = String(Math.floor(nowSeconds));
  return {
    'content-type': FORM_CONTENT_TYPE,
    'x-slack-request-timestamp': ts,
    'x-slack-signature': `v0=${createHmac('sha256', secret).update(`v0:${ts}:${body}`).digest('hex')}`,
  };
}

export interface Workspace {
  teamId: string;
  teamDomain: string;
  appId: string;
}

export interface SlashCommand {
  command: string;
  text: string;
  user: { id: string; name: string };
  channel: { id: string; name: string };
  responseUrl: string;
}

function triggerId(nowMs: number): string {
  return `${nowMs}.${randomBytes(4).readUInt32BE()}.${randomBytes(8).toString('hex')}`;
}

/** A slash command's form body, fields in the order Slack sends them. */
export function slashCommandBody(ws: Workspace, cmd: SlashCommand, nowMs: number): string {
  return new URLSearchParams([
    ['token', 'sandbox-verification-token'],
    ['team_id', ws.teamId],
    ['team_domain', ws.teamDomain],
    ['channel_id', cmd.channel.id],
    ['channel_name', cmd.channel.name],
    ['user_id', cmd.user.id],
    ['user_name', cmd.user.name],
    ['command', cmd.command],
    ['text', cmd.text],
    ['api_app_id', ws.appId],
    ['is_enterprise_install', 'false'],
    ['response_url', cmd.responseUrl],
    ['trigger_id', triggerId(nowMs)],
  ]).toString();
}

export interface ButtonClick {
  /** `team_id`: the clicker's own workspace when it is not the sandbox's (a Slack Connect guest). */
  user: { id: string; name: string; team_id?: string };
  channel: { id: string; name: string };
  /** The clicked message as the client shows it. */
  message: Record<string, unknown> & { ts: string; thread_ts?: string };
  actionId: string;
  blockId: string;
  value: string;
  buttonText: string;
  responseUrl: string;
}

/** The `block_actions` payload of a button click on a message, as the form body `payload=<json>`. */
export function blockActionsBody(ws: Workspace, click: ButtonClick, nowMs: number): string {
  const { message } = click;
  const inThread = message.thread_ts !== undefined && message.thread_ts !== message.ts;
  const payload = {
    type: 'block_actions',
    user: {
      id: click.user.id,
      username: click.user.name,
      name: click.user.name,
      team_id: click.user.team_id ?? ws.teamId,
    },
    api_app_id: ws.appId,
    token: 'sandbox-verification-token',
    container: {
      type: 'message',
      message_ts: message.ts,
      channel_id: click.channel.id,
      is_ephemeral: false,
      ...(inThread ? { thread_ts: message.thread_ts } : {}),
    },
    trigger_id: triggerId(nowMs),
    team: { id: ws.teamId, domain: ws.teamDomain },
    enterprise: null,
    is_enterprise_install: false,
    channel: { id: click.channel.id, name: click.channel.name },
    message,
    state: { values: {} },
    response_url: click.responseUrl,
    actions: [buttonAction(click, nowMs)],
  };
  return `payload=${encodeURIComponent(JSON.stringify(payload))}`;
}

/** The one button action of a `block_actions` payload, as Slack sends it for a message or a view. */
function buttonAction(
  click: { actionId: string; blockId: string; value: string; buttonText: string },
  nowMs: number,
): Record<string, unknown> {
  return {
    type: 'button',
    action_id: click.actionId,
    block_id: click.blockId,
    value: click.value,
    text: { type: 'plain_text', text: click.buttonText, emoji: true },
    action_ts: (nowMs / 1000).toFixed(6),
  };
}

export interface HomeButtonClick {
  user: { id: string; name: string };
  /** The Home view's id, as views.publish returned it. */
  viewId: string;
  /** The published view (Slack sends it back with the click). */
  view: Record<string, unknown>;
  actionId: string;
  blockId: string;
  value: string;
  buttonText: string;
}

/** A button click on App Home: `container.type: view`, the view instead of a message, and no channel or response_url. */
export function homeBlockActionsBody(ws: Workspace, click: HomeButtonClick, nowMs: number): string {
  const payload = {
    type: 'block_actions',
    user: { id: click.user.id, username: click.user.name, name: click.user.name, team_id: ws.teamId },
    api_app_id: ws.appId,
    token: 'sandbox-verification-token',
    container: { type: 'view', view_id: click.viewId },
    trigger_id: triggerId(nowMs),
    team: { id: ws.teamId, domain: ws.teamDomain },
    enterprise: null,
    is_enterprise_install: false,
    view: { ...click.view, id: click.viewId, type: 'home', team_id: ws.teamId, app_id: ws.appId },
    state: { values: {} },
    actions: [buttonAction(click, nowMs)],
  };
  return `payload=${encodeURIComponent(JSON.stringify(payload))}`;
}
