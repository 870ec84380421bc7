// verify.watchAfter resolved key by key (docs/policy.md#keys-limits-and-verification): rule, namespace entry,
// environment, verify.default, built-in; strict validation; check-policy's words (the health gate's too).
import { describe, expect, it } from 'vitest';
import { describePolicy } from '../../../../../src/domain/engines/policy/describe.js';
import type { Policy } from '../../../../../src/domain/engines/policy/schema.js';
import { validatePolicy } from '../../../../../src/domain/engines/policy/validate.js';
import { watchAfterFor, type WatchAfterInput } from '../../../../../src/domain/engines/policy/verify.js';

function policyOf(raw: Record<string, unknown>): Policy {
  const result = validatePolicy({ version: 1, groups: { leads: { users: ['U0LEAD1'] } }, ...raw });
  if (!result.ok) throw new Error(result.errors.join('\n'));
  return result.policy;
}

function errorsOf(raw: Record<string, unknown>): string[] {
  const result = validatePolicy({ version: 1, namespaces: [{ name: 'dev' }], ...raw });
  return result.ok ? [] : result.errors;
}

const MONDAY = new Date('2026-05-18T09:00:00Z');
const input = (over: Partial<WatchAfterInput> = {}): WatchAfterInput => ({
  namespace: 'prod-orders',
  intentKind: 'scale',
  now: MONDAY,
  ...over,
});
const ms = (policy: Policy, over: Partial<WatchAfterInput> = {}) => watchAfterFor(policy, input(over)).watchAfterMs;

const LAYERED = policyOf({
  verify: {
    production: { watchAfter: '20m', healthGate: 'warn' },
    staging: { rest: false, healthGate: { outcome: 'fail', restarts: 3, window: '15m' } },
    default: { watchAfter: '2m' },
  },
  namespaces: [
    { name: 'prod-payments', environment: 'production', verify: { watchAfter: '0' } },
    { name: 'prod-*', environment: 'production' },
    { name: 'stage', environment: 'staging' },
    { name: 'dev' },
  ],
  rules: [
    {
      name: 'restarts-longer',
      when: { operations: ['restart'], namespaces: ['prod-*'] },
      verify: { watchAfter: '30m' },
    },
    { name: 'prod-lead', when: { namespaces: ['prod-*'] }, require: { approvals: 1, from: ['leads'] } },
  ],
});

describe('watchAfterFor', () => {
  it('built in: 10m in production, 0 elsewhere', () => {
    const plain = policyOf({ namespaces: [{ name: 'prod-orders', environment: 'production' }, { name: 'dev' }] });
    expect(watchAfterFor(plain, input())).toEqual({ watchAfter: '10m', watchAfterMs: 600_000 });
    expect(watchAfterFor(plain, input({ namespace: 'dev' }))).toEqual({ watchAfter: '0', watchAfterMs: 0 });
  });

  it('the first matching rule, then the namespace entry, then the environment, then verify.default', () => {
    expect(ms(LAYERED, { intentKind: 'restart', namespace: 'prod-payments' })).toBe(30 * 60_000);
    expect(ms(LAYERED, { intentKind: 'scale', namespace: 'prod-payments' })).toBe(0);
    expect(ms(LAYERED, { intentKind: 'scale', namespace: 'prod-orders' })).toBe(20 * 60_000);
    // staging's block sets no watchAfter: verify.default's applies.
    expect(ms(LAYERED, { namespace: 'stage' })).toBe(2 * 60_000);
    expect(ms(LAYERED, { namespace: 'dev' })).toBe(2 * 60_000);
  });

  it('a rule matching on cluster only applies there', () => {
    const policy = policyOf({
      namespaces: [{ name: 'edge', environment: 'production' }],
      rules: [{ name: 'eu-short', when: { clusters: ['eu-*'] }, verify: { watchAfter: '1m' } }],
    });
    expect(ms(policy, { namespace: 'edge', cluster: 'eu-1' })).toBe(60_000);
    expect(ms(policy, { namespace: 'edge', cluster: 'us-1' })).toBe(600_000);
  });
});

describe('verify.watchAfter validation', () => {
  it('accepts durations and zero; a verify-only rule is a rule', () => {
    expect(errorsOf({ verify: { default: { watchAfter: 0 } } })).toEqual([]);
    expect(errorsOf({ verify: { production: { watchAfter: '0s' } } })).toEqual([]);
    expect(errorsOf({ rules: [{ name: 'r', verify: { watchAfter: '5m' } }] })).toEqual([]);
  });

  it('refuses a bad duration, an unknown key, and a per-environment key on a namespace or rule, naming the path', () => {
    expect(errorsOf({ verify: { production: { watchAfter: '10 minutes' } } })).toEqual([
      expect.stringMatching(
        /^verify\.production\.watchAfter: "10 minutes" is not a duration.*or 0 for no post-change watch/,
      ),
    ]);
    expect(errorsOf({ namespaces: [{ name: 'dev', verify: { watchAfter: '-1m' } }] })[0]).toMatch(
      /^namespaces\[0\]\.verify\.watchAfter: /,
    );
    expect(errorsOf({ namespaces: [{ name: 'dev', verify: { healthGate: 'fail' } }] })[0]).toMatch(
      /^namespaces\[0\]\.verify/,
    );
    expect(errorsOf({ rules: [{ name: 'r', verify: { watchAftr: '5m' } }] })[0]).toMatch(/^rules\[0\]\.verify/);
  });
});

describe('check-policy', () => {
  it('says how long each environment is watched, and the namespace and rule overrides', () => {
    const text = describePolicy(LAYERED);
    expect(text).toContain('  - production: Flink REST is read');
    expect(text).toMatch(/production: .*the job is watched for 20m after COMPLETED/);
    expect(text).toMatch(/other namespaces: .*the job is watched for 2m after COMPLETED/);
    expect(text).toContain('  - namespace prod-payments: the job is not watched after COMPLETED.');
    // The gate's outcome and restart storm per environment (docs/deep-verification.md#what-counts-as-a-restart).
    expect(text).toMatch(/production: .*the health gate warns \(restarts: any failover in 10m\)/);
    expect(text).toMatch(/staging: .*the health gate fails \(restarts: 3 failovers in 15m, or one global failover\)/);
    expect(text).toContain(
      '  - rule restarts-longer (where it matches; the first matching rule wins): the job is watched for 30m',
    );
  });
});
