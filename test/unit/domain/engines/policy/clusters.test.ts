// The policy and several clusters (docs/policy.md#several-clusters): `clusters` on namespace entries and rules,
// `defaultCluster` on channels, matching with and without a cluster, and cluster names checked against the
// installation's clusters.
import { describe, expect, it } from 'vitest';
import {
  channelDefaultCluster,
  clusterProblems,
  managedClusters,
} from '../../../../../src/domain/engines/policy/clusters.js';
import { describePolicy } from '../../../../../src/domain/engines/policy/describe.js';
import {
  canLock,
  canUnlock,
  channelDefaultNamespace,
  checkRequest,
  evaluate,
  findNamespace,
  ruleMatches,
  unmanagedMessage,
} from '../../../../../src/domain/engines/policy/evaluate.js';
import { approverGroups } from '../../../../../src/domain/engines/policy/groups.js';
import type { Policy } from '../../../../../src/domain/engines/policy/schema.js';
import { validatePolicy } from '../../../../../src/domain/engines/policy/validate.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- cases edit raw, YAML-shaped data at any depth
type RawPolicy = Record<string, any>;

/** Two clusters, prod-eu and prod-us: `streaming` has one entry per cluster, `sandbox-*` is everywhere. */
function raw(): RawPolicy {
  return {
    version: 1,
    groups: {
      leads: { users: ['U0LEAD1'] },
      eu: { users: ['U0EU1', 'U0EU2'] },
      us: { users: ['U0US1'] },
      usleads: { users: ['U0USLEAD'] },
    },
    namespaces: [
      { name: 'streaming', clusters: ['prod-eu'], environment: 'production', requesters: ['eu'] },
      { name: 'streaming', clusters: ['prod-us'], environment: 'staging', requesters: ['us'] },
      { name: 'prod-*', clusters: ['prod-*'], environment: 'production' },
      { name: 'sandbox-*' },
    ],
    channels: {
      C0EUROPE: { defaultNamespace: 'streaming', defaultCluster: 'prod-eu' },
      C0AMERICAS: { defaultCluster: 'prod-us' },
      C0PLAIN: { defaultNamespace: 'sandbox-a' },
    },
    rules: [
      {
        name: 'eu-needs-a-lead',
        when: { namespaces: ['streaming'], clusters: ['prod-eu'] },
        require: { approvals: 1, from: ['leads'] },
      },
      { name: 'us-needs-a-us-lead', when: { clusters: ['prod-u*'] }, require: { approvals: 1, from: ['usleads'] } },
      { name: 'everywhere-no-undo', when: { operations: ['undo'] }, deny: 'no undo' },
    ],
    approval: { requireReason: ['production'] },
  };
}

function policyOf(value: RawPolicy): Policy {
  const result = validatePolicy(value);
  if (!result.ok) throw new Error(result.errors.join('\n'));
  return result.policy;
}

function errorsOf(edit: (p: RawPolicy) => void, clusters?: readonly string[]): string[] {
  const value = raw();
  edit(value);
  const result = validatePolicy(value, clusters ? { clusters } : {});
  return result.ok ? [] : result.errors;
}

const POLICY = policyOf(raw());
const membership = {
  isMember: async (user: string, group: string) => POLICY.groups[group]?.users.includes(user) ?? false,
};
const input = (namespace: string, cluster?: string) => ({
  intentKind: 'scale' as const,
  namespace,
  now: new Date('2026-03-02T10:00:00Z'),
  checks: [],
  ...(cluster === undefined ? {} : { cluster }),
});

describe('schema: clusters and defaultCluster', () => {
  it('accepts clusters on namespace entries and rules, and a channel with only a defaultCluster', () => {
    expect(POLICY.namespaces[0]?.clusters).toEqual(['prod-eu']);
    expect(POLICY.namespaces[3]?.clusters).toBeUndefined();
    expect(POLICY.rules[1]?.when.clusters).toEqual(['prod-u*']);
    expect(POLICY.channels.C0AMERICAS).toEqual({ defaultCluster: 'prod-us' });
    expect(POLICY.channels.C0EUROPE).toEqual({ defaultNamespace: 'streaming', defaultCluster: 'prod-eu' });
  });

  it.each([
    [
      'an empty namespace clusters list',
      (p: RawPolicy) => (p.namespaces[3].clusters = []),
      'namespaces[3].clusters: list at least one cluster, or leave the key out',
    ],
    [
      'an empty rule clusters list',
      (p: RawPolicy) => (p.rules[2].when.clusters = []),
      'rules[2].when.clusters: list at least one cluster, or leave the key out',
    ],
    [
      'an uppercase cluster name',
      (p: RawPolicy) => (p.namespaces[0].clusters = ['Prod-EU']),
      'namespaces[0].clusters[0]: "Prod-EU" is not a cluster name',
    ],
    [
      'a cluster name ending in "-"',
      (p: RawPolicy) => (p.rules[0].when.clusters = ['prod-']),
      'rules[0].when.clusters[0]: "prod-" is not a cluster name',
    ],
    [
      'a glob with a dot',
      (p: RawPolicy) => (p.namespaces[2].clusters = ['prod.*']),
      'namespaces[2].clusters[0]: "prod.*" is not a cluster name or glob',
    ],
    [
      'a cluster name of 64 characters',
      (p: RawPolicy) => (p.namespaces[3].clusters = ['c'.repeat(64)]),
      'namespaces[3].clusters[0]: "ccc',
    ],
    [
      'a glob as defaultCluster',
      (p: RawPolicy) => (p.channels.C0AMERICAS.defaultCluster = 'prod-*'),
      'channels.C0AMERICAS.defaultCluster: "prod-*" is a glob; name one exact cluster',
    ],
    [
      'a bad defaultCluster',
      (p: RawPolicy) => (p.channels.C0AMERICAS.defaultCluster = 'prod_us'),
      'channels.C0AMERICAS.defaultCluster: "prod_us" is not a cluster name',
    ],
    [
      'a channel with neither default',
      (p: RawPolicy) => (p.channels.C0AMERICAS = {}),
      'channels.C0AMERICAS: set defaultNamespace or defaultCluster',
    ],
    [
      'a misspelt key',
      (p: RawPolicy) => (p.namespaces[0].cluster = ['prod-eu']),
      'namespaces[0].cluster: unknown key (did you mean "clusters"?)',
    ],
    [
      'a cluster list that is a string',
      (p: RawPolicy) => (p.rules[0].when.clusters = 'prod-eu'),
      'rules[0].when.clusters: must be a list, not string "prod-eu"',
    ],
  ])('rejects %s, naming the path', (_label, edit, message) => {
    const errors = errorsOf(edit);
    expect(
      errors.some((e) => e.startsWith(message)),
      errors.join('\n'),
    ).toBe(true);
  });

  it('allows one namespace name per cluster, but not twice for overlapping clusters', () => {
    expect(errorsOf(() => undefined)).toEqual([]);
    expect(errorsOf((p) => (p.namespaces[1].clusters = ['prod-*']))).toEqual([
      'namespaces[1].name: "streaming" is listed twice (also namespaces[0]) for overlapping clusters',
    ]);
    expect(errorsOf((p) => delete p.namespaces[1].clusters)).toEqual([
      'namespaces[1].name: "streaming" is listed twice (also namespaces[0]) for overlapping clusters',
    ]);
    expect(errorsOf((p) => p.namespaces.push({ name: 'sandbox-*' }))).toEqual([
      'namespaces[4].name: "sandbox-*" is listed twice (also namespaces[3])',
    ]);
  });

  it("refuses a channel default namespace that is not managed in the channel's defaultCluster", () => {
    expect(errorsOf((p) => (p.channels.C0AMERICAS.defaultNamespace = 'prod-orders'))).toEqual([]);
    expect(errorsOf((p) => (p.channels.C0EUROPE.defaultCluster = 'dev-eu'))).toEqual([
      'channels.C0EUROPE.defaultNamespace: namespace "streaming" is not managed in cluster "dev-eu", the channel\'s defaultCluster (no namespaces entry for it admits that cluster)',
    ]);
  });
});

describe('findNamespace and rules with a cluster', () => {
  it('picks the entry of the named cluster among two entries of the same namespace', () => {
    expect(findNamespace(POLICY, 'streaming', 'prod-eu')).toMatchObject({
      environment: 'production',
      requesters: ['eu'],
    });
    expect(findNamespace(POLICY, 'streaming', 'prod-us')).toMatchObject({ environment: 'staging', requesters: ['us'] });
    expect(findNamespace(POLICY, 'streaming', 'dev-eu')).toBeUndefined();
    expect(findNamespace(POLICY, 'sandbox-x', 'dev-eu')).toMatchObject({ name: 'sandbox-*' });
    expect(findNamespace(POLICY, 'prod-orders', 'prod-us')).toMatchObject({ name: 'prod-*' });
    expect(findNamespace(POLICY, 'prod-orders', 'dev-eu')).toBeUndefined();
  });

  it('without a cluster every clusters filter matches: the first exact entry, as before', () => {
    expect(findNamespace(POLICY, 'streaming')).toMatchObject({ clusters: ['prod-eu'], environment: 'production' });
    expect(findNamespace(POLICY, 'prod-orders')).toMatchObject({ name: 'prod-*' });
    expect(ruleMatches(POLICY.rules[0] as Policy['rules'][number], input('streaming'))).toBe(true);
    expect(ruleMatches(POLICY.rules[1] as Policy['rules'][number], input('streaming'))).toBe(true);
  });

  it('a rule with when.clusters matches only in those clusters (globs included)', () => {
    const [eu, us] = POLICY.rules as [Policy['rules'][number], Policy['rules'][number]];
    expect(ruleMatches(eu, input('streaming', 'prod-eu'))).toBe(true);
    expect(ruleMatches(eu, input('streaming', 'prod-us'))).toBe(false);
    expect(ruleMatches(us, input('streaming', 'prod-us'))).toBe(true);
    expect(ruleMatches(us, input('streaming', 'prod-eu'))).toBe(false);
  });

  it('evaluate applies the rules of the cluster and the environment of its entry', () => {
    const eu = evaluate(POLICY, input('streaming', 'prod-eu'));
    expect(eu).toMatchObject({ outcome: 'needs-approval', environment: 'production' });
    expect(eu.requirements.map((r) => r.rule)).toEqual(['eu-needs-a-lead']);
    const us = evaluate(POLICY, input('streaming', 'prod-us'));
    expect(us).toMatchObject({ outcome: 'needs-approval', environment: 'staging' });
    expect(us.requirements.map((r) => r.rule)).toEqual(['us-needs-a-us-lead']);
    expect(evaluate(POLICY, input('sandbox-x', 'dev-eu'))).toMatchObject({ outcome: 'allow', requirements: [] });
    const unmanaged = evaluate(POLICY, input('streaming', 'dev-eu'));
    expect(unmanaged.outcome).toBe('deny');
    expect(unmanaged.outcome === 'deny' && unmanaged.reasons[0]).toContain(
      'does not manage namespace streaming in cluster dev-eu',
    );
    expect(evaluate(POLICY, input('streaming')).requirements.map((r) => r.rule)).toEqual([
      'eu-needs-a-lead',
      'us-needs-a-us-lead',
    ]);
  });

  it('unmanagedMessage names the cluster when given', () => {
    expect(unmanagedMessage(POLICY, 'orders')).toBe(
      'the bot does not manage namespace orders (the policy lists streaming, streaming, prod-* and sandbox-*)',
    );
    expect(unmanagedMessage(POLICY, 'orders', 'prod-eu')).toBe(
      'the bot does not manage namespace orders in cluster prod-eu (the policy lists streaming, prod-* and sandbox-* there)',
    );
    const narrow = policyOf({ version: 1, namespaces: [{ name: 'a', clusters: ['eu'] }] });
    expect(unmanagedMessage(narrow, 'a', 'us')).toBe(
      'the bot does not manage namespace a in cluster us (no namespaces entry applies in cluster us)',
    );
  });
});

describe('requests, lock and unlock with a cluster', () => {
  it('checkRequest uses the requesters and environment of the entry in that cluster', async () => {
    const base = { namespace: 'streaming', requester: 'U0US1', hasReason: false, intentKind: 'scale' as const };
    expect(await checkRequest(POLICY, { ...base, cluster: 'prod-us' }, membership)).toMatchObject({
      ok: true,
      namespaceEntry: { environment: 'staging' },
    });
    expect(await checkRequest(POLICY, { ...base, cluster: 'prod-eu' }, membership)).toEqual({
      ok: false,
      message:
        'you may not request scale in streaming in cluster prod-eu: only members of eu may request operations there',
    });
    expect(await checkRequest(POLICY, { ...base, requester: 'U0EU1', cluster: 'prod-eu' }, membership)).toEqual({
      ok: false,
      message:
        'streaming in cluster prod-eu is a production namespace: say why with --reason "…" (the policy requires a reason there)',
    });
    expect(await checkRequest(POLICY, { ...base, cluster: 'dev-eu' }, membership)).toMatchObject({
      ok: false,
      message: expect.stringContaining('in cluster dev-eu'),
    });
  });

  it('canLock and canUnlock and approverGroups follow the cluster', async () => {
    expect(await canLock(POLICY, 'streaming', 'U0US1', membership, 'prod-us')).toBe(true);
    expect(await canLock(POLICY, 'streaming', 'U0US1', membership, 'prod-eu')).toBe(false);
    expect(approverGroups(POLICY, 'streaming', undefined, 'prod-eu')).toEqual(['leads']);
    expect(approverGroups(POLICY, 'streaming', undefined, 'prod-us')).toEqual(['usleads']);
    expect(approverGroups(POLICY, 'streaming')).toEqual(['leads', 'usleads']);
    expect(await canUnlock(POLICY, 'streaming', 'U0USLEAD', 'U0US1', membership, 'prod-us')).toBe(true);
    expect(await canUnlock(POLICY, 'streaming', 'U0USLEAD', 'U0EU1', membership, 'prod-eu')).toBe(false);
    expect(await canUnlock(POLICY, 'streaming', 'U0LEAD1', 'U0EU1', membership, 'prod-eu')).toBe(true);
  });
});

describe('channel defaults and managed clusters', () => {
  it('channelDefaultCluster reads the channel; a channel may carry only one of the defaults', () => {
    expect(channelDefaultCluster(POLICY, 'C0EUROPE')).toBe('prod-eu');
    expect(channelDefaultCluster(POLICY, 'C0AMERICAS')).toBe('prod-us');
    expect(channelDefaultNamespace(POLICY, 'C0AMERICAS')).toBeUndefined();
    expect(channelDefaultCluster(POLICY, 'C0PLAIN')).toBeUndefined();
    expect(channelDefaultCluster(POLICY, 'C0NOWHERE')).toBeUndefined();
    expect(channelDefaultCluster(POLICY, 'constructor')).toBeUndefined();
  });

  it('managedClusters lists, in the given order, the clusters where the namespace has an entry', () => {
    const clusters = ['prod-us', 'dev-eu', 'prod-eu'];
    expect(managedClusters(POLICY, 'streaming', clusters)).toEqual(['prod-us', 'prod-eu']);
    expect(managedClusters(POLICY, 'sandbox-x', clusters)).toEqual(clusters);
    expect(managedClusters(POLICY, 'prod-orders', clusters)).toEqual(['prod-us', 'prod-eu']);
    expect(managedClusters(POLICY, 'orders', clusters)).toEqual([]);
  });
});

describe('clusterProblems: cluster names against the installation', () => {
  it('has none when every name is known and every glob matches', () => {
    expect(clusterProblems(POLICY, ['prod-eu', 'prod-us'])).toEqual([]);
  });

  it('names each unknown cluster, glob matching none, and unknown defaultCluster by its path', () => {
    expect(clusterProblems(POLICY, ['eu', 'us'])).toEqual([
      'namespaces[0].clusters[0]: unknown cluster "prod-eu" (this installation has eu, us)',
      'namespaces[1].clusters[0]: unknown cluster "prod-us" (this installation has eu, us)',
      'namespaces[2].clusters[0]: "prod-*" matches no cluster (this installation has eu, us)',
      'rules[0].when.clusters[0]: unknown cluster "prod-eu" (this installation has eu, us)',
      'rules[1].when.clusters[0]: "prod-u*" matches no cluster (this installation has eu, us)',
      'channels.C0EUROPE.defaultCluster: unknown cluster "prod-eu" (this installation has eu, us)',
      'channels.C0AMERICAS.defaultCluster: unknown cluster "prod-us" (this installation has eu, us)',
    ]);
  });

  it('counts as a validation error only when the clusters are given, alongside schema errors', () => {
    const typo = (p: RawPolicy) => (p.namespaces[1].clusters = ['prod-eux']);
    expect(errorsOf(typo)).toEqual([]);
    expect(errorsOf(typo, ['prod-eu', 'prod-us'])).toEqual([
      'namespaces[1].clusters[0]: unknown cluster "prod-eux" (this installation has prod-eu, prod-us)',
    ]);
    const both = errorsOf(
      (p) => {
        typo(p);
        p.bogus = 1;
      },
      ['prod-eu', 'prod-us'],
    );
    expect(both).toHaveLength(2);
    expect(both[0]).toMatch(/^bogus: unknown key/);
    expect(both[1]).toBe(
      'namespaces[1].clusters[0]: unknown cluster "prod-eux" (this installation has prod-eu, prod-us)',
    );
  });
});

describe('describePolicy with clusters', () => {
  it("mentions a namespace's clusters, a rule's clusters and a channel's defaultCluster", () => {
    const text = describePolicy(POLICY);
    expect(text).toContain(
      '  - streaming in cluster prod-eu (environment: production): requests from eu (U0EU1, U0EU2)',
    );
    expect(text).toContain(
      '  - prod-* (every namespace matching this glob) in clusters prod-* (environment: production)',
    );
    expect(text).toContain('  - sandbox-* (every namespace matching this glob): anyone may request.');
    expect(text).toContain(
      '  - eu-needs-a-lead: any operation in streaming in cluster prod-eu needs 1 approval from leads (U0LEAD1).',
    );
    expect(text).toContain(
      '  - us-needs-a-us-lead: any operation in any managed namespace in clusters prod-u* needs 1 approval',
    );
    expect(text).toContain('Channel defaults (for bare target names and targets without a cluster):');
    expect(text).toContain(
      '  - in channel C0EUROPE, a bare name means namespace streaming; a target without a cluster means cluster prod-eu.',
    );
    expect(text).toContain('  - in channel C0AMERICAS, a target without a cluster means cluster prod-us.');
    expect(text).toContain('  - in channel C0PLAIN, a bare name means namespace sandbox-a.');
  });
});
