// Break-glass in the policy (docs/policy.md#break-glass): the `breakGlass` block, who may use it, what evaluation skips
// and what it never skips, and the review facts of a record (due, reviewed, daily reminders).
import { describe, expect, it } from 'vitest';
import type { CheckResult } from '../../../../../src/domain/model/decision.js';
import type { HistoryEntry, OperationRecord } from '../../../../../src/domain/engines/operation.js';
import {
  awaitsReview,
  reminderDue,
  reviewerGroups,
  reviewOverdue,
} from '../../../../../src/domain/engines/policy/break-glass.js';
import { checkRequest, evaluate } from '../../../../../src/domain/engines/policy/evaluate.js';
import { GroupMembership } from '../../../../../src/app/groups.js';
import type { Policy } from '../../../../../src/domain/engines/policy/schema.js';
import { validatePolicy } from '../../../../../src/domain/engines/policy/validate.js';
import { whileExporting } from '../../../../../src/http/metric-sources.js';
import { createMetrics } from '../../../../../src/http/metrics.js';

const RAW = {
  version: 1,
  groups: { leads: { users: ['U0LEAD1'] }, oncall: { users: ['U0ONCALL', 'U0LEAD1'] }, devs: { users: ['U0DEV1'] } },
  namespaces: [
    { name: 'streaming-prod', environment: 'production', requesters: ['oncall', 'leads', 'devs'] },
    { name: 'streaming-dev', environment: 'development' },
  ],
  rules: [
    { name: 'prod-needs-a-lead', when: { namespaces: ['streaming-prod'] }, require: { approvals: 1, from: ['leads'] } },
    {
      name: 'friday-freeze',
      when: {
        namespaces: ['streaming-prod'],
        schedule: { days: ['fri'], from: '15:00', to: '23:59', timezone: 'Europe/Berlin' },
      },
      deny: 'No production changes on Friday afternoons',
    },
    { name: 'no-savepoints', when: { operations: ['savepoint'] }, deny: 'savepoints are taken by the platform' },
  ],
  breakGlass: { groups: ['oncall'], environments: ['production'], reviewWithin: '24h' },
};

function policyOf(raw: unknown): Policy {
  const result = validatePolicy(raw);
  if (!result.ok) throw new Error(result.errors.join('\n'));
  return result.policy;
}
const POLICY = policyOf(RAW);
const FRIDAY_EVENING = new Date('2025-06-06T16:00:00Z'); // 18:00 in Berlin
const MONDAY = new Date('2025-06-02T10:00:00Z');
const membership = new GroupMembership(POLICY, async () => [], { now: () => 0 });

describe('the breakGlass block', () => {
  it('parses with reviewWithin as a duration (default 24h)', () => {
    expect(POLICY.breakGlass).toEqual({
      groups: ['oncall'],
      environments: ['production'],
      reviewWithin: '24h',
      reviewWithinMs: 86_400_000,
    });
    const { reviewWithin: _, ...rest } = RAW.breakGlass;
    expect(policyOf({ ...RAW, breakGlass: rest }).breakGlass?.reviewWithinMs).toBe(86_400_000);
  });

  it.each([
    [{ groups: ['on-call'], environments: ['production'] }, 'breakGlass.groups[0]: unknown group "on-call"'],
    [{ groups: ['oncall'], environments: ['prod'] }, 'breakGlass.environments[0]: no namespace has environment "prod"'],
    [
      { groups: ['oncall'], environments: ['production'], reviewWithin: '1 day' },
      'breakGlass.reviewWithin: "1 day" is not a duration',
    ],
    [{ groups: [], environments: ['production'] }, 'breakGlass.groups: list at least one group'],
    [{ groups: ['oncall'], environments: ['production'], when: 'always' }, 'breakGlass.when: unknown key'],
  ])('%j is an error naming its path', (breakGlass, message) => {
    const result = validatePolicy({ ...RAW, breakGlass });
    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.errors.join('\n')).toContain(message);
  });
});

describe('who may use --break-glass (refused privately, nothing recorded)', () => {
  const ask = (requester: string, namespace: string, hasReason = true) =>
    checkRequest(POLICY, { namespace, requester, hasReason, intentKind: 'restart', breakGlass: true }, membership);

  it('lets an on-call member through in production', async () => {
    expect((await ask('U0ONCALL', 'streaming-prod')).ok).toBe(true);
  });

  it.each([
    [
      'a requester outside breakGlass.groups',
      'U0DEV1',
      'streaming-prod',
      true,
      '<@U0DEV1> is not allowed to use --break-glass here: only members of oncall may use it',
    ],
    [
      'an environment not listed',
      'U0ONCALL',
      'streaming-dev',
      true,
      'is not allowed to use --break-glass here: it is allowed only in production namespaces, and streaming-dev is development',
    ],
    ['no --reason', 'U0ONCALL', 'streaming-prod', false, '--break-glass needs a reason'],
  ])('refuses %s', async (_what, requester, namespace, hasReason, message) => {
    const check = await ask(requester, namespace, hasReason);
    expect(check.ok).toBe(false);
    expect(check.ok ? '' : check.message).toContain(message);
  });

  it('refuses everyone when the policy has no breakGlass block', async () => {
    const { breakGlass: _, ...raw } = RAW;
    const check = await checkRequest(
      policyOf(raw),
      { namespace: 'streaming-prod', requester: 'U0ONCALL', hasReason: true, intentKind: 'restart', breakGlass: true },
      membership,
    );
    expect(check.ok ? '' : check.message).toContain('the policy has no breakGlass section');
  });
});

describe('evaluation with break-glass', () => {
  const base = {
    intentKind: 'restart' as const,
    namespace: 'streaming-prod',
    now: FRIDAY_EVENING,
    checks: [] as CheckResult[],
  };

  it('skips the lead rule and the Friday-afternoon deny, and records both', () => {
    expect(evaluate(POLICY, base).outcome).toBe('deny');
    const decision = evaluate(POLICY, { ...base, breakGlass: true });
    expect(decision).toMatchObject({ outcome: 'allow', requirements: [], environment: 'production' });
    expect(decision.breakGlass).toEqual({
      skippedRequirements: [{ rule: 'prod-needs-a-lead', approvals: 1, from: ['leads'] }],
      skippedDenies: ['No production changes on Friday afternoons (rule friday-freeze)'],
    });
  });

  it('does not skip a lock freeze or another failed built-in check', () => {
    const frozen: CheckResult = {
      name: 'not-frozen',
      outcome: 'fail',
      message: 'target frozen by <@U0LEAD1>: quarter-end',
    };
    const busy: CheckResult = { name: 'operator-busy', outcome: 'fail', message: 'the operator is UPGRADING it' };
    for (const check of [frozen, busy]) {
      const decision = evaluate(POLICY, { ...base, now: MONDAY, checks: [check], breakGlass: true });
      expect(decision.outcome).toBe('deny');
      expect(decision.outcome === 'deny' ? decision.reasons : []).toEqual([check.message]);
    }
  });

  it('does not skip a deny rule without a schedule', () => {
    const decision = evaluate(POLICY, { ...base, intentKind: 'savepoint', now: MONDAY, breakGlass: true });
    expect(decision.outcome === 'deny' ? decision.reasons : []).toEqual([
      'savepoints are taken by the platform (rule no-savepoints)',
    ]);
  });

  it('changes nothing in an environment breakGlass does not list', () => {
    const decision = evaluate(POLICY, { ...base, namespace: 'streaming-dev', now: MONDAY, breakGlass: true });
    expect(decision).toEqual({ outcome: 'allow', checks: [], requirements: [], environment: 'development' });
  });
});

describe('review facts of a record', () => {
  const HOUR = 3_600_000;
  const entry = (seq: number, type: HistoryEntry['type'], name: string, at: number): HistoryEntry => ({
    seq,
    type,
    name,
    actor: 'U0ONCALL',
    at,
    detail: {},
  });
  const use = {
    skippedRequirements: [{ rule: 'prod-needs-a-lead', approvals: 1, from: ['leads'] }],
    skippedDenies: [],
  };
  const record = (history: HistoryEntry[], state: OperationRecord['state'] = 'COMPLETED') =>
    ({
      state,
      history,
      decision: { outcome: 'allow', checks: [], requirements: [], breakGlass: use },
    }) as unknown as OperationRecord;
  const ran = [
    entry(1, 'state', 'ACCEPTED', 0),
    entry(2, 'state', 'QUEUED', 1),
    entry(3, 'state', 'COMPLETED', 10 * HOUR),
  ];

  it('is due once it ended, overdue after reviewWithin, reminded once a day until reviewed', () => {
    expect(awaitsReview(record(ran.slice(0, 2), 'QUEUED'))).toBe(false);
    expect(awaitsReview(record(ran))).toBe(true);
    expect(reviewOverdue(record(ran), 24 * HOUR, 33 * HOUR)).toBe(false);
    expect(reminderDue(record(ran), 24 * HOUR, 34 * HOUR)).toBe(true);
    const reminded = [...ran, entry(4, 'note', 'review-due', 34 * HOUR)];
    expect(reminderDue(record(reminded), 24 * HOUR, 57 * HOUR)).toBe(false);
    expect(reminderDue(record(reminded), 24 * HOUR, 58 * HOUR)).toBe(true);
    const reviewed = [...reminded, entry(5, 'command', 'reviewed', 40 * HOUR)];
    expect(awaitsReview(record(reviewed))).toBe(false);
    expect(reviewOverdue(record(reviewed), 24 * HOUR, 99 * HOUR)).toBe(false);
  });

  it('owes no review when break-glass never let it go ahead (DENIED by a freeze)', () => {
    expect(awaitsReview(record([entry(1, 'state', 'ACCEPTED', 0), entry(2, 'state', 'DENIED', 1)], 'DENIED'))).toBe(
      false,
    );
  });

  it('is reviewed by the skipped rules\u2019 groups, else by the fallback', () => {
    expect(reviewerGroups(use, ['sre'])).toEqual(['leads']);
    expect(reviewerGroups({ skippedRequirements: [], skippedDenies: ['x'] }, ['sre'])).toEqual(['sre']);
  });
});

describe('flink_chatops_break_glass_unreviewed', () => {
  it('is exported by the process holding the exporter lease, and reads 0 elsewhere', async () => {
    const gauge = async (holds: boolean) => {
      const sources = whileExporting(async () => holds, { collectBreakGlassUnreviewed: async () => 2 });
      return (await createMetrics({ defaultMetrics: false, sources }).text()).match(
        /^flink_chatops_break_glass_unreviewed (\S+)$/m,
      )?.[1];
    };
    expect(await gauge(true)).toBe('2');
    expect(await gauge(false)).toBe('0');
  });
});
