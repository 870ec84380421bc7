// Undo: the plan that puts back what a finished operation changed (docs/commands.md#flink-undo), from the undone kind's
// undo spec.
import {
  KIND_NAMES,
  isKindName,
  kindModule,
  type IntentKind,
  type KindName,
  type OperationIntent,
  type UndoSpec,
} from '../../kinds/index.js';
import { jsonEqual } from '../../model/canonical.js';
import { getPath, patchLeaves } from '../../model/merge-patch.js';
import type { Plan } from '../../model/plan.js';
import { formatTarget } from '../../model/target.js';
import { effectiveUpgradeMode, isUpgradeMode, type UpgradeMode } from '../../model/upgrade-mode.js';
import { PATHS, type FieldEdit } from '../../kit/planning/edits.js';
import { identify, patchPlan, type LiveTarget, type PlanContext } from './planner.js';
import { blueGreenParent } from '../../kit/planning/target-refusals.js';
import { shownAt } from '../../model/secret-config.js';

export const UNDOABLE_STATES = ['COMPLETED', 'FAILED', 'TIMED_OUT'] as const;

export interface UndoneOperation {
  id: string;
  kind: IntentKind;
  /** The operation's current state, e.g. COMPLETED. */
  state: string;
  plan: Plan;
  intent: OperationIntent;
}

export type UndoResult = { ok: true; plan: Plan; invertedKind: KindName } | { ok: false; refusal: string };

function shown(value: unknown): string {
  if (value === undefined || value === null) return 'unset';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function words(list: readonly string[]): string {
  return list.length <= 1 ? list.join('') : `${list.slice(0, -1).join(', ')} and ${list.at(-1) ?? ''}`;
}

/** Why `undone` cannot be undone at all, before looking at the live target. */
function undoRefusal(undone: UndoneOperation): string | undefined {
  if (!isKindName(undone.kind))
    return `${undone.id} was an ${undone.kind}: an undo cannot be undone; request the change again`;
  if (kindModule(undone.kind).undo === undefined) {
    const nonceDriven = KIND_NAMES.filter((k) => kindModule(k).undo === undefined);
    return `${undone.id} was a ${undone.kind}: ${words(nonceDriven)} are nonce-driven: nothing can be put back`;
  }
  if (!(UNDOABLE_STATES as readonly string[]).includes(undone.state)) {
    return `${undone.id} is ${undone.state}: only a COMPLETED, FAILED or TIMED_OUT operation can be undone`;
  }
  if (undone.plan.change.type !== 'patch') return `${undone.id} changed no spec field: nothing can be put back`;
  return undefined;
}

/**
 * The undo plan for `undone` against the live target: every field of its kind's undo spec that its diff set goes
 * back to its `before` value (`null`, i.e. removed, when it was absent), provided the target still holds what the
 * operation set. The plan records the kind it is judged as (`judgedAs`) and carries the undo's own annotations.
 */
export function planUndo(undone: UndoneOperation, live: LiveTarget, ctx: PlanContext): UndoResult {
  const refusal = undoRefusal(undone);
  if (refusal !== undefined) return { ok: false, refusal };
  const kind = undone.kind as KindName;
  const spec = kindModule(kind).undo;
  if (spec === undefined || !isKindName(spec.inverse)) throw new TypeError(`undo: ${kind} names no known inverse kind`);
  const target = undone.plan.target;
  const identity = identify(target, live.resource);
  if (!identity.ok) return identity;
  const parent = blueGreenParent(target, live.resource);
  if (parent !== undefined) return { ok: false, refusal: parent };
  if (identity.uid !== undone.plan.uid) {
    return {
      ok: false,
      refusal: `${formatTarget(target)} was deleted and recreated since ${undone.id} (its uid changed): nothing to put back`,
    };
  }

  const edits: FieldEdit[] = [];
  for (const path of undoablePaths(spec, undone.plan)) {
    const change = undone.plan.diff.find((c) => c.path === path.join('.'));
    if (!change) continue;
    const now = getPath(live.resource, path);
    if (!jsonEqual(now ?? null, change.after)) {
      return {
        ok: false,
        refusal: `${change.path} was changed since ${undone.id}: now ${shown(shownAt(change.path, now))} (${undone.id} set ${shown(shownAt(change.path, change.after))})`,
      };
    }
    edits.push({ path, after: change.before ?? null });
  }
  if (edits.length === 0) {
    const named = [...spec.paths, ...(spec.under ?? []).map((p) => [...p, '*'])].map((p) => p.slice(1).join('.'));
    return { ok: false, refusal: `${undone.id} changed none of ${named.join(', ')}` };
  }

  const plan = patchPlan({
    target,
    identity,
    edits,
    notes: [`puts back the values ${formatTarget(target)} had before ${undone.id}`],
    effectiveUpgradeMode: modeAfterUndo(edits, live.resource),
    ctx,
  });
  return { ok: true, plan: { ...plan, judgedAs: spec.inverse }, invertedKind: spec.inverse };
}

/** The kind's fixed undoable paths, then every leaf its patch set under the kind's dynamic subtrees. */
function undoablePaths(spec: UndoSpec, plan: Plan): (readonly string[])[] {
  const under = spec.under ?? [];
  if (under.length === 0 || plan.change.type !== 'patch') return [...spec.paths];
  const dynamic = patchLeaves(plan.change.patch)
    .map((leaf) => leaf.path)
    .filter((path) => under.some((prefix) => path.length > prefix.length && prefix.every((key, i) => path[i] === key)));
  return [...spec.paths, ...dynamic];
}

/** The upgrade mode the inverted change redeploys with: the restored one when undo puts it back. */
function modeAfterUndo(edits: readonly FieldEdit[], resource: unknown): UpgradeMode {
  const restored = edits.find((e) => e.path === PATHS.upgradeMode);
  if (restored === undefined) return effectiveUpgradeMode(undefined, resource);
  return isUpgradeMode(restored.after) ? restored.after : effectiveUpgradeMode(undefined, {});
}
