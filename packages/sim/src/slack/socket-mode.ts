// Socket Mode in the simulated Slack: `apps.connections.open` hands out one-use WebSocket URLs; each connection gets
// `hello`, then envelopes (`slash_commands`, `interactive`, `events_api`) that the app acknowledges by sending back
// `{envelope_id, payload?}` within 3 s. Slack may recycle a connection (`disconnect` with a reason) or lose it. An
// event not acknowledged in time is retried on a link (an app that acted on it before its ack was lost sees it
// twice); a command or click is not: the person sees an error and nothing comes again (socket-retries.ts). The links
// are this file's; the envelopes' attempts on them are socket-envelopes.ts's.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { fail, type SlackBody } from './content.js';
import { SocketEnvelopes } from './socket-envelopes.js';
import { SLACK_SOCKET_TIMING } from './socket-retries.js';
import type {
  SimSocketAck,
  SimSocketDelivery,
  SimSocketEnvelopeType,
  SimSocketEvent,
  SimSocketMode,
  SimSocketOptions,
  SocketDisconnectReason,
} from './types.js';

const LINK_PATH = '/link/';
/** Slack pings its side of the link every few seconds; the client gives up after 30 s without one. */
const DEFAULT_PING_INTERVAL_MS = 5_000;
/** Slack closes a connection it asked to refresh if the app has not done so itself. */
const DEFAULT_DISCONNECT_GRACE_MS = 1_000;
/** After `warning`, Slack keeps the link up about ten seconds before it refreshes it. */
const WARNING_GRACE_MS = 10_000;
const TICKET_TTL_MS = 60_000;
/** "up to 10 open WebSocket connections at the same time" (docs/lifecycle.md#what-slack-allows). */
const MAX_CONNECTIONS = 10;

interface Connection {
  id: number;
  socket: WebSocket;
  ping: NodeJS.Timeout;
  /** `hello` sent: envelopes may go out. */
  open: boolean;
  timers: NodeJS.Timeout[];
}

export interface SocketModeDeps {
  appId: string;
  now: () => number;
  emit: (event: SimSocketEvent) => void;
}

export class SimSocketServer implements SimSocketMode {
  readonly strayAcks: { envelopeId: string; payload: unknown; at: number; connection: number }[] = [];
  private readonly wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  private readonly tickets = new Map<string, number>();
  private readonly connections = new Set<Connection>();
  private readonly connectionWaiters = new Set<() => void>();
  private nextConnection = 0;
  private refusing = false;
  private acksToLose = 0;
  private dropsAfterSend = 0;
  private closesAfterSend = 0;
  private baseUrl = '';
  private readonly envelopes: SocketEnvelopes<Connection>;

  constructor(
    private readonly opts: SimSocketOptions,
    private readonly deps: SocketModeDeps,
  ) {
    this.envelopes = new SocketEnvelopes<Connection>({
      timing: {
        ackDeadlineMs: opts.ackDeadlineMs ?? SLACK_SOCKET_TIMING.ackDeadlineMs,
        eventRetryDelaysMs: opts.eventRetryDelaysMs ?? SLACK_SOCKET_TIMING.eventRetryDelaysMs,
      },
      now: deps.now,
      emit: deps.emit,
      openLinks: () => [...this.connections].filter((c) => c.open && c.socket.readyState === c.socket.OPEN),
      send: (c, message) => this.send(c, message),
      afterSend: (c) => this.cutAfterSend(c),
    });
  }

  /** Serves the WebSocket upgrades of `server` (whose base URL is `baseUrl`, http://…). */
  attach(server: Server, baseUrl: string): void {
    this.baseUrl = baseUrl.replace(/^http/, 'ws');
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.upgrade(req, socket, head));
  }

  get connectionCount(): number {
    return [...this.connections].filter((c) => c.open).length;
  }

  get deliveries(): SimSocketDelivery[] {
    return this.envelopes.deliveries;
  }

  get acks(): SimSocketAck[] {
    return this.envelopes.acks;
  }

  get unacknowledged(): SimSocketDelivery[] {
    return this.envelopes.unacknowledged;
  }

  /** `apps.connections.open`: an app-level token (xapp-…) gets a one-use URL; a bot or user token is the wrong type. */
  open(token: string): SlackBody {
    if (!token.startsWith('xapp-')) return fail('not_allowed_token_type');
    if (this.opts.appToken !== undefined && token !== this.opts.appToken) return fail('invalid_auth');
    const now = this.deps.now();
    for (const [ticket, at] of this.tickets) if (at < now - TICKET_TTL_MS) this.tickets.delete(ticket);
    const ticket = randomBytes(16).toString('hex');
    this.tickets.set(ticket, now);
    return { ok: true, url: `${this.baseUrl}${LINK_PATH}?ticket=${ticket}&app_id=${this.deps.appId}` };
  }

  deliver(
    type: SimSocketEnvelopeType,
    payload: Record<string, unknown>,
    options: { timeoutMs?: number } = {},
  ): Promise<SimSocketAck> {
    const { delivery, acked } = this.envelopes.deliver(type, payload);
    const timeoutMs = options.timeoutMs;
    if (timeoutMs === undefined) return acked;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new Error(
              `simulated Slack: envelope ${delivery.envelopeId} (${type}) not acknowledged within ${timeoutMs} ms (${delivery.sends.length} sends)`,
            ),
          ),
        timeoutMs,
      );
    });
    return Promise.race([acked, deadline]).finally(() => clearTimeout(timer));
  }

  disconnect(reason: SocketDisconnectReason = 'refresh_requested', options: { graceMs?: number } = {}): number {
    const open = [...this.connections].filter((c) => c.open);
    const graceMs = options.graceMs ?? (reason === 'warning' ? WARNING_GRACE_MS : DEFAULT_DISCONNECT_GRACE_MS);
    for (const c of open) {
      this.send(c, { type: 'disconnect', reason, debug_info: { host: `applink-sim-${c.id}` } });
      // After `warning` the link still carries envelopes; after a refresh request new ones wait for the next link.
      if (reason !== 'warning') c.open = false;
      // Slack closes the link itself if the app does not: a normal close, not a drop.
      c.timers.push(setTimeout(() => c.socket.close(1000, reason), graceMs));
    }
    return open.length;
  }

  drop(): number {
    const all = [...this.connections];
    for (const c of all) c.socket.terminate();
    return all.length;
  }

  refuse(refusing: boolean): void {
    this.refusing = refusing;
  }

  loseNextAck(times = 1): void {
    this.acksToLose += times;
  }

  dropAfterNextSend(times = 1): void {
    this.dropsAfterSend += times;
  }

  closeAfterNextSend(times = 1): void {
    this.closesAfterSend += times;
  }

  /** Resolves once `count` connections have had their `hello` (woken by each new one, not polled). */
  waitForConnections(count = 1, timeoutMs = 15_000): Promise<void> {
    if (this.connectionCount >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const wake = (): void => {
        if (this.connectionCount < count) return;
        this.connectionWaiters.delete(wake);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.connectionWaiters.delete(wake);
        reject(
          new Error(
            `simulated Slack: ${this.connectionCount} Socket Mode connection(s) after ${timeoutMs} ms, wanted ${count}`,
          ),
        );
      }, timeoutMs);
      this.connectionWaiters.add(wake);
    });
  }

  close(): void {
    this.envelopes.close();
    for (const c of this.connections) this.forget(c);
    for (const client of this.wss.clients) client.terminate();
    this.wss.close();
  }

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'http://sim.invalid');
    const ticket = url.searchParams.get('ticket') ?? '';
    const reject = (status: number, text: string): void => {
      socket.end(`HTTP/1.1 ${status} ${text}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
    };
    if (url.pathname !== LINK_PATH) return reject(404, 'Not Found');
    // A ticket is good once, and only for a minute.
    const issued = this.tickets.get(ticket);
    this.tickets.delete(ticket);
    if (issued === undefined) return reject(401, 'Unauthorized');
    if (this.refusing) return reject(503, 'Service Unavailable');
    if (this.connections.size >= MAX_CONNECTIONS) return reject(429, 'Too Many Requests');
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws));
  }

  private accept(socket: WebSocket): void {
    const c: Connection = {
      id: ++this.nextConnection,
      socket,
      open: false,
      timers: [],
      ping: setInterval(() => socket.ping(), this.opts.pingIntervalMs ?? DEFAULT_PING_INTERVAL_MS),
    };
    this.connections.add(c);
    socket.on('message', (data, isBinary) => this.receive(c, data, isBinary));
    socket.on('close', () => this.closed(c));
    socket.on('error', () => socket.terminate());
    this.send(c, {
      type: 'hello',
      num_connections: this.connections.size,
      debug_info: { host: `applink-sim-${c.id}`, build_number: 1, approximate_connection_time: 18060 },
      connection_info: { app_id: this.deps.appId },
    });
    c.open = true;
    for (const wake of [...this.connectionWaiters]) wake();
    this.deps.emit({ kind: 'connected', connection: c.id, at: this.deps.now() });
    this.envelopes.flush();
  }

  private receive(c: Connection, data: RawData, isBinary: boolean): void {
    if (isBinary) return;
    let message: { envelope_id?: unknown; payload?: unknown };
    try {
      message = JSON.parse(String(data)) as typeof message;
    } catch {
      return;
    }
    if (typeof message.envelope_id !== 'string') return;
    const at = this.deps.now();
    if (this.acksToLose > 0) {
      // The ack was written by the app but never reached Slack: the link breaks under it.
      this.acksToLose -= 1;
      this.deps.emit({ kind: 'ack-lost', connection: c.id, envelopeId: message.envelope_id, at });
      c.socket.terminate();
      return;
    }
    const payload =
      message.payload !== null && typeof message.payload === 'object'
        ? (message.payload as Record<string, unknown>)
        : {};
    if (this.envelopes.acknowledge(c, message.envelope_id, payload, at)) return;
    this.strayAcks.push({ envelopeId: message.envelope_id, payload: message.payload, at, connection: c.id });
    this.deps.emit({ kind: 'stray-ack', connection: c.id, envelopeId: message.envelope_id, at });
  }

  private closed(c: Connection): void {
    this.forget(c);
    this.envelopes.linkClosed(c);
    this.deps.emit({ kind: 'closed', connection: c.id, at: this.deps.now() });
    this.envelopes.flush();
  }

  private forget(c: Connection): void {
    clearInterval(c.ping);
    c.timers.forEach((t) => clearTimeout(t));
    c.open = false;
    this.connections.delete(c);
  }

  /** `dropAfterNextSend` (no close frame) and `closeAfterNextSend` (a close frame right behind the envelope). */
  private cutAfterSend(c: Connection): void {
    if (this.dropsAfterSend > 0) {
      this.dropsAfterSend -= 1;
      c.socket.terminate();
    } else if (this.closesAfterSend > 0) {
      this.closesAfterSend -= 1;
      c.open = false;
      c.socket.close(1001, 'link closed');
    }
  }

  private send(c: Connection, message: Record<string, unknown>): void {
    if (c.socket.readyState === c.socket.OPEN) c.socket.send(JSON.stringify(message));
  }
}
