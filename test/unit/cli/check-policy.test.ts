// `flink-chatops check-policy` (src/cli/check-policy.ts), run as installed and in process, with and without --clusters.
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkPolicy as checkPolicyIn } from '../../../src/cli/check-policy.js';

const BIN = new URL('../../../bin/flink-chatops.js', import.meta.url).pathname;
const FIXTURES = new URL('../../fixtures/policies/', import.meta.url).pathname;
const EXAMPLE = new URL('../../../examples/policy.yaml', import.meta.url).pathname;

function checkPolicy(...args: string[]) {
  const result = spawnSync(process.execPath, [BIN, 'check-policy', ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '' },
    timeout: 20_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const NO_STACK = /\n\s+at /;

describe('flink-chatops check-policy', () => {
  it('exits 0 on the example policy and prints what it allows in plain words', () => {
    const { code, stdout, stderr } = checkPolicy(EXAMPLE);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    for (const phrase of [
      'a valid policy (sha256 ',
      'streaming-prod (environment: production): requests from oncall (U0ONCALL) and leads (U0LEAD1, user group S0LEADS)',
      'streaming-dev: anyone may request',
      'prod-needs-a-lead: suspend, restart, scale, upgrade, restore and undo in streaming-prod need 1 approval from leads (U0LEAD1, user group S0LEADS)',
      'friday-freeze: any operation in streaming-prod on Fridays 15:00–23:59 (Europe/Berlin) is denied',
      'expires after 30m',
      'self-approval is off',
      'in channel C0DATAPLATFORM, a bare name means namespace streaming-prod',
    ]) {
      expect(stdout).toContain(phrase);
    }
  });

  it.each([
    ['unknown-group.yaml', ['1 problem:\n  rules[2].require.from[0]: unknown group "lead"\n']],
    [
      'unknown-keys.yaml',
      [
        '5 problems:',
        'groups.leads.members: unknown key (allowed: users, usergroups)',
        'namespaces[0].enviroment: unknown key (did you mean "environment"?)',
        'rules[0].when.operation: unknown key (did you mean "operations"?)',
        'approval.selfApproval: unknown key (did you mean "allowSelfApproval"?)',
        'colour: unknown key',
      ],
    ],
    [
      'bad-schedule.yaml',
      [
        'rules[0].when.schedule.days[1]: unknown day "fryday"',
        'rules[0].when.schedule.from: must be HH:MM between 00:00 and 23:59, not "3pm"',
        'rules[0].when.schedule.timezone: unknown time zone "Europe/Berln"',
        'rules[1].when.operations[0]: unknown operation "scael" (did you mean "scale"?)',
        'rules[1].name: duplicate rule name "friday-freeze" (also rules[0])',
      ],
    ],
    ['syntax-error.yaml', ['not valid YAML:', 'YAML syntax error at line 4, column 1:']],
    ['empty.yaml', ['the file is empty']],
  ])('exits 1 on %s with path-named lines and no stack trace', (file, lines) => {
    const { code, stdout, stderr } = checkPolicy(`${FIXTURES}${file}`);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    for (const line of lines) expect(stderr).toContain(line);
    expect(stderr).not.toMatch(NO_STACK);
  });

  it('exits 0 on a usable policy with warnings, printing them apart from the description', () => {
    const { code, stdout, stderr } = checkPolicy(`${FIXTURES}lone-approver.yaml`);
    expect(code).toBe(0);
    expect(stdout).toContain(
      'prod-needs-a-lead: any operation in streaming-prod needs 1 approval from leads (U0LEAD1)',
    );
    expect(stderr).toBe(
      'warnings:\n  rules[0].require.approvals: 1 approval needed and leads has 1 member; when one of them requests, the rule cannot be satisfied (allowSelfApproval is false)\n',
    );
  });

  it('exits 1 with one clear line for a missing file, and for bad usage', () => {
    const missing = checkPolicy(`${FIXTURES}does-not-exist.yaml`);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(`flink-chatops check-policy: ${FIXTURES}does-not-exist.yaml: no such file\n`);
    const usage = checkPolicy();
    expect(usage.code).toBe(1);
    expect(usage.stderr).toContain('usage: flink-chatops check-policy FILE');
  });
});

describe('flink-chatops check-policy --clusters', () => {
  const POLICY = `version: 1
namespaces:
  - name: streaming
    clusters: [prod-eu]
  - name: streaming
    clusters: [prod-us]
  - name: sandbox-*
    clusters: ["dev-*"]
channels:
  C0EUROPE: { defaultNamespace: streaming, defaultCluster: prod-eu }
rules:
  - name: eu-freeze
    when: { clusters: [prod-eu] }
    deny: "frozen"
`;
  let file = '';
  beforeAll(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'check-policy-'));
    file = join(dir, 'policy.yaml');
    await writeFile(file, POLICY);
    return () => rm(dir, { recursive: true, force: true });
  });

  function run(...args: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    return checkPolicyIn(args, { out: (t) => void out.push(t), err: (t) => void err.push(t) }).then((code) => ({
      code,
      stdout: out.join(''),
      stderr: err.join(''),
    }));
  }

  it('exits 0 when every cluster the policy names is among --clusters, and describes the clusters', async () => {
    const { code, stdout, stderr } = await run(file, '--clusters', 'prod-eu,prod-us,dev-1');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain('  - streaming in cluster prod-us: anyone may request.');
    expect(stdout).toContain(
      '  - eu-freeze: any operation in any managed namespace in cluster prod-eu is denied: "frozen".',
    );
    expect(stdout).toContain('a target without a cluster means cluster prod-eu');
  });

  it('exits 1 naming each unknown cluster and unmatched glob by its path', async () => {
    const { code, stdout, stderr } = await run('--clusters=eu,us', file);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      [
        `${file}: 5 problems:`,
        '  namespaces[0].clusters[0]: unknown cluster "prod-eu" (this installation has eu, us)',
        '  namespaces[1].clusters[0]: unknown cluster "prod-us" (this installation has eu, us)',
        '  namespaces[2].clusters[0]: "dev-*" matches no cluster (this installation has eu, us)',
        '  rules[0].when.clusters[0]: unknown cluster "prod-eu" (this installation has eu, us)',
        '  channels.C0EUROPE.defaultCluster: unknown cluster "prod-eu" (this installation has eu, us)',
        '',
      ].join('\n'),
    );
  });

  it('documents --clusters in its help', async () => {
    const { code, stdout } = await run('--help');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^usage: flink-chatops check-policy FILE \[--clusters NAME,NAME…\]\n/);
    expect(stdout).toContain('Without it cluster names are not checked.');
  });

  it('does not check cluster names without --clusters', async () => {
    const { code } = await run(file);
    expect(code).toBe(0);
  });

  it('refuses a bad --clusters value or a missing one with the usage', async () => {
    for (const args of [
      [file, '--clusters'],
      [file, '--clusters', 'eu,,us'],
      [file, '--clusters', 'EU'],
      [file, '--cluster', 'eu'],
    ]) {
      const { code, stderr } = await run(...args);
      expect(code, args.join(' ')).toBe(1);
      expect(stderr).toContain('usage: flink-chatops check-policy FILE [--clusters NAME,NAME…]');
    }
    expect((await run(file, '--clusters', 'eu,,us')).stderr).toContain('--clusters: a cluster name is empty');
    expect((await run(file, '--clusters', 'EU')).stderr).toContain('--clusters: "EU" is not a cluster name');
    expect((await run(file, '--cluster', 'eu')).stderr).toContain('unknown option --cluster');
  });

  it('through the binary: exit 1 and the path-named line on stderr', () => {
    const { code, stderr } = checkPolicy(file, '--clusters', 'prod-eu,prod-us');
    expect(code).toBe(1);
    expect(stderr).toContain(
      'namespaces[2].clusters[0]: "dev-*" matches no cluster (this installation has prod-eu, prod-us)',
    );
  });
});
