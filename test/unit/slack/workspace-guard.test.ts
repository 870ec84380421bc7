// Which askers (docs/configuration.md#who-may-use-the-bot) the workspace guard admits — clicks by their own team,
// commands and events by the user's own team (users.info, cached), an enterprise only through the user's own org and
// one of its workspaces — and that a failed look-up refuses.
import { describe, expect, it, vi } from 'vitest';
import { REFUSED_OUTSIDER, REFUSED_UNVERIFIED, WorkspaceGuard } from '../../../src/slack/workspace-guard.js';

const allowed = new Set(['T0OWN', 'E0ORG']);

describe('WorkspaceGuard', () => {
  it('a click naming an allowed team of its own is admitted without a look-up; another team is looked up', async () => {
    const lookup = vi.fn(async () => ({ teamId: 'T0ELSE' }));
    const guard = new WorkspaceGuard(allowed, lookup);
    expect(await guard.refusal({ userId: 'U1', ownTeamId: 'T0OWN' })).toBeUndefined();
    expect(lookup).not.toHaveBeenCalled();
    expect(await guard.refusal({ userId: 'U2', ownTeamId: 'T0ELSE' })).toBe(REFUSED_OUTSIDER);
    expect(lookup).toHaveBeenCalledTimes(1);
  });

  it("an allowed enterprise admits its own people only: the user's org and a workspace of it, not the payload's", async () => {
    const people: Record<string, { teamId?: string; enterpriseId?: string; enterpriseTeams?: string[] }> = {
      U0MEMBER: { teamId: 'T0SISTER', enterpriseId: 'E0ORG', enterpriseTeams: ['T0SISTER', 'T0OWN'] },
      U0ORGWIDE: { teamId: 'E0ORG', enterpriseId: 'E0ORG' },
      U0GUEST: { teamId: 'T0ELSE' },
      U0GRIDGUEST: { teamId: 'T0THEIRS', enterpriseId: 'E0THEIRS', enterpriseTeams: ['T0THEIRS'] },
      U0ODD: { teamId: 'T0ELSE', enterpriseId: 'E0ORG', enterpriseTeams: ['T0SISTER'] },
    };
    const guard = new WorkspaceGuard(allowed, async (user) => people[user] ?? {});
    expect(await guard.refusal({ userId: 'U0MEMBER', ownTeamId: 'T0SISTER' })).toBeUndefined();
    expect(await guard.refusal({ userId: 'U0ORGWIDE' })).toBeUndefined();
    expect(await guard.refusal({ userId: 'U0GUEST' })).toBe(REFUSED_OUTSIDER);
    expect(await guard.refusal({ userId: 'U0GRIDGUEST', ownTeamId: 'T0THEIRS' })).toBe(REFUSED_OUTSIDER);
    expect(await guard.refusal({ userId: 'U0ODD' })).toBe(REFUSED_OUTSIDER);
    expect(await guard.refusal({ userId: 'U0NOBODY' })).toBe(REFUSED_OUTSIDER);
  });

  it("a command names the host team: the user's own team decides, read once per user", async () => {
    let clock = 0;
    const lookup = vi.fn(async (user: string) => (user === 'U0GUEST' ? { teamId: 'T0ELSE' } : { teamId: 'T0OWN' }));
    const guard = new WorkspaceGuard(allowed, lookup, () => clock);
    expect(await guard.refusal({ userId: 'U0GUEST' })).toBe(REFUSED_OUTSIDER);
    expect(await guard.refusal({ userId: 'U0GUEST' })).toBe(REFUSED_OUTSIDER);
    expect(await guard.refusal({ userId: 'U0ALICE' })).toBeUndefined();
    expect(lookup).toHaveBeenCalledTimes(2);
    clock += 10 * 60_000;
    await guard.refusal({ userId: 'U0GUEST' });
    expect(lookup).toHaveBeenCalledTimes(3);
  });

  it('a look-up that fails refuses, and is tried again next time', async () => {
    const lookup = vi.fn().mockRejectedValueOnce(new Error('ratelimited')).mockResolvedValue({ teamId: 'T0OWN' });
    const guard = new WorkspaceGuard(allowed, lookup);
    expect(await guard.refusal({ userId: 'U1' })).toBe(REFUSED_UNVERIFIED);
    expect(await guard.refusal({ userId: 'U1' })).toBeUndefined();
  });

  it("a burst of one person's commands asks Slack once, however many arrive before the answer", async () => {
    let answer!: (team: { teamId?: string }) => void;
    const lookup = vi.fn(() => new Promise<{ teamId?: string }>((resolve) => (answer = resolve)));
    const guard = new WorkspaceGuard(allowed, lookup);
    const burst = Array.from({ length: 200 }, () => guard.refusal({ userId: 'U0ONCALL' }));
    answer({ teamId: 'T0OWN' });
    expect(await Promise.all(burst)).toEqual(Array.from({ length: 200 }, () => undefined));
    expect(lookup).toHaveBeenCalledTimes(1);
  });
});
