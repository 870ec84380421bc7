import { describe, expect, it } from 'vitest';
import { describePolicy } from '../../../../../src/domain/engines/policy/describe.js';
import { evaluate } from '../../../../../src/domain/engines/policy/evaluate.js';
import {
  DEFAULT_GITOPS,
  gitopsFor,
  gitopsWords,
  type GitopsInput,
} from '../../../../../src/domain/engines/policy/gitops.js';
import type { Policy } from '../../../../../src/domain/engines/policy/schema.js';
import { validatePolicy } from '../../../../../src/domain/engines/policy/validate.js';

function policyOf(raw: Record<string, unknown>): Policy {
  const result = validatePolicy({ version: 1, groups: { leads: { users: ['U0LEAD1'] } }, ...raw });
  if (!result.ok) throw new Error(result.errors.join('\n'));
  return result.policy;
}

// A Friday at 16:00 in Berlin, and a Monday.
const FRIDAY = new Date('2026-05-15T14:00:00Z');
const MONDAY = new Date('2026-05-18T09:00:00Z');

const input = (over: Partial<GitopsInput> = {}): GitopsInput => ({
  namespace: 'prod-orders',
  intentKind: 'scale',
  now: MONDAY,
  ...over,
});

/** Top level, a glob and an exact namespace, a cluster-scoped entry, and rules that each set some keys. */
const LAYERED = policyOf({
  gitops: { revertWatch: '20m', exempt: ['savepoint', 'suspend'] },
  namespaces: [
    { name: 'prod-payments', gitops: { revertWatch: '0' } },
    { name: 'prod-*', gitops: { onManaged: 'refuse' } },
    { name: 'edge', clusters: ['eu-1'], gitops: { onManaged: 'pause' } },
    { name: 'edge', clusters: ['us-1'] },
    { name: 'dev' },
  ],
  rules: [
    {
      name: 'restarts-pause-flux',
      when: { namespaces: ['prod-*'], operations: ['restart'] },
      gitops: { onManaged: 'pause', revertWatch: '1h' },
    },
    {
      name: 'friday-watch-longer',
      when: { schedule: { days: ['fri'], from: '12:00', to: '23:59', timezone: 'Europe/Berlin' } },
      gitops: { revertWatch: '2h' },
    },
    {
      name: 'stateless-upgrades-exempt',
      when: { operations: ['upgrade'], upgradeModes: ['stateless'] },
      gitops: { exempt: ['upgrade'] },
      require: { approvals: 1, from: ['leads'] },
    },
    {
      name: 'restarts-never-refused',
      when: { operations: ['restart'] },
      gitops: { onManaged: 'warn', exempt: [] },
    },
  ],
});

describe('DEFAULT_GITOPS', () => {
  it('is warn, a 15m revert watch and savepoint exempt', () => {
    expect(DEFAULT_GITOPS).toEqual({
      onManaged: 'warn',
      revertWatch: '15m',
      revertWatchMs: 900_000,
      exempt: ['savepoint'],
    });
  });

  it('is what a policy without any gitops block resolves to, everywhere', () => {
    const policy = policyOf({ namespaces: [{ name: 'dev' }] });
    expect(gitopsFor(policy, input({ namespace: 'dev', intentKind: 'restart' }))).toEqual(DEFAULT_GITOPS);
    expect(gitopsFor(policy, input({ namespace: 'unmanaged' }))).toEqual(DEFAULT_GITOPS);
  });
});

describe('gitopsFor: key by key, the first matching rule, the namespace entry, the top level, the default', () => {
  it.each<[string, Partial<GitopsInput>, Partial<typeof DEFAULT_GITOPS>]>([
    [
      'an unlisted namespace: the top level, the default onManaged',
      { namespace: 'dev' },
      { onManaged: 'warn', revertWatch: '20m', revertWatchMs: 1_200_000, exempt: ['savepoint', 'suspend'] },
    ],
    ['a glob entry sets onManaged only', { namespace: 'prod-orders' }, { onManaged: 'refuse', revertWatch: '20m' }],
    [
      'an exact entry wins over the glob, so its namespace is not refused',
      { namespace: 'prod-payments' },
      { onManaged: 'warn', revertWatch: '0', revertWatchMs: 0 },
    ],
    ['a cluster-scoped entry in its cluster', { namespace: 'edge', cluster: 'eu-1' }, { onManaged: 'pause' }],
    ['the same name in another cluster', { namespace: 'edge', cluster: 'us-1' }, { onManaged: 'warn' }],
    [
      'the first matching rule wins over a later one and over the namespace',
      { intentKind: 'restart' },
      { onManaged: 'pause', revertWatch: '1h', revertWatchMs: 3_600_000, exempt: [] },
    ],
    [
      'a later rule still sets a key the earlier ones leave out',
      { namespace: 'dev', intentKind: 'restart' },
      { onManaged: 'warn', revertWatch: '20m', exempt: [] },
    ],
    ['a rule whose schedule holds', { namespace: 'dev', now: FRIDAY }, { revertWatch: '2h', revertWatchMs: 7_200_000 }],
    ['the same rule outside its schedule', { namespace: 'dev', now: MONDAY }, { revertWatch: '20m' }],
    [
      'a rule on the upgrade mode',
      { intentKind: 'upgrade', upgradeMode: 'stateless' },
      { onManaged: 'refuse', exempt: ['upgrade'] },
    ],
    [
      'the same rule for another mode',
      { intentKind: 'upgrade', upgradeMode: 'savepoint' },
      { exempt: ['savepoint', 'suspend'] },
    ],
  ])('%s', (_label, over, expected) => {
    expect(gitopsFor(LAYERED, input(over))).toMatchObject(expected);
  });

  it('moves revertWatch and its milliseconds together', () => {
    const policy = policyOf({
      namespaces: [{ name: 'dev', gitops: { revertWatch: '5m' } }],
      rules: [{ name: 'r', when: { operations: ['scale'] }, gitops: { revertWatch: '0s' } }],
    });
    expect(gitopsFor(policy, input({ namespace: 'dev' }))).toMatchObject({ revertWatch: '0s', revertWatchMs: 0 });
    expect(gitopsFor(policy, input({ namespace: 'dev', intentKind: 'restart' }))).toMatchObject({
      revertWatch: '5m',
      revertWatchMs: 300_000,
    });
  });

  it('hands out a copy: changing the result changes neither the policy nor the default', () => {
    const first = gitopsFor(LAYERED, input({ namespace: 'dev' }));
    first.exempt.push('restart');
    expect(gitopsFor(LAYERED, input({ namespace: 'dev' })).exempt).toEqual(['savepoint', 'suspend']);
    const fallback = gitopsFor(policyOf({ namespaces: [{ name: 'dev' }] }), input({ namespace: 'dev' }));
    fallback.exempt.push('restart');
    expect(DEFAULT_GITOPS.exempt).toEqual(['savepoint']);
  });
});

describe('a rule with only gitops', () => {
  it('is valid, and is neither a requirement nor a deny', () => {
    const decision = evaluate(LAYERED, { ...input({ intentKind: 'restart' }), checks: [] });
    expect(decision).toMatchObject({ outcome: 'allow', requirements: [] });
  });

  it('beside a require still requires', () => {
    const decision = evaluate(LAYERED, { ...input({ intentKind: 'upgrade', upgradeMode: 'stateless' }), checks: [] });
    expect(decision).toMatchObject({
      outcome: 'needs-approval',
      requirements: [{ rule: 'stateless-upgrades-exempt' }],
    });
  });

  it('that sets nothing is a warning, not an error', () => {
    const result = validatePolicy({ version: 1, namespaces: [{ name: 'dev' }], rules: [{ name: 'r', gitops: {} }] });
    expect(result).toMatchObject({
      ok: true,
      warnings: ['rules[0].gitops: sets no key (onManaged, revertWatch, exempt); the rule does nothing'],
    });
  });
});

describe('check-policy on GitOps', () => {
  it('says the default in full and every setting a namespace or rule changes, where it applies', () => {
    const text = describePolicy(LAYERED);
    const start = text.indexOf('GitOps-managed targets');
    const section = text.slice(start, text.indexOf('\n\n', start));
    expect(section.split('\n')).toEqual([
      "GitOps-managed targets (Argo CD, Flux, Helm; a matching rule's setting wins over the namespace's, then the default):",
      '  - by default: warn before a change Git will revert (the card names the owner and the fields Git declares); changes are watched for a revert for 20m; savepoint and suspend are exempt.',
      '  - namespace prod-payments: no revert watch.',
      '  - namespace prod-*: refuse a change Git will revert (change Git instead; --break-glass does not bypass it).',
      '  - namespace edge in cluster eu-1: pause Flux on the target in the same patch (then commit the change to Git and run `/flink gitops resume <target>`; refused for Argo CD and Helm targets).',
      '  - rule restarts-pause-flux (restart in prod-*): pause Flux on the target in the same patch (then commit the change to Git and run `/flink gitops resume <target>`; refused for Argo CD and Helm targets); changes are watched for a revert for 1h.',
      '  - rule friday-watch-longer (any operation in any managed namespace on Fridays 12:00–23:59 (Europe/Berlin)): changes are watched for a revert for 2h.',
      '  - rule stateless-upgrades-exempt (upgrade in any managed namespace with upgrade mode stateless): upgrade is exempt.',
      '  - rule restarts-never-refused (restart in any managed namespace): warn before a change Git will revert (the card names the owner and the fields Git declares); no operation is exempt.',
      '  - restore is denied where Git owns initialSavepointPath or savepointRedeployNonce, unless the target is paused.',
    ]);
  });

  it('shows the defaults when the policy has no gitops block', () => {
    expect(describePolicy(policyOf({ namespaces: [{ name: 'dev' }] }))).toContain(
      '  - by default: warn before a change Git will revert (the card names the owner and the fields Git declares); changes are watched for a revert for 15m; savepoint is exempt.\n',
    );
  });

  it('has no words for a block that sets nothing', () => {
    expect(gitopsWords({})).toEqual([]);
  });
});
