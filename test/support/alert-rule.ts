// The alert entry the job-alert judge's unit tests watch with (docs/alerts.md#thresholds): the defaults, 3 restarts in
// 10 min and 3 failed checkpoints in a row, and the clock they start on.
import type { AlertRule } from '../../src/domain/engines/policy/alerts.js';

export const T0 = Date.UTC(2030, 2, 1, 12, 0, 0);
export const S = 1_000;
export const MIN = 60_000;

export const PROD_RULE: AlertRule = {
  name: 'prod',
  channel: 'C0ALERTS',
  restarts: { count: 3, window: '10m', windowMs: 10 * MIN },
  checkpoints: { failures: 3 },
};
