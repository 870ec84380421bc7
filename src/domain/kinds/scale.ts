// scale: change the job parallelism (spec.job.parallelism); its checks (max parallelism, replicas, autoscaler) and caveats.
import { z } from 'zod';
import type { Ctx } from '../kit/evidence/criteria.js';
import { redeployRule } from '../kit/evidence/redeploy.js';
import type { RestWant } from '../kit/evidence/rest.js';
import { VALUE_KINDS, wholeNumber, type ValueSpec } from '../kit/language/values.js';
import { OPERATION_FLAGS, TARGET, type FlagSpec } from '../kit/language/verb-kit.js';
import type { CheckResult } from '../model/decision.js';
import { readFlinkConfig } from '../model/flink-config.js';
import { COMMON_INTENT_FIELDS, MAX_PARALLELISM, MIN_PARALLELISM } from '../kit/language/intent-base.js';
import { getPath } from '../model/merge-patch.js';
import { parallelismOf, taskManagerReplicasOf } from '../model/resource.js';
import { verticesOf } from '../model/rest-vertices.js';
import { TargetSchema } from '../model/target.js';
import { effectiveUpgradeMode } from '../model/upgrade-mode.js';
import { freshNonce, patchOutcome, refusal, who, type FieldEdit, type FieldPath } from '../kit/planning/edits.js';
import {
  AUTOSCALER_ENABLED,
  AUTOSCALER_SCALING,
  CHECK,
  at,
  fail,
  pass,
  warn,
  type CheckCtx,
} from '../kit/policy/check-kit.js';
import { autoscalerHolds } from '../kit/planning/target-refusals.js';
import type { KindModule } from './kind.js';

export const ScaleIntent = z.object({
  kind: z.literal('scale'),
  target: TargetSchema,
  parallelism: z.number().int().min(MIN_PARALLELISM).max(MAX_PARALLELISM),
  /** `--reset-autoscaler`: clear the autoscaler's stored overrides with the scale (a new spec.job.autoscalerResetNonce). */
  resetAutoscaler: z.literal(true).optional(),
  ...COMMON_INTENT_FIELDS,
});
type Intent = z.infer<typeof ScaleIntent>;

/** The fields scale edits. */
const OWN_PATHS = {
  parallelism: ['spec', 'job', 'parallelism'],
  autoscalerResetNonce: ['spec', 'job', 'autoscalerResetNonce'],
} as const satisfies Record<string, FieldPath>;
/** The checks only scale runs (the policy ceiling, CHECK.limits, it shares with resources). */
export const SCALE_CHECK = {
  maxParallelism: 'max-parallelism',
  taskManagerReplicas: 'taskmanager-replicas',
  autoscaler: 'autoscaler',
} as const;

const PARALLELISM: ValueSpec = {
  placeholder: '<parallelism>',
  description: `the new job parallelism, a whole number from ${MIN_PARALLELISM} to ${MAX_PARALLELISM}`,
  example: '4',
  check: (text, _env, label) => wholeNumber(text, MIN_PARALLELISM, MAX_PARALLELISM, label),
};

/** Clears the autoscaler's stored per-vertex overrides together with the new parallelism. */
const RESET_AUTOSCALER: FlagSpec = {
  name: 'reset-autoscaler',
  key: 'resetAutoscaler',
  kind: VALUE_KINDS.switch,
  description:
    'also reset the autoscaler (a new spec.job.autoscalerResetNonce): it drops the per-vertex parallelism it holds, so the new parallelism applies',
};

/** Flink's derived default max parallelism is at least 128, so anything up to it restores either way. */
const DERIVED_MAX_FLOOR = 128;

/**
 * The lowest max parallelism Flink REST reported at planning (the health reading) among the vertices the new
 * parallelism applies to: those at the job's default now (a vertex set in code keeps its own). Restored state keeps
 * the max parallelism it was written with, so this is the bound of the next restore (docs/deep-verification.md#max-parallelism).
 */
function restMaxParallelism(ctx: CheckCtx): { max: number; vertex: string } | undefined {
  const job = ctx.input.health?.reading.job;
  if (job === undefined) return undefined;
  const known = verticesOf(job).filter((v) => v.maxParallelism !== undefined && v.maxParallelism > 0);
  const current = parallelismOf(ctx.input.resource);
  const takers = known.filter((v) => v.parallelism === current);
  let lowest: { max: number; vertex: string } | undefined;
  for (const v of takers.length > 0 ? takers : known)
    if (lowest === undefined || (v.maxParallelism as number) < lowest.max)
      lowest = { max: v.maxParallelism as number, vertex: v.name };
  return lowest;
}

function derivedMaxParallelism(ctx: CheckCtx, parallelism: number): CheckResult {
  const rest = ctx.mode === 'stateless' ? undefined : restMaxParallelism(ctx);
  if (rest !== undefined && parallelism > rest.max)
    return fail(
      SCALE_CHECK.maxParallelism,
      `parallelism ${parallelism} is above the max parallelism ${rest.max} Flink REST reports for ${rest.vertex}: ` +
        `its state keeps ${rest.max} key groups, so the job could not restore it at ${parallelism}`,
    );
  if (rest !== undefined)
    return pass(
      SCALE_CHECK.maxParallelism,
      `parallelism ${parallelism} is within the max parallelism ${rest.max} Flink REST reports`,
    );
  if (parallelism <= DERIVED_MAX_FLOOR)
    return pass(SCALE_CHECK.maxParallelism, `parallelism ${parallelism} is within the default max parallelism`);
  return warn(
    SCALE_CHECK.maxParallelism,
    `pipeline.max-parallelism is not set; Flink derived it when the job first started (at least ${DERIVED_MAX_FLOOR}), and the state cannot be restored above it`,
  );
}

function maxParallelism(ctx: CheckCtx, parallelism: number): CheckResult {
  const found = ctx.config(['pipeline.max-parallelism']);
  if (!found) return derivedMaxParallelism(ctx, parallelism);
  const max = Number(found.value);
  if (!Number.isInteger(max) || max < 1) {
    return warn(
      SCALE_CHECK.maxParallelism,
      `pipeline.max-parallelism is ${JSON.stringify(found.value)}, not a whole number; cannot compare`,
    );
  }
  if (parallelism > max) {
    return fail(
      SCALE_CHECK.maxParallelism,
      `parallelism ${parallelism} is above pipeline.max-parallelism ${max}: the job could not restore its state`,
    );
  }
  return pass(SCALE_CHECK.maxParallelism, `parallelism ${parallelism} is within pipeline.max-parallelism ${max}`);
}

/** Policy `limits.parallelism` (docs/policy.md#keys-limits-and-verification): a ceiling for scale. */
function parallelismLimit(ctx: CheckCtx, parallelism: number): CheckResult[] {
  const limit = ctx.input.policy?.limits?.parallelism;
  if (limit === undefined) return [];
  if (parallelism > limit)
    return [fail(CHECK.limits, `parallelism ${parallelism} is above the policy limit limits.parallelism = ${limit}`)];
  return [pass(CHECK.limits, `parallelism ${parallelism} is within limits.parallelism = ${limit}`)];
}

function taskManagerReplicas(ctx: CheckCtx): CheckResult {
  const replicas = at(ctx.input.resource, 'spec', 'taskManager', 'replicas');
  if (typeof replicas !== 'number')
    return pass(
      SCALE_CHECK.taskManagerReplicas,
      'spec.taskManager.replicas is not set, so spec.job.parallelism applies',
    );
  const slots = Number(ctx.config(['taskmanager.numberOfTaskSlots'])?.value ?? 1);
  return fail(
    SCALE_CHECK.taskManagerReplicas,
    `spec.taskManager.replicas is set (${replicas}), so the operator ignores spec.job.parallelism: the job runs with ` +
      `replicas × taskmanager.numberOfTaskSlots = ${replicas} × ${slots} = ${replicas * slots}. Change the replicas instead`,
  );
}

function autoscaler(ctx: CheckCtx): CheckResult {
  const enabled = ctx.config(AUTOSCALER_ENABLED)?.value.trim().toLowerCase() === 'true';
  const scaling = ctx.config(AUTOSCALER_SCALING)?.value.trim().toLowerCase() !== 'false';
  if (enabled && scaling) {
    return warn(
      SCALE_CHECK.autoscaler,
      'the autoscaler is enabled with scaling on: it overrides a manually set parallelism',
    );
  }
  if (enabled)
    return pass(SCALE_CHECK.autoscaler, 'the autoscaler only advises (job.autoscaler.scaling.enabled: false)');
  return pass(SCALE_CHECK.autoscaler, 'the autoscaler is off');
}

/** Scale caveats from the spec itself: replicas override parallelism; the autoscaler may change it again. */
function scaleNotes(ctx: Ctx): string[] {
  const notes: string[] = [];
  const replicas = taskManagerReplicasOf(ctx.resource);
  if (replicas !== undefined) {
    notes.push(
      `spec.taskManager.replicas is ${replicas}: the operator ignores spec.job.parallelism (parallelism = replicas × task slots)`,
    );
  }
  const autoscalerOn = readFlinkConfig(ctx.resource, AUTOSCALER_ENABLED, ctx.observation.sessionCluster);
  if (autoscalerOn?.value.trim().toLowerCase() === 'true')
    notes.push('the autoscaler is enabled: it may override the parallelism set here');
  return notes;
}

/** Flink REST should show the parallelism the patch set on every vertex (unless replicas decide it). */
function scaleRest(ctx: Ctx): RestWant {
  const wanted = getPath(ctx.plan.change.type === 'patch' ? ctx.plan.change.patch : {}, OWN_PATHS.parallelism);
  return typeof wanted === 'number' && taskManagerReplicasOf(ctx.resource) === undefined ? { parallelism: wanted } : {};
}

export const scale = {
  intent: ScaleIntent,
  verb: {
    group: 'operation',
    summary: 'change the job parallelism (spec.job.parallelism)',
    args: [TARGET, { key: 'parallelism', kind: PARALLELISM, required: true }],
    flags: [RESET_AUTOSCALER, ...OPERATION_FLAGS],
    examples: [
      'scale analytics/clickstream 12',
      'scale clickstream 4 --reason "backlog drained"',
      'scale clickstream 6 --reset-autoscaler',
    ],
    synonyms: ['rescale', 'parallelism', 'resize'],
    build: (b) => ({
      target: b.target,
      parallelism: b.parallelism,
      ...(b.resetAutoscaler === true ? { resetAutoscaler: true } : {}),
    }),
  },
  traits: {
    change: 'patch',
    stopsJob: true,
    redeploys: true,
    hasMode: false,
    usesUpgradeMode: true,
    onSessionCluster: false,
    onSessionJob: true,
    readsLastSavepoint: false,
    refusedWhileSuspended: true,
  },
  refuseBefore: (input) => (input.intent.resetAutoscaler === true ? undefined : autoscalerHolds(input)),
  plan: ({ intent, resource, nonce }) => {
    if (parallelismOf(resource) === intent.parallelism) {
      return refusal(
        `${who(intent.target)} already has parallelism ${intent.parallelism} (spec.job.parallelism); nothing to do`,
      );
    }
    const edits: FieldEdit[] = [{ path: OWN_PATHS.parallelism, after: intent.parallelism }];
    const notes: string[] = [];
    if (intent.resetAutoscaler === true) {
      const current = getPath(resource, OWN_PATHS.autoscalerResetNonce);
      edits.push({
        path: OWN_PATHS.autoscalerResetNonce,
        after: freshNonce(nonce, typeof current === 'number' ? current : undefined),
      });
      notes.push(
        `the autoscaler's stored parallelism overrides are cleared with the scale: every vertex starts from parallelism ${intent.parallelism} until the autoscaler decides again`,
      );
    }
    return patchOutcome(edits, notes, effectiveUpgradeMode(undefined, resource));
  },
  checks: (ctx, intent) => [
    ...parallelismLimit(ctx, intent.parallelism),
    maxParallelism(ctx, intent.parallelism),
    ...(ctx.session ? [] : [taskManagerReplicas(ctx)]),
    autoscaler(ctx),
  ],
  evidence: (ctx) =>
    redeployRule(ctx, {
      notes: scaleNotes,
      notVerified: ['actual per-vertex parallelism (Flink REST) not checked'],
      rest: scaleRest,
    }),
  writes: { paths: Object.values(OWN_PATHS) },
  undo: { inverse: 'scale', paths: [OWN_PATHS.parallelism] },
  asInverse: (target, patch) => ({
    kind: 'scale',
    target,
    parallelism: Number(getPath(patch, OWN_PATHS.parallelism)) || 1,
    incidentChannels: [],
  }),
  describe: (intent) =>
    ` to parallelism ${intent.parallelism}${intent.resetAutoscaler === true ? ' (resetting the autoscaler)' : ''}`,
} as const satisfies KindModule<Intent>;
