// The simulated workspace: users, channels, user groups, and every channel's messages, threads and ephemerals.
import type {
  SimChannel,
  SimHomeView,
  SimEphemeral,
  SimMessage,
  SimMessageEvent,
  SimUser,
  SimUsergroup,
  SlackMetadata,
} from './types.js';

export interface BotIdentity {
  botUserId: string;
  botId: string;
  appId: string;
  botName: string;
  teamId: string;
  teamName: string;
  teamDomain: string;
}

export interface NewMessage {
  text: string;
  blocks?: unknown[];
  attachments?: unknown[];
  metadata?: SlackMetadata;
  threadTs?: string;
  broadcast?: boolean;
}

interface ChannelLog {
  /** Every message by ts, in posting (= ts) order. */
  byTs: Map<string, SimMessage>;
  ephemerals: SimEphemeral[];
}

const ID_PATTERN = /^[A-Z0-9]{2,}$/;
/** What Slack shows in place of a deleted message that heads a thread. */
const TOMBSTONE_TEXT = 'This message was deleted.';

export function formatTs(micros: number): string {
  return `${Math.floor(micros / 1e6)}.${String(micros % 1e6).padStart(6, '0')}`;
}

export const copy = <T>(value: T): T => structuredClone(value);

/** The id of the app's DM with `user`: the same every time, as Slack's `D…` ids are (U0ALICE → D0ALICE). */
export const dmChannelId = (user: string): string => `D${user.slice(1)}`;

export class Workspace {
  readonly users = new Map<string, SimUser>();
  readonly channels = new Map<string, SimChannel>();
  readonly usergroups = new Map<string, SimUsergroup>();
  /** Home tabs by user id (views.publish). */
  readonly homes = new Map<string, SimHomeView>();
  private readonly logs = new Map<string, ChannelLog>();
  private lastTs = 0;

  constructor(
    readonly bot: BotIdentity,
    private readonly now: () => number,
    private readonly emit: (event: SimMessageEvent) => void,
  ) {
    this.addUser({ id: bot.botUserId, name: bot.botName, real_name: bot.botName, is_bot: true });
  }

  addUser(user: SimUser): void {
    checkId('user', user.id);
    this.users.set(user.id, { ...user });
  }

  addChannel(channel: SimChannel): void {
    checkId('channel', channel.id);
    if (channel.members !== undefined) channel.members.forEach((u) => checkId(`member of ${channel.id}`, u));
    this.channels.set(channel.id, { ...channel });
  }

  addUsergroup(group: SimUsergroup): void {
    checkId('usergroup', group.id);
    this.usergroups.set(group.id, { ...group, users: [...group.users] });
  }

  /**
   * By id, `#name` or `name`, as chat.postMessage accepts; private channels without the bot do not exist. A user id
   * is the app's DM with that person: found once opened, or opened here when `open` (chat.postMessage does that).
   */
  findChannel(ref: string | undefined, open = false): SimChannel | undefined {
    if (ref === undefined) return undefined;
    if (this.users.has(ref) && ref !== this.bot.botUserId)
      return open ? this.openDm(ref).channel : this.channels.get(this.dmId(ref));
    const found =
      this.channels.get(ref) ??
      [...this.channels.values()].find(
        (c) => c.is_im !== true && c.is_mpim !== true && c.name === ref.replace(/^#/, ''),
      );
    if (found?.is_private === true && found.botMember === false) return undefined;
    return found;
  }

  dmId(user: string): string {
    return dmChannelId(user);
  }

  /** The app's DM with `user` (its Messages tab), opened on first use (conversations.open). */
  openDm(user: string): { channel: SimChannel; created: boolean } {
    const id = this.dmId(user);
    const existing = this.channels.get(id);
    if (existing !== undefined) return { channel: existing, created: false };
    const channel: SimChannel = { id, name: 'directmessage', members: [user], is_private: true, is_im: true, user };
    this.channels.set(id, channel);
    return { channel, created: true };
  }

  /** A group DM of the app with `users` (2 to 8 people, in that order): one per set of people. */
  openMpim(users: string[]): { channel: SimChannel; created: boolean } {
    const key = [...users].sort().join(',');
    const existing = [...this.channels.values()].find(
      (c) => c.is_mpim === true && [...(c.members ?? [])].sort().join(',') === key,
    );
    if (existing !== undefined) return { channel: existing, created: false };
    const id = `G${String(this.channels.size + 1).padStart(4, '0')}MPIM`;
    const names = users.map((u) => this.users.get(u)?.name ?? u.toLowerCase());
    const channel: SimChannel = {
      id,
      name: `mpdm-${names.join('--')}-1`,
      members: [...users],
      is_private: true,
      is_mpim: true,
    };
    this.channels.set(id, channel);
    return { channel, created: true };
  }

  isMember(channel: SimChannel, user: string): boolean {
    if (user === this.bot.botUserId) return channel.botMember !== false;
    return channel.members === undefined ? this.users.has(user) : channel.members.includes(user);
  }

  /** Unique and increasing, like Slack's `1767326126.000100`. */
  nextTs(): string {
    this.lastTs = Math.max(Math.floor(this.now()) * 1000, this.lastTs + 1);
    return formatTs(this.lastTs);
  }

  private log(channel: string): ChannelLog {
    let log = this.logs.get(channel);
    if (log === undefined) {
      log = { byTs: new Map(), ephemerals: [] };
      this.logs.set(channel, log);
    }
    return log;
  }

  find(channel: string, ts: string): SimMessage | undefined {
    return this.logs.get(channel)?.byTs.get(ts);
  }

  /** The parent a reply must attach to: a reply's ts resolves to its thread's parent. */
  threadParent(channel: string, ts: string): SimMessage | undefined {
    const m = this.find(channel, ts);
    if (m?.thread_ts !== undefined && m.thread_ts !== m.ts) return this.find(channel, m.thread_ts);
    return m;
  }

  post(channel: string, user: string, input: NewMessage): SimMessage {
    const log = this.log(channel);
    const ts = this.nextTs();
    const message: SimMessage = { type: 'message', ts, user, team: this.bot.teamId, text: input.text };
    if (user === this.bot.botUserId) {
      const { botId, appId, botName, teamId } = this.bot;
      Object.assign(message, { bot_id: botId, app_id: appId });
      message.bot_profile = { id: botId, app_id: appId, name: botName, deleted: false, team_id: teamId };
    }
    if (input.blocks !== undefined) message.blocks = copy(input.blocks);
    if (input.attachments !== undefined) message.attachments = copy(input.attachments);
    if (input.metadata !== undefined) message.metadata = copy(input.metadata);
    const parent = input.threadTs === undefined ? undefined : this.threadParent(channel, input.threadTs);
    if (parent !== undefined) {
      message.thread_ts = parent.ts;
      message.parent_user_id = parent.user;
      if (input.broadcast === true) message.subtype = 'thread_broadcast';
      parent.thread_ts = parent.ts;
      parent.reply_count = (parent.reply_count ?? 0) + 1;
      parent.reply_users = [...new Set([...(parent.reply_users ?? []), user])];
      parent.reply_users_count = parent.reply_users.length;
      parent.latest_reply = ts;
    }
    log.byTs.set(ts, message);
    this.emit({ kind: 'posted', channel, message: copy(message) });
    return message;
  }

  update(
    channel: string,
    ts: string,
    change: { text?: string; blocks?: unknown[]; metadata?: SlackMetadata },
  ): SimMessage {
    const message = this.find(channel, ts);
    if (message === undefined) throw new Error(`no message ${channel}/${ts}`);
    if (change.text !== undefined) message.text = change.text;
    if (change.blocks !== undefined) message.blocks = copy(change.blocks);
    if (change.metadata !== undefined) message.metadata = copy(change.metadata);
    message.edited = { user: this.bot.botUserId, ts: this.nextTs() };
    this.emit({ kind: 'updated', channel, message: copy(message) });
    return message;
  }

  /** Announces an in-place change that is not an edit (a reaction). */
  touched(channel: string, message: SimMessage): void {
    this.emit({ kind: 'updated', channel, message: copy(message) });
  }

  /**
   * Deletes a message as Slack does: a reply leaves its thread (the parent's counts follow); a parent with replies
   * stays as a tombstone ("This message was deleted.") heading them, and goes with its last reply.
   */
  remove(channel: string, ts: string): void {
    const log = this.logs.get(channel);
    const message = log?.byTs.get(ts);
    if (log === undefined || message === undefined) return;
    if (message.thread_ts === ts && (message.reply_count ?? 0) > 0) {
      const { type, thread_ts, reply_count, reply_users, reply_users_count, latest_reply, team } = message;
      const tombstone: SimMessage = { type, subtype: 'tombstone', ts, user: 'USLACKBOT', team, text: TOMBSTONE_TEXT };
      Object.assign(tombstone, { thread_ts, reply_count, reply_users, reply_users_count, latest_reply });
      log.byTs.set(ts, tombstone);
      this.emit({ kind: 'updated', channel, message: copy(tombstone) });
      return;
    }
    log.byTs.delete(ts);
    this.emit({ kind: 'deleted', channel, message: copy(message) });
    const parent = message.thread_ts === undefined ? undefined : log.byTs.get(message.thread_ts);
    if (parent !== undefined && parent !== message) this.recount(channel, log, parent);
  }

  /** A thread's parent after one of its replies went: counts and latest reply again, or gone if it was a tombstone. */
  private recount(channel: string, log: ChannelLog, parent: SimMessage): void {
    const replies = [...log.byTs.values()].filter((m) => m.thread_ts === parent.ts && m.ts !== parent.ts);
    if (replies.length === 0 && parent.subtype === 'tombstone') {
      log.byTs.delete(parent.ts);
      this.emit({ kind: 'deleted', channel, message: copy(parent) });
      return;
    }
    parent.reply_count = replies.length;
    parent.reply_users = [...new Set(replies.map((m) => m.user))];
    parent.reply_users_count = parent.reply_users.length;
    if (replies.length > 0) parent.latest_reply = (replies.at(-1) as SimMessage).ts;
    else delete parent.latest_reply;
    this.touched(channel, parent);
  }

  addEphemeral(ephemeral: Omit<SimEphemeral, 'ts' | 'at'>): SimEphemeral {
    const full: SimEphemeral = { ...copy(ephemeral), ts: this.nextTs(), at: this.now() };
    this.log(ephemeral.channel).ephemerals.push(full);
    this.emit({ kind: 'ephemeral', channel: ephemeral.channel, ephemeral: copy(full) });
    return full;
  }

  /** An ephemeral shown again with new content in its place (a response_url's `replace_original`). */
  replaceEphemeral(channel: string, ts: string, change: { text: string; blocks?: unknown[] }): boolean {
    const e = this.ephemerals(channel).find((x) => x.ts === ts);
    if (e === undefined) return false;
    e.text = change.text;
    if (change.blocks === undefined) delete e.blocks;
    else e.blocks = copy(change.blocks);
    this.emit({ kind: 'ephemeral', channel, ephemeral: copy(e) });
    return true;
  }

  /** An ephemeral taken away (a response_url's `delete_original`). */
  removeEphemeral(channel: string, ts: string): void {
    const log = this.logs.get(channel);
    const i = log?.ephemerals.findIndex((x) => x.ts === ts) ?? -1;
    if (log === undefined || i < 0) return;
    const [gone] = log.ephemerals.splice(i, 1);
    if (gone !== undefined) this.emit({ kind: 'ephemeral_deleted', channel, ephemeral: copy(gone) });
  }

  /** Channel-level messages, oldest first: top-level ones and broadcast replies. */
  topLevel(channel: string): SimMessage[] {
    const all = [...(this.logs.get(channel)?.byTs.values() ?? [])];
    return all.filter((m) => m.thread_ts === undefined || m.thread_ts === m.ts || m.subtype === 'thread_broadcast');
  }

  /** The parent first, then its replies oldest first; empty when `threadTs` is not a message here. */
  thread(channel: string, threadTs: string): SimMessage[] {
    const parent = this.threadParent(channel, threadTs);
    if (parent === undefined) return [];
    const all = [...(this.logs.get(channel)?.byTs.values() ?? [])];
    return [parent, ...all.filter((m) => m.thread_ts === parent.ts && m.ts !== parent.ts)];
  }

  ephemerals(channel: string): SimEphemeral[] {
    return this.logs.get(channel)?.ephemerals ?? [];
  }
}

function checkId(what: string, id: unknown): void {
  if (typeof id !== 'string' || !ID_PATTERN.test(id)) {
    throw new Error(
      `simulated Slack: ${what} id must look like a Slack id (upper-case letters and digits), got ${JSON.stringify(id)}`,
    );
  }
}
