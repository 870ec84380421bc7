// conversations.open: the app's direct messages (a 1:1 DM `D…`, or a group DM of 2–8 people), as Slack opens them.
import { bool, str } from './args.js';
import { fail, type SlackBody } from './content.js';
import type { Handler } from './methods-chat.js';
import type { Workspace } from './state.js';
import type { SimChannel } from './types.js';

/** Slack's limit on the people of a group DM (besides the app). */
const MAX_MPIM_USERS = 8;

/** The IM object `return_im` asks for, as Slack shapes it. */
function imObject(ws: Workspace, channel: SimChannel): Record<string, unknown> {
  if (channel.is_mpim === true) {
    return {
      id: channel.id,
      name: channel.name,
      is_mpim: true,
      is_group: false,
      is_im: false,
      is_private: true,
      members: [...(channel.members ?? [])],
      created: 1_700_000_000,
      creator: ws.bot.botUserId,
    };
  }
  return {
    id: channel.id,
    created: 1_700_000_000,
    is_im: true,
    is_org_shared: false,
    user: channel.user,
    is_user_deleted: false,
    priority: 0,
  };
}

function opened(ws: Workspace, channel: SimChannel, created: boolean, full: boolean): SlackBody {
  return {
    ok: true,
    ...(created ? {} : { no_op: true, already_open: true }),
    channel: full ? imObject(ws, channel) : { id: channel.id },
  };
}

/** Resuming by `channel`: only a DM or group DM the app has. */
function resume(ws: Workspace, id: string, full: boolean): SlackBody {
  const channel = ws.channels.get(id);
  if (channel === undefined) return fail('channel_not_found');
  if (channel.is_im !== true && channel.is_mpim !== true) return fail('method_not_supported_for_channel_type');
  return opened(ws, channel, false, full);
}

/** `users` (comma-separated) → the DM with one person, or the group DM with several; `channel` resumes one. */
export const conversationsOpen: Handler = (args, { ws }) => {
  const full = bool(args, 'return_im');
  const users = (str(args, 'users') ?? '')
    .split(',')
    .map((u) => u.trim())
    .filter((u) => u !== '');
  if (users.length === 0) {
    const channel = str(args, 'channel');
    return channel === undefined ? fail('users_list_not_supplied') : resume(ws, channel, full);
  }
  if (users.some((u) => !ws.users.has(u))) return fail('user_not_found');
  // The app is in every conversation it opens: naming itself adds no one.
  const people = [...new Set(users.filter((u) => u !== ws.bot.botUserId))];
  if (people.length === 0) return fail('not_enough_users');
  if (people.length > MAX_MPIM_USERS) return fail('too_many_users');
  if (people.length === 1 && ws.users.get(people[0] as string)?.is_bot === true) return fail('cannot_dm_bot');
  const prevent = bool(args, 'prevent_creation');
  if (people.length === 1) {
    const id = ws.dmId(people[0] as string);
    if (prevent && !ws.channels.has(id)) return { ok: true, no_op: true };
    const { channel, created } = ws.openDm(people[0] as string);
    return opened(ws, channel, created, full);
  }
  const { channel, created } = ws.openMpim(people);
  return opened(ws, channel, created, full);
};
