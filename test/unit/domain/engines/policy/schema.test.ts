import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { INTENT_KINDS } from '../../../../../src/domain/kinds/index.js';
import { configValue, readFlinkConfig } from '../../../../../src/domain/model/flink-config.js';
import { describePolicy } from '../../../../../src/domain/engines/policy/describe.js';
import { globsOverlap, matchesGlob } from '../../../../../src/domain/kit/policy/glob.js';
import { formatPath } from '../../../../../src/domain/engines/policy/schema-issues.js';
import { validatePolicy } from '../../../../../src/domain/engines/policy/validate.js';
import { loadPolicyFile, parsePolicyText } from '../../../../../src/app/policy-load.js';

const EXAMPLE = new URL('../../../../../examples/policy.yaml', import.meta.url);

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- cases reach into raw, YAML-shaped data at any depth
type RawPolicy = Record<string, any>;

/** A policy with every block (docs/policy.md#policy) as a plain value; each case edits a fresh copy. */
function base(): RawPolicy {
  return {
    version: 1,
    groups: {
      leads: { users: ['U0LEAD1'], usergroups: ['S0LEADS'] },
      oncall: { users: ['U0ONCALL'] },
      managers: { users: ['U0MANAGER'] },
    },
    namespaces: [
      {
        name: 'streaming-prod',
        environment: 'production',
        requesters: ['oncall', 'leads'],
        incidentChannel: 'C0INCIDENTS',
      },
      { name: 'streaming-dev' },
    ],
    channels: { C0DATAPLATFORM: { defaultNamespace: 'streaming-prod' } },
    rules: [
      {
        name: 'prod-needs-a-lead',
        when: {
          namespaces: ['streaming-prod'],
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
        name: 'friday-freeze',
        when: {
          namespaces: ['streaming-prod'],
          schedule: { days: ['fri'], from: '15:00', to: '23:59', timezone: 'Europe/Berlin' },
        },
        deny: 'No production changes on Friday afternoons',
      },
    ],
    approval: {
      ttl: '30m',
      allowSelfApproval: false,
      requireReason: ['production'],
      notify: 'dm',
      remindAfter: '10m',
      escalateAfter: '20m',
      escalateTo: ['managers'],
    },
    breakGlass: { groups: ['oncall'], environments: ['production'], reviewWithin: '24h' },
    timezone: 'Europe/Berlin',
    windows: { nightly: { days: ['mon', 'tue', 'wed', 'thu'], from: '02:00', to: '04:00' } },
    config: {
      allow: ['execution.checkpointing.*', 'restart-strategy.*', 'taskmanager.memory.*', 'job.autoscaler.enabled'],
      deny: ['high-availability*', 'kubernetes.operator.*'],
    },
    limits: { taskManagerMemory: '16g', taskManagerCpu: 8, parallelism: 512 },
    verify: {
      production: { rest: true, checkpointAfterChange: true, healthGate: 'fail' },
      default: { rest: true, checkpointAfterChange: false, healthGate: 'warn' },
    },
    gitops: { onManaged: 'warn', revertWatch: '15m', exempt: ['savepoint'] },
  };
}

function errorsOf(edit: (p: RawPolicy) => void): string[] {
  const policy = base();
  edit(policy);
  const result = validatePolicy(policy);
  return result.ok ? [] : result.errors;
}

describe('policy schema: the example policy', () => {
  it('parses examples/policy.yaml into the typed policy with defaults applied', () => {
    const parsed = parsePolicyText(readFileSync(EXAMPLE, 'utf8'));
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.warnings).toEqual([]);
    expect(parsed.policy).toEqual(validatePolicy(base()).ok && (validatePolicy(base()) as { policy: unknown }).policy);
    expect(parsed.policy.groups.oncall).toEqual({ users: ['U0ONCALL'], usergroups: [] });
    expect(parsed.policy.approval).toEqual({
      ttl: '30m',
      ttlMs: 1_800_000,
      allowSelfApproval: false,
      requireReason: ['production'],
      notify: 'dm',
      remindAfter: '10m',
      remindAfterMs: 600_000,
      escalateAfter: '20m',
      escalateAfterMs: 1_200_000,
      escalateTo: ['managers'],
    });
    expect(parsed.policy.breakGlass).toEqual({
      groups: ['oncall'],
      environments: ['production'],
      reviewWithin: '24h',
      reviewWithinMs: 86_400_000,
    });
    expect(parsed.policy.gitops).toEqual({
      onManaged: 'warn',
      revertWatch: '15m',
      revertWatchMs: 900_000,
      exempt: ['savepoint'],
    });
  });

  it.each([
    [
      'omitted',
      undefined,
      { ttl: '30m', ttlMs: 1_800_000, allowSelfApproval: false, requireReason: [], notify: 'dm', escalateTo: [] },
    ],
    [
      'self-approval on',
      { allowSelfApproval: true },
      { ttl: '30m', ttlMs: 1_800_000, allowSelfApproval: true, requireReason: [], notify: 'dm', escalateTo: [] },
    ],
    [
      'self-approval off, 2h ttl',
      { allowSelfApproval: false, ttl: '2h' },
      { ttl: '2h', ttlMs: 7_200_000, allowSelfApproval: false, requireReason: [], notify: 'dm', escalateTo: [] },
    ],
  ])('approval settings %s', (_label, approval, expected) => {
    const policy = base();
    if (approval === undefined) delete policy.approval;
    else policy.approval = approval;
    const result = validatePolicy(policy);
    expect(result.ok && result.policy.approval).toEqual(expected);
  });
});

describe('policy schema: every problem is one line naming its path', () => {
  it.each<[string, (p: RawPolicy) => void, string[]]>([
    [
      'unknown group in a rule (the documented wording)',
      (p) => (p.rules[2] = { name: 'x', when: {}, require: { approvals: 1, from: ['lead'] } }),
      ['rules[2].require.from[0]: unknown group "lead"'],
    ],
    [
      'unknown group in requesters',
      (p) => (p.namespaces[0].requesters = ['oncall', 'ops']),
      ['namespaces[0].requesters[1]: unknown group "ops"'],
    ],
    ['unknown top-level key', (p) => (p.rule = []), ['rule: unknown key (did you mean "rules"?)']],
    [
      'unknown key in a group',
      (p) => (p.groups.leads.members = ['U1X']),
      ['groups.leads.members: unknown key (allowed: users, usergroups)'],
    ],
    [
      'unknown key in a namespace entry',
      (p) => (p.namespaces[1].requester = ['leads']),
      ['namespaces[1].requester: unknown key (did you mean "requesters"?)'],
    ],
    [
      'unknown key in a rule when',
      (p) => (p.rules[0].when.operation = ['scale']),
      ['rules[0].when.operation: unknown key (did you mean "operations"?)'],
    ],
    [
      'unknown key in a schedule',
      (p) => (p.rules[2].when.schedule.tz = 'UTC'),
      ['rules[2].when.schedule.tz: unknown key (allowed: days, from, to, timezone)'],
    ],
    [
      'unknown key in require',
      (p) => (p.rules[0].require.count = 2),
      ['rules[0].require.count: unknown key (allowed: approvals, from)'],
    ],
    [
      'unknown key in a channel',
      (p) => (p.channels.C0DATAPLATFORM.namespace = 'x'),
      ['channels.C0DATAPLATFORM.namespace: unknown key (did you mean "defaultNamespace"?)'],
    ],
    [
      'unknown key in approval',
      (p) => (p.approval.selfApproval = true),
      ['approval.selfApproval: unknown key (did you mean "allowSelfApproval"?)'],
    ],
    [
      'unknown operation with suggestion',
      (p) => (p.rules[0].when.operations[2] = 'scael'),
      [
        `rules[0].when.operations[2]: unknown operation "scael" (did you mean "scale"?); use one of ${INTENT_KINDS.join(', ')}`,
      ],
    ],
    [
      'unknown upgrade mode',
      (p) => (p.rules[1].when.upgradeModes = ['laststate']),
      [
        'rules[1].when.upgradeModes[0]: unknown upgrade mode "laststate" (did you mean "last-state"?); use one of savepoint, last-state, stateless',
      ],
    ],
    [
      'unknown day',
      (p) => (p.rules[2].when.schedule.days = ['friday']),
      [
        'rules[2].when.schedule.days[0]: unknown day "friday" (did you mean "fri"?); use one of mon, tue, wed, thu, fri, sat, sun',
      ],
    ],
    [
      'invalid time zone',
      (p) => (p.rules[2].when.schedule.timezone = 'Europe/Berln'),
      ['rules[2].when.schedule.timezone: unknown time zone "Europe/Berln"; use an IANA name such as Europe/Berlin'],
    ],
    [
      'from not HH:MM',
      (p) => (p.rules[2].when.schedule.from = '3pm'),
      ['rules[2].when.schedule.from: must be HH:MM between 00:00 and 23:59, not "3pm"'],
    ],
    [
      'to out of range',
      (p) => (p.rules[2].when.schedule.to = '24:00'),
      ['rules[2].when.schedule.to: must be HH:MM between 00:00 and 23:59, not "24:00"'],
    ],
    [
      'duplicate rule names',
      (p) => (p.rules[1].name = 'prod-needs-a-lead'),
      ['rules[1].name: duplicate rule name "prod-needs-a-lead" (also rules[0])'],
    ],
    [
      'channel default not managed',
      (p) => (p.channels.C0DATAPLATFORM.defaultNamespace = 'streaming-stage'),
      [
        'channels.C0DATAPLATFORM.defaultNamespace: namespace "streaming-stage" is not managed by the bot (no namespaces entry matches it)',
      ],
    ],
    [
      'approvals above the members of user-only groups',
      (p) => (p.rules[0].require = { approvals: 3, from: ['oncall'] }),
      ['rules[0].require.approvals: 3 approvals needed but oncall has 1 member; the rule can never be satisfied'],
    ],
    [
      'rule namespace matching nothing managed',
      (p) => (p.rules[2].when.namespaces = ['streaming-prd']),
      ['rules[2].when.namespaces[0]: "streaming-prd" matches no namespace the bot manages; the rule would never apply'],
    ],
    [
      'upgradeModes on savepoints only',
      (p) => (p.rules[1].when.operations = ['savepoint']),
      ['rules[1].when.upgradeModes: savepoint has no upgrade mode; the rule would never apply'],
    ],
    [
      'both require and deny',
      (p) => (p.rules[0].deny = 'no'),
      ['rules[0]: has both "require" and "deny"; a rule does at most one of them'],
    ],
    [
      'both require and deny, with gitops',
      (p) => Object.assign(p.rules[0], { deny: 'no', gitops: { onManaged: 'refuse' } }),
      ['rules[0]: has both "require" and "deny"; a rule does at most one of them'],
    ],
    [
      'neither require, deny nor gitops',
      (p) => delete p.rules[0].require,
      ['rules[0]: needs "require: { approvals, from }", "deny: <why>", "gitops: { … }" or "verify: { watchAfter }"'],
    ],
    [
      'unknown key in a gitops block',
      (p) => (p.gitops.onManage = 'refuse'),
      ['gitops.onManage: unknown key (did you mean "onManaged"?)'],
    ],
    [
      'unknown key in a namespace gitops block',
      (p) => (p.namespaces[0].gitops = { mode: 'refuse' }),
      ['namespaces[0].gitops.mode: unknown key (allowed: onManaged, revertWatch, exempt)'],
    ],
    [
      'unknown onManaged value',
      (p) => (p.rules[0].gitops = { onManaged: 'refuze' }),
      [
        'rules[0].gitops.onManaged: unknown onManaged setting "refuze" (did you mean "refuse"?); use one of warn, refuse, pause',
      ],
    ],
    [
      'unknown kind in exempt',
      (p) => (p.gitops.exempt = ['savepoint', 'scael']),
      [`gitops.exempt[1]: unknown operation "scael" (did you mean "scale"?); use one of ${INTENT_KINDS.join(', ')}`],
    ],
    [
      'bad revertWatch',
      (p) => (p.namespaces[1].gitops = { revertWatch: '15' }),
      [
        'namespaces[1].gitops.revertWatch: "15" is not a duration; write <n>ms, <n>s, <n>m or <n>h (e.g. 30s), or 0 to switch the revert watch off',
      ],
    ],
    ['gitops not a mapping', (p) => (p.gitops = 'refuse'), ['gitops: must be a mapping, not string "refuse"']],
    ['approvals zero', (p) => (p.rules[0].require.approvals = 0), ['rules[0].require.approvals: must be at least 1']],
    [
      'approvals not a whole number',
      (p) => (p.rules[0].require.approvals = 1.5),
      ['rules[0].require.approvals: must be a whole number, not number 1.5'],
    ],
    ['wrong version', (p) => (p.version = 2), ['version: must be 1']],
    ['missing version', (p) => delete p.version, ['version: required (must be 1)']],
    ['missing namespaces', (p) => delete p.namespaces, ['namespaces: required (a list)']],
    [
      'empty operations list',
      (p) => (p.rules[0].when.operations = []),
      ['rules[0].when.operations: list at least one operation, or leave the key out'],
    ],
    [
      'bad user id',
      (p) => (p.groups.oncall.users = ['bob']),
      ['groups.oncall.users[0]: "bob" is not a Slack user id (U… or W…, e.g. U0LEAD1)'],
    ],
    [
      'empty group',
      (p) => (p.groups.oncall = {}),
      ['groups.oncall: has no users and no usergroups; nobody would be in it'],
    ],
    [
      'bad duration',
      (p) => (p.approval.ttl = 'soon'),
      ['approval.ttl: "soon" is not a duration; write <n>ms, <n>s, <n>m or <n>h (e.g. 30s)'],
    ],
    [
      'wrong type',
      (p) => (p.approval.allowSelfApproval = 'no'),
      ['approval.allowSelfApproval: must be true or false, not string "no"'],
    ],
    [
      'requireReason environment nobody has',
      (p) => (p.approval.requireReason = ['prod']),
      ['approval.requireReason[0]: no namespace has environment "prod" (environments in use: production)'],
    ],
    [
      'namespace glob with bad characters',
      (p) => (p.namespaces[1].name = 'Dev_*'),
      [
        'namespaces[1].name: "Dev_*" is not a namespace or glob: lowercase letters, digits, "-" and "*" (e.g. "prod-*")',
      ],
    ],
    [
      'duplicate namespace entry',
      (p) => p.namespaces.push({ name: 'streaming-dev' }),
      ['namespaces[2].name: "streaming-dev" is listed twice (also namespaces[1])'],
    ],
  ])('%s', (_label, edit, expected) => {
    expect(errorsOf(edit)).toEqual(expected);
  });

  it('reports structural and cross-check problems together, so one run lists every problem', () => {
    const errors = errorsOf((p) => {
      p.extra = true;
      p.rules[0].require.from = ['lead'];
      p.rules[1].when.schedule = { days: ['fri'], from: '9:00', to: '10:00', timezone: 'UTC' };
    });
    expect(errors).toEqual([
      'rules[1].when.schedule.from: must be HH:MM between 00:00 and 23:59, not "9:00"',
      'extra: unknown key (allowed: version, groups, namespaces, channels, rules, approval, config, limits, verify, breakGlass, timezone, windows, gitops, alerts, logs, restore)',
      'rules[0].require.from[0]: unknown group "lead"',
    ]);
  });

  it('warns (does not fail) when approvals equal the members and self-approval is off', () => {
    const policy = base();
    policy.rules[0].require = { approvals: 1, from: ['oncall'] };
    const result = validatePolicy(policy);
    expect(result.ok).toBe(true);
    expect(result.warnings).toEqual([
      'rules[0].require.approvals: 1 approval needed and oncall has 1 member; when one of them requests, the rule cannot be satisfied (allowSelfApproval is false)',
    ]);
    policy.approval.allowSelfApproval = true;
    expect(validatePolicy(policy).warnings).toEqual([]);
    policy.approval.allowSelfApproval = false;
    policy.groups.ops = { users: ['U0OPS1'] };
    policy.namespaces[0].requesters = ['ops']; // the one oncall member can no longer request there
    expect(validatePolicy(policy).warnings).toEqual([]);
  });

  it.each([
    [['rules', 2, 'require', 'from', 0], 'rules[2].require.from[0]'],
    [['groups', 'leads', 'users'], 'groups.leads.users'],
    [['channels', 'a b'], 'channels["a b"]'],
    [[], '(top level)'],
  ])('formats path %j as %s', (path, text) => {
    expect(formatPath(path)).toBe(text);
  });
});

describe('policy YAML', () => {
  it.each([
    ['duplicate keys', 'version: 1\nversion: 1\n', 'YAML syntax error at line 2, column 1: Map keys must be unique'],
    [
      'bad indentation',
      'version: 1\nnamespaces:\n  - name: a\n   environment: x\n',
      'YAML syntax error at line 4, column',
    ],
    ['empty file', '# nothing\n', 'the file is empty; a policy starts with "version: 1"'],
  ])('%s → a line with the position', (_label, text, expected) => {
    const parsed = parsePolicyText(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.errors[0]).toContain(expected);
  });
});

describe('loadPolicyFile', () => {
  it('returns the policy with the sha256 of the file bytes', async () => {
    const loaded = await loadPolicyFile(EXAMPLE.pathname);
    expect(loaded.ok && loaded.hash).toBe(createHash('sha256').update(readFileSync(EXAMPLE)).digest('hex'));
  });

  it('tells a missing file apart from an invalid one', async () => {
    expect(await loadPolicyFile('/nonexistent/policy.yaml')).toEqual({
      ok: false,
      problem: 'missing',
      errors: ['/nonexistent/policy.yaml: no such file'],
    });
    const broken = await loadPolicyFile(
      new URL('../../../../fixtures/policies/unknown-group.yaml', import.meta.url).pathname,
    );
    expect(broken).toMatchObject({
      ok: false,
      problem: 'invalid',
      errors: ['rules[2].require.from[0]: unknown group "lead"'],
    });
  });
});

describe('namespace globs', () => {
  it.each([
    ['prod-*', 'prod-eu', true],
    ['prod-*', 'prod-', true],
    ['prod-*', 'staging-prod-eu', false],
    ['*', 'anything', true],
    ['streaming-prod', 'streaming-prod', true],
    ['streaming-prod', 'streaming-prod2', false],
    ['*-prod', 'eu-prod', true],
  ])('%s matches %s: %s', (pattern, name, expected) => {
    expect(matchesGlob(pattern, name)).toBe(expected);
  });

  it.each([
    ['prod-*', 'prod-eu', true],
    ['prod-*', '*-eu', true],
    ['prod-*', 'dev-*', false],
    ['*', 'x', true],
    ['a*b', 'a*c', false],
    ['a*b*', '*c*', true],
  ])('%s overlaps %s: %s', (a, b, expected) => {
    expect(globsOverlap(a, b)).toBe(expected);
    expect(globsOverlap(b, a)).toBe(expected);
  });
});

describe('Flink configuration', () => {
  it.each<[string, unknown, string | undefined]>([
    ['flat', { 'state.savepoints.dir': 's3://b/sp' }, 's3://b/sp'],
    ['nested', { state: { savepoints: { dir: 's3://b/sp' } } }, 's3://b/sp'],
    ['mixed', { 'state.savepoints': { dir: 's3://b/sp' } }, 's3://b/sp'],
    ['flat wins', { 'state.savepoints.dir': 'flat', state: { savepoints: { dir: 'nested' } } }, 'flat'],
    ['absent', { state: { checkpoints: { dir: 'x' } } }, undefined],
    ['not a map', 'oops', undefined],
  ])('%s', (_label, configuration, expected) => {
    expect(configValue(configuration, 'state.savepoints.dir')).toBe(expected);
  });

  it('stringifies numbers and layers a session job over its session cluster', () => {
    expect(configValue({ pipeline: { 'max-parallelism': 128 } }, 'pipeline.max-parallelism')).toBe('128');
    const job = { spec: { flinkConfiguration: { 'high-availability': 'kubernetes' } } };
    const cluster = {
      spec: { flinkConfiguration: { 'high-availability': { type: 'NONE' }, 'state.savepoints.dir': 's3://c' } },
    };
    expect(readFlinkConfig(job, ['high-availability.type', 'high-availability'], cluster)).toEqual({
      value: 'kubernetes',
      key: 'high-availability',
      source: 'resource',
    });
    expect(readFlinkConfig({ spec: {} }, ['high-availability.type'], cluster)).toEqual({
      value: 'NONE',
      key: 'high-availability.type',
      source: 'session cluster',
    });
    expect(readFlinkConfig(job, 'state.savepoints.dir', cluster)?.source).toBe('session cluster');
    expect(readFlinkConfig(null, 'state.savepoints.dir')).toBeUndefined();
  });
});

describe('describePolicy', () => {
  it('says in plain words who may request, who approves what, freezes and settings', () => {
    const result = validatePolicy(base());
    if (!result.ok) throw new Error(result.errors.join('\n'));
    const text = describePolicy(result.policy);
    for (const phrase of [
      'streaming-prod (environment: production): requests from oncall (U0ONCALL) and leads (U0LEAD1, user group S0LEADS)',
      'digests of every operation go to channel C0INCIDENTS',
      'streaming-dev: anyone may request',
      'prod-needs-a-lead: suspend, restart, scale, upgrade, restore and undo in streaming-prod need 1 approval from leads (U0LEAD1, user group S0LEADS)',
      'stateless-in-prod-needs-two: any operation in streaming-prod with upgrade mode stateless needs 2 approvals from leads',
      'no rule requires approval in streaming-dev',
      'friday-freeze: any operation in streaming-prod on Fridays 15:00–23:59 (Europe/Berlin) is denied: "No production changes on Friday afternoons"',
      'expires after 30m',
      'self-approval is off',
      'a reason (--reason) is required in production namespaces (streaming-prod)',
      'in channel C0DATAPLATFORM, a bare name means namespace streaming-prod',
    ]) {
      expect(text).toContain(phrase);
    }
  });
});
