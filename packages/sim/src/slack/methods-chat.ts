// The chat.* and reactions.* methods: posting, editing, deleting, ephemerals, permalinks, reactions.
import { type Args, bool, str } from './args.js';
import { fail, readContent, type SlackBody } from './content.js';
import { copy, type Workspace } from './state.js';
import type { SimChannel, SimMessage } from './types.js';

export interface MethodContext {
  ws: Workspace;
  permalinkBase: string;
  /** The most messages conversations.history/replies return a page (1000; 15 under ratelimit.ts's 2025 rule). */
  readPageMax: number;
}

export type Handler = (args: Args, ctx: MethodContext) => SlackBody;

/** The channel the bot may write to, or Slack's refusal; `open`: a user id opens the app's DM with them. */
export function writableChannel(ws: Workspace, ref: string | undefined, open = false): SimChannel | SlackBody {
  const channel = ws.findChannel(ref, open);
  if (channel === undefined) return fail('channel_not_found');
  if (!ws.isMember(channel, ws.bot.botUserId)) return fail('not_in_channel');
  return channel;
}

const isBody = (v: SimChannel | SlackBody): v is SlackBody => 'ok' in v;

/** What a chat.* response echoes: the message without thread bookkeeping the poster did not set. */
function echo(message: SimMessage): SimMessage {
  const out = copy(message);
  if (out.thread_ts === out.ts) delete out.thread_ts;
  delete out.reply_count;
  delete out.reply_users;
  delete out.reply_users_count;
  delete out.latest_reply;
  return out;
}

export const postMessage: Handler = (args, { ws }) => {
  const channel = writableChannel(ws, str(args, 'channel'), true);
  if (isBody(channel)) return channel;
  const read = readContent(args, true);
  if (!read.ok) return read.body;
  const threadTs = str(args, 'thread_ts');
  if (threadTs !== undefined && ws.threadParent(channel.id, threadTs) === undefined) return fail('thread_not_found');
  const { text = '', blocks, attachments, metadata } = read.content;
  const message = ws.post(channel.id, ws.bot.botUserId, {
    text,
    blocks,
    attachments,
    metadata,
    threadTs,
    broadcast: bool(args, 'reply_broadcast'),
  });
  return { ok: true, channel: channel.id, ts: message.ts, message: echo(message) };
};

export const update: Handler = (args, { ws }) => {
  const channel = ws.findChannel(str(args, 'channel'));
  if (channel === undefined) return fail('channel_not_found');
  const ts = str(args, 'ts');
  const existing = ts === undefined ? undefined : ws.find(channel.id, ts);
  if (ts === undefined || existing === undefined) return fail('message_not_found');
  if (existing.user !== ws.bot.botUserId) return fail('cant_update_message');
  const read = readContent(args, true);
  if (!read.ok) return read.body;
  const { text, blocks, metadata } = read.content;
  const message = ws.update(channel.id, ts, { text, blocks, metadata });
  return { ok: true, channel: channel.id, ts, text: message.text, message: echo(message) };
};

/** `ChatDeleteResponse`: channel and ts. A bot token deletes the app's own messages only (`cant_delete_message`). */
export const deleteMessage: Handler = (args, { ws }) => {
  const channel = ws.findChannel(str(args, 'channel'));
  if (channel === undefined) return fail('channel_not_found');
  const ts = str(args, 'ts');
  const existing = ts === undefined ? undefined : ws.find(channel.id, ts);
  if (ts === undefined || existing === undefined || existing.subtype === 'tombstone') return fail('message_not_found');
  if (existing.user !== ws.bot.botUserId) return fail('cant_delete_message');
  ws.remove(channel.id, ts);
  return { ok: true, channel: channel.id, ts };
};

export const postEphemeral: Handler = (args, { ws }) => {
  const channel = writableChannel(ws, str(args, 'channel'));
  if (isBody(channel)) return channel;
  const user = str(args, 'user');
  if (user === undefined || !ws.users.has(user)) return fail('user_not_found');
  if (!ws.isMember(channel, user)) return fail('user_not_in_channel');
  const read = readContent(args, true);
  if (!read.ok) return read.body;
  const { text = '', blocks } = read.content;
  const threadTs = str(args, 'thread_ts');
  const ephemeral = ws.addEphemeral({
    channel: channel.id,
    user,
    text,
    source: 'chat.postEphemeral',
    ...(blocks === undefined ? {} : { blocks }),
    ...(threadTs === undefined ? {} : { thread_ts: threadTs }),
  });
  return { ok: true, message_ts: ephemeral.ts };
};

export const getPermalink: Handler = (args, { ws, permalinkBase }) => {
  const channel = ws.findChannel(str(args, 'channel'));
  if (channel === undefined) return fail('channel_not_found');
  const ts = str(args, 'message_ts');
  const message = ts === undefined ? undefined : ws.find(channel.id, ts);
  if (message === undefined) return fail('message_not_found');
  let permalink = `${permalinkBase}/archives/${channel.id}/p${message.ts.replace('.', '')}`;
  if (message.thread_ts !== undefined && message.thread_ts !== message.ts) {
    permalink += `?thread_ts=${message.thread_ts}&cid=${channel.id}`;
  }
  return { ok: true, channel: channel.id, permalink };
};

export const reactionsAdd: Handler = (args, { ws }) => {
  const channel = writableChannel(ws, str(args, 'channel'));
  if (isBody(channel)) return channel;
  const ts = str(args, 'timestamp');
  const message = ts === undefined ? undefined : ws.find(channel.id, ts);
  if (message === undefined) return fail('message_not_found');
  const name = str(args, 'name')?.replace(/^:|:$/g, '');
  if (name === undefined || !/^[a-z0-9_+'-]+$/.test(name)) return fail('invalid_name');
  const reactions = (message.reactions ??= []);
  const existing = reactions.find((r) => r.name === name);
  const me = ws.bot.botUserId;
  if (existing?.users.includes(me) === true) return fail('already_reacted');
  if (existing === undefined) reactions.push({ name, users: [me], count: 1 });
  else {
    existing.users.push(me);
    existing.count += 1;
  }
  ws.touched(channel.id, message);
  return { ok: true };
};
