// Slack user-group membership behind the policy's groups: listed users plus user groups resolved through an injected,
// cached resolver (state that lives in the bot's process, so it is an application service, not the pure domain).
import type { MembershipLookup } from '../domain/engines/policy/groups.js';
import type { Policy } from '../domain/engines/policy/schema.js';

export type { MembershipLookup } from '../domain/engines/policy/groups.js';
export { approverGroups, isRequester } from '../domain/engines/policy/groups.js';

export interface GroupMembershipOptions {
  /** How long a resolved user group is trusted; default 5 minutes. */
  ttlMs?: number;
  /** Clock for the cache (epoch ms). */
  now?: () => number;
}

export const DEFAULT_USERGROUP_TTL_MS = 5 * 60_000;

export class UsergroupResolutionError extends Error {
  constructor(
    readonly usergroup: string,
    cause: unknown,
  ) {
    super(
      `could not resolve Slack user group ${usergroup}: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
    this.name = 'UsergroupResolutionError';
  }
}

export class GroupMembership implements MembershipLookup {
  private readonly ttlMs: number;
  private readonly now: () => number;
  private readonly cache = new Map<string, { members: Set<string>; expiresAt: number }>();
  private readonly pending = new Map<string, Promise<Set<string>>>();

  constructor(
    private readonly policy: Pick<Policy, 'groups'>,
    private readonly resolveUsergroup: (id: string) => Promise<string[]>,
    opts: GroupMembershipOptions = {},
  ) {
    this.ttlMs = opts.ttlMs ?? DEFAULT_USERGROUP_TTL_MS;
    // The domain never reads the clock itself; callers without a clock get wall time at the edge.
    this.now = opts.now ?? (() => Date.now());
  }

  /** Listed users are checked first, so a user group is resolved only when needed. */
  async isMember(user: string, group: string): Promise<boolean> {
    const def = Object.hasOwn(this.policy.groups, group) ? this.policy.groups[group] : undefined;
    if (!def) return false;
    if (def.users.includes(user)) return true;
    for (const id of def.usergroups) {
      if ((await this.members(id)).has(user)) return true;
    }
    return false;
  }

  /** Everyone in a policy group: its listed users, then its user groups' members (resolved, cached), each once. */
  async usersOf(group: string): Promise<string[]> {
    const def = Object.hasOwn(this.policy.groups, group) ? this.policy.groups[group] : undefined;
    if (!def) return [];
    const users = [...def.users];
    for (const id of def.usergroups) users.push(...(await this.members(id)));
    return [...new Set(users)];
  }

  /** Every policy group the user belongs to, in policy order. */
  async groupsOf(user: string): Promise<string[]> {
    const groups: string[] = [];
    for (const name of Object.keys(this.policy.groups)) {
      if (await this.isMember(user, name)) groups.push(name);
    }
    return groups;
  }

  /** Members of a Slack user group; concurrent lookups share one call, failures are not cached. */
  private members(id: string): Promise<Set<string>> {
    const cached = this.cache.get(id);
    if (cached && cached.expiresAt > this.now()) return Promise.resolve(cached.members);
    const inFlight = this.pending.get(id);
    if (inFlight) return inFlight;
    const call = (async () => {
      try {
        const members = new Set(await this.resolveUsergroup(id));
        this.cache.set(id, { members, expiresAt: this.now() + this.ttlMs });
        return members;
      } catch (error) {
        throw new UsergroupResolutionError(id, error);
      } finally {
        this.pending.delete(id);
      }
    })();
    this.pending.set(id, call);
    return call;
  }
}
