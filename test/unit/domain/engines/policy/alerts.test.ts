// Which alerts entry watches a job (docs/policy.md#job-alerts): the first that matches, defaults filled; the
// namespaces a cluster's worker watches for them; check-policy's lines.
import { describe, expect, it } from 'vitest';
import { alertNamespaces, alertRuleFor, describeAlerts } from '../../../../../src/domain/engines/policy/alerts.js';
import type { Policy } from '../../../../../src/domain/engines/policy/schema.js';
import type { AlertEntry } from '../../../../../src/domain/kit/policy/alerts.js';
import type { Target } from '../../../../../src/domain/model/target.js';

const job = (namespace: string, name: string, kind: Target['kind'] = 'FlinkDeployment'): Target => ({
  kind,
  namespace,
  name,
});

function policy(alerts: AlertEntry[], namespaces: Policy['namespaces'] = []): Pick<Policy, 'alerts' | 'namespaces'> {
  return {
    alerts,
    namespaces:
      namespaces.length > 0 ? namespaces : [{ name: 'streaming-prod' }, { name: 'streaming-dev' }, { name: 'team-*' }],
  };
}

describe('alertRuleFor', () => {
  const entries: AlertEntry[] = [
    { name: 'orders-only', targets: ['streaming-prod/orders'], channel: 'C0ORDERS', restarts: { count: 5 } },
    { name: 'prod', namespaces: ['streaming-prod'], clusters: ['eu-*'], channel: 'C0PROD', mention: '<@U0LEAD1>' },
    {
      name: 'eu-wide',
      clusters: ['eu-west'],
      channel: 'C0EU',
      restarts: { window: '30m' },
      checkpoints: { failures: 1 },
    },
  ];

  it('takes the first matching entry and fills its defaults', () => {
    expect(alertRuleFor(policy(entries), 'eu-west', job('streaming-prod', 'orders'))).toEqual({
      name: 'orders-only',
      channel: 'C0ORDERS',
      restarts: { count: 5, window: '10m', windowMs: 600_000 },
      checkpoints: { failures: 3 },
    });
    expect(alertRuleFor(policy(entries), 'eu-north', job('streaming-prod', 'clicks'))).toEqual({
      name: 'prod',
      channel: 'C0PROD',
      mention: '<@U0LEAD1>',
      restarts: { count: 3, window: '10m', windowMs: 600_000 },
      checkpoints: { failures: 3 },
    });
    expect(alertRuleFor(policy(entries), 'eu-west', job('streaming-dev', 'x'))).toMatchObject({
      name: 'eu-wide',
      restarts: { count: 3, window: '30m', windowMs: 1_800_000 },
      checkpoints: { failures: 1 },
    });
  });

  it('matches session jobs by namespace/name too, and target globs in both parts', () => {
    const globs: AlertEntry[] = [{ name: 'team', targets: ['team-*/clicks-*'], channel: 'C0TEAM' }];
    expect(alertRuleFor(policy(globs), undefined, job('team-a', 'clicks-eu', 'FlinkSessionJob'))?.name).toBe('team');
    expect(alertRuleFor(policy(globs), undefined, job('team-a', 'orders'))).toBeUndefined();
  });

  it('matches nothing outside the entries, in a cluster they exclude, or with no policy alerts', () => {
    expect(alertRuleFor(policy(entries), 'us-east', job('streaming-prod', 'clicks'))).toBeUndefined();
    expect(alertRuleFor(policy(entries), 'eu-north', job('streaming-dev', 'x'))).toBeUndefined();
    expect(alertRuleFor({}, 'eu-west', job('streaming-prod', 'orders'))).toBeUndefined();
    const none: AlertEntry[] = [{ name: 'nothing', channel: 'C0X' }];
    expect(alertRuleFor(policy(none), 'eu-west', job('streaming-prod', 'orders'))).toBeUndefined();
  });

  it('admits a single-cluster installation (no cluster) through any clusters filter', () => {
    expect(alertRuleFor(policy(entries), undefined, job('streaming-prod', 'clicks'))?.name).toBe('prod');
  });
});

describe('alertNamespaces', () => {
  it("lists the cluster's exact managed namespaces an entry may match, and exact names inside a managed glob", () => {
    const entries: AlertEntry[] = [
      { name: 'prod', namespaces: ['streaming-*'], channel: 'C0PROD' },
      { name: 'team', targets: ['team-a/orders', 'unmanaged/x'], channel: 'C0TEAM' },
    ];
    expect(alertNamespaces(policy(entries), 'eu')).toEqual(['streaming-dev', 'streaming-prod', 'team-a']);
  });

  it('follows the clusters of entries and of namespace entries; a clusters-only entry takes every one', () => {
    const namespaces = [{ name: 'a', clusters: ['eu'] }, { name: 'b', clusters: ['us'] }, { name: 'c' }];
    const entries: AlertEntry[] = [{ name: 'eu', clusters: ['eu'], channel: 'C0EU' }];
    expect(alertNamespaces(policy(entries, namespaces), 'eu')).toEqual(['a', 'c']);
    expect(alertNamespaces(policy(entries, namespaces), 'us')).toEqual([]);
  });
});

describe('describeAlerts', () => {
  it('says what each entry watches, where it posts and its thresholds, and flags namespaces nothing manages', () => {
    const lines = describeAlerts(
      policy([
        { name: 'prod', namespaces: ['streaming-prod', 'nowhere'], channel: 'C0PROD', mention: '<!subteam^S0ONCALL>' },
        { name: 'eu', clusters: ['eu'], channel: 'C0EU', restarts: { count: 2, window: '5m' } },
      ]),
    );
    expect(lines).toEqual([
      'Job alerts (the first entry that matches a job decides):',
      '  - prod: namespaces streaming-prod, nowhere → C0PROD, mentioning <!subteam^S0ONCALL>; restarting at 3 restarts in 10m, checkpoints failing at 3 in a row',
      '    (nowhere: no managed namespace matches; nothing there is watched)',
      '  - eu: every managed namespace in clusters eu → C0EU; restarting at 2 restarts in 5m, checkpoints failing at 3 in a row',
    ]);
    expect(describeAlerts(policy([]))).toEqual([
      'Job alerts: none (no `alerts:` entries; no job is watched on its own).',
    ]);
  });
});
