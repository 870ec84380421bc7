import { describe, expect, it } from 'vitest';
import {
  addApproval,
  canReject,
  eligibility,
  expiresAt,
  tally,
  type IsMember,
} from '../../../../../src/domain/kit/policy/approval.js';
import type { Approval, Requirement } from '../../../../../src/domain/model/decision.js';

const GROUPS: Record<string, string[]> = {
  leads: ['U0LEAD1', 'U0LEAD2', 'U0BOTH'],
  sre: ['U0SRE1', 'U0BOTH'],
  oncall: ['U0ALICE'],
};

/** A membership fake that also records what it was asked. */
function members(): { isMember: IsMember; asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    isMember: (user, group) => {
      asked.push(`${user}@${group}`);
      return Promise.resolve(GROUPS[group]?.includes(user) ?? false);
    },
  };
}

const PROD_LEAD: Requirement = { rule: 'prod-needs-a-lead', approvals: 1, from: ['leads'] };
const TWO_LEADS: Requirement = { rule: 'stateless-in-prod-needs-two', approvals: 2, from: ['leads'] };
const SRE_OR_LEAD: Requirement = { rule: 'sre-or-lead', approvals: 1, from: ['sre', 'leads'] };
const DIGEST = 'a'.repeat(64);
const OLD_DIGEST = 'b'.repeat(64);

function vote(user: string, countsFor: string[], planDigest = DIGEST, at = 1_000): Approval {
  return { user, at, planDigest, countsFor };
}

describe('eligibility', () => {
  const requirements = [PROD_LEAD, TWO_LEADS, SRE_OR_LEAD];

  it.each([
    {
      user: 'U0LEAD1',
      expected: { eligible: true, countsFor: ['prod-needs-a-lead', 'stateless-in-prod-needs-two', 'sre-or-lead'] },
    },
    { user: 'U0SRE1', expected: { eligible: true, countsFor: ['sre-or-lead'] } },
    {
      user: 'U0BOTH',
      expected: { eligible: true, countsFor: ['prod-needs-a-lead', 'stateless-in-prod-needs-two', 'sre-or-lead'] },
    },
    {
      user: 'U0STRANGER',
      expected: { eligible: false, why: 'you are not in leads or sre, whose approval this operation needs' },
    },
  ])('$user → $expected', async ({ user, expected }) => {
    const { isMember } = members();
    expect(await eligibility({ user, requester: 'U0ALICE', requirements, allowSelfApproval: false, isMember })).toEqual(
      expected,
    );
  });

  it('asks about each group once', async () => {
    const { isMember, asked } = members();
    await eligibility({ user: 'U0SRE1', requester: 'U0ALICE', requirements, allowSelfApproval: false, isMember });
    expect(asked.sort()).toEqual(['U0SRE1@leads', 'U0SRE1@sre']);
  });

  it('refuses self-approval unless the policy allows it', async () => {
    const { isMember } = members();
    const input = { user: 'U0LEAD1', requester: 'U0LEAD1', requirements, isMember };
    expect(await eligibility({ ...input, allowSelfApproval: false })).toEqual({
      eligible: false,
      why: 'you requested this operation; someone else must approve it',
    });
    expect(await eligibility({ ...input, allowSelfApproval: true })).toMatchObject({ eligible: true });
  });

  it('still needs group membership when self-approval is allowed', async () => {
    const { isMember } = members();
    const result = await eligibility({
      user: 'U0ALICE',
      requester: 'U0ALICE',
      requirements: [PROD_LEAD],
      allowSelfApproval: true,
      isMember,
    });
    expect(result).toEqual({ eligible: false, why: 'you are not in leads, whose approval this operation needs' });
  });

  it('has nobody to approve when nothing is required', async () => {
    const { isMember } = members();
    expect(
      await eligibility({
        user: 'U0LEAD1',
        requester: 'U0ALICE',
        requirements: [],
        allowSelfApproval: false,
        isMember,
      }),
    ).toEqual({
      eligible: false,
      why: 'this operation needs no approval',
    });
  });

  it('passes a membership failure through (a fault, not a denial)', async () => {
    const isMember: IsMember = () => Promise.reject(new Error('usergroups.users.list failed'));
    await expect(
      eligibility({ user: 'U0LEAD1', requester: 'U0ALICE', requirements, allowSelfApproval: false, isMember }),
    ).rejects.toThrow('usergroups.users.list failed');
  });
});

describe('canReject', () => {
  it('lets any eligible approver reject', async () => {
    const { isMember } = members();
    expect(
      await canReject({
        user: 'U0SRE1',
        requester: 'U0ALICE',
        requirements: [SRE_OR_LEAD],
        allowSelfApproval: false,
        isMember,
      }),
    ).toEqual({
      eligible: true,
      countsFor: ['sre-or-lead'],
    });
  });

  it.each([false, true])(
    'never lets the requester reject their own (allowSelfApproval %s): they cancel',
    async (allowSelfApproval) => {
      const { isMember } = members();
      expect(
        await canReject({
          user: 'U0LEAD1',
          requester: 'U0LEAD1',
          requirements: [PROD_LEAD],
          allowSelfApproval,
          isMember,
        }),
      ).toEqual({
        eligible: false,
        why: 'you requested this operation; use Cancel to withdraw it',
      });
    },
  );

  it('refuses a non-member', async () => {
    const { isMember } = members();
    expect(
      await canReject({
        user: 'U0STRANGER',
        requester: 'U0ALICE',
        requirements: [PROD_LEAD],
        allowSelfApproval: false,
        isMember,
      }),
    ).toMatchObject({
      eligible: false,
    });
  });
});

describe('addApproval', () => {
  it('adds a first vote', () => {
    const v = vote('U0LEAD1', ['prod-needs-a-lead']);
    expect(addApproval([], v)).toEqual({ added: true, approvals: [v] });
  });

  it('counts a double click once', () => {
    const first = addApproval([], vote('U0LEAD1', ['prod-needs-a-lead'], DIGEST, 1_000));
    const second = addApproval(first.approvals, vote('U0LEAD1', ['prod-needs-a-lead'], DIGEST, 1_050));
    expect(second).toEqual({ added: false, approvals: first.approvals });
  });

  it('replaces a vote for an older plan with the vote for the current one', () => {
    const stale = vote('U0LEAD1', ['prod-needs-a-lead'], OLD_DIGEST, 1_000);
    const other = vote('U0LEAD2', ['prod-needs-a-lead'], DIGEST, 1_100);
    const fresh = vote('U0LEAD1', ['prod-needs-a-lead'], DIGEST, 2_000);
    expect(addApproval([stale, other], fresh)).toEqual({ added: true, approvals: [other, fresh] });
  });

  it('does not modify the list it was given', () => {
    const list = [vote('U0LEAD1', ['x'])];
    addApproval(list, vote('U0LEAD2', ['x']));
    expect(list).toHaveLength(1);
  });
});

describe('tally', () => {
  it('is not satisfied with no votes and says who is still needed', () => {
    expect(tally([PROD_LEAD, TWO_LEADS], [], DIGEST)).toEqual({
      satisfied: false,
      remaining: [
        { rule: 'prod-needs-a-lead', needed: 1, from: ['leads'] },
        { rule: 'stateless-in-prod-needs-two', needed: 2, from: ['leads'] },
      ],
    });
  });

  it('counts one person once per rule, but for every rule they are eligible for (2-of-N with overlapping groups)', () => {
    const requirements = [PROD_LEAD, TWO_LEADS, SRE_OR_LEAD];
    const both = vote('U0BOTH', ['prod-needs-a-lead', 'stateless-in-prod-needs-two', 'sre-or-lead']);
    const afterOne = tally(requirements, [both], DIGEST);
    expect(afterOne).toEqual({
      satisfied: false,
      remaining: [{ rule: 'stateless-in-prod-needs-two', needed: 1, from: ['leads'] }],
    });

    // The same person voting again (e.g. a record holding a duplicate) never makes two.
    expect(tally(requirements, [both, { ...both, at: 2_000 }], DIGEST)).toEqual(afterOne);

    const lead2 = vote('U0LEAD2', ['prod-needs-a-lead', 'stateless-in-prod-needs-two', 'sre-or-lead']);
    expect(tally(requirements, [both, lead2], DIGEST)).toEqual({ satisfied: true, remaining: [] });
  });

  it('does not count a vote for a rule it was not eligible for', () => {
    const sre = vote('U0SRE1', ['sre-or-lead']);
    expect(tally([PROD_LEAD, SRE_OR_LEAD], [sre], DIGEST)).toEqual({
      satisfied: false,
      remaining: [{ rule: 'prod-needs-a-lead', needed: 1, from: ['leads'] }],
    });
  });

  it('ignores votes given for another plan digest', () => {
    const stale = vote('U0LEAD1', ['prod-needs-a-lead'], OLD_DIGEST);
    expect(tally([PROD_LEAD], [stale], DIGEST).satisfied).toBe(false);
    expect(tally([PROD_LEAD], [stale], OLD_DIGEST).satisfied).toBe(true);
  });

  it('is satisfied at once when nothing is required', () => {
    expect(tally([], [], DIGEST)).toEqual({ satisfied: true, remaining: [] });
  });

  it('does not go negative with more votes than needed', () => {
    const votes = ['U0LEAD1', 'U0LEAD2', 'U0BOTH'].map((u) => vote(u, ['prod-needs-a-lead']));
    expect(tally([PROD_LEAD], votes, DIGEST)).toEqual({ satisfied: true, remaining: [] });
  });
});

describe('expiresAt', () => {
  it('adds the ttl', () => {
    expect(expiresAt(1_767_225_600_000, 30 * 60_000)).toBe(1_767_227_400_000);
  });

  it.each([[0], [-5], [1.5], [Number.NaN]])('refuses a ttl of %s', (ttl) => {
    expect(() => expiresAt(1, ttl)).toThrow(RangeError);
  });
});
