// The health gate's judgement from Flink REST readings, and the policy `verify` block it follows
// (docs/deep-verification.md#the-health-gate, docs/deep-verification.md#policy).
import { describe, expect, it } from 'vitest';
import {
  flinkDurationMs,
  healthGateCheck,
  type GateSettings,
  type HealthReading,
} from '../../../../../src/domain/kit/policy/health-gate.js';
import { validatePolicy } from '../../../../../src/domain/engines/policy/validate.js';
import { DEFAULT_RESTART_LIMIT, verifyFor } from '../../../../../src/domain/kit/policy/verify.js';

const NOW = Date.UTC(2026, 11, 1, 10, 0, 0);
const LIMIT = DEFAULT_RESTART_LIMIT;
const FAIL: GateSettings = { outcome: 'fail', restartLimit: LIMIT };
const WARN: GateSettings = { outcome: 'warn', restartLimit: LIMIT };
/** A task failover `ago` ms before NOW (Flink names the task and its TaskManager). */
const task = (ago: number, name = 'Source: orders (2/4)') => ({
  timestamp: NOW - ago,
  exceptionName: 'java.io.IOException',
  taskName: name,
  endpoint: '10.244.1.20:6121',
});
/** A global failover: Flink names no task (RootExceptionHistoryEntry.fromGlobalFailure). */
const global = (ago: number) => ({
  timestamp: NOW - ago,
  exceptionName: 'org.apache.flink.util.FlinkException',
  taskName: null,
  endpoint: null,
});
const reading = (o: {
  restarts?: number[];
  entries?: unknown[];
  truncated?: boolean;
  completedAgo?: number;
  failed?: number;
  intervalMs?: number;
}): HealthReading => ({
  job: { now: NOW },
  exceptions: {
    exceptionHistory: {
      entries: o.entries ?? (o.restarts ?? []).map((ago) => task(ago)),
      truncated: o.truncated ?? false,
    },
  },
  checkpoints: {
    counts: { failed: o.failed ?? 0 },
    latest: {
      completed: o.completedAgo === undefined ? null : { latest_ack_timestamp: NOW - o.completedAgo },
      failed: null,
    },
  },
  intervalMs: o.intervalMs,
});
const HINTS = {
  hints: {
    target: 'streaming-prod/orders',
    policyKey: 'verify.production.healthGate',
  },
};

/** A failing gate with its own restart limit. */
const limit = (restarts: number, window: string, windowMs: number): GateSettings => ({
  outcome: 'fail',
  restartLimit: { restarts, window, windowMs },
});

describe('the health gate', () => {
  it('passes a healthy job and shows its numbers', () => {
    expect(healthGateCheck(reading({ completedAgo: 12_000, intervalMs: 30_000 }), FAIL, NOW)).toEqual({
      name: 'health-gate',
      outcome: 'pass',
      message: 'the job is healthy: no restart in the last 10m; last checkpoint 12 s ago (interval 30 s); 0 failed',
    });
  });

  it.each([
    [
      'a task failover in the last 10 min',
      { restarts: [240_000], completedAgo: 5_000, intervalMs: 30_000 },
      /failed over 1 time\(s\) in the last 10m \(1 task\): the gate's limit is any failover in 10m; the last at 09:56:00 UTC in task "Source: orders \(2\/4\)"/,
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
    const warned = healthGateCheck(reading(o), WARN, NOW);
    expect(warned.outcome).toBe('warn');
    expect(warned.message).toMatch(words);
    expect(healthGateCheck(reading(o), FAIL, NOW)).toMatchObject({
      outcome: 'fail',
      message: expect.stringMatching(words),
    });
  });

  it('only warns for an undo, where the policy says fail, and says why', () => {
    const sick = reading({ restarts: [60_000, 120_000, 180_000], completedAgo: 5_000, intervalMs: 30_000 });
    expect(healthGateCheck(sick, FAIL, NOW, { undo: true, ...HINTS })).toEqual({
      name: 'health-gate',
      outcome: 'warn',
      message: expect.stringMatching(
        /failed over 3 time\(s\).* — see `\/flink exceptions streaming-prod\/orders`; an undo only warns: it puts back what ran before$/,
      ),
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

describe('the restart threshold and window (docs/deep-verification.md#what-counts-as-a-restart)', () => {
  const healthy = { completedAgo: 5_000, intervalMs: 30_000 };

  it('by default one task failover in 10m trips it, naming the task', () => {
    expect(healthGateCheck(reading({ ...healthy, restarts: [120_000] }), FAIL, NOW, HINTS)).toMatchObject({
      outcome: 'fail',
      message: expect.stringContaining(
        'the job failed over 1 time(s) in the last 10m (1 task): the gate\'s limit is any failover in 10m; the last at 09:58:00 UTC in task "Source: orders (2/4)" on 10.244.1.20:6121: java.io.IOException (JobManager clock)',
      ),
    });
  });

  it('a task failover under a raised limit is reported but passes', () => {
    expect(healthGateCheck(reading({ ...healthy, restarts: [120_000] }), limit(2, '10m', 600_000), NOW)).toEqual({
      name: 'health-gate',
      outcome: 'pass',
      message:
        'the job is healthy: 1 task failover(s) in the last 10m, under the gate\'s limit of 2 (the last at 09:58:00 UTC in task "Source: orders (2/4)" on 10.244.1.20:6121: java.io.IOException, JobManager clock); last checkpoint 5 s ago (interval 30 s); 0 failed',
    });
  });

  it('a single global failover trips it under any limit: the whole job failed over', () => {
    const entries = [global(120_000)];
    const check = healthGateCheck(reading({ ...healthy, entries }), limit(3, '10m', 600_000), NOW, HINTS);
    expect(check.outcome).toBe('fail');
    expect(check.message).toContain(
      'the job failed over 1 time(s) in the last 10m (1 global): a global failover (the whole job restarted) always counts; the limit is 3 failovers in 10m, or one global failover; the last at 09:58:00 UTC a global failover (no task named): org.apache.flink.util.FlinkException (JobManager clock)',
    );
    expect(check.message).toContain('it passes after 10:08:00 UTC (JobManager clock)');
  });

  it('failovers older than the window do not count', () => {
    const old = reading({ ...healthy, restarts: [700_000, 800_000] });
    expect(healthGateCheck(old, FAIL, NOW).outcome).toBe('pass');
  });

  it('the policy sets how many failovers in how long trip it', () => {
    const three = reading({ ...healthy, restarts: [60_000, 120_000, 200_000] });
    expect(healthGateCheck(three, limit(4, '10m', 600_000), NOW).outcome).toBe('pass');
    expect(healthGateCheck(three, limit(3, '10m', 600_000), NOW).outcome).toBe('fail');
    // Within 2 minutes only two of them: under a limit of 3.
    expect(healthGateCheck(three, limit(3, '2m', 120_000), NOW).outcome).toBe('pass');
    // A limit of 1 (the default) is the strict gate: any failover.
    expect(healthGateCheck(reading({ ...healthy, restarts: [300_000] }), limit(1, '10m', 600_000), NOW)).toMatchObject({
      outcome: 'fail',
      message: expect.stringContaining("the gate's limit is any failover in 10m"),
    });
  });

  it('a truncated history whose every entry is in the window says "or more"', () => {
    const entries = Array.from({ length: 20 }, (_, i) => task(10_000 * (i + 1)));
    expect(healthGateCheck(reading({ ...healthy, entries, truncated: true }), FAIL, NOW).message).toContain(
      'failed over 20 or more time(s)',
    );
  });
});

describe('a denial explains itself (docs/deep-verification.md#when-the-gate-denies)', () => {
  const storm = reading({ restarts: [60_000, 300_000, 420_000], completedAgo: 5_000, intervalMs: 30_000 });

  it('names what it saw, how to look, when it passes, the undo and the policy key; never break-glass', () => {
    const { message } = healthGateCheck(storm, limit(2, '10m', 600_000), NOW, HINTS);
    expect(message).toBe(
      'the job is not healthy: the job failed over 3 time(s) in the last 10m (3 task): the gate\'s limit is 2 failovers in 10m, or one global failover; the last at 09:59:00 UTC in task "Source: orders (2/4)" on 10.244.1.20:6121: java.io.IOException (JobManager clock)' +
        ' — see `/flink exceptions streaming-prod/orders`; ways through: it passes after 10:05:00 UTC (JobManager clock) if the job does not fail over again' +
        '; or an undo (`/flink undo <op id>`) only warns' +
        "; or change the policy's verify.production.healthGate (restarts, window, or outcome: warn)",
    );
    expect(message).not.toContain('break-glass');
  });

  it('with the default limit, passes after the newest failover leaves the window', () => {
    expect(healthGateCheck(storm, FAIL, NOW, HINTS).message).toContain(
      'ways through: it passes after 10:09:00 UTC (JobManager clock) if the job does not fail over again',
    );
  });

  it('a warning names what it saw and how to look, without ways through', () => {
    expect(healthGateCheck(storm, WARN, NOW, HINTS).message).toMatch(
      /\(JobManager clock\) — see `\/flink exceptions streaming-prod\/orders`; a savepoint-mode change may fail or hang$/,
    );
  });

  it('text from Flink is data: one line, no mention or link, no backtick, bounded', () => {
    const hostile = {
      ...task(60_000, `<!channel> Source\n\`x\` https://evil.example ${'y'.repeat(500)}`),
      exceptionName: '<@U0BOSS> boom',
    };
    const { message } = healthGateCheck(reading({ entries: [global(90_000), hostile] }), FAIL, NOW, HINTS);
    expect(message).not.toMatch(/<!channel>|<@U0BOSS>|https:\/\/evil|\n/);
    expect(message).not.toContain('`x`');
    expect(message).toContain('<\u2060@U0BOSS> boom');
    expect(message.length).toBeLessThan(700);
  });
});

describe('policy verify', () => {
  const base =
    'version: 1\nnamespaces:\n  - { name: streaming-prod, environment: production }\n  - { name: streaming-dev }\napproval: {}\n';
  const parsed = async (verify: string) => {
    const { parse } = await import('yaml');
    return validatePolicy(parse(`${base}verify:\n${verify}`));
  };

  it('defaults: production requires a checkpoint after the change and fails the gate; elsewhere warns', () => {
    expect(verifyFor({}, 'production')).toEqual({
      rest: true,
      checkpointAfterChange: true,
      healthGate: 'fail',
      restartLimit: { restarts: 1, window: '10m', windowMs: 600_000 },
    });
    expect(verifyFor({}, undefined)).toMatchObject({ rest: true, checkpointAfterChange: false, healthGate: 'warn' });
    expect(
      verifyFor({ verify: { default: { healthGate: { outcome: 'fail' } }, staging: { rest: false } } }, 'staging'),
    ).toMatchObject({ rest: false, checkpointAfterChange: false, healthGate: 'fail' });
  });

  it('accepts healthGate as an outcome or as an object; each key falls back on its own', async () => {
    const result = await parsed(
      '  default: { healthGate: { restarts: 4 } }\n  production: { healthGate: { outcome: fail, window: 5m } }\n  staging: { healthGate: fail }\n',
    );
    if (!result.ok) throw new Error(result.errors.join('; '));
    expect(verifyFor(result.policy, 'production')).toMatchObject({
      healthGate: 'fail',
      restartLimit: { restarts: 4, window: '5m', windowMs: 300_000 },
    });
    expect(verifyFor(result.policy, 'staging')).toMatchObject({
      healthGate: 'fail',
      restartLimit: { restarts: 4, window: '10m', windowMs: 600_000 },
    });
    expect(verifyFor(result.policy, undefined)).toMatchObject({ healthGate: 'warn', restartLimit: { restarts: 4 } });
  });

  it('is validated strictly, naming the path of each problem', async () => {
    const bad = await parsed('  production: { healthGate: block, checkpointAfterChanges: true }\n');
    expect(bad.ok).toBe(false);
    const errors = bad.ok ? [] : bad.errors.join('\n');
    expect(errors).toMatch(/verify\.production\.healthGate/);
    expect(errors).toMatch(/verify\.production.*checkpointAfterChanges/);
    expect((await parsed('  production: { healthGate: warn }\n')).ok).toBe(true);
    const object = await parsed(
      '  production: { healthGate: { outcome: stop, restarts: 0, window: soon, storm: 1 } }\n',
    );
    const objectErrors = object.ok ? '' : object.errors.join('\n');
    expect(objectErrors).toMatch(/verify\.production\.healthGate/);
    for (const words of [/restarts.*whole number from 1 to 20/, /"soon" is not a duration/, /storm/])
      expect(objectErrors).toMatch(words);
  });
});
