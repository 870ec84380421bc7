// The bot's Slack-side port implementations: user group members, the response_url responder and the bot's
// identity (auth.test). The WebClient itself is built in src/slack-client.
import type { ChannelMembership, Responder, ResponseMessage, UsergroupMembers } from '../app/ports/index.js';
import type { Agent } from 'node:http';
import type { WebClient } from '../slack-client/client.js';
import { postJson } from '../slack-client/proxy.js';

export const RESPONSE_URL_TIMEOUT_MS = 10_000;

export interface BotIdentity {
  botUserId: string;
  botId: string;
  /** The bot user's name, for "/invite @<name>". */
  botName: string;
  /**
   * The bot's own team (and enterprise): the default of SLACK_ALLOWED_TEAMS
   * (docs/configuration.md#who-may-use-the-bot).
   */
  teamId?: string;
  enterpriseId?: string;
}

/** auth.test, once at start: Bolt then needs no Slack call on the request path before the ack. */
export async function resolveBotIdentity(client: WebClient): Promise<BotIdentity> {
  const result = await client.auth.test();
  if (!result.user_id || !result.bot_id)
    throw new Error('auth.test did not name the bot user (is SLACK_BOT_TOKEN a bot token?)');
  return {
    botUserId: result.user_id,
    botId: result.bot_id,
    botName: result.user ?? 'flink-ops',
    ...(result.team_id ? { teamId: result.team_id } : {}),
    ...(result.enterprise_id ? { enterpriseId: result.enterprise_id } : {}),
  };
}

/** `usergroups.users.list` (needs `usergroups:read`); GroupMembership caches the answers. */
export function usergroupMembers(client: WebClient): UsergroupMembers {
  return async (usergroup) => {
    const result = await client.usergroups.users.list({ usergroup });
    return result.users ?? [];
  };
}

/** Pages of 1000 members read per channel before the answer is `unknown` (docs/policy.md#incident-channels). */
export const MEMBER_PAGES = 5;

/**
 * `conversations.members` (needs `channels:read`, `groups:read`), at most MEMBER_PAGES pages of 1000: a channel the bot
 * cannot see, or a member not found within the bound of a larger channel, is `unknown`.
 */
export function channelMembership(client: WebClient): ChannelMembership {
  return async (channel, user) => {
    let cursor: string | undefined;
    for (let page = 0; page < MEMBER_PAGES; page++) {
      let result;
      try {
        result = await client.conversations.members({ channel, limit: 1000, ...(cursor ? { cursor } : {}) });
      } catch {
        return 'unknown';
      }
      if (result.members?.includes(user)) return 'member';
      cursor = result.response_metadata?.next_cursor || undefined;
      if (cursor === undefined) return 'not-member';
    }
    return 'unknown';
  };
}

/**
 * Posts to a `response_url` (5 uses within 30 minutes; docs/lifecycle.md#what-slack-allows) with a deadline, through
 * `agent` — the egress proxy's (`slackAgent(config.proxy)`), as every Slack call (docs/configuration.md#configuration);
 * global fetch would ignore it.
 */
export class FetchResponder implements Responder {
  constructor(
    private readonly timeoutMs = RESPONSE_URL_TIMEOUT_MS,
    private readonly agent?: Agent,
  ) {}

  async respond(responseUrl: string, message: ResponseMessage): Promise<void> {
    const response = await postJson(responseUrl, message, { agent: this.agent, timeoutMs: this.timeoutMs });
    if (response.status < 200 || response.status > 299)
      throw new Error(`the response_url answered ${response.status}: ${response.text.slice(0, 200)}`);
  }
}
