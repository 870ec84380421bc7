// The built-in checks' toolkit (docs/policy.md#built-in-checks): names, the context they read, pass/warn/fail, and the
// checks several kinds share. Kind modules add their own checks; checks.ts decides which apply.
import type { GateContext, GateSettings, HealthReading } from './health-gate.js';
import type { CheckResult } from '../../model/decision.js';
import { HA_KEYS, type ConfigValue } from '../../model/flink-config.js';
import type { Target } from '../../model/target.js';
import type { UpgradeMode } from '../../model/upgrade-mode.js';

/** Check names several kinds (or the app) read; a check only one kind runs and reads is named in that kind's module. */
export const CHECK = {
  notFrozen: 'not-frozen',
  operatorBusy: 'operator-busy',
  sessionClusterReady: 'session-cluster-ready',
  savepointDir: 'savepoint-dir',
  highAvailability: 'high-availability',
  statelessDropsState: 'stateless-drops-state',
  limits: 'limits',
  /** The app reads a failed one to name the refused keys (app/assess.ts). */
  configKeys: 'config-keys',
  /** A restore source outside the target's own state: the app refuses it (docs/policy.md#restore-sources). */
  restoreSource: 'restore-source',
} as const;
export type CheckName = (typeof CHECK)[keyof typeof CHECK];

export interface Freeze {
  by: string;
  reason: string;
  /** Epoch ms. */
  at: number;
  /** Epoch ms when it ends by itself (`lock --for`); absent: until unlock. */
  until?: number;
}

export interface LastSavepoint {
  location: string;
  /** Epoch ms; undefined when the source does not say. */
  at?: number;
}

/**
 * Policy `config` (docs/policy.md#keys-limits-and-verification): globs of the flinkConfiguration keys `config` may
 * change; deny wins.
 */
export interface ConfigRules {
  allow: string[];
  deny: string[];
}

/**
 * Policy `limits` (docs/policy.md#keys-limits-and-verification): ceilings for `resources` and `scale`; memory as
 * written and in bytes.
 */
export interface PolicyLimits {
  taskManagerMemory?: { text: string; bytes: number };
  taskManagerCpu?: number;
  jobManagerMemory?: { text: string; bytes: number };
  jobManagerCpu?: number;
  parallelism?: number;
}

/** The parts of the policy the kinds' own checks read. */
export interface CheckPolicy {
  config?: ConfigRules;
  limits?: PolicyLimits;
  /** Policy `restore.allowedFrom` (docs/policy.md#restore-sources). */
  restore?: { allowedFrom: string[] };
}

/** The part of an intent the shared checks read; a kind's own checks get its full intent. */
export interface CheckedIntent {
  kind: string;
  target?: Target;
}

export interface CheckInput<I extends CheckedIntent = CheckedIntent> {
  /** For `undo`, pass the inverse intent (e.g. the scale back) to get that kind's checks. */
  intent: I;
  /** The live FlinkDeployment or FlinkSessionJob (any JSON: fields are read defensively). */
  resource: unknown;
  /** For a session job: its session cluster (FlinkDeployment), or undefined when it was not found. */
  sessionCluster?: unknown;
  freeze?: Freeze;
  /** The mode the plan recorded; undefined for kinds without one (a savepoint). */
  effectiveUpgradeMode?: UpgradeMode;
  lastSavepoint?: LastSavepoint;
  /** Every savepoint of the target on record (its FlinkStateSnapshots and status), for `restore --from`. */
  ownSavepoints?: readonly string[];
  /** Policy `config` and `limits`; absent: no keys allowed, no limits. */
  policy?: CheckPolicy;
  /**
   * What Flink REST said about the running job, and whether the policy's gate warns or fails
   * (docs/deep-verification.md#the-health-gate).
   */
  health?: { reading: HealthReading; gate: GateSettings; context?: GateContext };
  /** For a redeploy of a session cluster: the FlinkSessionJobs running on it (read only for such plans). */
  sessionJobs?: readonly unknown[];
  /** The environment of the target's namespace in the policy (e.g. `production`). */
  environment?: string;
  now: Date;
}

type Raw = Record<string, unknown>;
const isRecord = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);
export function at(value: unknown, ...path: string[]): unknown {
  let current = value;
  for (const key of path) current = isRecord(current) ? current[key] : undefined;
  return current;
}
export const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

export const SAVEPOINT_DIR_KEYS = ['state.savepoints.dir', 'execution.checkpointing.savepoint-dir'];
/** Where checkpoints go (the new spelling first). */
export const CHECKPOINT_DIR_KEYS = ['execution.checkpointing.dir', 'state.checkpoints.dir'];
export const CHECKPOINTING_KEYS = [
  'execution.checkpointing.interval',
  'state.checkpoints.dir',
  'execution.checkpointing.dir',
];
export const AUTOSCALER_ENABLED = ['job.autoscaler.enabled', 'kubernetes.operator.job.autoscaler.enabled'];
export const AUTOSCALER_SCALING = [
  'job.autoscaler.scaling.enabled',
  'kubernetes.operator.job.autoscaler.scaling.enabled',
];
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

export const pass = (name: string, message: string): CheckResult => ({ name, outcome: 'pass', message });
export const warn = (name: string, message: string): CheckResult => ({ name, outcome: 'warn', message });
export const fail = (name: string, message: string): CheckResult => ({ name, outcome: 'fail', message });

export interface CheckCtx {
  input: CheckInput;
  session: boolean;
  mode: UpgradeMode | undefined;
  config: (keys: readonly string[]) => ConfigValue | undefined;
  /** "on the resource" / "on the job or its session cluster". */
  where: string;
}

export function notFrozen({ input }: CheckCtx): CheckResult {
  const f = input.freeze;
  if (!f) return pass(CHECK.notFrozen, 'not frozen');
  const age = formatAge(input.now.getTime() - f.at);
  const ends = f.until === undefined ? '' : ` (until ${new Date(f.until).toISOString()})`;
  return fail(CHECK.notFrozen, `frozen by <@${f.by}> ${age} ago${ends}: "${f.reason}"; it must be unlocked first`);
}

export function operatorBusy({ input }: CheckCtx): CheckResult {
  const state = text(at(input.resource, 'status', 'reconciliationStatus', 'state'));
  if (state === undefined)
    return warn(CHECK.operatorBusy, 'the operator reports no reconciliation state for this resource');
  if (state === 'UPGRADING' && leftByCancelSuspend(input.resource)) {
    return pass(CHECK.operatorBusy, 'UPGRADING is left over from a cancel-based suspend; the job is suspended');
  }
  if (state === 'UPGRADING' || state === 'ROLLING_BACK') {
    return fail(CHECK.operatorBusy, `the operator is busy: reconciliation state is ${state}; wait until it settles`);
  }
  return pass(CHECK.operatorBusy, `the operator is not busy (reconciliation state ${state})`);
}

/**
 * A cancel-based suspend can leave UPGRADING behind on a job that is suspended and stopped
 * (docs/lifecycle.md#operator-traps).
 */
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

export function sessionClusterReady({ input }: CheckCtx): CheckResult {
  const name = text(at(input.resource, 'spec', 'deploymentName')) ?? '(spec.deploymentName unset)';
  if (input.sessionCluster === undefined) {
    return fail(
      CHECK.sessionClusterReady,
      `session cluster ${name} was not found; the operator reconciles nothing until the session cluster is READY`,
    );
  }
  const jm = text(at(input.sessionCluster, 'status', 'jobManagerDeploymentStatus')) ?? 'unknown';
  if (jm === 'READY') return pass(CHECK.sessionClusterReady, `session cluster ${name} is READY`);
  return fail(
    CHECK.sessionClusterReady,
    `session cluster ${name} is ${jm}: the operator reconciles nothing until the session cluster is READY`,
  );
}

/** `s3://bucket/sp`, `file:///mnt/sp`, `hdfs://nn:8020/sp`; not a relative or scheme-less path. */
const URI_WITH_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:\/+[^/\s]\S*$/;

/** `why`: what needs the directory, e.g. "a savepoint" or "scale in savepoint mode". */
export function savepointDir(ctx: CheckCtx, why: string): CheckResult {
  const found = ctx.config(SAVEPOINT_DIR_KEYS);
  if (!found) {
    return warn(
      CHECK.savepointDir,
      `${why} needs state.savepoints.dir: not set ${ctx.where}; the operator's defaults may set it`,
    );
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

export function highAvailability(ctx: CheckCtx): CheckResult {
  const found = ctx.config(HA_KEYS);
  const why = `${ctx.input.intent.kind} in last-state mode`;
  if (!found) {
    return warn(
      CHECK.highAvailability,
      `${why} needs high availability: high-availability.type is not set ${ctx.where}; the operator's defaults may set it`,
    );
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

export function statelessDropsState(ctx: CheckCtx): CheckResult {
  const found = ctx.config(CHECKPOINTING_KEYS);
  if (!found) return pass(CHECK.statelessDropsState, 'stateless mode; the job has no checkpointing configured');
  return warn(
    CHECK.statelessDropsState,
    `stateless mode: the job starts from empty state, so the state it keeps (checkpointing is configured: ${found.key}=${found.value}) will be dropped`,
  );
}
