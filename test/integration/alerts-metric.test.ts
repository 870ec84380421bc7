// `flink_chatops_alerts_open{cluster,namespace,kind}` (docs/alerts.md#metrics): read at scrape time from the alert
// store's open incidents on Redis, one count per kind, recovered incidents gone, and only while this process exports.
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { AlertSignal } from '../../src/app/ports/alerts.js';
import { alertsSource, whileExporting } from '../../src/http/metric-sources.js';
import { createMetrics } from '../../src/http/metrics.js';
import { RedisAlertStore } from '../../src/store/alerts.js';
import { eventually } from '../support/poll.js';
import { redisForTest, type TestRedis } from '../support/redis.js';

const T0 = Date.UTC(2030, 2, 1, 12, 0, 0);
let t: TestRedis;
let alerts: RedisAlertStore;

beforeEach(async () => {
  t = await redisForTest('alerts-metric');
  alerts = new RedisAlertStore(t.redis, t.prefix);
});
afterEach(async () => {
  await t.cleanup();
});

const signal = (kind: AlertSignal['kind']): AlertSignal => ({
  kind,
  since: T0,
  summary: `${kind} (test)`,
  source: 'status',
});

async function observe(cluster: string, namespace: string, name: string, signals: AlertSignal[], now = T0) {
  const target = { kind: 'FlinkDeployment' as const, namespace, name, ...(cluster === '' ? {} : { cluster }) };
  await alerts.observe({ cluster, target, rule: 'prod', channel: 'C0ALERTS', signals, now });
}

function lines(text: string): string[] {
  return text.split('\n').filter((l) => l.startsWith('flink_chatops_alerts_open{'));
}

it('counts open incidents by cluster, namespace and kind, leaving recovered ones out', async () => {
  await observe('eu', 'streaming-prod', 'orders', [signal('job-failed'), signal('restarting')]);
  await observe('eu', 'streaming-prod', 'clicks', [signal('restarting')]);
  await observe('us', 'team-a', 'x', [signal('checkpoints-failing')]);
  await observe('us', 'team-a', 'y', [signal('job-failed')]);
  await observe('us', 'team-a', 'y', [], T0 + 1);
  const metrics = createMetrics({ defaultMetrics: false, sources: alertsSource(alerts) });
  expect(lines(await metrics.text()).sort()).toEqual([
    'flink_chatops_alerts_open{cluster="eu",namespace="streaming-prod",kind="job-failed"} 1',
    'flink_chatops_alerts_open{cluster="eu",namespace="streaming-prod",kind="restarting"} 2',
    'flink_chatops_alerts_open{cluster="us",namespace="team-a",kind="checkpoints-failing"} 1',
  ]);
});

it('reports nothing from a process that does not export the store-wide gauges', async () => {
  await observe('', 'streaming-prod', 'orders', [signal('job-failed')]);
  let exporting = false;
  const metrics = createMetrics({
    defaultMetrics: false,
    sources: whileExporting(async () => exporting, alertsSource(alerts)),
  });
  expect(lines(await metrics.text())).toEqual([]);
  exporting = true;
  // The lease answer is shared by the scrapes of one second.
  const shown = await eventually('the gauge once exporting', async () => {
    const found = lines(await metrics.text());
    return found.length > 0 ? found : undefined;
  });
  expect(shown).toEqual(['flink_chatops_alerts_open{cluster="",namespace="streaming-prod",kind="job-failed"} 1']);
});
