// How a `config` change is judged (docs/deep-verification.md): IGNORE-class keys without a redeploy, the autoscaler
// switched off as the redeploy it causes, parallelism overrides by the vertices that run them, the rest as a redeploy.
import { criterion, desiredFields, type Ctx } from './criteria.js';
import { ignoreClassRule } from './ignore-class.js';
import { redeployRule } from './redeploy.js';
import type { Judgement } from './types.js';
import {
  PARALLELISM_OVERRIDES_KEY,
  autoscalerOverrides,
  parseOverrides,
  switchesAutoscalerOff,
} from '../../model/autoscaler.js';

const LOADED_CONFIG = 'the configuration the running job actually loaded (Flink REST jobmanager/config) not checked';

/** The flinkConfiguration values the plan's patch sets, by flat key (null: unset). */
function patchedValues(ctx: Ctx): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const f of desiredFields(ctx.plan))
    if (f.specPath[0] === 'flinkConfiguration') out.set(f.specPath.slice(1).join('.'), f.value);
  return out;
}

/** The patch turns the autoscaler off (or unsets its switch) on a target whose reconciled spec holds its overrides. */
function turnsOffHeldAutoscaler(ctx: Ctx, values: Map<string, unknown>): boolean {
  const off = [...values].some(([key, value]) => switchesAutoscalerOff(key, value));
  if (!off) return false;
  return (
    Object.keys(autoscalerOverrides(ctx.before)).length > 0 || Object.keys(autoscalerOverrides(ctx.resource)).length > 0
  );
}

/**
 * Only the overrides change: the operator rescales in place (a `Scaling` event, the same job). COMPLETED once REST
 * shows the overridden vertices at their parallelism; without REST, once the `Scaling` event came, said as less deep.
 */
function overridesRule(ctx: Ctx, overrides: Record<string, number>): Judgement {
  const judgement = redeployRule(ctx, { notVerified: [LOADED_CONFIG], rest: () => ({ overrides }) });
  const withoutRest = !ctx.deep || ctx.sessionCluster || ctx.observation.rest?.reachable === false;
  if (!withoutRest || judgement.criteria.some((c) => c.name === 'rest:overrides-applied')) return judgement;
  const scaling = ctx.events.find((e) => e.type === 'Normal' && e.reason === 'Scaling');
  judgement.criteria.push(
    criterion(
      ctx,
      'scaling-event',
      scaling !== undefined,
      scaling?.message ?? null,
      'event Scaling after the submission',
    ),
  );
  judgement.proof.notVerified.push(
    "the vertices' parallelism (Flink REST not read): only the operator's Scaling event says the rescale was asked for",
  );
  return judgement;
}

export function configEvidence(ctx: Ctx, how: { ignoreClass: boolean; keys: readonly string[] }): Judgement {
  const values = patchedValues(ctx);
  if (how.ignoreClass && !turnsOffHeldAutoscaler(ctx, values)) return ignoreClassRule(ctx, how.keys.join(', '));
  const overridesValue = values.get(PARALLELISM_OVERRIDES_KEY);
  if (values.size === 1 && typeof overridesValue === 'string' && desiredFields(ctx.plan).length === 1) {
    const overrides = parseOverrides(overridesValue);
    if (Object.keys(overrides).length > 0) return overridesRule(ctx, overrides);
  }
  const judgement = redeployRule(ctx, { notVerified: [LOADED_CONFIG], restoresInSavepointMode: true });
  if (how.ignoreClass)
    judgement.notes.unshift(
      'the autoscaler is switched off while it holds overrides: the operator drops them and redeploys the job',
    );
  return judgement;
}
