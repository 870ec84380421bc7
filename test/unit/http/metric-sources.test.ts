// Outcome counters and duration histograms per kind (docs/operating.md#health-metrics-and-logs): each terminal state
// counted once, with its duration.
import { expect, it } from 'vitest';
import { outcomeObserver } from '../../../src/http/metric-sources.js';
import { createMetrics } from '../../../src/http/metrics.js';
import type { HistoryEntry, OperationRecord } from '../../../src/domain/engines/operation.js';

const entry = (name: string, at: number): HistoryEntry =>
  ({ seq: 2, type: 'state', name, actor: 'system', at, detail: {} }) as HistoryEntry;

it('counts terminal states by kind and outcome and observes their duration; other entries are not counted', async () => {
  const metrics = createMetrics({ defaultMetrics: false });
  const observe = outcomeObserver(metrics);
  const record = { kind: 'scale', createdAt: 1_000 } as OperationRecord;
  observe(record, [entry('QUEUED', 2_000)]);
  observe(record, [entry('COMPLETED', 61_000)]);
  observe({ ...record, kind: 'restart' } as OperationRecord, [entry('DENIED', 1_500)]);
  const text = await metrics.text();
  expect(text).toMatch(/^flink_chatops_operations_finished_total\{kind="scale",outcome="COMPLETED"\} 1$/m);
  expect(text).toMatch(/^flink_chatops_operations_finished_total\{kind="restart",outcome="DENIED"\} 1$/m);
  expect(text).not.toMatch(/outcome="QUEUED"/);
  expect(text).toMatch(/^flink_chatops_operation_duration_seconds_sum\{kind="scale",outcome="COMPLETED"\} 60$/m);
  expect(text).toMatch(/^flink_chatops_build_info\{version="\d+\.\d+\.\d+"\} 1$/m);
});
