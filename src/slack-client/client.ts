// The one way this code builds a Slack WebClient (bot, notifier and Bolt app alike), its logger, and the metadata
// type and error codes every Slack caller shares.
import { LogLevel, webApi, type Logger as BoltLogger } from '@slack/bolt';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { ObservedWebClient, type SlackCallObserver } from './instrument.js';
import { slackAgent } from './proxy.js';

export type WebClient = webApi.WebClient;

/**
 * What a Slack client is built from: the Slack settings and, when set, the egress proxy
 * (docs/configuration.md#configuration).
 */
export type SlackClientConfig = Pick<Config, 'slack'> & { readonly proxy?: Config['proxy'] };

/** Slack API calls from the request path give up quickly: a slow Slack must not hold a request for minutes. */
export const SLACK_CALL_TIMEOUT_MS = 10_000;

/** The `event_type` of every message metadata we post (docs/lifecycle.md#delivery-and-pacing). */
export const METADATA_EVENT_TYPE = 'flink_chatops';

/** Bolt's logger interface over pino, so Bolt and the WebClient log JSON lines like everything else. */
export function boltLogger(logger: Logger, name = 'slack'): BoltLogger {
  const child = logger.child({ component: name });
  let level: LogLevel = LogLevel.INFO;
  const line = (parts: unknown[]): string =>
    parts.map((p) => (p instanceof Error ? p.message : typeof p === 'string' ? p : JSON.stringify(p))).join(' ');
  return {
    debug: (...m: unknown[]) => child.debug(line(m)),
    info: (...m: unknown[]) => child.info(line(m)),
    warn: (...m: unknown[]) => child.warn(line(m)),
    error: (...m: unknown[]) => child.error(line(m)),
    setLevel: (l: LogLevel) => {
      level = l;
    },
    getLevel: () => level,
    setName: () => undefined,
  };
}

/**
 * The WebClient options the bot uses everywhere (docs/lifecycle.md#what-slack-allows): no retries and rate-limited
 * calls rejected, so a timed-out post is never sent twice behind our back, and a timeout on every call; `agent` sends
 * every call through HTTPS_PROXY / HTTP_PROXY unless NO_PROXY says otherwise (./proxy.ts). Bolt hands these options on
 * to Socket Mode, whose apps.connections.open call and WebSocket then use the same agent.
 */
export function clientOptions(config: SlackClientConfig, logger?: Logger): webApi.WebClientOptions {
  const agent = slackAgent(config.proxy);
  return {
    slackApiUrl: config.slack.apiUrl,
    ...(agent ? { agent } : {}),
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: SLACK_CALL_TIMEOUT_MS,
    ...(logger ? { logger: boltLogger(logger, 'slack-web-api') } : {}),
  };
}

/**
 * The one way this code builds a WebClient: no retries of its own (callers decide), 429s rejected with their
 * Retry-After, a timeout; `onCall` observes every call (metrics) — including the convenience methods, which the
 * client binds to `apiCall` when it is constructed, hence the subclass.
 */
export function createSlackClient(
  config: SlackClientConfig,
  opts: { logger?: Logger; timeoutMs?: number; onCall?: SlackCallObserver } = {},
): WebClient {
  const token = config.slack.botToken;
  if (token === undefined || token === '') throw new Error('the Slack client needs SLACK_BOT_TOKEN (xoxb-…)');
  const options = {
    ...clientOptions(config, opts.logger),
    ...(opts.timeoutMs === undefined ? {} : { timeout: opts.timeoutMs }),
  };
  return opts.onCall ? new ObservedWebClient(token, options, opts.onCall) : new webApi.WebClient(token, options);
}

/** Slack's error code of a failed call (`not_in_channel`, `ratelimited`, `request_timeout`, …). */
export function slackErrorCode(error: unknown): string {
  const e = error as { code?: string; data?: { error?: string }; statusCode?: number; original?: { message?: string } };
  if (e.code === webApi.ErrorCode.PlatformError) return e.data?.error ?? 'platform_error';
  if (e.code === webApi.ErrorCode.RateLimitedError) return 'ratelimited';
  if (e.code === webApi.ErrorCode.HTTPError) return `http_error_${e.statusCode ?? 'unknown'}`;
  if (e.code === webApi.ErrorCode.RequestError)
    return /timeout/i.test(e.original?.message ?? '') ? 'request_timeout' : 'request_failed';
  return error instanceof Error ? error.message : String(error);
}
