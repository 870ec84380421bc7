// The built-in checks (docs/policy.md#built-in-checks) that apply to one intent: the shared ones chosen by the kind's
// traits, then the kind's own.
import { isUndo, kindModule, type OperationIntent } from '../../kinds/index.js';
import type { CheckResult } from '../../model/decision.js';
import { readFlinkConfig } from '../../model/flink-config.js';
import { healthGateCheck } from '../../kit/policy/health-gate.js';
import { sessionJobsCheck } from '../../kit/policy/session-jobs.js';
import { MODE, effectiveUpgradeMode, type UpgradeMode } from '../../model/upgrade-mode.js';
import {
  at,
  highAvailability,
  notFrozen,
  operatorBusy,
  savepointDir,
  sessionClusterReady,
  statelessDropsState,
  type CheckCtx,
  type CheckInput as KitCheckInput,
} from '../../kit/policy/check-kit.js';

export { CHECK, formatAge, type CheckName, type Freeze, type LastSavepoint } from '../../kit/policy/check-kit.js';
export type CheckInput = KitCheckInput<OperationIntent>;

/** The upgrade mode checks reason about: `--mode`, else the spec's, else stateless; none for kinds without one. */
export function upgradeModeFor(intent: OperationIntent, resource: unknown): UpgradeMode | undefined {
  if (isUndo(intent) || !kindModule(intent.kind).traits.usesUpgradeMode) return undefined;
  return effectiveUpgradeMode('mode' in intent ? intent.mode : undefined, resource);
}

/**
 * Every check that applies to this intent on this resource, in a stable order. For an undo, pass the intent it
 * behaves as (the inverse) to get that kind's checks; the undo itself gets only the general ones.
 */
export function runChecks(input: CheckInput): CheckResult[] {
  const { intent } = input;
  if (isUndo(intent)) return [notFrozen(generalCtx(input)), operatorBusy(generalCtx(input))];
  const module = kindModule(intent.kind);
  const traits = module.traits;
  const session = at(input.resource, 'kind') === 'FlinkSessionJob' || intent.target.kind === 'FlinkSessionJob';
  const ctx: CheckCtx = {
    input,
    session,
    mode: input.effectiveUpgradeMode ?? upgradeModeFor(intent, input.resource),
    config: (keys) => readFlinkConfig(input.resource, keys, session ? (input.sessionCluster ?? {}) : undefined),
    where: session ? 'on the job or its session cluster' : 'on the resource',
  };
  const results = [notFrozen(ctx), operatorBusy(ctx)];
  if (session) results.push(sessionClusterReady(ctx));
  if (traits.stopsJob && ctx.mode === MODE.savepoint)
    results.push(savepointDir(ctx, `${intent.kind} in savepoint mode`));
  if (traits.stopsJob && ctx.mode === MODE.lastState) results.push(highAvailability(ctx));
  results.push(...(module.checks?.(ctx, intent) ?? []));
  if (traits.redeploys && ctx.mode === MODE.stateless) results.push(statelessDropsState(ctx));
  if (input.sessionJobs !== undefined)
    results.push(sessionJobsCheck(input.resource, input.sessionJobs, input.environment));
  if (input.health) {
    const { reading, gate, context } = input.health;
    results.push(healthGateCheck(reading, gate, input.now.getTime(), context));
  }
  return results;
}

function generalCtx(input: CheckInput): CheckCtx {
  return { input, session: false, mode: undefined, config: () => undefined, where: 'on the resource' };
}
