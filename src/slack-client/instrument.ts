// Counts every Web API call a client makes, by method and outcome (ok, or Slack's error).
import { webApi } from '@slack/bolt';
import { slackErrorStatus } from '../http/metrics.js';

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
