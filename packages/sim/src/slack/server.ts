// The simulated Slack Web API server: routing, auth, faults, rate limits, recording, events, and the SimSlack handle.
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs, str, type ParsedArgs } from './args.js';
import { fail, type SlackBody } from './content.js';
import { FaultPlan } from './faults.js';
import { isSimMethod, METHODS, type MethodContext } from './methods.js';
import { appHomeOpenedBody, deliverEvent } from './events-api.js';
import { DEFAULT_RATE_LIMITS, NON_MARKETPLACE_READS, RateLimiter, READ_PAGE_MAX } from './ratelimit.js';
import { ResponseUrls } from './response-url.js';
import { SimSocketServer } from './socket-mode.js';
import { copy, Workspace } from './state.js';
import { waitUntil } from './wait.js';
import type {
  CallFault,
  RecordedCall,
  RecordedResponse,
  ResponseUrlContext,
  SimChannel,
  SimEphemeral,
  SimEventTarget,
  SimHomeView,
  SimMessage,
  SimSlack,
  SimSlackEvent,
  SimSlackEvents,
  SimSlackOptions,
  SimUser,
  SimUsergroup,
} from './types.js';

const MAX_BODY_BYTES = 10 * 1024 * 1024;
/** The Web API method that opens a Socket Mode link (not in METHODS: it takes the app-level token). */
const SOCKET_OPEN = 'apps.connections.open';
/** How long openHome over the socket waits for the ack (a reconnect may come first). */
const SOCKET_EVENT_TIMEOUT_MS = 30_000;

interface Outcome {
  status: number;
  body: SlackBody;
  headers?: Record<string, string>;
  fault?: CallFault;
}

type Listeners = { [E in SimSlackEvent]: Set<(payload: SimSlackEvents[E]) => void> };

class BodyTooLarge extends Error {}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new BodyTooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

class SimSlackServer implements SimSlack {
  url = '';
  apiUrl = '';
  port = 0;
  readonly calls: RecordedCall[] = [];
  readonly responses: RecordedResponse[] = [];
  readonly faults = new FaultPlan();
  private readonly ws: Workspace;
  private readonly limiter: RateLimiter;
  private readonly responseUrls: ResponseUrls;
  private readonly ctx: MethodContext;
  private readonly now: () => number;
  private readonly listeners: Listeners = {
    call: new Set(),
    message: new Set(),
    response: new Set(),
    socket: new Set(),
  };
  /** Requests a timeout fault keeps unanswered until the client gives up or the simulator closes. */
  private readonly held = new Set<ServerResponse>();
  private readonly server: Server;
  readonly socket: SimSocketServer;

  constructor(private readonly opts: SimSlackOptions) {
    this.now = opts.now ?? Date.now;
    const teamDomain = opts.teamDomain ?? 'sandbox';
    this.ws = new Workspace(
      {
        botUserId: opts.botUserId ?? 'U0SIMBOT',
        botId: opts.botId ?? 'B0SIMBOT',
        appId: opts.appId ?? 'A0SIMAPP',
        botName: opts.botName ?? 'flink-ops',
        teamId: opts.teamId ?? 'T0SIM',
        teamName: opts.teamName ?? 'Sandbox',
        teamDomain,
      },
      this.now,
      (event) => this.emit('message', event),
    );
    opts.users?.forEach((u) => this.ws.addUser(u));
    opts.channels?.forEach((c) => this.ws.addChannel(c));
    opts.usergroups?.forEach((g) => this.ws.addUsergroup(g));
    const tier = opts.nonMarketplaceReads === true ? NON_MARKETPLACE_READS : undefined;
    const perMinute = { ...DEFAULT_RATE_LIMITS, ...tier?.perMinute } as Record<string, number>;
    for (const [method, limit] of Object.entries(opts.rateLimits ?? {}))
      if (limit !== undefined) perMinute[method] = limit;
    this.limiter = new RateLimiter({
      perMinute,
      postPerChannelPerSecond: opts.chatPostMessagePerChannelPerSecond ?? 1,
      postBurst: opts.chatPostMessageBurst ?? 3,
      now: this.now,
    });
    this.responseUrls = new ResponseUrls({
      ws: this.ws,
      now: this.now,
      maxUses: opts.responseUrlMaxUses ?? 5,
      ttlMs: opts.responseUrlTtlMs ?? 30 * 60_000,
    });
    this.ctx = {
      ws: this.ws,
      permalinkBase: opts.permalinkBase ?? `https://${teamDomain}.slack.com`,
      readPageMax: tier?.pageMax ?? READ_PAGE_MAX,
    };
    this.socket = new SimSocketServer(
      {
        ...(opts.appToken === undefined ? {} : { appToken: opts.appToken }),
        ...(opts.socketPingIntervalMs === undefined ? {} : { pingIntervalMs: opts.socketPingIntervalMs }),
        ...(opts.socketAckDeadlineMs === undefined ? {} : { ackDeadlineMs: opts.socketAckDeadlineMs }),
        ...(opts.socketEventRetryDelaysMs === undefined ? {} : { eventRetryDelaysMs: opts.socketEventRetryDelaysMs }),
      },
      { appId: this.ws.bot.appId, now: this.now, emit: (event) => this.emit('socket', event) },
    );
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        if (!res.headersSent)
          res.writeHead(error instanceof BodyTooLarge ? 413 : 500, { 'content-type': 'text/plain' });
        res.end(error instanceof BodyTooLarge ? 'request_too_large' : 'internal_error');
      });
    });
  }

  async listen(): Promise<void> {
    this.server.listen(this.opts.port ?? 0, this.opts.host ?? '127.0.0.1');
    await once(this.server, 'listening');
    const address = this.server.address() as AddressInfo;
    this.port = address.port;
    this.url = `http://${this.opts.host ?? '127.0.0.1'}:${address.port}`;
    this.apiUrl = `${this.url}/api/`;
    this.socket.attach(this.server, this.url);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sim.invalid');
    const raw = await readBody(req);
    const api = /^\/api\/([A-Za-z0-9._-]+)$/.exec(url.pathname);
    if (api?.[1] !== undefined && (req.method === 'POST' || req.method === 'GET')) {
      const parsed = parseArgs(raw, req.headers['content-type'], url.searchParams, req.headers.authorization);
      return this.answerApi(api[1], parsed, res);
    }
    const response = /^\/response\/([^/]+)$/.exec(url.pathname);
    if (response?.[1] !== undefined && req.method === 'POST') {
      const reply = this.responseUrls.receive(decodeURIComponent(response[1]), raw);
      this.responses.push(reply.recorded);
      this.emit('response', reply.recorded);
      res.writeHead(reply.status, { 'content-type': 'text/html' }).end(reply.text);
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not_found');
  }

  private answerApi(method: string, parsed: ParsedArgs, res: ServerResponse): void {
    const outcome = this.dispatch(method, parsed);
    const call: RecordedCall = {
      seq: this.calls.length + 1,
      method,
      args: parsed.ok ? copy(parsed.args) : {},
      at: this.now(),
      status: outcome.status,
      response: outcome.body,
      ...(outcome.fault === undefined ? {} : { fault: outcome.fault }),
    };
    this.calls.push(call);
    this.emit('call', call);
    if (outcome.fault === 'timeout') {
      this.held.add(res);
      res.on('close', () => {
        this.held.delete(res);
        res.socket?.destroy();
      });
      return;
    }
    res.writeHead(outcome.status, { 'content-type': 'application/json; charset=utf-8', ...outcome.headers });
    res.end(JSON.stringify(outcome.body));
  }

  /** Checks in Slack's order: method, arguments, auth, injected faults, rate limit; then the method itself. */
  private dispatch(method: string, parsed: ParsedArgs): Outcome {
    if (method === SOCKET_OPEN) return this.openConnection(parsed);
    if (!isSimMethod(method)) return { status: 200, body: fail('unknown_method') };
    if (!parsed.ok) return { status: 200, body: fail(parsed.error) };
    if (parsed.token === undefined) return { status: 200, body: fail('not_authed') };
    if (parsed.token.startsWith('xapp-')) return { status: 200, body: fail('not_allowed_token_type') };
    if (this.opts.botToken !== undefined && parsed.token !== this.opts.botToken) {
      return { status: 200, body: fail('invalid_auth') };
    }
    const fault = this.faults.take(method);
    if (fault?.kind === 'failed') return { status: 200, body: fail(fault.error), fault: 'failed' };
    if (fault?.kind === 'ratelimited') return this.limited(fault.retryAfterSec, 'ratelimited');
    if (fault === undefined) {
      const channel = str(parsed.args, 'channel');
      const verdict = this.limiter.check(method, channel === undefined ? undefined : this.channelId(channel));
      if (verdict.limited) return this.limited(verdict.retryAfterSec);
    }
    const body = METHODS[method](parsed.args, this.ctx);
    return fault?.kind === 'timeout' ? { status: 200, body, fault: 'timeout' } : { status: 200, body };
  }

  /** `apps.connections.open` takes the app-level token, not the bot's; faults apply as to any method. */
  private openConnection(parsed: ParsedArgs): Outcome {
    if (!parsed.ok) return { status: 200, body: fail(parsed.error) };
    if (parsed.token === undefined) return { status: 200, body: fail('not_authed') };
    const fault = this.faults.take(SOCKET_OPEN);
    if (fault?.kind === 'failed') return { status: 200, body: fail(fault.error), fault: 'failed' };
    if (fault?.kind === 'ratelimited') return this.limited(fault.retryAfterSec, 'ratelimited');
    const body = this.socket.open(parsed.token);
    return fault?.kind === 'timeout' ? { status: 200, body, fault: 'timeout' } : { status: 200, body };
  }

  private limited(retryAfterSec: number, fault?: CallFault): Outcome {
    return {
      status: 429,
      body: fail('ratelimited'),
      headers: { 'retry-after': String(retryAfterSec) },
      ...(fault === undefined ? {} : { fault }),
    };
  }

  private emit<E extends SimSlackEvent>(event: E, payload: SimSlackEvents[E]): void {
    for (const listener of [...this.listeners[event]]) {
      try {
        listener(payload);
      } catch (error) {
        // A broken listener (a UI, a test) must not break the API it observes.
        process.emitWarning(`simulated Slack: a '${event}' listener threw: ${String(error)}`);
      }
    }
  }

  on<E extends SimSlackEvent>(event: E, listener: (payload: SimSlackEvents[E]) => void): () => void {
    const set = this.listeners[event] as Set<(payload: SimSlackEvents[E]) => void>;
    set.add(listener);
    return () => set.delete(listener);
  }

  /** Resolves with the predicate's first truthy value; `what` names it in the error when it does not come in time. */
  waitFor<T>(predicate: () => T | undefined | null | false, timeoutMs = 5000, what = 'the predicate'): Promise<T> {
    const events: SimSlackEvent[] = ['call', 'message', 'response', 'socket'];
    const subscribe = (check: () => void): (() => void)[] => events.map((e) => this.on(e, check));
    return waitUntil(
      predicate,
      subscribe,
      timeoutMs,
      () =>
        `simulated Slack: waitFor gave up on ${what} after ${timeoutMs} ms (${this.calls.length} calls recorded, ` +
        `the last: ${this.calls
          .slice(-5)
          .map((c) => c.method)
          .join(', ')})`,
    );
  }

  /** A channel's id by id or name; a user id stands for the app's DM with them (opened or not). */
  private channelId(ref: string): string {
    if (this.ws.users.has(ref) && ref !== this.ws.bot.botUserId) return this.ws.dmId(ref);
    return this.ws.findChannel(ref)?.id ?? ref;
  }

  dmChannel(user: string): string | undefined {
    const id = this.ws.dmId(user);
    return this.ws.channels.has(id) ? id : undefined;
  }

  dms(user: string): SimMessage[] {
    const id = this.dmChannel(user);
    return id === undefined ? [] : copy(this.ws.topLevel(id));
  }

  messages(channel: string): SimMessage[] {
    return copy(this.ws.topLevel(this.channelId(channel)));
  }

  replies(channel: string, threadTs: string): SimMessage[] {
    return copy(this.ws.thread(this.channelId(channel), threadTs));
  }

  ephemerals(channel: string, user?: string): SimEphemeral[] {
    return copy(this.ws.ephemerals(this.channelId(channel)).filter((e) => user === undefined || e.user === user));
  }

  responseUrl(id?: string, context: ResponseUrlContext = {}): string {
    return `${this.url}/response/${this.responseUrls.issue(id, context)}`;
  }

  commandAck(
    responseUrl: string,
    ack: { text: string; blocks?: unknown[] },
    command?: string,
  ): SimEphemeral | 'superseded' | undefined {
    const prefix = `${this.url}/response/`;
    if (!responseUrl.startsWith(prefix)) return undefined;
    const shown = this.responseUrls.showAck(decodeURIComponent(responseUrl.slice(prefix.length)), ack, command);
    return shown === undefined || shown === 'superseded' ? shown : copy(shown);
  }

  addUser(user: SimUser): void {
    this.ws.addUser(user);
  }

  addChannel(channel: SimChannel): void {
    this.ws.addChannel(channel);
  }

  addUsergroup(group: SimUsergroup): void {
    this.ws.addUsergroup(group);
  }

  postAsUser(channel: string, user: string, text: string, threadTs?: string): SimMessage {
    const found = this.ws.findChannel(channel);
    if (found === undefined) throw new Error(`simulated Slack: no channel ${channel}`);
    if (!this.ws.users.has(user)) throw new Error(`simulated Slack: no user ${user}`);
    return copy(this.ws.post(found.id, user, { text, threadTs }));
  }

  homeView(user: string): SimHomeView | undefined {
    const home = this.ws.homes.get(user);
    return home === undefined ? undefined : copy(home);
  }

  async openHome(user: string, app: SimEventTarget | 'socket'): Promise<{ status: number; ms: number }> {
    if (!this.ws.users.has(user)) throw new Error(`simulated Slack: no user ${user}`);
    const body = appHomeOpenedBody(this.ws.bot, user, this.now(), this.ws.homes.get(user)?.id);
    if (app !== 'socket') return deliverEvent(app, body, this.now());
    const started = performance.now();
    await this.socket.deliver('events_api', JSON.parse(body) as Record<string, unknown>, {
      timeoutMs: SOCKET_EVENT_TIMEOUT_MS,
    });
    return { status: 200, ms: performance.now() - started };
  }

  async close(): Promise<void> {
    this.socket.close();
    for (const res of this.held) res.socket?.destroy();
    this.held.clear();
    const closed = once(this.server, 'close');
    this.server.close();
    this.server.closeAllConnections();
    await closed;
  }
}

/** Starts the simulated Slack Web API on loopback; pass `sim.apiUrl` as the client's slackApiUrl. */
export async function startSimSlack(opts: SimSlackOptions = {}): Promise<SimSlack> {
  const sim = new SimSlackServer(opts);
  await sim.listen();
  return sim;
}
