// The Bolt 4.7 app: HTTP receiver at /slack/events (or Socket Mode with an app token), our handlers, custom routes.
import { App, type CustomRoute } from '@slack/bolt';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { registerActionHandlers } from './action-handler.js';
import { registerCommandHandler, type HandlerDeps } from './command-handler.js';
import { registerHomeHandlers } from './home-handler.js';
import { boltLogger, clientOptions } from '../slack-client/client.js';
import type { BotIdentity } from './slack-ports.js';

export interface BotAppOptions {
  config: Pick<Config, 'slack' | 'port'>;
  /** From auth.test at start, so Bolt makes no Slack call before an ack. */
  identity: Pick<BotIdentity, 'botId' | 'botUserId'>;
  handlers: HandlerDeps;
  logger: Logger;
  /** /healthz, /readyz, /metrics and the like, served next to /slack/events (or on `port` in Socket Mode). */
  customRoutes?: CustomRoute[];
}

export function createBotApp(opts: BotAppOptions): App {
  const { slack } = opts.config;
  if (!slack.botToken) throw new Error('SLACK_BOT_TOKEN is required for the bot');
  const common = {
    token: slack.botToken,
    botId: opts.identity.botId,
    botUserId: opts.identity.botUserId,
    tokenVerificationEnabled: false,
    logger: boltLogger(opts.logger, 'bolt'),
    clientOptions: clientOptions({ slack }, opts.logger),
    customRoutes: opts.customRoutes ?? [],
    // Conversation state lives in Redis (the store); Bolt's in-memory store would differ between replicas.
    convoStore: false as const,
  };
  let app: App;
  if (slack.socketMode) {
    if (!slack.appToken) throw new Error('Socket Mode needs SLACK_APP_TOKEN');
    app = new App({ ...common, socketMode: true, appToken: slack.appToken, port: opts.config.port });
  } else {
    if (!slack.signingSecret) throw new Error('SLACK_SIGNING_SECRET is required in HTTP mode');
    app = new App({ ...common, signingSecret: slack.signingSecret });
  }
  registerCommandHandler(app, opts.handlers);
  registerActionHandlers(app, opts.handlers);
  registerHomeHandlers(app, opts.handlers);
  app.error(async (error) => {
    opts.logger.error({ err: error }, 'Bolt could not process a request');
  });
  return app;
}
