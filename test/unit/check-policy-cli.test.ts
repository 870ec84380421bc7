import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const BIN = new URL('../../bin/flink-chatops.js', import.meta.url).pathname;
const FIXTURES = new URL('../fixtures/policies/', import.meta.url).pathname;
const EXAMPLE = new URL('../../examples/policy.yaml', import.meta.url).pathname;

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
  it('exits 0 on the SPEC example and prints what it allows in plain words', () => {
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
    expect(stdout).toContain('prod-needs-a-lead: any operation in streaming-prod needs 1 approval from leads (U0LEAD1)');
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
