import { describe, expect, it } from 'vitest';
import type { CheckResult } from '../../../../../src/domain/model/decision.js';
import type { IntentKind } from '../../../../../src/domain/kinds/index.js';
import type { UpgradeMode } from '../../../../../src/domain/model/upgrade-mode.js';
import {
  canLock,
  canUnlock,
  checkRequest,
  evaluate,
  findNamespace,
} from '../../../../../src/domain/engines/policy/evaluate.js';
import { approverGroups, GroupMembership } from '../../../../../src/app/groups.js';
import { inSchedule, type Schedule } from '../../../../../src/domain/kit/policy/schedule.js';
import type { Policy } from '../../../../../src/domain/engines/policy/schema.js';
import { validatePolicy } from '../../../../../src/domain/engines/policy/validate.js';

function policyOf(raw: unknown): Policy {
  const result = validatePolicy(raw);
  if (!result.ok) throw new Error(result.errors.join('\n'));
  return result.policy;
}

const POLICY = policyOf({
  version: 1,
  groups: {
    leads: { users: ['U0LEAD1'], usergroups: ['S0LEADS'] },
    oncall: { users: ['U0ONCALL'] },
    sre: { users: ['U0SRE1', 'U0LEAD1'] },
  },
  namespaces: [
    {
      name: 'streaming-prod',
      environment: 'production',
      requesters: ['oncall', 'leads'],
      incidentChannel: 'C0INCIDENTS',
    },
    { name: 'prod-*', environment: 'production', requesters: ['sre'] },
    { name: 'streaming-dev', environment: 'development' },
    { name: 'sandbox-*' },
  ],
  channels: { C0DATAPLATFORM: { defaultNamespace: 'streaming-prod' } },
  rules: [
    {
      name: 'prod-needs-a-lead',
      when: {
        namespaces: ['streaming-prod', 'prod-*'],
        operations: ['suspend', 'restart', 'scale', 'upgrade', 'restore', 'undo'],
      },
      require: { approvals: 1, from: ['leads'] },
    },
    {
      name: 'stateless-in-prod-needs-two',
      when: { namespaces: ['streaming-prod'], upgradeModes: ['stateless'] },
      require: { approvals: 2, from: ['leads'] },
    },
    {
      name: 'sre-signs-upgrades',
      when: { namespaces: ['streaming-prod'], operations: ['upgrade'] },
      require: { approvals: 1, from: ['sre', 'oncall'] },
    },
    {
      name: 'friday-freeze',
      when: {
        namespaces: ['streaming-prod'],
        schedule: { days: ['fri'], from: '15:00', to: '23:59', timezone: 'Europe/Berlin' },
      },
      deny: 'No production changes on Friday afternoons',
    },
    {
      name: 'no-undo-in-dev',
      when: { namespaces: ['streaming-dev'], operations: ['undo'] },
      deny: 'undo is disabled in dev',
    },
  ],
  approval: { requireReason: ['production'] },
});

/** A resolver whose calls are counted; S0LEADS holds U0LEADX. */
function resolver(groups: Record<string, string[]> = { S0LEADS: ['U0LEADX'] }) {
  const calls: string[] = [];
  const resolve = async (id: string) => {
    calls.push(id);
    const members = groups[id];
    if (!members) throw new Error('usergroup_not_found');
    return members;
  };
  return { calls, resolve };
}

const membership = () => new GroupMembership(POLICY, resolver().resolve, { now: () => 0 });

describe('namespaces', () => {
  it.each([
    ['streaming-prod', 'streaming-prod'],
    ['prod-eu', 'prod-*'],
    ['sandbox-anything', 'sandbox-*'],
    ['streaming-dev', 'streaming-dev'],
    ['kube-system', undefined],
    ['prod', undefined],
  ])('%s is governed by %s', (ns, entry) => {
    expect(findNamespace(POLICY, ns)?.name).toBe(entry);
  });

  it('prefers an exact entry over a glob listed before it', () => {
    const p = policyOf({
      version: 1,
      namespaces: [
        { name: '*', environment: 'any' },
        { name: 'payments', environment: 'production' },
      ],
    });
    expect(findNamespace(p, 'payments')?.environment).toBe('production');
    expect(findNamespace(p, 'other')?.environment).toBe('any');
  });
});

describe('checkRequest: preconditions that refuse a command', () => {
  it.each<[string, string, string, boolean, IntentKind, string | null]>([
    ['unmanaged namespace', 'kube-system', 'U0ONCALL', true, 'scale', 'the bot does not manage namespace kube-system'],
    ['requester listed by id', 'streaming-prod', 'U0ONCALL', true, 'scale', null],
    ['requester in a Slack user group', 'streaming-prod', 'U0LEADX', true, 'restart', null],
    [
      'requester not allowed: names the groups',
      'streaming-prod',
      'U0RANDOM',
      true,
      'scale',
      'you may not request scale in streaming-prod: only members of oncall and leads may request operations there',
    ],
    ['glob entry with its own requesters', 'prod-eu', 'U0ONCALL', true, 'scale', 'only members of sre'],
    ['requesters omitted: anyone', 'sandbox-x', 'U0RANDOM', false, 'scale', null],
    [
      'reason required in production',
      'streaming-prod',
      'U0ONCALL',
      false,
      'scale',
      'streaming-prod is a production namespace: say why with --reason',
    ],
    ['reason not required in development', 'streaming-dev', 'U0RANDOM', false, 'scale', null],
  ])('%s', async (_label, namespace, requester, hasReason, intentKind, message) => {
    const result = await checkRequest(POLICY, { namespace, requester, hasReason, intentKind }, membership());
    if (message === null) expect(result).toEqual({ ok: true, namespaceEntry: findNamespace(POLICY, namespace) });
    else {
      expect(result.ok).toBe(false);
      expect(!result.ok && result.message).toContain(message);
    }
  });

  it('lock: any requester; unlock: the one who froze it or an approver there', async () => {
    const m = membership();
    expect(await canLock(POLICY, 'streaming-prod', 'U0ONCALL', m)).toBe(true);
    expect(await canLock(POLICY, 'streaming-prod', 'U0RANDOM', m)).toBe(false);
    expect(await canLock(POLICY, 'kube-system', 'U0ONCALL', m)).toBe(false);
    expect(await canUnlock(POLICY, 'streaming-prod', 'U0ONCALL', 'U0ONCALL', m)).toBe(true);
    expect(await canUnlock(POLICY, 'streaming-prod', 'U0LEADX', 'U0ONCALL', m)).toBe(true);
    expect(await canUnlock(POLICY, 'streaming-prod', 'U0RANDOM', 'U0ONCALL', m)).toBe(false);
    expect(approverGroups(POLICY, 'streaming-prod')).toEqual(['leads', 'sre', 'oncall']);
    expect(approverGroups(POLICY, 'streaming-prod', 'scale')).toEqual(['leads']);
    expect(approverGroups(POLICY, 'streaming-dev')).toEqual([]);
  });
});

const MONDAY = new Date('2025-06-02T10:00:00Z');
const FRIDAY_EVENING = new Date('2025-06-06T16:00:00Z'); // 18:00 in Berlin (CEST)
const warnCheck: CheckResult = { name: 'autoscaler', outcome: 'warn', message: 'the autoscaler overrides it' };
const failCheck: CheckResult = { name: 'not-frozen', outcome: 'fail', message: 'frozen by <@U0ONCALL> 1m ago: "x"' };

describe('evaluate', () => {
  it.each<[string, IntentKind, string, UpgradeMode | undefined, Date, CheckResult[], string, string[], string[]]>([
    ['no matching rule → allow', 'savepoint', 'streaming-prod', undefined, MONDAY, [], 'allow', [], []],
    [
      'one matching require',
      'scale',
      'streaming-prod',
      'savepoint',
      MONDAY,
      [warnCheck],
      'needs-approval',
      ['prod-needs-a-lead'],
      [],
    ],
    [
      'stateless adds an independent requirement',
      'restart',
      'streaming-prod',
      'stateless',
      MONDAY,
      [],
      'needs-approval',
      ['prod-needs-a-lead', 'stateless-in-prod-needs-two'],
      [],
    ],
    [
      'overlapping groups stay separate requirements',
      'upgrade',
      'streaming-prod',
      'savepoint',
      MONDAY,
      [],
      'needs-approval',
      ['prod-needs-a-lead', 'sre-signs-upgrades'],
      [],
    ],
    [
      'undo is its own kind',
      'undo',
      'streaming-prod',
      undefined,
      MONDAY,
      [],
      'needs-approval',
      ['prod-needs-a-lead'],
      [],
    ],
    [
      'undo denied where a rule says so',
      'undo',
      'streaming-dev',
      undefined,
      MONDAY,
      [],
      'deny',
      [],
      ['undo is disabled in dev (rule no-undo-in-dev)'],
    ],
    [
      'glob namespace in a rule',
      'scale',
      'prod-eu',
      'savepoint',
      MONDAY,
      [],
      'needs-approval',
      ['prod-needs-a-lead'],
      [],
    ],
    [
      'a failed check denies',
      'savepoint',
      'streaming-prod',
      undefined,
      MONDAY,
      [failCheck],
      'deny',
      [],
      [failCheck.message],
    ],
    [
      'deny + require + failed check → deny with every reason',
      'scale',
      'streaming-prod',
      'stateless',
      FRIDAY_EVENING,
      [failCheck, warnCheck],
      'deny',
      ['prod-needs-a-lead', 'stateless-in-prod-needs-two'],
      ['No production changes on Friday afternoons (rule friday-freeze)', failCheck.message],
    ],
    ['the freeze does not touch dev', 'scale', 'streaming-dev', 'stateless', FRIDAY_EVENING, [], 'allow', [], []],
    [
      'an unmanaged namespace is denied, never thrown',
      'scale',
      'kube-system',
      undefined,
      MONDAY,
      [],
      'deny',
      [],
      [
        'the bot does not manage namespace kube-system (the policy lists streaming-prod, prod-*, streaming-dev and sandbox-*)',
      ],
    ],
  ])('%s', (_label, intentKind, namespace, upgradeMode, now, checks, outcome, rules, reasons) => {
    const decision = evaluate(POLICY, { intentKind, namespace, now, checks, ...(upgradeMode ? { upgradeMode } : {}) });
    expect(decision.outcome).toBe(outcome);
    expect(decision.checks).toEqual(checks);
    expect(decision.requirements.map((r) => r.rule)).toEqual(rules);
    expect(decision.outcome === 'deny' ? decision.reasons : []).toEqual(reasons);
  });

  it("carries each rule's count and groups, and the environment", () => {
    const decision = evaluate(POLICY, {
      intentKind: 'upgrade',
      namespace: 'streaming-prod',
      upgradeMode: 'stateless',
      now: MONDAY,
      checks: [],
    });
    expect(decision).toEqual({
      outcome: 'needs-approval',
      checks: [],
      environment: 'production',
      requirements: [
        { rule: 'prod-needs-a-lead', approvals: 1, from: ['leads'] },
        { rule: 'stateless-in-prod-needs-two', approvals: 2, from: ['leads'] },
        { rule: 'sre-signs-upgrades', approvals: 1, from: ['sre', 'oncall'] },
      ],
    });
  });
});

describe('schedules (injected clock)', () => {
  const berlin = (days: Schedule['days'], from: string, to: string): Schedule => ({
    days,
    from,
    to,
    timezone: 'Europe/Berlin',
  });
  it.each<[string, Schedule, string, boolean]>([
    ['Friday 15:00 CEST is in', berlin(['fri'], '15:00', '23:59'), '2025-06-06T13:00:00Z', true],
    ['Friday 14:59 CEST is out', berlin(['fri'], '15:00', '23:59'), '2025-06-06T12:59:59Z', false],
    [
      '"to" 23:59 is inclusive through the end of the minute',
      berlin(['fri'], '15:00', '23:59'),
      '2025-06-06T21:59:59Z',
      true,
    ],
    ['Saturday 00:00 is out', berlin(['fri'], '15:00', '23:59'), '2025-06-06T22:00:00Z', false],
    ['Thursday is out', berlin(['fri'], '15:00', '23:59'), '2025-06-05T14:00:00Z', false],
    // Spring forward: Sunday 2025-03-30, 02:00 CET → 03:00 CEST.
    ['spring: 01:30 CET is in', berlin(['sun'], '01:00', '03:30'), '2025-03-30T00:30:00Z', true],
    ['spring: 03:30 CEST is in (01:30 UTC)', berlin(['sun'], '01:00', '03:30'), '2025-03-30T01:30:00Z', true],
    [
      'spring: 03:31 CEST is out (a fixed +1 offset would say 02:31)',
      berlin(['sun'], '01:00', '03:30'),
      '2025-03-30T01:31:00Z',
      false,
    ],
    [
      'spring: a window inside the skipped hour never occurs',
      berlin(['sun'], '02:00', '02:59'),
      '2025-03-30T01:00:00Z',
      false,
    ],
    // Fall back: Sunday 2025-10-26, 03:00 CEST → 02:00 CET; 02:xx happens twice.
    ['autumn: first 02:30 (CEST) is in', berlin(['sun'], '02:00', '02:59'), '2025-10-26T00:30:00Z', true],
    ['autumn: second 02:30 (CET) is in', berlin(['sun'], '02:00', '02:59'), '2025-10-26T01:30:00Z', true],
    ['autumn: 03:00 CET is out', berlin(['sun'], '02:00', '02:59'), '2025-10-26T02:00:00Z', false],
    ['after the change: Friday 15:00 CET is in', berlin(['fri'], '15:00', '23:59'), '2025-10-31T14:00:00Z', true],
    [
      'after the change: 14:30 CET is out (a CEST offset would say 15:30)',
      berlin(['fri'], '15:00', '23:59'),
      '2025-10-31T13:30:00Z',
      false,
    ],
    ['wraps past midnight: Friday 23:00 is in', berlin(['fri'], '22:00', '02:00'), '2025-06-06T21:00:00Z', true],
    ['wraps past midnight: Saturday 02:00 is in', berlin(['fri'], '22:00', '02:00'), '2025-06-07T00:00:30Z', true],
    ['wraps past midnight: Saturday 02:01 is out', berlin(['fri'], '22:00', '02:00'), '2025-06-07T00:01:00Z', false],
    [
      'wraps past midnight: Friday 01:00 belongs to Thursday',
      berlin(['fri'], '22:00', '02:00'),
      '2025-06-05T23:00:00Z',
      false,
    ],
    [
      'weekdays in UTC',
      { days: ['mon', 'tue', 'wed', 'thu', 'fri'], from: '09:00', to: '17:00', timezone: 'UTC' },
      '2025-06-07T10:00:00Z',
      false,
    ],
  ])('%s', (_label, schedule, iso, expected) => {
    expect(inSchedule(schedule, new Date(iso))).toBe(expected);
  });
});

describe('GroupMembership', () => {
  it('resolves user groups through the resolver, with a TTL cache', async () => {
    let clock = 1_000;
    const r = resolver();
    const m = new GroupMembership(POLICY, r.resolve, { ttlMs: 60_000, now: () => clock });
    expect(await m.isMember('U0LEAD1', 'leads')).toBe(true); // listed: no call
    expect(r.calls).toEqual([]);
    expect(await m.isMember('U0LEADX', 'leads')).toBe(true); // miss
    expect(await m.isMember('U0NOBODY', 'leads')).toBe(false); // hit
    expect(r.calls).toEqual(['S0LEADS']);
    clock += 59_999;
    expect(await m.isMember('U0LEADX', 'leads')).toBe(true); // still fresh
    expect(r.calls).toHaveLength(1);
    clock += 1;
    expect(await m.isMember('U0LEADX', 'leads')).toBe(true); // expired: resolved again
    expect(r.calls).toEqual(['S0LEADS', 'S0LEADS']);
  });

  it('shares one call between concurrent lookups of the same user group', async () => {
    let release!: (members: string[]) => void;
    const calls: string[] = [];
    const m = new GroupMembership(
      POLICY,
      (id) => {
        calls.push(id);
        return new Promise<string[]>((resolve) => (release = resolve));
      },
      { now: () => 0 },
    );
    const lookups = Promise.all([
      m.isMember('U0LEADX', 'leads'),
      m.isMember('U0OTHER', 'leads'),
      m.groupsOf('U0LEADX'),
    ]);
    release(['U0LEADX']);
    expect(await lookups).toEqual([true, false, ['leads']]);
    expect(calls).toEqual(['S0LEADS']);
  });

  it('does not cache a failure, and says which user group failed', async () => {
    let fail = true;
    const calls: string[] = [];
    const m = new GroupMembership(
      POLICY,
      async (id) => {
        calls.push(id);
        if (fail) throw new Error('ratelimited');
        return ['U0LEADX'];
      },
      { now: () => 0 },
    );
    await expect(m.isMember('U0LEADX', 'leads')).rejects.toThrow(
      'could not resolve Slack user group S0LEADS: ratelimited',
    );
    fail = false;
    expect(await m.isMember('U0LEADX', 'leads')).toBe(true);
    expect(calls).toEqual(['S0LEADS', 'S0LEADS']);
  });

  it('lists every group of a user, and unknown groups hold nobody', async () => {
    const m = membership();
    expect(await m.groupsOf('U0LEAD1')).toEqual(['leads', 'sre']);
    expect(await m.groupsOf('U0LEADX')).toEqual(['leads']);
    expect(await m.groupsOf('U0RANDOM')).toEqual([]);
    expect(await m.isMember('U0LEAD1', 'nope')).toBe(false);
    expect(await m.isMember('U0LEAD1', 'constructor')).toBe(false);
  });
});
