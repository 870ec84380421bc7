// Built-in checks for real jobs: a session-cluster redeploy lists the session jobs it kills (warn; fail in production
// for stateful ones without HA), and the health gate sees checkpointing a job enables in its own code (REST only;
// docs/deep-verification.md#real-jobs; E1–E12 are the rows of issue 23).
import { describe, expect, it } from 'vitest';
import { runChecks } from '../../../../../src/domain/engines/policy/checks.js';
import { healthGateCheck, type HealthReading } from '../../../../../src/domain/kit/policy/health-gate.js';
import { DEFAULT_RESTART_LIMIT } from '../../../../../src/domain/kit/policy/verify.js';
import { SESSION_JOBS_CHECK } from '../../../../../src/domain/kit/policy/session-jobs.js';
import { flinkSessionJob, intentOf, sessionCluster } from '../../../../support/fixtures.js';

const NOW = new Date('2026-01-01T10:00:00Z');
const FAIL = { outcome: 'fail', restartLimit: DEFAULT_RESTART_LIMIT } as const;
const WARN = { outcome: 'warn', restartLimit: DEFAULT_RESTART_LIMIT } as const;
const SC = { kind: 'FlinkDeployment', namespace: 'streaming-prod', name: 'session-cluster' } as const;
const NO_HA = { flinkConfiguration: { 'high-availability.type': null, 'high-availability.storageDir': null } };
const jobs = [
  flinkSessionJob({ name: 'sessionizer' }),
  flinkSessionJob({
    name: 'enricher',
    spec: { job: { upgradeMode: 'stateless' } },
    status: { jobStatus: { state: 'RESTARTING' } },
  }),
];

function sessionJobsResult(cluster: unknown, environment: string | undefined, list: unknown[] = jobs) {
  const checks = runChecks({
    intent: intentOf({ kind: 'restart', target: SC }),
    resource: cluster,
    sessionJobs: list,
    ...(environment ? { environment } : {}),
    now: NOW,
  });
  return checks.find((c) => c.name === SESSION_JOBS_CHECK);
}

describe('a session-cluster redeploy lists the session jobs it kills (E7)', () => {
  const killed =
    'redeploying the session cluster kills its 2 session job(s) without a savepoint: sessionizer (RUNNING, savepoint), enricher (RESTARTING, stateless)';

  it('warns with name, state and upgrade mode of each, when the cluster has HA', () => {
    expect(sessionJobsResult(sessionCluster(), 'production')).toEqual({
      name: SESSION_JOBS_CHECK,
      outcome: 'warn',
      message: `${killed}; they come back once the cluster is up (stateless ones without their state)`,
    });
  });

  it.each([
    ['production', 'fail'],
    ['staging', 'warn'],
    [undefined, 'warn'],
  ] as const)('a stateful session job without HA on the cluster, in %s: %s', (environment, outcome) => {
    expect(sessionJobsResult(sessionCluster({ spec: NO_HA }), environment)).toEqual({
      name: SESSION_JOBS_CHECK,
      outcome,
      message: `${killed}; the cluster has no high availability, so sessionizer will stay at "Job Not Found" until restored from a savepoint`,
    });
  });

  it('only stateless jobs without HA: a warning, even in production', () => {
    expect(sessionJobsResult(sessionCluster({ spec: NO_HA }), 'production', [jobs[1]])?.outcome).toBe('warn');
  });

  it('passes with no session jobs; absent when no jobs were read (not a session-cluster redeploy)', () => {
    expect(sessionJobsResult(sessionCluster(), 'production', [])?.outcome).toBe('pass');
    const checks = runChecks({
      intent: intentOf({ kind: 'restart', target: SC }),
      resource: sessionCluster(),
      now: NOW,
    });
    expect(checks.some((c) => c.name === SESSION_JOBS_CHECK)).toBe(false);
  });
});

describe('checkpointing enabled in the job code (E8)', () => {
  const JM_NOW = Date.UTC(2026, 0, 1, 10, 0, 0);
  const reading = (checkpoints: unknown): HealthReading => ({
    job: { now: JM_NOW },
    exceptions: { exceptionHistory: { entries: [] } },
    checkpoints,
    intervalMs: undefined,
  });

  it('no interval in the configuration but REST shows checkpoints: not "off", and failing checkpoints are seen', () => {
    const failing = reading({
      counts: { total: 7, failed: 3 },
      latest: { completed: { latest_ack_timestamp: JM_NOW - 600_000 }, failed: { failure_timestamp: JM_NOW - 5_000 } },
    });
    expect(healthGateCheck(failing, FAIL, JM_NOW)).toEqual({
      name: 'health-gate',
      outcome: 'fail',
      message:
        "the job is not healthy: checkpoints are failing: 3 failed, the last completed 10 min ago (checkpointing enabled in the job, interval not in the configuration) — ways through: it passes once checkpoints complete again; or an undo (`/flink undo <op id>`) only warns; or change the policy's verify.healthGate (restarts, window, or outcome: warn)",
    });
  });

  it('a healthy job that checkpoints from its code', () => {
    const healthy = reading({
      counts: { total: 12, failed: 0 },
      latest: { completed: { latest_ack_timestamp: JM_NOW - 20_000 }, failed: null },
    });
    expect(healthGateCheck(healthy, WARN, JM_NOW).message).toBe(
      'the job is healthy: no restart in the last 10m; last checkpoint 20 s ago (checkpointing enabled in the job, interval not in the configuration); 0 failed',
    );
  });

  it('counts.total > 0 alone is enough; nothing at all is "off"', () => {
    expect(
      healthGateCheck(reading({ counts: { total: 1, failed: 0 }, latest: { completed: null } }), WARN, JM_NOW).message,
    ).toContain('no checkpoint completed yet');
    expect(
      healthGateCheck(reading({ counts: { total: 0, failed: 0 }, latest: { completed: null } }), WARN, JM_NOW).message,
    ).toContain('checkpointing is off');
  });
});
