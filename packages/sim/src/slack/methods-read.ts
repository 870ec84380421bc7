// The read methods: auth.test, conversations.history / replies / info / members, users.info, usergroups.users.list.
import { type Args, bool, int, str } from './args.js';
import { fail } from './content.js';
import type { Handler } from './methods-chat.js';
import { copy, type Workspace } from './state.js';
import type { SimChannel, SimMessage } from './types.js';

export const authTest: Handler = (_args, { ws }) => {
  const { teamDomain, teamName, botName, teamId, botUserId, botId } = ws.bot;
  return {
    ok: true,
    url: `https://${teamDomain}.slack.com/`,
    team: teamName,
    user: botName,
    team_id: teamId,
    user_id: botUserId,
    bot_id: botId,
    is_enterprise_install: false,
  };
};

/** `1767326126.000100` or `1767326126` → microseconds, so comparisons never lose the sixth decimal. */
function micros(ts: string): number | undefined {
  const m = /^(\d+)(?:\.(\d{1,6}))?$/.exec(ts);
  if (m === null) return undefined;
  return Number(m[1]) * 1e6 + Number((m[2] ?? '').padEnd(6, '0'));
}

function readableChannel(ws: Workspace, ref: string | undefined): SimChannel | string {
  const channel = ws.findChannel(ref);
  if (channel === undefined) return 'channel_not_found';
  return ws.isMember(channel, ws.bot.botUserId) ? channel : 'not_in_channel';
}

function present(messages: SimMessage[], args: Args): SimMessage[] {
  const withMetadata = bool(args, 'include_all_metadata');
  return messages.map((m) => {
    const out = copy(m);
    if (!withMetadata) delete out.metadata;
    return out;
  });
}

function inRange(messages: SimMessage[], args: Args): SimMessage[] | undefined {
  const oldest = micros(str(args, 'oldest') ?? '0');
  const latest = str(args, 'latest') === undefined ? Number.POSITIVE_INFINITY : micros(str(args, 'latest') ?? '');
  if (oldest === undefined || latest === undefined) return undefined;
  const inclusive = bool(args, 'inclusive');
  return messages.filter((m) => {
    const at = micros(m.ts) ?? 0;
    return inclusive ? at >= oldest && at <= latest : at > oldest && at < latest;
  });
}

type Page = { ok: true; items: SimMessage[]; nextCursor: string } | { ok: false };

/** Cursors look like Slack's: base64 of `next_ts:<ts of the first message of the next page>`. */
function paginate(list: SimMessage[], args: Args, defaultLimit: number, pageMax: number): Page {
  const limit = Math.min(Math.max(int(args, 'limit') ?? defaultLimit, 1), pageMax);
  const cursor = str(args, 'cursor');
  let start = 0;
  if (cursor !== undefined) {
    const ts = /^next_ts:(.+)$/.exec(Buffer.from(cursor, 'base64').toString('utf8'))?.[1];
    start = list.findIndex((m) => m.ts === ts);
    if (start < 0) return { ok: false };
  }
  const items = list.slice(start, start + limit);
  const next = list[start + limit];
  const nextCursor = next === undefined ? '' : Buffer.from(`next_ts:${next.ts}`).toString('base64');
  return { ok: true, items, nextCursor };
}

export const history: Handler = (args, { ws, readPageMax }) => {
  const channel = readableChannel(ws, str(args, 'channel'));
  if (typeof channel === 'string') return fail(channel);
  const ranged = inRange(ws.topLevel(channel.id).reverse(), args);
  if (ranged === undefined) return fail('invalid_ts_oldest');
  const page = paginate(ranged, args, 100, readPageMax);
  if (!page.ok) return fail('invalid_cursor');
  return {
    ok: true,
    messages: present(page.items, args),
    has_more: page.nextCursor !== '',
    pin_count: 0,
    channel_actions_ts: null,
    channel_actions_count: 0,
    response_metadata: { next_cursor: page.nextCursor },
  };
};

export const replies: Handler = (args, { ws, readPageMax }) => {
  const channel = readableChannel(ws, str(args, 'channel'));
  if (typeof channel === 'string') return fail(channel);
  const ts = str(args, 'ts');
  const thread = ts === undefined ? [] : ws.thread(channel.id, ts);
  const [parent, ...rest] = thread;
  if (parent === undefined) return fail('thread_not_found');
  const ranged = inRange(rest, args);
  if (ranged === undefined) return fail('invalid_ts_oldest');
  const page = paginate([parent, ...ranged], args, 1000, readPageMax);
  if (!page.ok) return fail('invalid_cursor');
  return {
    ok: true,
    messages: present(page.items, args),
    has_more: page.nextCursor !== '',
    response_metadata: { next_cursor: page.nextCursor },
  };
};

export const conversationsInfo: Handler = (args, { ws }) => {
  const channel = ws.findChannel(str(args, 'channel'));
  if (channel === undefined) return fail('channel_not_found');
  if (channel.is_im === true)
    return {
      ok: true,
      channel: {
        id: channel.id,
        created: 1_700_000_000,
        is_im: true,
        is_org_shared: false,
        user: channel.user,
        is_user_deleted: false,
        is_open: true,
      },
    };
  const isPrivate = channel.is_private === true;
  const members = channel.members ?? [...ws.users.keys()].filter((u) => u !== ws.bot.botUserId);
  return {
    ok: true,
    channel: {
      id: channel.id,
      name: channel.name,
      name_normalized: channel.name,
      is_channel: !isPrivate,
      is_group: isPrivate && channel.is_mpim !== true,
      is_im: false,
      is_mpim: channel.is_mpim === true,
      is_private: isPrivate,
      is_archived: false,
      is_general: false,
      is_shared: false,
      is_member: ws.isMember(channel, ws.bot.botUserId),
      created: 1_700_000_000,
      creator: members[0] ?? '',
      context_team_id: ws.bot.teamId,
      num_members: members.length + (ws.isMember(channel, ws.bot.botUserId) ? 1 : 0),
    },
  };
};

export const usersInfo: Handler = (args, { ws }) => {
  const id = str(args, 'user');
  const user = id === undefined ? undefined : ws.users.get(id);
  if (user === undefined) return fail('user_not_found');
  const realName = user.real_name ?? user.name;
  const teamId = user.team_id ?? ws.bot.teamId;
  // Slack names a Grid user's own org and its workspaces they are in; no field of it depends on who asks.
  const enterpriseUser =
    user.enterprise_id === undefined
      ? {}
      : {
          enterprise_user: {
            id: user.id,
            enterprise_id: user.enterprise_id,
            enterprise_name: user.enterprise_id,
            is_admin: false,
            is_owner: false,
            is_primary_owner: false,
            teams: user.enterprise_teams ?? [teamId],
          },
        };
  return {
    ok: true,
    user: {
      id: user.id,
      team_id: teamId,
      name: user.name,
      deleted: false,
      real_name: realName,
      tz: 'Europe/Berlin',
      is_admin: false,
      is_owner: false,
      is_bot: user.is_bot === true,
      is_app_user: false,
      profile: {
        real_name: realName,
        real_name_normalized: realName,
        display_name: user.name,
        team: teamId,
      },
      ...enterpriseUser,
    },
  };
};

export const usergroupUsers: Handler = (args, { ws }) => {
  const id = str(args, 'usergroup');
  const group = id === undefined ? undefined : ws.usergroups.get(id);
  if (group === undefined) return fail('no_such_subteam');
  return { ok: true, users: [...group.users] };
};

/** At most this many members a page (Slack: `limit` default 100, at most 1000). */
const MEMBERS_PAGE_MAX = 1000;

/**
 * conversations.members: the channel's members (bot users included) in pages with an opaque cursor; a private channel
 * without the bot does not exist for it (channel_not_found), as for every read.
 */
export const conversationsMembers: Handler = (args, { ws }) => {
  const channel = ws.findChannel(str(args, 'channel'));
  if (channel === undefined || channel.is_im === true) return fail('channel_not_found');
  const limit = Math.min(Math.max(int(args, 'limit') ?? 100, 1), MEMBERS_PAGE_MAX);
  const cursor = str(args, 'cursor');
  const offset = cursor
    ? Number(
        Buffer.from(cursor, 'base64')
          .toString('utf8')
          .replace(/^offset:/, ''),
      )
    : 0;
  if (!Number.isInteger(offset) || offset < 0) return fail('invalid_cursor');
  const members = [...ws.users.keys()].filter((u) => ws.isMember(channel, u));
  const page = members.slice(offset, offset + limit);
  const next = offset + limit < members.length ? Buffer.from(`offset:${offset + limit}`).toString('base64') : '';
  return { ok: true, members: page, response_metadata: { next_cursor: next } };
};
