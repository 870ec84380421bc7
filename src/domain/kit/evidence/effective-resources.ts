// How a `resources` change is judged (docs/lifecycle.md#resources-on-operator-116): the redeploy, and the memory and
// CPU the operator really uses afterwards, read from the field in effect of the reconciled spec and compared as
// numbers. A change to the deprecated `resource` of a role whose `resources` is in effect changes nothing: FAILED.
import { criterion, desiredFields, generationObserved, PATH, type Ctx } from './criteria.js';
import { redeployRule } from './redeploy.js';
import type { Criterion, Failure, Judgement } from './types.js';
import { getPath } from '../../model/merge-patch.js';
import {
  REQUIREMENTS,
  ROLES,
  amountOf,
  effectiveAmount,
  effectivePath,
  fieldInEffect,
  type Amount,
  type Role,
} from '../../model/resource-requirements.js';

/** One amount the plan sets: the role, memory or cpu, whether it wrote the deprecated field, the amount wanted. */
interface Wanted {
  role: Role;
  kind: Amount;
  deprecated: boolean;
  amount: number;
}

/** From the patch: a request wins over a limit written beside it (the limit was raised to keep request ≤ limit). */
function wantedAmounts(ctx: Ctx): Wanted[] {
  const wanted: Wanted[] = [];
  for (const role of ROLES) {
    for (const kind of ['memory', 'cpu'] as const) {
      const value = (path: string[]) =>
        desiredFields(ctx.plan).find((f) => f.specPath.join('.') === [role, ...path].join('.'));
      const set = value([REQUIREMENTS, 'requests', kind]) ?? value([REQUIREMENTS, 'limits', kind]);
      const old = value(['resource', kind]);
      const chosen = set ?? old;
      const amount = chosen === undefined ? undefined : amountOf(kind, chosen.value);
      if (chosen === undefined || amount === undefined) continue;
      wanted.push({ role, kind, deprecated: set === undefined, amount });
    }
  }
  return wanted;
}

function same(kind: Amount, a: number | undefined, b: number): boolean {
  return a !== undefined && (kind === 'memory' ? a === b : Math.abs(a - b) < 1e-9);
}

/** `effective:<role>.<kind>`: the reconciled spec's field in effect holds the amount asked for. */
function effectiveCriterion(ctx: Ctx, want: Wanted): Criterion {
  const roleSpec = getPath(ctx.reconciled, [want.role]);
  const path = effectivePath(roleSpec, want.kind);
  const actual = effectiveAmount(roleSpec, want.kind);
  return criterion(
    ctx,
    `effective:${want.role}.${want.kind}`,
    same(want.kind, actual, want.amount),
    { field: path.join('.'), value: getPath(roleSpec, path) ?? null },
    `${PATH.reconciled} spec.${want.role}.${path.join('.')} (the field in effect)`,
  );
}

/** The patch set `resource` while the operator reconciled `resources` as in effect: it ignored the change. */
function ignoredFailure(ctx: Ctx, wanted: readonly Wanted[]): Failure | undefined {
  if (!generationObserved(ctx).met) return undefined;
  const ignored = wanted.filter((w) => w.deprecated && fieldInEffect(getPath(ctx.reconciled, [w.role])) !== 'resource');
  if (ignored.length === 0) return undefined;
  const roles = [...new Set(ignored.map((w) => w.role))];
  return {
    reason: `the operator ignores spec.${roles.join('/spec.')}.resource while resources holds requests or limits: the job got nothing new`,
    rollback: false,
    evidence: roles.map(
      (role) =>
        `${PATH.reconciled} spec.${role}.resources: ${JSON.stringify(getPath(ctx.reconciled, [role, REQUIREMENTS]))}`,
    ),
  };
}

export function resourcesEvidence(ctx: Ctx, notVerified: readonly string[]): Judgement {
  const judgement = redeployRule(ctx, { notVerified, restoresInSavepointMode: true });
  const wanted = wantedAmounts(ctx);
  judgement.criteria.push(...wanted.map((want) => effectiveCriterion(ctx, want)));
  judgement.failure ??= ignoredFailure(ctx, wanted);
  return judgement;
}
