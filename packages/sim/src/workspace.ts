// The sandbox's simulated Slack workspace (the people and channels of packages/sim/sandbox-policy.yaml) and how Slack
// encodes what they type (should_escape: true): entities first, then #channel, @person and @group as links.
import type { SimChannel, SimUser, SimUsergroup } from './slack-api.js';

export const TEAM = {
  teamId: 'T0SANDBOX',
  teamDomain: 'sandbox',
  teamName: 'Flink ChatOps sandbox',
  appId: 'A0FLINKOPS',
} as const;
export const BOT = { botUserId: 'U0FLINKBOT', botId: 'B0FLINKBOT', botName: 'flink-chatops' } as const;

export interface SandboxUser extends SimUser {
  real_name: string;
  /** What the page says about them next to the policy groups they are in. */
  title: string;
}

export const USERS: readonly SandboxUser[] = [
  { id: 'U0ALICE', name: 'alice', real_name: 'Alice Andersen', title: 'on-call engineer (requester)' },
  { id: 'U0LEAD1', name: 'lena', real_name: 'Lena Lindqvist', title: 'team lead (approver)' },
  { id: 'U0LEAD2', name: 'li', real_name: 'Li Wei', title: 'team lead through @flink-leads (approver)' },
  { id: 'U0BOB', name: 'bob', real_name: 'Bob Brown', title: 'developer (neither on-call nor lead)' },
  // Another workspace's member of the shared channel: the bot refuses their commands and clicks
  // (docs/configuration.md#who-may-use-the-bot).
  {
    id: 'U0GUEST',
    name: 'gus',
    real_name: 'Gus Gast',
    title: 'Slack Connect guest from partner-corp (another workspace: refused)',
    team_id: 'T0PARTNER',
  },
];

export const CHANNELS: readonly (SimChannel & { topic: string })[] = [
  { id: 'C0DATAPLATFORM', name: 'data-platform', topic: 'Flink jobs of the data platform. Type /flink help' },
  { id: 'C0INCIDENTS', name: 'incidents', topic: 'Incident digests: every production operation starts and ends here' },
];

export const USERGROUPS: readonly SimUsergroup[] = [
  { id: 'S0LEADS', handle: 'flink-leads', name: 'Flink leads', users: ['U0LEAD1', 'U0LEAD2'] },
];

/** The text of a message or slash command as Slack delivers it when the person typed `typed`. */
export function encodeTyped(typed: string): string {
  const escaped = typed.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
  return escaped.replace(
    /(^|[\s(])([#@])([a-z0-9][a-z0-9._-]*)/gi,
    (all, lead: string, sigil: string, word: string) => {
      const name = word.replace(/[.]+$/, '');
      const rest = word.slice(name.length);
      const lower = name.toLowerCase();
      if (sigil === '#') {
        const channel = CHANNELS.find((c) => c.name === lower);
        return channel ? `${lead}<#${channel.id}|${channel.name}>${rest}` : all;
      }
      const user =
        USERS.find((u) => u.name === lower) ??
        (lower === BOT.botName ? { id: BOT.botUserId, name: BOT.botName } : undefined);
      if (user) return `${lead}<@${user.id}|${user.name}>${rest}`;
      const group = USERGROUPS.find((g) => g.handle === lower);
      if (group) return `${lead}<!subteam^${group.id}|@${group.handle}>${rest}`;
      if (lower === 'here' || lower === 'channel' || lower === 'everyone') return `${lead}<!${lower}>${rest}`;
      return all;
    },
  );
}
