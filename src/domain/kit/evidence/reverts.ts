// Reverts (docs/lifecycle.md#after-completed): which fields an operation set are no longer what it set, who changed
// them, and what the change back makes the operator do — after COMPLETED (the revert watch) and before it (FAILED).
import { canonicalJson } from '../../model/canonical.js';
import { ownersOf, patchLeaves } from '../../model/managed-fields.js';
import { getPath } from '../../model/merge-patch.js';
import { shownAt } from '../../model/secret-config.js';
import { ANNOTATION_OPERATION_ID, FIELD_MANAGER, type Plan } from '../../model/plan.js';
import { annotationsOf, generationOf } from '../../model/resource.js';
import type { Ctx } from './criteria.js';
import type { Failure } from './types.js';

/** One planned field and the value the operation set (`null`: it removed the field). */
export interface WatchedField {
  path: string[];
  value: unknown;
}

export interface Revert {
  path: string[];
  /** The value the operation set. */
  from: unknown;
  /** The value now (`null`: the field is gone). */
  to: unknown;
  /** The field manager that owns the field now (managedFields), or `unknown` when none is recorded. */
  manager: string;
}

export const UNKNOWN_MANAGER = 'unknown';

/** The history note a revert is recorded as: `REVERTED {path, from, to, manager, gitopsOwner, at, effect?}`. */
export const REVERTED_NOTE = 'REVERTED';

/** Two field values as JSON says them, `undefined` and `null` alike (a removed field). */
export const sameValue = (a: unknown, b: unknown): boolean => canonicalJson(a ?? null) === canonicalJson(b ?? null);

/** Whether a history entry is a REVERTED note. */
export const isRevert = (entry: { type: string; name: string }): boolean =>
  entry.type === 'note' && entry.name === REVERTED_NOTE;

/**
 * The watched fields whose value on `object` differs from what the operation set, each with the manager that changed it
 * — any but `ownManager`: a field the bot itself owns again was changed by the bot (a later operation, which ends the
 * watch anyway).
 */
export function findReverts(fields: readonly WatchedField[], object: unknown, ownManager: string): Revert[] {
  const reverts: Revert[] = [];
  for (const field of fields) {
    const now = getPath(object, field.path) ?? null;
    if (sameValue(now, field.value)) continue;
    const owners = ownersOf(object, field.path);
    if (owners[0] === ownManager) continue;
    const manager = owners.find((m) => m !== ownManager) ?? UNKNOWN_MANAGER;
    // Compared as they are, kept as they may be shown: a secret value never reaches a note (docs/policy.md#secret-values).
    const path = field.path.join('.');
    reverts.push({ path: field.path, from: shownAt(path, field.value), to: shownAt(path, now), manager });
  }
  return reverts;
}

/**
 * What the operator does because of a change back of `path` to `to` (`null`: removed), in words; undefined when it
 * does nothing — a nonce removed is one the operator ignores: it acts only on a new non-null value
 * (docs/lifecycle.md#after-completed).
 */
export function revertEffect(path: readonly string[], to: unknown): string | undefined {
  if (path[0] !== 'spec') return undefined;
  const key = path.join('.');
  const removed = to === null || to === undefined;
  if (key === 'spec.restartNonce')
    return removed ? undefined : 'A second restart: the operator restarts the job for the changed restartNonce';
  if (key === 'spec.job.savepointRedeployNonce')
    return removed
      ? undefined
      : 'A second redeploy: the operator redeploys the job from spec.job.initialSavepointPath for the changed nonce';
  if (key === 'spec.job.state') return 'The operator moves the job to the state Git declares';
  return 'A spec change: the operator redeploys the job with it (or rescales it in place where it can)';
}

/** The fields a plan's merge patch sets under `spec`, with the values it sets (none for a snapshot). */
export function plannedFields(plan: Plan): WatchedField[] {
  if (plan.change.type !== 'patch') return [];
  const patch = plan.change.patch;
  return patchLeaves(patch, ['spec']).map((path) => ({ path: [...path], value: getPath(patch, path) ?? null }));
}

/**
 * A change back before COMPLETED (self-heal is often faster than the operator's redeploy): the object is our write or
 * later, and a field the plan set is owned by another manager with another value. The change will not stay, so the
 * operation is FAILED at once with who reverted it, instead of waiting out its deadline.
 */
export function revertedFailure(ctx: Ctx): Failure | undefined {
  if (ctx.plan.gitops === undefined) return undefined;
  const ours =
    opIdOf(ctx.plan) !== undefined && annotationsOf(ctx.resource)[ANNOTATION_OPERATION_ID] === opIdOf(ctx.plan);
  const generation = generationOf(ctx.resource);
  if (!ours || generation === undefined || generation < ctx.submitted) return undefined;
  const reverts = findReverts(plannedFields(ctx.plan), ctx.resource, FIELD_MANAGER);
  if (reverts.length === 0) return undefined;
  const owner = ctx.plan.gitops.owner;
  const by = [...new Set(reverts.map((r) => r.manager))].join(', ');
  const what = reverts
    .map((r) => `${r.path.join('.')} ${canonicalJson(r.from ?? null)} → ${canonicalJson(r.to ?? null)}`)
    .join(', ');
  return {
    reason: `the change was reverted by ${by}${owner ? ` (${owner})` : ''} before it took effect: ${what}; change it in Git, or pause the target`,
    rollback: false,
    evidence: reverts.map(
      (r) => `${r.path.join('.')}: ${canonicalJson(r.to ?? null)}, owned by ${r.manager} in metadata.managedFields`,
    ),
  };
}

function opIdOf(plan: Plan): string | undefined {
  if (plan.change.type !== 'patch') return undefined;
  const id = getPath(plan.change.patch, ['metadata', 'annotations', ANNOTATION_OPERATION_ID]);
  return typeof id === 'string' ? id : undefined;
}
