// Counts every Web API call a client makes, by method and outcome (ok, or Slack's error).
import { webApi } from '@slack/bolt';

export type SlackCallObserver = (method: string, status: string) => void;

/** A WebClient whose every call — convenience methods included — is observed. */
export class ObservedWebClient extends webApi.WebClient {
  constructor(
    token: string,
    options: webApi.WebClientOptions,
    private readonly observe: SlackCallObserver,
  ) {
    super(token, options);
  }

  override async apiCall(method: string, options?: Record<string, unknown>): Promise<webApi.WebAPICallResult> {
    try {
      const result = await super.apiCall(method, options);
      this.observe(method, 'ok');
      return result;
    } catch (error) {
      this.observe(method, slackErrorStatus(error));
      throw error;
    }
  }
}

/**
 * The status label of a failed Slack call: the platform error (`not_in_channel`), `ratelimited`, `http_<code>`,
 * `timeout` or `request_error` — a small, bounded set, so the label cannot blow up cardinality.
 */
export function slackErrorStatus(error: unknown): string {
  const e = error as {
    code?: unknown;
    data?: { error?: unknown };
    statusCode?: unknown;
    original?: { code?: unknown };
  } | null;
  if (e?.code === 'slack_webapi_platform_error' && typeof e.data?.error === 'string') return e.data.error;
  if (e?.code === 'slack_webapi_rate_limited_error') return 'ratelimited';
  if (e?.code === 'slack_webapi_http_error' && typeof e.statusCode === 'number') return `http_${e.statusCode}`;
  const inner = e?.original?.code;
  if (inner === 'ECONNABORTED' || inner === 'ETIMEDOUT') return 'timeout';
  return 'request_error';
}
