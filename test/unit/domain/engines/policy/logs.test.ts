// Who may read logs and what is redacted (docs/policy.md#logs): key-by-key resolution, the refusal naming the groups,
// unknown groups in validation, and check-policy's lines.
import { describe, expect, it } from 'vitest';
import { describePolicy } from '../../../../../src/domain/engines/policy/describe.js';
import { logsAccess, logsSettings } from '../../../../../src/domain/engines/policy/logs.js';
import type { Policy } from '../../../../../src/domain/engines/policy/schema.js';
import { validatePolicy } from '../../../../../src/domain/engines/policy/validate.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- raw, YAML-shaped data
type Raw = Record<string, any>;

function raw(extra: Raw = {}, prod: Raw = {}): Raw {
  return {
    version: 1,
    groups: { oncall: { users: ['U0ONCALL'] }, leads: { users: ['U0LEAD'] }, sre: { users: ['U0SRE'] } },
    namespaces: [{ name: 'streaming-prod', requesters: ['oncall', 'leads'], ...prod }, { name: 'streaming-dev' }],
    ...extra,
  };
}

function policy(extra: Raw = {}, prod: Raw = {}): Policy {
  const result = validatePolicy(raw(extra, prod));
  if (!result.ok) throw new Error(result.errors.join('\n'));
  return result.policy;
}

const members: Record<string, string[]> = { oncall: ['U0ONCALL'], leads: ['U0LEAD'], sre: ['U0SRE'] };
const membership = { isMember: async (user: string, group: string) => members[group]?.includes(user) ?? false };
const access = (p: Policy, namespace: string, user: string) =>
  logsAccess(p, { namespace, user }, membership, () => `unmanaged ${namespace}`);

describe('logsSettings', () => {
  it('defaults to the namespace requesters (anyone where there are none) and no redact patterns', () => {
    const p = policy();
    const prod = logsSettings(p, p.namespaces[0]!);
    expect(prod).toMatchObject({ allowedFor: ['oncall', 'leads'], source: 'requesters', redact: [] });
    expect(logsSettings(p, p.namespaces[1]!).allowedFor).toBeUndefined();
  });

  it('the namespace entry wins key by key over the top level', () => {
    const p = policy({ logs: { allowedFor: ['sre'], redact: ['IBAN'] } }, { logs: { redact: ['customer-\\d+'] } });
    const prod = logsSettings(p, p.namespaces[0]!);
    expect(prod).toMatchObject({ allowedFor: ['sre'], source: 'logs.allowedFor', redact: ['customer-\\d+'] });
    expect(prod.redactPatterns[0]?.test('CUSTOMER-12')).toBe(true);
    expect(logsSettings(p, p.namespaces[1]!)).toMatchObject({ allowedFor: ['sre'], redact: ['IBAN'] });
  });
});

describe('logsAccess', () => {
  it('lets the allowed groups read and refuses anyone else naming the groups', async () => {
    const p = policy({}, { logs: { allowedFor: ['sre'] } });
    expect((await access(p, 'streaming-prod', 'U0SRE')).ok).toBe(true);
    expect(await access(p, 'streaming-prod', 'U0ONCALL')).toEqual({
      ok: false,
      message: 'you may not read logs in streaming-prod: only members of sre may (the policy’s logs.allowedFor)',
    });
  });

  it('by default the requesters may, and the refusal says the rule came from them', async () => {
    const p = policy();
    expect((await access(p, 'streaming-prod', 'U0LEAD')).ok).toBe(true);
    const refused = await access(p, 'streaming-prod', 'U0SRE');
    expect(refused.ok ? '' : refused.message).toContain(
      'only members of oncall and leads may (the namespace requesters',
    );
    expect((await access(p, 'streaming-dev', 'U0SRE')).ok).toBe(true);
    expect(await access(p, 'elsewhere', 'U0SRE')).toEqual({ ok: false, message: 'unmanaged elsewhere' });
  });
});

describe('validation and check-policy', () => {
  it('names unknown groups and bad patterns by path', () => {
    const result = validatePolicy(
      raw({ logs: { allowedFor: ['ghosts'], redact: ['(x'] } }, { logs: { allowedFor: ['sre', 'nobody'], extra: 1 } }),
    );
    expect(result.ok).toBe(false);
    const errors = result.ok ? [] : result.errors;
    expect(errors).toContain('logs.allowedFor[0]: unknown group "ghosts"');
    expect(errors).toContain('namespaces[0].logs.allowedFor[1]: unknown group "nobody"');
    expect(errors.join('\n')).toMatch(/logs\.redact\[0\]: "\(x" is not a valid regular expression/);
    expect(errors.join('\n')).toContain('namespaces[0].logs');
  });

  it('check-policy prints who may read logs and what is redacted', () => {
    const text = describePolicy(policy({ logs: { redact: ['IBAN'] } }, { logs: { allowedFor: ['sre'] } }));
    expect(text).toContain('Pod logs (`/flink logs`, answered privately):');
    expect(text).toContain(
      '  - by default: read by the requesters of each namespace (anyone where it has none); lines matching "IBAN" are redacted;',
    );
    expect(text).toContain('  - namespace streaming-prod: read by members of sre;');
  });
});
