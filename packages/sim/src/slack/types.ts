// Public shapes of the simulated Slack workspace: seeds, options, recorded calls, messages and events.

export interface SimUser {
  id: string;
  name: string;
  real_name?: string;
  is_bot?: boolean;
  /** The user's own team; default the bot's (another one: a Slack Connect member of a shared channel). */
  team_id?: string;
  /**
   * The Enterprise Grid org the user belongs to, as users.info names it in `enterprise_user` (their own org: a Slack
   * Connect member from another org carries theirs, never the host's); unset: not a Grid user.
   */
  enterprise_id?: string;
  /** The org's workspaces the user is in (`enterprise_user.teams`); default their own team. */
  enterprise_teams?: string[];
}

export interface SimChannel {
  id: string;
  name: string;
  /** Human members; omitted = every seeded user is a member. */
  members?: string[];
  /** The bot is a member unless this is false (then posting answers not_in_channel). */
  botMember?: boolean;
  /** A private channel the bot is not in does not exist for it (channel_not_found). */
  is_private?: boolean;
  /** The app's DM with one person (`D…`, conversations.open): `user` is that person. */
  is_im?: boolean;
  user?: string;
  /** A group DM of the app with several people (conversations.open with 2–8 users). */
  is_mpim?: boolean;
}

/** A Home tab as the bot last published it for one person (`views.publish`). */
export interface SimHomeView {
  id: string;
  user: string;
  view: { type: 'home'; blocks: unknown[]; [key: string]: unknown };
  hash: string;
  publishedAt: number;
}

/** Where the simulator delivers Events API requests (app_home_opened): the app's URL and signing secret. */
export interface SimEventTarget {
  url: string;
  signingSecret: string;
}

export interface SimUsergroup {
  id: string;
  handle: string;
  name?: string;
  users: string[];
}

export interface SimSlackOptions {
  /** Loopback by default. */
  host?: string;
  /** 0 (default) = a free port. */
  port?: number;
  users?: SimUser[];
  channels?: SimChannel[];
  usergroups?: SimUsergroup[];
  /** When set, any other token answers invalid_auth; when unset, any non-empty token is accepted. */
  botToken?: string;
  botUserId?: string;
  botId?: string;
  appId?: string;
  botName?: string;
  teamId?: string;
  teamName?: string;
  teamDomain?: string;
  /** Base of chat.getPermalink links; default `https://<teamDomain>.slack.com`. */
  permalinkBase?: string;
  /** Calls per minute per method, overriding the tier defaults; `Infinity` = unlimited. */
  rateLimits?: Partial<Record<string, number>>;
  /**
   * Slack's 2025 rule for apps not approved for the Marketplace: conversations.history/replies at 1 request a minute
   * and at most 15 messages a page (off by default; `rateLimits` still overrides the per-minute figures).
   */
  nonMarketplaceReads?: boolean;
  /** chat.postMessage per channel; default 1/s. `Infinity` = unlimited. */
  chatPostMessagePerChannelPerSecond?: number;
  /** Posts to one channel tolerated in a burst before the per-second pace applies; default 3. */
  chatPostMessageBurst?: number;
  /** Uses allowed per response_url (default 5) and how long it lives (default 30 min). */
  responseUrlMaxUses?: number;
  responseUrlTtlMs?: number;
  /** Wall clock in ms (message ts, rate windows, response_url expiry). */
  now?: () => number;
  /** Socket Mode: the app-level token `apps.connections.open` accepts (any `xapp-…` when unset). */
  appToken?: string;
  /** How often the simulator pings each Socket Mode connection (default 5 s). */
  socketPingIntervalMs?: number;
  /** How long Slack waits for a Socket Mode ack (default 3 s, Slack's); shorter runs its clock faster. */
  socketAckDeadlineMs?: number;
  /** Waits before the Events API's three retries (default 0, 1 min, 5 min, Slack's); shorter runs them faster. */
  socketEventRetryDelaysMs?: readonly number[];
}

export interface SimSocketOptions {
  appToken?: string;
  pingIntervalMs?: number;
  ackDeadlineMs?: number;
  eventRetryDelaysMs?: readonly number[];
}

/** The envelope types of Socket Mode this simulator sends. */
export type SimSocketEnvelopeType = 'slash_commands' | 'interactive' | 'events_api';

/** `warning`: the link will be recycled soon; `refresh_requested`: reconnect now; `link_disabled`: Socket Mode was turned off. */
export type SocketDisconnectReason = 'warning' | 'refresh_requested' | 'link_disabled';

/**
 * Why Slack gave an envelope up: a command or click not acknowledged within 3 s (`operation_timeout`, the error the
 * person sees) or never carried by a link (`dispatch_failed`); an event after its last retry (`retries_exhausted`).
 */
export type SimSocketFailure = 'operation_timeout' | 'dispatch_failed' | 'retries_exhausted';

/** An app's acknowledgement of one envelope (its `payload` is the ack body, e.g. a slash command's reply). */
export interface SimSocketAck {
  envelopeId: string;
  type: SimSocketEnvelopeType;
  payload: Record<string, unknown>;
  at: number;
  /** Slack's attempt: 0 = the first, 1 = the first retry (events only), … */
  attempt: number;
  connection: number;
}

/** One envelope and what happened to it: every send (an event's retry adds one), its ack, or Slack giving up. */
export interface SimSocketDelivery {
  envelopeId: string;
  type: SimSocketEnvelopeType;
  payload: Record<string, unknown>;
  acceptsResponsePayload: boolean;
  queuedAt: number;
  sends: { connection: number; at: number }[];
  ack?: SimSocketAck;
  failed?: { error: SimSocketFailure; at: number };
}

export type SimSocketEvent =
  | { kind: 'connected' | 'closed'; connection: number; at: number }
  | { kind: 'sent' | 'acked' | 'ack-lost' | 'stray-ack'; connection: number; envelopeId: string; at: number }
  | { kind: 'failed'; envelopeId: string; error: SimSocketFailure; at: number };

/** Socket Mode as Slack speaks it: `apps.connections.open`, `hello`, envelopes and acks, `disconnect`, lost links. */
export interface SimSocketMode {
  /** Every envelope ever queued, in order. */
  readonly deliveries: SimSocketDelivery[];
  readonly acks: SimSocketAck[];
  /** Acks of envelopes already acknowledged or never sent. */
  readonly strayAcks: { envelopeId: string; payload: unknown; at: number; connection: number }[];
  /** Connections that said `hello` and are still open. */
  readonly connectionCount: number;
  readonly unacknowledged: SimSocketDelivery[];
  /**
   * Queues an envelope for one open connection (or the next one to open within the ack deadline); resolves with its
   * ack. An event not acknowledged in time, or whose link went, is retried (socket-retries.ts); a command or click
   * never is. Rejects when Slack gives it up (`failed` on the delivery), or when no ack came by `timeoutMs`.
   */
  deliver(
    type: SimSocketEnvelopeType,
    payload: Record<string, unknown>,
    options?: { timeoutMs?: number },
  ): Promise<SimSocketAck>;
  /** Sends `disconnect` on every open connection, and closes each after `graceMs` if the app has not (default 1 s, 10 s for `warning`). Returns how many. */
  disconnect(reason?: SocketDisconnectReason, options?: { graceMs?: number }): number;
  /** Cuts every connection at once, no close frame (a lost TCP connection). Returns how many. */
  drop(): number;
  /** While true, new WebSocket connections are refused (HTTP 503 on the upgrade): the socket stays down. */
  refuse(refusing: boolean): void;
  /** The next `times` acks are lost on the way: the link breaks as they arrive (an event is retried, nothing else). */
  loseNextAck(times?: number): void;
  /** The link is cut right after the next `times` envelopes are written to it. */
  dropAfterNextSend(times?: number): void;
  /** Slack closes the link right behind the next `times` envelopes: the app reads each but cannot send its ack. */
  closeAfterNextSend(times?: number): void;
  /** Resolves once `count` connections are open. */
  waitForConnections(count?: number, timeoutMs?: number): Promise<void>;
}

export interface SlackMetadata {
  event_type: string;
  event_payload: Record<string, unknown>;
}

export interface SimReaction {
  name: string;
  users: string[];
  count: number;
}

/** A message as conversations.history / replies return it (metadata only when asked for). */
export interface SimMessage {
  type: 'message';
  /** `tombstone`: a deleted message that still heads its thread's replies. */
  subtype?: 'thread_broadcast' | 'tombstone';
  ts: string;
  user: string;
  bot_id?: string;
  app_id?: string;
  team: string;
  text: string;
  blocks?: unknown[];
  attachments?: unknown[];
  thread_ts?: string;
  parent_user_id?: string;
  reply_count?: number;
  reply_users?: string[];
  reply_users_count?: number;
  latest_reply?: string;
  metadata?: SlackMetadata;
  edited?: { user: string; ts: string };
  reactions?: SimReaction[];
  bot_profile?: { id: string; app_id: string; name: string; deleted: boolean; team_id: string };
}

/** A message only one user sees: chat.postEphemeral or an ephemeral response_url reply. */
export interface SimEphemeral {
  channel: string;
  user: string;
  ts: string;
  text: string;
  blocks?: unknown[];
  thread_ts?: string;
  /** `command`: what Slack shows from a slash command's ack body, `command` the text typed. */
  source: 'chat.postEphemeral' | 'response_url' | 'command';
  command?: string;
  at: number;
}

export type CallFault = 'ratelimited' | 'failed' | 'timeout';

export interface RecordedCall {
  seq: number;
  method: string;
  /** The parsed body (form or JSON) merged with query parameters; JSON fields decoded; token removed. */
  args: Record<string, unknown>;
  at: number;
  /** HTTP status sent (for a timeout fault: the one that would have been sent). */
  status: number;
  response: Record<string, unknown>;
  fault?: CallFault;
}

/** Where a response_url reply lands: the command's channel and user, and for a click the clicked message. */
export interface ResponseUrlContext {
  channel?: string;
  user?: string;
  messageTs?: string;
  /** The ephemeral the command's ack showed: `replace_original` / `delete_original` act on it, as in Slack. */
  ephemeralTs?: string;
}

export interface RecordedResponse {
  id: string;
  at: number;
  status: number;
  /** The JSON body received, or the raw text when it was not JSON. */
  body: Record<string, unknown> | string;
  /** 1-based use count of this URL, including refused uses. */
  use: number;
  /** Why it was refused (used_url, expired_url, invalid_payload, no_text, invalid_blocks). */
  error?: string;
  context: ResponseUrlContext;
}

export type MessageEventKind = 'posted' | 'updated' | 'deleted' | 'ephemeral' | 'ephemeral_deleted';

export type SimMessageEvent =
  | { kind: 'posted' | 'updated' | 'deleted'; channel: string; message: SimMessage }
  /** `ephemeral`: shown, or shown again with new content (same ts); `ephemeral_deleted`: gone. */
  | { kind: 'ephemeral' | 'ephemeral_deleted'; channel: string; ephemeral: SimEphemeral };

export interface SimSlackEvents {
  call: RecordedCall;
  message: SimMessageEvent;
  response: RecordedResponse;
  socket: SimSocketEvent;
}

export type SimSlackEvent = keyof SimSlackEvents;

export interface SimFaults {
  /** The next `times` calls of `method` answer HTTP 429 with `Retry-After: retryAfterSec` (nothing applied). */
  rateLimit(method: string, opts: { times: number; retryAfterSec: number }): void;
  /** The next `times` (default 1) calls answer `{ok:false, error}` (nothing applied). */
  failNext(method: string, error: string, times?: number): void;
  /** The next `times` (default 1) calls are applied and recorded but never answered. */
  timeoutNext(method: string, times?: number): void;
  /** Forgets every pending fault. */
  clear(): void;
}

export interface SimSlack {
  /** e.g. http://127.0.0.1:PORT; the Web API is at `${url}/api/`. */
  url: string;
  /** `${url}/api/`, ready for slackApiUrl / SLACK_API_URL. */
  apiUrl: string;
  port: number;
  calls: RecordedCall[];
  responses: RecordedResponse[];
  /** Top-level messages of a channel (id or name; a user id or `D…` id: the app's DM with that person). */
  messages(channel: string): SimMessage[];
  replies(channel: string, threadTs: string): SimMessage[];
  /** The id of the app's DM with `user` once opened (conversations.open, or chat.postMessage to the user id). */
  dmChannel(user: string): string | undefined;
  /** The app's DM with `user`, top-level messages oldest first; empty when never opened. */
  dms(user: string): SimMessage[];
  ephemerals(channel: string, user?: string): SimEphemeral[];
  responseUrl(id?: string, context?: ResponseUrlContext): string;
  /**
   * What Slack shows from a slash command's ack body: an ephemeral to the person who typed it, which later posts to
   * the command's `responseUrl` may replace or delete. Undefined when the url is not one of ours or names no channel;
   * `superseded` (nothing shown) when a reply to the url already replaced or deleted its original, which in Slack
   * cannot come before the ack.
   */
  commandAck(
    responseUrl: string,
    ack: { text: string; blocks?: unknown[] },
    command?: string,
  ): SimEphemeral | 'superseded' | undefined;
  on<E extends SimSlackEvent>(event: E, listener: (payload: SimSlackEvents[E]) => void): () => void;
  waitFor<T>(predicate: () => T | undefined | null | false, timeoutMs?: number, what?: string): Promise<T>;
  faults: SimFaults;
  addUser(user: SimUser): void;
  addChannel(channel: SimChannel): void;
  addUsergroup(group: SimUsergroup): void;
  /** A human's message in the channel (or thread), e.g. typed in the sandbox page. */
  postAsUser(channel: string, user: string, text: string, threadTs?: string): SimMessage;
  /** The Home tab the bot last published for `user`, if any. */
  homeView(user: string): SimHomeView | undefined;
  /**
   * `user` opens the app's Home tab: a signed `app_home_opened` Events API request to the app, resolving with its
   * HTTP status; or, with `'socket'`, an `events_api` envelope over Socket Mode (status 200 once acknowledged).
   */
  openHome(user: string, app: SimEventTarget | 'socket'): Promise<{ status: number; ms: number }>;
  /** Socket Mode (docs/operating.md#operating-notes). */
  socket: SimSocketMode;
  close(): Promise<void>;
}
