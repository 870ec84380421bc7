// The health gate's judgement from Flink REST readings, and the policy `verify` block it follows
// (docs/deep-verification.md#the-health-gate, docs/deep-verification.md#policy).
import { describe, expect, it } from 'vitest';
import {
  flinkDurationMs,
  healthGateCheck,
  type HealthReading,
} from '../../../../../src/domain/kit/policy/health-gate.js';
import { validatePolicy } from '../../../../../src/domain/engines/policy/validate.js';
import { verifyFor } from '../../../../../src/domain/kit/policy/verify.js';

const NOW = Date.UTC(2026, 11, 1, 10, 0, 0);
const reading = (o: {
  restarts?: number[];
  completedAgo?: number;
  failed?: number;
  intervalMs?: number;
}): HealthReading => ({
  job: { now: NOW },
  exceptions: { exceptionHistory: { entries: (o.restarts ?? []).map((ago) => ({ timestamp: NOW - ago })) } },
  checkpoints: {
    counts: { failed: o.failed ?? 0 },
    latest: {
      completed: o.completedAgo === undefined ? null : { latest_ack_timestamp: NOW - o.completedAgo },
      failed: null,
    },
  },
  intervalMs: o.intervalMs,
});

describe('the health gate', () => {
  it('passes a healthy job and shows its numbers', () => {
    expect(healthGateCheck(reading({ completedAgo: 12_000, intervalMs: 30_000 }), 'fail', NOW)).toEqual({
      name: 'health-gate',
      outcome: 'pass',
      message: 'the job is healthy: no restart in the last 10 min; last checkpoint 12 s ago (interval 30 s); 0 failed',
    });
  });

  it.each([
    [
      'a restart 4 min ago',
      { restarts: [240_000, 1_200_000], completedAgo: 5_000, intervalMs: 30_000 },
      /restarted 1 time\(s\) in the last 10 min \(the last at 09:56:00 UTC, JobManager clock\)/,
    ],
    [
      'checkpoints failing',
      { failed: 3, intervalMs: 30_000 },
      /checkpoints are failing: 3 failed and none completed \(interval 30 s\)/,
    ],
    [
      'the last checkpoint older than three intervals',
      { completedAgo: 240_000, intervalMs: 30_000 },
      /the last completed checkpoint is 4 min old, more than three checkpoint intervals \(interval 30 s\)/,
    ],
  ])('%s: warns where the policy says warn, fails where it says fail', (_, o, words) => {
    const warned = healthGateCheck(reading(o), 'warn', NOW);
    expect(warned.outcome).toBe('warn');
    expect(warned.message).toMatch(words);
    expect(healthGateCheck(reading(o), 'fail', NOW)).toMatchObject({
      outcome: 'fail',
      message: expect.stringMatching(words),
    });
  });

  it('only warns for an undo, where the policy says fail, and says why', () => {
    const sick = reading({ restarts: [60_000, 120_000, 180_000], completedAgo: 5_000, intervalMs: 30_000 });
    expect(healthGateCheck(sick, 'fail', NOW, true)).toEqual({
      name: 'health-gate',
      outcome: 'warn',
      message: expect.stringMatching(/restarted 3 time\(s\).*; an undo only warns: it puts back what ran before$/),
    });
  });

  it('reads Flink durations as execution.checkpointing.interval takes them', () => {
    expect([
      flinkDurationMs('30s'),
      flinkDurationMs('1 min'),
      flinkDurationMs('500 ms'),
      flinkDurationMs('60000'),
      flinkDurationMs('soon'),
    ]).toEqual([30_000, 60_000, 500, 60_000, undefined]);
  });
});

describe('policy verify', () => {
  const base =
    'version: 1\nnamespaces:\n  - { name: streaming-prod, environment: production }\n  - { name: streaming-dev }\napproval: {}\n';
  it('defaults: production requires a checkpoint after the change and fails the gate; elsewhere warns', () => {
    expect(verifyFor({}, 'production')).toEqual({ rest: true, checkpointAfterChange: true, healthGate: 'fail' });
    expect(verifyFor({}, undefined)).toEqual({ rest: true, checkpointAfterChange: false, healthGate: 'warn' });
    expect(verifyFor({ verify: { default: { healthGate: 'fail' }, staging: { rest: false } } }, 'staging')).toEqual({
      rest: false,
      checkpointAfterChange: false,
      healthGate: 'fail',
    });
  });

  it('is validated strictly, naming the path of each problem', async () => {
    const { parse } = await import('yaml');
    const bad = validatePolicy(
      parse(`${base}verify:\n  production: { healthGate: block, checkpointAfterChanges: true }\n`),
    );
    expect(bad.ok).toBe(false);
    const errors = bad.ok ? [] : bad.errors.join('\n');
    expect(errors).toMatch(/verify\.production\.healthGate/);
    expect(errors).toMatch(/verify\.production.*checkpointAfterChanges/);
    expect(validatePolicy(parse(`${base}verify:\n  production: { healthGate: warn }\n`)).ok).toBe(true);
  });
});
