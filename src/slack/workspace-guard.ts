// Who may use the bot (docs/configuration.md#who-may-use-the-bot): people of the allowed Slack teams
// (SLACK_ALLOWED_TEAMS, default the bot's own team). A click names the clicker's own team; a command names the
// channel's host team, so in a shared channel (Slack Connect) the user's own team is read with users.info (cached).
// Everyone else is refused privately and nothing is recorded.
import { SingleFlight } from '../concurrency/single-flight.js';
import type { WebClient } from '../slack-client/client.js';

/** Who asked: the user, the team and enterprise the payload names, and whether that team is the user's own. */
export interface Asker {
  userId: string;
  teamId: string | undefined;
  enterpriseId: string | undefined;
  /** True for clicks (`user.team_id`); false for commands, whose `team_id` is the channel's host team. */
  ownTeam: boolean;
}

/** The user's own team and enterprise (users.info). */
export type TeamLookup = (userId: string) => Promise<{ teamId?: string; enterpriseId?: string }>;

export const REFUSED_OUTSIDER =
  'this bot serves only its own Slack workspace: your account belongs to another one (a shared channel does not change that), so nothing was done';
export const REFUSED_UNVERIFIED =
  'your Slack workspace could not be checked just now, so nothing was done; please try again';

const CACHE_MS = 10 * 60_000;

export class WorkspaceGuard {
  private readonly cache = new Map<string, { at: number; team: { teamId?: string; enterpriseId?: string } }>();
  /** A burst of one person's commands asks Slack once (docs/operating.md#under-a-burst). */
  private readonly lookups = new SingleFlight<string, { teamId?: string; enterpriseId?: string }>();

  constructor(
    private readonly allowed: ReadonlySet<string>,
    private readonly lookup: TeamLookup,
    private readonly now: () => number = Date.now,
  ) {}

  /** undefined when the asker may go on; else the private answer. Never throws (an unknown team is refused). */
  async refusal(asker: Asker): Promise<string | undefined> {
    if (asker.ownTeam) return this.admits(asker.teamId, asker.enterpriseId) ? undefined : REFUSED_OUTSIDER;
    try {
      const own = await this.teamOf(asker.userId);
      return this.admits(own.teamId ?? asker.teamId, own.enterpriseId ?? asker.enterpriseId)
        ? undefined
        : REFUSED_OUTSIDER;
    } catch {
      return REFUSED_UNVERIFIED;
    }
  }

  private admits(teamId: string | undefined, enterpriseId: string | undefined): boolean {
    return (
      (teamId !== undefined && this.allowed.has(teamId)) ||
      (enterpriseId !== undefined && this.allowed.has(enterpriseId))
    );
  }

  private async teamOf(userId: string): Promise<{ teamId?: string; enterpriseId?: string }> {
    const hit = this.cache.get(userId);
    if (hit && this.now() - hit.at < CACHE_MS) return hit.team;
    return this.lookups.run(userId, async () => {
      const team = await this.lookup(userId);
      this.cache.set(userId, { at: this.now(), team });
      return team;
    });
  }
}

/** users.info (needs `users:read`): the user's own team, and enterprise for org installs. */
export function usersInfoTeams(client: WebClient): TeamLookup {
  return async (userId) => {
    const result = await client.users.info({ user: userId });
    const user = result.user as { team_id?: string; enterprise_user?: { enterprise_id?: string } } | undefined;
    if (user === undefined) throw new Error(`users.info named no user for ${userId}`);
    return {
      ...(user.team_id ? { teamId: user.team_id } : {}),
      ...(user.enterprise_user?.enterprise_id ? { enterpriseId: user.enterprise_user.enterprise_id } : {}),
    };
  };
}
