// Policy `alerts:` validation (docs/policy.md#job-alerts): the exact shape, and one clear line per problem, named by
// its path, through the same validation check-policy runs.
import { describe, expect, it } from 'vitest';
import { validatePolicy } from '../../../../../src/domain/engines/policy/validate.js';
import { targetPatternProblem } from '../../../../../src/domain/kit/policy/alerts.js';

function policyWith(alerts: unknown): unknown {
  return {
    version: 1,
    namespaces: [{ name: 'streaming-prod' }, { name: 'team-*' }],
    approval: {},
    alerts,
  };
}

const entry = { name: 'prod', namespaces: ['streaming-prod'], channel: 'C0ALERTS' };

function errors(alerts: unknown): string[] {
  const result = validatePolicy(policyWith(alerts));
  return result.ok ? [] : result.errors;
}

describe('alerts: validation', () => {
  it('accepts the documented shape, every key set', () => {
    const result = validatePolicy(
      policyWith([
        {
          name: 'prod-jobs',
          namespaces: ['streaming-*'],
          targets: ['team-a/orders', 'team-*/clicks-*'],
          clusters: ['eu-*', 'us'],
          channel: 'C0ALERTS',
          mention: '<!subteam^S0ONCALL>',
          restarts: { count: 5, window: '15m' },
          checkpoints: { failures: 4 },
        },
        { name: 'lead', clusters: ['eu'], channel: 'G0PRIVATE', mention: '<@U0LEAD1>' },
      ]),
    );
    expect(result.ok).toBe(true);
  });

  it.each([
    [
      [{ ...entry, channel: '#alerts' }],
      'alerts[0].channel: "#alerts" is not a Slack channel id (C… or G…, e.g. C0ALERTS)',
    ],
    [
      [{ ...entry, mention: '@oncall' }],
      'alerts[0].mention: "@oncall" is not a mention: write a user group as "<!subteam^S0ONCALL>" or a person as "<@U0LEAD1>"',
    ],
    [[{ ...entry, restarts: { count: 0 } }], 'alerts[0].restarts.count: must be at least 1'],
    [[{ ...entry, restarts: { count: 2.5 } }], 'alerts[0].restarts.count: must be a whole number, not number 2.5'],
    [[{ ...entry, restarts: { window: '0m' } }], 'alerts[0].restarts.window: "0m" must be a positive duration'],
    [
      [{ ...entry, restarts: { window: 'ten minutes' } }],
      'alerts[0].restarts.window: "ten minutes" is not a duration; write <n>ms, <n>s, <n>m or <n>h (e.g. 30s)',
    ],
    [[{ ...entry, checkpoints: { failures: -1 } }], 'alerts[0].checkpoints.failures: must be at least 1'],
    [
      [{ name: 'all', channel: 'C0ALERTS' }],
      'alerts[0]: matches no job: name namespaces: [globs], targets: ["namespace/name"] or clusters: [globs]',
    ],
    [[entry, { ...entry }], 'alerts[1].name: duplicate alerts name "prod" (also alerts[0])'],
    [[{ ...entry, namespaces: [] }], 'alerts[0].namespaces: list at least one namespace, or leave the key out'],
    [
      [{ ...entry, namespaces: ['Streaming_Prod'] }],
      'alerts[0].namespaces[0]: "Streaming_Prod" is not a namespace or glob: lowercase letters, digits, "-" and "*" (e.g. "prod-*")',
    ],
    [
      [{ ...entry, targets: ['orders'] }],
      'alerts[0].targets[0]: "orders" is not namespace/name (e.g. "streaming-prod/orders" or "team-*/*")',
    ],
    [[{ ...entry, name: ' ' }], 'alerts[0].name: must not be empty'],
  ])('refuses %j with a line naming the path', (alerts, line) => {
    expect(errors(alerts)).toContain(line);
  });

  it('refuses unknown keys, naming the nearest allowed one', () => {
    const lines = errors([{ ...entry, chanel: 'C0ALERTS' }]);
    expect(lines.join('\n')).toMatch(/alerts\[0\].*chanel/);
  });

  it('names the problem of each part of a target pattern', () => {
    expect(targetPatternProblem('streaming-prod/orders')).toBeUndefined();
    expect(targetPatternProblem('team-*/*')).toBeUndefined();
    expect(targetPatternProblem('a/b/c')).toContain('is not namespace/name');
    expect(targetPatternProblem('prod/Orders')).toContain('the name must be a Kubernetes name or glob');
    expect(targetPatternProblem('/orders')).toContain('the namespace must not be empty');
  });
});
