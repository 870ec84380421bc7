import { describe, expect, it } from 'vitest';
import type { CheckOutcome } from '../../../../../src/domain/model/decision.js';
import type { OperationIntent } from '../../../../../src/domain/kinds/index.js';
import {
  CHECK,
  formatAge,
  runChecks,
  upgradeModeFor,
  type CheckInput,
} from '../../../../../src/domain/engines/policy/checks.js';
import { RESTORE_CHECK } from '../../../../../src/domain/kinds/restore.js';
import { SAVEPOINT_CHECK } from '../../../../../src/domain/kinds/savepoint.js';
import { SCALE_CHECK } from '../../../../../src/domain/kinds/scale.js';
import { DEFAULT_RESTART_LIMIT } from '../../../../../src/domain/kit/policy/verify.js';

const NOW = new Date('2025-06-02T10:00:00Z');
const target = { kind: 'FlinkDeployment', namespace: 'streaming-prod', name: 'orders' } as const;
const sessionTarget = { kind: 'FlinkSessionJob', namespace: 'streaming-prod', name: 'clicks' } as const;
const common = { incidentChannels: [] };

const intents = {
  suspend: { kind: 'suspend', target, ...common },
  suspendSavepoint: { kind: 'suspend', target, mode: 'savepoint', ...common },
  suspendLastState: { kind: 'suspend', target, mode: 'last-state', ...common },
  suspendStateless: { kind: 'suspend', target, mode: 'stateless', ...common },
  resume: { kind: 'resume', target, ...common },
  restart: { kind: 'restart', target, ...common },
  scale8: { kind: 'scale', target, parallelism: 8, ...common },
  scale200: { kind: 'scale', target, parallelism: 200, ...common },
  upgrade: { kind: 'upgrade', target, image: 'flink:2', ...common },
  savepoint: { kind: 'savepoint', target, ...common },
  restore: { kind: 'restore', target, from: 's3://b/sp-1', allowNonRestoredState: false, ...common },
  undo: { kind: 'undo', opId: 'op-abc123', ...common },
  sessionSavepoint: { kind: 'savepoint', target: sessionTarget, ...common },
  sessionLastState: { kind: 'suspend', target: sessionTarget, mode: 'last-state', ...common },
} satisfies Record<string, OperationIntent>;

type Json = Record<string, unknown>;

/** Deep merge; `undefined` in the patch removes the key, arrays and scalars replace. */
function merge(base: Json, patch: Json): Json {
  const out: Json = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) delete out[key];
    else if (
      typeof value === 'object' &&
      value !== null &&
      !Array.isArray(value) &&
      typeof out[key] === 'object' &&
      out[key] !== null
    ) {
      out[key] = merge(out[key] as Json, value as Json);
    } else out[key] = value;
  }
  return out;
}

function deployment(patch: Json = {}): Json {
  return merge(
    {
      apiVersion: 'flink.apache.org/v1beta1',
      kind: 'FlinkDeployment',
      metadata: { name: 'orders', namespace: 'streaming-prod', uid: 'u-1', generation: 3 },
      spec: {
        image: 'flink:1.20',
        flinkConfiguration: { 'state.savepoints.dir': 's3://bucket/sp', 'high-availability.type': 'kubernetes' },
        job: { jarURI: 'local:///opt/job.jar', parallelism: 2, upgradeMode: 'savepoint', state: 'running' },
      },
      status: {
        reconciliationStatus: { state: 'DEPLOYED' },
        jobStatus: { state: 'RUNNING' },
        jobManagerDeploymentStatus: 'READY',
      },
    },
    patch,
  );
}

/** A health reading whose job has these vertices: name, parallelism, maxParallelism. */
function healthWith(vertices: [string, number, number][]): CheckInput['health'] {
  const job = {
    vertices: vertices.map(([name, parallelism, maxParallelism]) => ({ name, parallelism, maxParallelism })),
  };
  return {
    reading: { job, checkpoints: {}, exceptions: {}, intervalMs: undefined },
    gate: { outcome: 'warn', restartLimit: DEFAULT_RESTART_LIMIT },
  };
}

function sessionJob(patch: Json = {}): Json {
  return merge(
    {
      kind: 'FlinkSessionJob',
      metadata: { name: 'clicks', namespace: 'streaming-prod' },
      spec: { deploymentName: 'session', job: { upgradeMode: 'savepoint', state: 'running' } },
      status: { reconciliationStatus: { state: 'DEPLOYED' }, jobStatus: { state: 'RUNNING' } },
    },
    patch,
  );
}

function sessionCluster(patch: Json = {}): Json {
  return merge(
    {
      kind: 'FlinkDeployment',
      metadata: { name: 'session' },
      spec: { flinkConfiguration: {} },
      status: { jobManagerDeploymentStatus: 'READY' },
    },
    patch,
  );
}

const conf = (flinkConfiguration: Json): Json => ({ spec: { flinkConfiguration } });

type Case = [
  label: string,
  intent: OperationIntent,
  resource: Json,
  extra: Partial<CheckInput>,
  check: string,
  outcome: CheckOutcome,
  words: string,
];

const cases: Case[] = [
  ['not frozen', intents.restart, deployment(), {}, CHECK.notFrozen, 'pass', 'not frozen'],
  [
    'frozen: names who and why',
    intents.restart,
    deployment(),
    { freeze: { by: 'U0ONCALL', reason: 'schema migration', at: NOW.getTime() - 12 * 60_000 } },
    CHECK.notFrozen,
    'fail',
    'frozen by <@U0ONCALL> 12m ago: "schema migration"',
  ],
  [
    'operator idle',
    intents.restart,
    deployment(),
    {},
    CHECK.operatorBusy,
    'pass',
    'not busy (reconciliation state DEPLOYED)',
  ],
  [
    'operator upgrading',
    intents.restart,
    deployment({ status: { reconciliationStatus: { state: 'UPGRADING' } } }),
    {},
    CHECK.operatorBusy,
    'fail',
    'reconciliation state is UPGRADING',
  ],
  [
    'operator rolling back',
    intents.scale8,
    deployment({ status: { reconciliationStatus: { state: 'ROLLING_BACK' } } }),
    {},
    CHECK.operatorBusy,
    'fail',
    'ROLLING_BACK',
  ],
  [
    'UPGRADING left by a cancel-based suspend on a suspended target',
    intents.resume,
    deployment({
      spec: { job: { state: 'suspended' } },
      status: {
        reconciliationStatus: {
          state: 'UPGRADING',
          lastReconciledSpec: JSON.stringify({ spec: { job: { state: 'suspended' } } }),
        },
        jobStatus: { state: 'CANCELED' },
      },
    }),
    {},
    CHECK.operatorBusy,
    'pass',
    'left over from a cancel-based suspend',
  ],
  [
    'UPGRADING while a suspend is still cancelling',
    intents.resume,
    deployment({
      spec: { job: { state: 'suspended' } },
      status: { reconciliationStatus: { state: 'UPGRADING' }, jobStatus: { state: 'CANCELLING' } },
    }),
    {},
    CHECK.operatorBusy,
    'fail',
    'busy',
  ],
  [
    'no status at all',
    intents.restart,
    deployment({ status: undefined }),
    {},
    CHECK.operatorBusy,
    'warn',
    'no reconciliation state',
  ],
  [
    'savepoint dir set (flat)',
    intents.savepoint,
    deployment(),
    {},
    CHECK.savepointDir,
    'pass',
    'savepoints go to s3://bucket/sp',
  ],
  [
    'savepoint dir set (nested, alias)',
    intents.upgrade,
    deployment(
      conf({ 'state.savepoints.dir': undefined, execution: { checkpointing: { 'savepoint-dir': 'file:///mnt/sp' } } }),
    ),
    {},
    CHECK.savepointDir,
    'pass',
    'file:///mnt/sp',
  ],
  [
    'savepoint dir not set',
    intents.suspendSavepoint,
    deployment(conf({ 'state.savepoints.dir': undefined })),
    {},
    CHECK.savepointDir,
    'warn',
    "not set on the resource; the operator's defaults may set it",
  ],
  [
    'savepoint dir relative',
    intents.restart,
    deployment(conf({ 'state.savepoints.dir': 'savepoints' })),
    {},
    CHECK.savepointDir,
    'fail',
    'not a URI with a scheme',
  ],
  [
    'savepoint dir empty',
    intents.savepoint,
    deployment(conf({ 'state.savepoints.dir': '' })),
    {},
    CHECK.savepointDir,
    'fail',
    'state.savepoints.dir is ""',
  ],
  [
    'HA set',
    intents.suspendLastState,
    deployment(),
    {},
    CHECK.highAvailability,
    'pass',
    'high availability: kubernetes',
  ],
  [
    'HA not set',
    intents.suspendLastState,
    deployment(conf({ 'high-availability.type': undefined })),
    {},
    CHECK.highAvailability,
    'warn',
    "not set on the resource; the operator's defaults may set it",
  ],
  [
    'HA NONE via the old key',
    intents.suspendLastState,
    deployment(conf({ 'high-availability.type': undefined, 'high-availability': 'NONE' })),
    {},
    CHECK.highAvailability,
    'fail',
    'high-availability is "NONE"',
  ],
  [
    'HA empty',
    intents.suspendLastState,
    deployment(conf({ 'high-availability.type': '' })),
    {},
    CHECK.highAvailability,
    'fail',
    'needs high availability',
  ],
  [
    'scale within max parallelism',
    intents.scale8,
    deployment(conf({ 'pipeline.max-parallelism': 64 })),
    {},
    SCALE_CHECK.maxParallelism,
    'pass',
    'within pipeline.max-parallelism 64',
  ],
  [
    'scale above max parallelism',
    intents.scale200,
    deployment(conf({ pipeline: { 'max-parallelism': 128 } })),
    {},
    SCALE_CHECK.maxParallelism,
    'fail',
    'parallelism 200 is above pipeline.max-parallelism 128',
  ],
  [
    'scale above the derived default',
    intents.scale200,
    deployment(),
    {},
    SCALE_CHECK.maxParallelism,
    'warn',
    'pipeline.max-parallelism is not set',
  ],
  // Restored state keeps the max parallelism it was written with (Flink StateAssignmentOperation): the value REST
  // reports for the vertices at the job's default is the bound of the next restore.
  [
    'scale above the max parallelism Flink REST reports',
    intents.scale200,
    deployment(),
    {
      health: healthWith([
        ['Source: events', 2, 128],
        ['Sink: results', 1, 64],
      ]),
    },
    SCALE_CHECK.maxParallelism,
    'fail',
    'parallelism 200 is above the max parallelism 128 Flink REST reports for Source: events',
  ],
  [
    'scale within the max parallelism Flink REST reports',
    intents.scale200,
    deployment(),
    { health: healthWith([['Source: events', 2, 256]]) },
    SCALE_CHECK.maxParallelism,
    'pass',
    'within the max parallelism 256 Flink REST reports',
  ],
  [
    'a stateless scale restores no state',
    intents.scale200,
    deployment({ spec: { job: { upgradeMode: 'stateless' } } }),
    { health: healthWith([['Source: events', 2, 128]]) },
    SCALE_CHECK.maxParallelism,
    'warn',
    'pipeline.max-parallelism is not set',
  ],
  ['no taskManager.replicas', intents.scale8, deployment(), {}, SCALE_CHECK.taskManagerReplicas, 'pass', 'not set'],
  [
    'taskManager.replicas set',
    intents.scale8,
    deployment({
      spec: { taskManager: { replicas: 3 }, flinkConfiguration: { 'taskmanager.numberOfTaskSlots': '2' } },
    }),
    {},
    SCALE_CHECK.taskManagerReplicas,
    'fail',
    'ignores spec.job.parallelism: the job runs with replicas × taskmanager.numberOfTaskSlots = 3 × 2 = 6',
  ],
  ['autoscaler off', intents.scale8, deployment(), {}, SCALE_CHECK.autoscaler, 'pass', 'off'],
  [
    'autoscaler scaling',
    intents.scale8,
    deployment(conf({ 'job.autoscaler.enabled': 'true' })),
    {},
    SCALE_CHECK.autoscaler,
    'warn',
    'overrides a manually set parallelism',
  ],
  [
    'autoscaler advisory only',
    intents.scale8,
    deployment(conf({ job: { autoscaler: { enabled: true, scaling: { enabled: false } } } })),
    {},
    SCALE_CHECK.autoscaler,
    'pass',
    'only advises',
  ],
  [
    'stateless without checkpointing',
    intents.suspendStateless,
    deployment(),
    {},
    CHECK.statelessDropsState,
    'pass',
    'no checkpointing',
  ],
  [
    'stateless with checkpointing',
    intents.restart,
    deployment({
      spec: { job: { upgradeMode: 'stateless' }, flinkConfiguration: { 'execution.checkpointing.interval': '60s' } },
    }),
    {},
    CHECK.statelessDropsState,
    'warn',
    'will be dropped',
  ],
  [
    'upgradeMode unset means stateless',
    intents.upgrade,
    deployment({
      spec: { job: { upgradeMode: undefined }, flinkConfiguration: { 'state.checkpoints.dir': 's3://b/cp' } },
    }),
    {},
    CHECK.statelessDropsState,
    'warn',
    'state.checkpoints.dir=s3://b/cp',
  ],
  ['savepoint of a running job', intents.savepoint, deployment(), {}, SAVEPOINT_CHECK.jobRunning, 'pass', 'RUNNING'],
  [
    'savepoint of a job that is not running',
    intents.savepoint,
    deployment({ status: { jobStatus: { state: 'FAILED' } } }),
    {},
    SAVEPOINT_CHECK.jobRunning,
    'fail',
    'the job is FAILED, not RUNNING: the snapshot would be ABANDONED',
  ],
  [
    'restore with a last savepoint',
    intents.restore,
    deployment(),
    { lastSavepoint: { location: 's3://b/sp-0', at: NOW.getTime() - 3 * 3_600_000 - 5 * 60_000 } },
    RESTORE_CHECK.restoreDiscardsState,
    'warn',
    'discards its current state; the last savepoint is s3://b/sp-0, taken 3h 5m ago',
  ],
  [
    'restore from one of the target’s own savepoints',
    intents.restore,
    deployment(),
    { ownSavepoints: ['s3://b/sp-1'] },
    CHECK.restoreSource,
    'pass',
    "s3://b/sp-1 is the target's own state",
  ],
  [
    'restore from a prefix the policy names',
    intents.restore,
    deployment(),
    { policy: { restore: { allowedFrom: ['s3://b'] } } },
    CHECK.restoreSource,
    'pass',
    'a source the policy allows',
  ],
  [
    'restore from somewhere else',
    intents.restore,
    deployment(),
    { ownSavepoints: ['s3://b/sp-10'] },
    CHECK.restoreSource,
    'fail',
    "is not one of the target's own savepoints",
  ],
  [
    'restore without any savepoint',
    intents.restore,
    deployment(),
    {},
    RESTORE_CHECK.restoreDiscardsState,
    'warn',
    'no savepoint of this job is on record',
  ],
  [
    'session cluster READY',
    intents.sessionSavepoint,
    sessionJob(),
    { sessionCluster: sessionCluster() },
    CHECK.sessionClusterReady,
    'pass',
    'session cluster session is READY',
  ],
  [
    'session cluster not READY',
    intents.sessionSavepoint,
    sessionJob(),
    { sessionCluster: sessionCluster({ status: { jobManagerDeploymentStatus: 'DEPLOYING' } }) },
    CHECK.sessionClusterReady,
    'fail',
    'the operator reconciles nothing until the session cluster is READY',
  ],
  [
    'session cluster missing',
    intents.sessionSavepoint,
    sessionJob(),
    {},
    CHECK.sessionClusterReady,
    'fail',
    'session cluster session was not found',
  ],
  [
    'session job: savepoint dir from the cluster',
    intents.sessionSavepoint,
    sessionJob(),
    { sessionCluster: sessionCluster(conf({ 'state.savepoints.dir': 's3://c/sp' })) },
    CHECK.savepointDir,
    'pass',
    's3://c/sp (from the session cluster)',
  ],
  [
    'session job: job config over cluster config',
    intents.sessionLastState,
    sessionJob(conf({ 'high-availability.type': 'NONE' })),
    { sessionCluster: sessionCluster(conf({ 'high-availability.type': 'kubernetes' })) },
    CHECK.highAvailability,
    'fail',
    'high-availability.type is "NONE"',
  ],
  [
    'session job: nothing set anywhere',
    intents.sessionSavepoint,
    sessionJob(),
    { sessionCluster: sessionCluster() },
    CHECK.savepointDir,
    'warn',
    'not set on the job or its session cluster',
  ],
];

describe('built-in checks', () => {
  it.each(cases)('%s', (_label, intent, resource, extra, name, outcome, words) => {
    const results = runChecks({ intent, resource, now: NOW, ...extra });
    const result = results.find((r) => r.name === name);
    expect(result, `no ${name} among ${results.map((r) => r.name).join(', ')}`).toBeDefined();
    expect(result?.outcome).toBe(outcome);
    expect(result?.message).toContain(words);
  });

  it.each<[string, OperationIntent, Json, string[]]>([
    [
      'scale (savepoint mode)',
      intents.scale8,
      deployment(),
      ['not-frozen', 'operator-busy', 'savepoint-dir', 'max-parallelism', 'taskmanager-replicas', 'autoscaler'],
    ],
    [
      'suspend --mode last-state',
      intents.suspendLastState,
      deployment(),
      ['not-frozen', 'operator-busy', 'high-availability'],
    ],
    ['resume (savepoint mode): nothing is stopped', intents.resume, deployment(), ['not-frozen', 'operator-busy']],
    ['savepoint', intents.savepoint, deployment(), ['not-frozen', 'operator-busy', 'savepoint-dir', 'job-running']],
    [
      'restore',
      intents.restore,
      deployment(),
      ['not-frozen', 'operator-busy', 'restore-source', 'restore-discards-state'],
    ],
    ['undo: only the general checks', intents.undo, deployment(), ['not-frozen', 'operator-busy']],
    [
      'session job savepoint',
      intents.sessionSavepoint,
      sessionJob(),
      ['not-frozen', 'operator-busy', 'session-cluster-ready', 'savepoint-dir', 'job-running'],
    ],
  ])('%s runs exactly the checks that apply', (_label, intent, resource, names) => {
    expect(runChecks({ intent, resource, now: NOW }).map((r) => r.name)).toEqual(names);
  });

  it('reads live objects defensively: garbage in, results out', () => {
    for (const resource of [null, 'x', 42, {}, { spec: 'no' }, { status: { reconciliationStatus: 7 } }]) {
      expect(() => runChecks({ intent: intents.scale200, resource, now: NOW })).not.toThrow();
    }
  });

  it.each<[OperationIntent, Json, string | undefined]>([
    [intents.suspendLastState, deployment(), 'last-state'],
    [intents.suspend, deployment(), 'savepoint'],
    [intents.upgrade, deployment({ spec: { job: { upgradeMode: undefined } } }), 'stateless'],
    [intents.savepoint, deployment(), undefined],
  ])('effective upgrade mode of %o', (intent, resource, expected) => {
    expect(upgradeModeFor(intent, resource)).toBe(expected);
  });

  it.each([
    [45_000, '45s'],
    [12 * 60_000, '12m'],
    [3 * 3_600_000, '3h'],
    [50 * 3_600_000, '2d 2h'],
  ])('formats age %d as %s', (ms, text) => {
    expect(formatAge(ms)).toBe(text);
  });
});
