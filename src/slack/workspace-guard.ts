// Who may use the bot (docs/configuration.md#who-may-use-the-bot): people of the allowed Slack teams
// (SLACK_ALLOWED_TEAMS, default the bot's own team and enterprise). A click names the clicker's own team; a command
// names the channel's host team and an event names none, so then the user's own team is read with users.info
// (cached). An enterprise in the list admits a person only by what users.info says of them: their own org
// (`enterprise_user.enterprise_id`) and one of its workspaces as their team. The enterprise a payload names is the
// install's, shared by every guest of a Slack Connect channel, so it is never taken as the person's.
import { SingleFlight } from '../concurrency/single-flight.js';
import type { WebClient } from '../slack-client/client.js';

/** Who asked: the user, and their own team when the payload names it (a click's `user.team_id`). */
export interface Asker {
  userId: string;
  /** The user's own team as Slack signed it (clicks, view submissions); undefined: users.info is asked. */
  ownTeamId?: string | undefined;
}

/** What users.info says of the user's own place: their team, and for Grid users their org and its workspaces. */
export interface OwnTeam {
  teamId?: string;
  enterpriseId?: string;
  enterpriseTeams?: readonly string[];
}

/** The user's own team and org (users.info). */
export type TeamLookup = (userId: string) => Promise<OwnTeam>;

export const REFUSED_OUTSIDER =
  'this bot serves only its own Slack workspace: your account belongs to another one (a shared channel does not change that), so nothing was done';
export const REFUSED_UNVERIFIED =
  'your Slack workspace could not be checked just now, so nothing was done; please try again';

const CACHE_MS = 10 * 60_000;

export class WorkspaceGuard {
  private readonly cache = new Map<string, { at: number; team: OwnTeam }>();
  /** A burst of one person's commands asks Slack once (docs/operating.md#under-a-burst). */
  private readonly lookups = new SingleFlight<string, OwnTeam>();

  constructor(
    private readonly allowed: ReadonlySet<string>,
    private readonly lookup: TeamLookup,
    private readonly now: () => number = Date.now,
  ) {}

  /** undefined when the asker may go on; else the private answer. Never throws (an unknown team is refused). */
  async refusal(asker: Asker): Promise<string | undefined> {
    if (asker.ownTeamId !== undefined && this.allowed.has(asker.ownTeamId)) return undefined;
    try {
      return this.admits(await this.teamOf(asker.userId)) ? undefined : REFUSED_OUTSIDER;
    } catch {
      return REFUSED_UNVERIFIED;
    }
  }

  /** The user's team is allowed, or their own org is and that team is one of its workspaces (or the org itself). */
  private admits(own: OwnTeam): boolean {
    const { teamId, enterpriseId, enterpriseTeams = [] } = own;
    if (teamId === undefined) return false;
    if (this.allowed.has(teamId)) return true;
    if (enterpriseId === undefined || !this.allowed.has(enterpriseId)) return false;
    return teamId === enterpriseId || enterpriseTeams.includes(teamId);
  }

  private cached(userId: string): OwnTeam | undefined {
    const hit = this.cache.get(userId);
    return hit && this.now() - hit.at < CACHE_MS ? hit.team : undefined;
  }

  private async teamOf(userId: string): Promise<OwnTeam> {
    const hit = this.cached(userId);
    if (hit) return hit;
    return this.lookups.run(userId, async () => {
      const team = await this.lookup(userId);
      this.cache.set(userId, { at: this.now(), team });
      return team;
    });
  }
}

/** users.info (needs `users:read`): the user's own team, and their org and its workspaces for Grid users. */
export function usersInfoTeams(client: WebClient): TeamLookup {
  return async (userId) => {
    const result = await client.users.info({ user: userId });
    const user = result.user as
      { team_id?: string; enterprise_user?: { enterprise_id?: string; teams?: string[] } } | undefined;
    if (user === undefined) throw new Error(`users.info named no user for ${userId}`);
    const org = user.enterprise_user;
    return {
      ...(user.team_id ? { teamId: user.team_id } : {}),
      ...(org?.enterprise_id ? { enterpriseId: org.enterprise_id } : {}),
      ...(Array.isArray(org?.teams) ? { enterpriseTeams: org.teams.filter((t) => typeof t === 'string') } : {}),
    };
  };
}
