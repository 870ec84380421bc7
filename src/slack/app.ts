// The Bolt 4.7 app: HTTP receiver at /slack/events (or Socket Mode with an app token), our handlers, custom routes.
import { App, HTTPReceiver, SocketModeReceiver, type CustomRoute } from '@slack/bolt';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { registerActionHandlers } from './action-handler.js';
import { registerAlertActions } from './alert-actions.js';
import { registerCommandHandler, type HandlerDeps } from './command-handler.js';
import { registerHomeHandlers } from './home-handler.js';
import { edgeGuard } from './edge-guard.js';
import { boltLogger, clientOptions } from '../slack-client/client.js';
import type { BotIdentity } from './slack-ports.js';
import { socketAcks, type DeliveryClaims } from './redelivery.js';
import type { SocketLink } from './socket-link.js';
import type { SeenRequests } from '../store/seen-signatures.js';
import { gateSlackRequests } from './request-gate.js';

export interface BotAppOptions {
  config: Pick<Config, 'slack' | 'port'> & { readonly proxy?: Config['proxy'] };
  /** From auth.test at start, so Bolt makes no Slack call before an ack. */
  identity: Pick<BotIdentity, 'botId' | 'botUserId'>;
  handlers: HandlerDeps;
  logger: Logger;
  /** /healthz, /readyz, /metrics and the like, served next to /slack/events (or on `port` in Socket Mode). */
  customRoutes?: CustomRoute[];
  /** Socket Mode only: follows the link for /readyz, drops events Slack retries, answers commands whose ack was lost. */
  socket?: { link?: SocketLink; claims?: DeliveryClaims; pingTimeoutMs?: number };
  /** HTTP mode only: where the signatures already admitted are remembered (docs/deployment.md#request-limits). */
  seen?: SeenRequests;
}

/**
 * apps.connections.open is retried by the socket client (a reconnect must not give up on a blip, and its
 * network errors would otherwise end in an unhandled rejection); the rest of clientOptions (URL, proxy agent) holds.
 */
const SOCKET_OPEN_RETRIES = { retries: 100, factor: 1.3, maxTimeout: 30_000 };

export function createBotApp(opts: BotAppOptions): App {
  const { slack } = opts.config;
  if (!slack.botToken) throw new Error('SLACK_BOT_TOKEN is required for the bot');
  // Its `agent` (the egress proxy) serves Bolt's client and, in Socket Mode, apps.connections.open and the WebSocket;
  // as Bolt's own `agent` it also serves Bolt's response_url helper (unused: our Responder posts those).
  const webClientOptions = clientOptions({ slack, proxy: opts.config.proxy }, opts.logger);
  const common = {
    token: slack.botToken,
    botId: opts.identity.botId,
    botUserId: opts.identity.botUserId,
    tokenVerificationEnabled: false,
    logger: boltLogger(opts.logger, 'bolt'),
    clientOptions: webClientOptions,
    ...(webClientOptions.agent ? { agent: webClientOptions.agent } : {}),
    customRoutes: opts.customRoutes ?? [],
    // Conversation state lives in Redis (the store); Bolt's in-memory store would differ between replicas.
    convoStore: false as const,
  };
  let app: App;
  if (slack.socketMode) {
    if (!slack.appToken) throw new Error('Socket Mode needs SLACK_APP_TOKEN');
    // Our own receiver, as App would build it, plus the client's ping timeout (also its reconnect delay).
    const receiver = new SocketModeReceiver({
      appToken: slack.appToken,
      logger: common.logger,
      customRoutes: common.customRoutes,
      installerOptions: {
        port: opts.config.port,
        clientOptions: { ...common.clientOptions, retryConfig: SOCKET_OPEN_RETRIES },
      },
      autoReconnectEnabled: true,
      ...(opts.socket?.pingTimeoutMs === undefined ? {} : { clientPingTimeout: opts.socket.pingTimeoutMs }),
    });
    opts.socket?.link?.watch(receiver.client);
    app = new App({ ...common, socketMode: true, receiver });
    if (opts.socket?.claims)
      app.use(socketAcks({ claims: opts.socket.claims, responder: opts.handlers.responder, logger: opts.logger }));
  } else {
    if (!slack.signingSecret) throw new Error('SLACK_SIGNING_SECRET is required in HTTP mode');
    if (!opts.seen) throw new Error('HTTP mode needs a store of the signatures already received');
    // Bolt's receiver as App would build it, behind our gate: headers, size and replay are judged before Bolt reads.
    const receiver = new HTTPReceiver({
      signingSecret: slack.signingSecret,
      customRoutes: common.customRoutes,
      logger: common.logger,
    });
    receiver.requestListener = gateSlackRequests(receiver.requestListener, {
      signingSecret: slack.signingSecret,
      seen: opts.seen,
      logger: opts.logger,
    });
    app = new App({ ...common, receiver });
  }
  // Who is asking, and how often, before any handler (docs/configuration.md#who-may-use-the-bot).
  app.use(edgeGuard(opts.handlers));
  registerCommandHandler(app, opts.handlers);
  registerActionHandlers(app, opts.handlers);
  registerAlertActions(app, opts.handlers);
  registerHomeHandlers(app, opts.handlers);
  app.error(async (error) => {
    opts.logger.error({ err: error }, 'Bolt could not process a request');
  });
  return app;
}
