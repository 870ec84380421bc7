// Which askers (docs/configuration.md#who-may-use-the-bot) the workspace guard admits — clicks by their own team,
// commands by the user's own team (users.info, cached), enterprise ids for org installs — and that a failed look-up
// refuses.
import { describe, expect, it, vi } from 'vitest';
import { REFUSED_OUTSIDER, REFUSED_UNVERIFIED, WorkspaceGuard } from '../../../src/slack/workspace-guard.js';

const allowed = new Set(['T0OWN', 'E0ORG']);

describe('WorkspaceGuard', () => {
  it('a click is judged by the team it names, without a look-up', async () => {
    const lookup = vi.fn();
    const guard = new WorkspaceGuard(allowed, lookup);
    expect(
      await guard.refusal({ userId: 'U1', teamId: 'T0OWN', enterpriseId: undefined, ownTeam: true }),
    ).toBeUndefined();
    expect(await guard.refusal({ userId: 'U2', teamId: 'T0ELSE', enterpriseId: undefined, ownTeam: true })).toBe(
      REFUSED_OUTSIDER,
    );
    expect(
      await guard.refusal({ userId: 'U3', teamId: 'T0ELSE', enterpriseId: 'E0ORG', ownTeam: true }),
    ).toBeUndefined();
    expect(lookup).not.toHaveBeenCalled();
  });

  it("a command in a shared channel names the host team: the user's own team decides, read once per user", async () => {
    let clock = 0;
    const lookup = vi.fn(async (user: string) => (user === 'U0GUEST' ? { teamId: 'T0ELSE' } : { teamId: 'T0OWN' }));
    const guard = new WorkspaceGuard(allowed, lookup, () => clock);
    const command = (userId: string) => ({ userId, teamId: 'T0OWN', enterpriseId: undefined, ownTeam: false });
    expect(await guard.refusal(command('U0GUEST'))).toBe(REFUSED_OUTSIDER);
    expect(await guard.refusal(command('U0GUEST'))).toBe(REFUSED_OUTSIDER);
    expect(await guard.refusal(command('U0ALICE'))).toBeUndefined();
    expect(lookup).toHaveBeenCalledTimes(2);
    clock += 10 * 60_000;
    await guard.refusal(command('U0GUEST'));
    expect(lookup).toHaveBeenCalledTimes(3);
  });

  it('a look-up that fails refuses, and is tried again next time', async () => {
    const lookup = vi.fn().mockRejectedValueOnce(new Error('ratelimited')).mockResolvedValue({ teamId: 'T0OWN' });
    const guard = new WorkspaceGuard(allowed, lookup);
    const command = { userId: 'U1', teamId: 'T0OWN', enterpriseId: undefined, ownTeam: false };
    expect(await guard.refusal(command)).toBe(REFUSED_UNVERIFIED);
    expect(await guard.refusal(command)).toBeUndefined();
  });

  it("a burst of one person's commands asks Slack once, however many arrive before the answer", async () => {
    let answer!: (team: { teamId?: string }) => void;
    const lookup = vi.fn(() => new Promise<{ teamId?: string }>((resolve) => (answer = resolve)));
    const guard = new WorkspaceGuard(allowed, lookup);
    const command = { userId: 'U0ONCALL', teamId: 'T0OWN', enterpriseId: undefined, ownTeam: false };
    const burst = Array.from({ length: 200 }, () => guard.refusal(command));
    answer({ teamId: 'T0OWN' });
    expect(await Promise.all(burst)).toEqual(Array.from({ length: 200 }, () => undefined));
    expect(lookup).toHaveBeenCalledTimes(1);
  });
});
