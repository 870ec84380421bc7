// The built-in checks of SPEC §6, computed from the live resource: each a named pass / warn / fail in plain words.
import type { CheckResult } from '../model/decision.js';
import { readFlinkConfig, type ConfigValue } from '../model/flink-config.js';
import { UPGRADE_MODES, type OperationIntent, type UpgradeMode } from '../model/intent.js';

export const CHECK = {
  notFrozen: 'not-frozen',
  operatorBusy: 'operator-busy',
  sessionClusterReady: 'session-cluster-ready',
  savepointDir: 'savepoint-dir',
  highAvailability: 'high-availability',
  maxParallelism: 'max-parallelism',
  taskManagerReplicas: 'taskmanager-replicas',
  autoscaler: 'autoscaler',
  statelessDropsState: 'stateless-drops-state',
  jobRunning: 'job-running',
  restoreDiscardsState: 'restore-discards-state',
} as const;
export type CheckName = (typeof CHECK)[keyof typeof CHECK];

export interface Freeze {
  by: string;
  reason: string;
  /** Epoch ms. */
  at: number;
}

export interface LastSavepoint {
  location: string;
  /** Epoch ms; undefined when the source does not say. */
  at?: number;
}

export interface CheckInput {
  /** For `undo`, pass the inverse intent (e.g. the scale back) to get that kind's checks. */
  intent: OperationIntent;
  /** The live FlinkDeployment or FlinkSessionJob (any JSON: fields are read defensively). */
  resource: unknown;
  /** For a session job: its session cluster (FlinkDeployment), or undefined when it was not found. */
  sessionCluster?: unknown;
  freeze?: Freeze;
  /** Defaults to `effectiveUpgradeMode(intent, resource)`. */
  effectiveUpgradeMode?: UpgradeMode;
  lastSavepoint?: LastSavepoint;
  now: Date;
}

type Raw = Record<string, unknown>;
const isRecord = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);
function at(value: unknown, ...path: string[]): unknown {
  let current = value;
  for (const key of path) current = isRecord(current) ? current[key] : undefined;
  return current;
}
const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

const SAVEPOINT_DIR_KEYS = ['state.savepoints.dir', 'execution.checkpointing.savepoint-dir'];
const HA_KEYS = ['high-availability.type', 'high-availability'];
const CHECKPOINTING_KEYS = ['execution.checkpointing.interval', 'state.checkpoints.dir', 'execution.checkpointing.dir'];
const AUTOSCALER_ENABLED = ['job.autoscaler.enabled', 'kubernetes.operator.job.autoscaler.enabled'];
const AUTOSCALER_SCALING = ['job.autoscaler.scaling.enabled', 'kubernetes.operator.job.autoscaler.scaling.enabled'];
/** Kinds that stop the running job with the upgrade mode's mechanism. */
const STOPPING_KINDS = ['suspend', 'restart', 'scale', 'upgrade'] as const;
/** Kinds after which the job starts again from what the upgrade mode kept. */
const REDEPLOYING_KINDS = [...STOPPING_KINDS, 'resume'] as const;

/** The upgrade mode the operator will use: `--mode` when given, else spec.job.upgradeMode, else stateless. */
export function effectiveUpgradeMode(intent: OperationIntent, resource: unknown): UpgradeMode | undefined {
  if (intent.kind === 'savepoint' || intent.kind === 'undo') return undefined;
  if ((intent.kind === 'suspend' || intent.kind === 'upgrade') && intent.mode) return intent.mode;
  const spec = text(at(resource, 'spec', 'job', 'upgradeMode'));
  return (UPGRADE_MODES as readonly string[]).includes(spec ?? '') ? (spec as UpgradeMode) : 'stateless';
}

/** "45s", "12m", "3h 5m", "2d 4h". */
export function formatAge(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return m % 60 ? `${h}h ${m % 60}m` : `${h}h`;
  return h % 24 ? `${Math.floor(h / 24)}d ${h % 24}h` : `${Math.floor(h / 24)}d`;
}

const pass = (name: CheckName, message: string): CheckResult => ({ name, outcome: 'pass', message });
const warn = (name: CheckName, message: string): CheckResult => ({ name, outcome: 'warn', message });
const fail = (name: CheckName, message: string): CheckResult => ({ name, outcome: 'fail', message });

interface Ctx {
  input: CheckInput;
  session: boolean;
  mode: UpgradeMode | undefined;
  config: (keys: readonly string[]) => ConfigValue | undefined;
  /** "on the resource" / "on the job or its session cluster". */
  where: string;
}

/** Every check that applies to this intent on this resource, in a stable order. */
export function runChecks(input: CheckInput): CheckResult[] {
  const session = at(input.resource, 'kind') === 'FlinkSessionJob' || ('target' in input.intent && input.intent.target.kind === 'FlinkSessionJob');
  const ctx: Ctx = {
    input,
    session,
    mode: input.effectiveUpgradeMode ?? effectiveUpgradeMode(input.intent, input.resource),
    config: (keys) => readFlinkConfig(input.resource, keys, session ? (input.sessionCluster ?? {}) : undefined),
    where: session ? 'on the job or its session cluster' : 'on the resource',
  };
  const kind = input.intent.kind;
  const stops = (STOPPING_KINDS as readonly string[]).includes(kind);
  const results = [notFrozen(ctx), operatorBusy(ctx)];
  if (session) results.push(sessionClusterReady(ctx));
  if (kind === 'savepoint' || (stops && ctx.mode === 'savepoint')) results.push(savepointDir(ctx));
  if (stops && ctx.mode === 'last-state') results.push(highAvailability(ctx));
  if (input.intent.kind === 'scale') results.push(...scaleChecks(ctx, input.intent.parallelism));
  if ((REDEPLOYING_KINDS as readonly string[]).includes(kind) && ctx.mode === 'stateless') results.push(statelessDropsState(ctx));
  if (kind === 'savepoint') results.push(jobRunning(ctx));
  if (kind === 'restore') results.push(restoreDiscardsState(ctx));
  return results;
}

function notFrozen({ input }: Ctx): CheckResult {
  const f = input.freeze;
  if (!f) return pass(CHECK.notFrozen, 'not frozen');
  const age = formatAge(input.now.getTime() - f.at);
  return fail(CHECK.notFrozen, `frozen by <@${f.by}> ${age} ago: "${f.reason}"; it must be unlocked first`);
}

function operatorBusy({ input }: Ctx): CheckResult {
  const state = text(at(input.resource, 'status', 'reconciliationStatus', 'state'));
  if (state === undefined) return warn(CHECK.operatorBusy, 'the operator reports no reconciliation state for this resource');
  if (state === 'UPGRADING' && leftByCancelSuspend(input.resource)) {
    return pass(CHECK.operatorBusy, 'UPGRADING is left over from a cancel-based suspend; the job is suspended');
  }
  if (state === 'UPGRADING' || state === 'ROLLING_BACK') {
    return fail(CHECK.operatorBusy, `the operator is busy: reconciliation state is ${state}; wait until it settles`);
  }
  return pass(CHECK.operatorBusy, `the operator is not busy (reconciliation state ${state})`);
}

/** A cancel-based suspend can leave UPGRADING behind on a job that is suspended and stopped (reference §4.1). */
function leftByCancelSuspend(resource: unknown): boolean {
  const job = text(at(resource, 'status', 'jobStatus', 'state'));
  if (at(resource, 'spec', 'job', 'state') !== 'suspended' || (job !== 'CANCELED' && job !== 'FINISHED')) return false;
  const reconciled = text(at(resource, 'status', 'reconciliationStatus', 'lastReconciledSpec'));
  if (reconciled === undefined) return true;
  try {
    return at(JSON.parse(reconciled), 'spec', 'job', 'state') === 'suspended';
  } catch {
    return true;
  }
}

function sessionClusterReady({ input }: Ctx): CheckResult {
  const name = text(at(input.resource, 'spec', 'deploymentName')) ?? '(spec.deploymentName unset)';
  if (input.sessionCluster === undefined) {
    return fail(CHECK.sessionClusterReady, `session cluster ${name} was not found; the operator reconciles nothing until the session cluster is READY`);
  }
  const jm = text(at(input.sessionCluster, 'status', 'jobManagerDeploymentStatus')) ?? 'unknown';
  if (jm === 'READY') return pass(CHECK.sessionClusterReady, `session cluster ${name} is READY`);
  return fail(CHECK.sessionClusterReady, `session cluster ${name} is ${jm}: the operator reconciles nothing until the session cluster is READY`);
}

/** `s3://bucket/sp`, `file:///mnt/sp`, `hdfs://nn:8020/sp`; not a relative or scheme-less path. */
const URI_WITH_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:\/+[^/\s]\S*$/;

function savepointDir(ctx: Ctx): CheckResult {
  const found = ctx.config(SAVEPOINT_DIR_KEYS);
  const why = ctx.input.intent.kind === 'savepoint' ? 'a savepoint' : `${ctx.input.intent.kind} in savepoint mode`;
  if (!found) {
    return warn(CHECK.savepointDir, `${why} needs state.savepoints.dir: not set ${ctx.where}; the operator's defaults may set it`);
  }
  const origin = found.source === 'session cluster' ? ' (from the session cluster)' : '';
  if (!URI_WITH_SCHEME.test(found.value.trim())) {
    return fail(
      CHECK.savepointDir,
      `${found.key} is ${JSON.stringify(found.value)}${origin}, which is not a URI with a scheme (e.g. s3://bucket/savepoints); ${why} would fail`,
    );
  }
  return pass(CHECK.savepointDir, `savepoints go to ${found.value}${origin}`);
}

function highAvailability(ctx: Ctx): CheckResult {
  const found = ctx.config(HA_KEYS);
  const why = `${ctx.input.intent.kind} in last-state mode`;
  if (!found) {
    return warn(CHECK.highAvailability, `${why} needs high availability: high-availability.type is not set ${ctx.where}; the operator's defaults may set it`);
  }
  const value = found.value.trim();
  if (value === '' || value.toUpperCase() === 'NONE') {
    return fail(
      CHECK.highAvailability,
      `${found.key} is ${JSON.stringify(found.value)}: ${why} needs high availability (e.g. kubernetes); use --mode savepoint or enable HA`,
    );
  }
  return pass(CHECK.highAvailability, `high availability: ${value}`);
}

function scaleChecks(ctx: Ctx, parallelism: number): CheckResult[] {
  const results = [maxParallelism(ctx, parallelism)];
  if (!ctx.session) results.push(taskManagerReplicas(ctx));
  results.push(autoscaler(ctx));
  return results;
}

/** Flink's derived default max parallelism is at least 128, so anything up to it restores either way. */
const DERIVED_MAX_FLOOR = 128;

function maxParallelism(ctx: Ctx, parallelism: number): CheckResult {
  const found = ctx.config(['pipeline.max-parallelism']);
  if (!found) {
    if (parallelism <= DERIVED_MAX_FLOOR) return pass(CHECK.maxParallelism, `parallelism ${parallelism} is within the default max parallelism`);
    return warn(
      CHECK.maxParallelism,
      `pipeline.max-parallelism is not set; Flink derived it when the job first started (at least ${DERIVED_MAX_FLOOR}), and the state cannot be restored above it`,
    );
  }
  const max = Number(found.value);
  if (!Number.isInteger(max) || max < 1) {
    return warn(CHECK.maxParallelism, `pipeline.max-parallelism is ${JSON.stringify(found.value)}, not a whole number; cannot compare`);
  }
  if (parallelism > max) {
    return fail(CHECK.maxParallelism, `parallelism ${parallelism} is above pipeline.max-parallelism ${max}: the job could not restore its state`);
  }
  return pass(CHECK.maxParallelism, `parallelism ${parallelism} is within pipeline.max-parallelism ${max}`);
}

function taskManagerReplicas(ctx: Ctx): CheckResult {
  const replicas = at(ctx.input.resource, 'spec', 'taskManager', 'replicas');
  if (typeof replicas !== 'number') return pass(CHECK.taskManagerReplicas, 'spec.taskManager.replicas is not set, so spec.job.parallelism applies');
  const slots = Number(ctx.config(['taskmanager.numberOfTaskSlots'])?.value ?? 1);
  return fail(
    CHECK.taskManagerReplicas,
    `spec.taskManager.replicas is set (${replicas}), so the operator ignores spec.job.parallelism: the job runs with ` +
      `replicas × taskmanager.numberOfTaskSlots = ${replicas} × ${slots} = ${replicas * slots}. Change the replicas instead`,
  );
}

function autoscaler(ctx: Ctx): CheckResult {
  const enabled = ctx.config(AUTOSCALER_ENABLED)?.value.trim().toLowerCase() === 'true';
  const scaling = ctx.config(AUTOSCALER_SCALING)?.value.trim().toLowerCase() !== 'false';
  if (enabled && scaling) {
    return warn(CHECK.autoscaler, 'the autoscaler is enabled with scaling on: it overrides a manually set parallelism');
  }
  if (enabled) return pass(CHECK.autoscaler, 'the autoscaler only advises (job.autoscaler.scaling.enabled: false)');
  return pass(CHECK.autoscaler, 'the autoscaler is off');
}

function statelessDropsState(ctx: Ctx): CheckResult {
  const found = ctx.config(CHECKPOINTING_KEYS);
  if (!found) return pass(CHECK.statelessDropsState, 'stateless mode; the job has no checkpointing configured');
  return warn(
    CHECK.statelessDropsState,
    `stateless mode: the job starts from empty state, so the state it keeps (checkpointing is configured: ${found.key}=${found.value}) will be dropped`,
  );
}

function jobRunning({ input }: Ctx): CheckResult {
  const state = text(at(input.resource, 'status', 'jobStatus', 'state')) ?? 'unknown';
  if (state === 'RUNNING') return pass(CHECK.jobRunning, 'the job is RUNNING');
  return fail(CHECK.jobRunning, `the job is ${state}, not RUNNING: the snapshot would be ABANDONED`);
}

function restoreDiscardsState({ input }: Ctx): CheckResult {
  const last = input.lastSavepoint;
  const lastWords = !last
    ? 'no savepoint of this job is on record'
    : `the last savepoint is ${last.location}${last.at === undefined ? ' (age unknown)' : `, taken ${formatAge(input.now.getTime() - last.at)} ago`}`;
  return warn(CHECK.restoreDiscardsState, `restore cancels the job without a savepoint and discards its current state; ${lastWords}`);
}
