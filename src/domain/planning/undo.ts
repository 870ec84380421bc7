// Undo: the plan that puts back what a finished suspend, resume, scale or upgrade changed (SPEC §3 `undo`).
import { UPGRADE_MODES, type IntentKind, type OperationIntent, type UpgradeMode } from '../model/intent.js';
import { jsonEqual } from '../model/canonical.js';
import { getPath } from '../model/merge-patch.js';
import type { Plan } from '../model/plan.js';
import { DEFAULT_UPGRADE_MODE, PATHS, type FieldEdit } from './kind-planners.js';
import { identify, patchPlan, type LiveTarget, type PlanContext } from './planner.js';
import { upgradeModeOf } from '../model/resource.js';
import { formatTarget } from '../model/target.js';

export const UNDOABLE_KINDS = ['suspend', 'resume', 'scale', 'upgrade'] as const;
export type UndoableKind = (typeof UNDOABLE_KINDS)[number];
export const UNDOABLE_STATES = ['COMPLETED', 'FAILED', 'TIMED_OUT'] as const;

/** The fields undo may put back; nothing else an operation touches is reversible. */
const UNDOABLE_PATHS: readonly (readonly string[])[] = [PATHS.jobState, PATHS.upgradeMode, PATHS.parallelism, PATHS.image];

/** What policy and evidence treat the undo as: the operation that has the inverse effect. */
const INVERTED_KIND = {
  suspend: 'resume',
  resume: 'suspend',
  scale: 'scale',
  upgrade: 'upgrade',
} as const satisfies Record<UndoableKind, UndoableKind>;

export interface UndoneOperation {
  id: string;
  kind: IntentKind;
  /** The operation's current state, e.g. COMPLETED. */
  state: string;
  plan: Plan;
  intent: OperationIntent;
}

export type UndoResult = { ok: true; plan: Plan; invertedKind: UndoableKind } | { ok: false; refusal: string };

function isUndoable(kind: IntentKind): kind is UndoableKind {
  return (UNDOABLE_KINDS as readonly string[]).includes(kind);
}

function shown(value: unknown): string {
  if (value === undefined || value === null) return 'unset';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Why `undone` cannot be undone at all, before looking at the live target. */
function undoRefusal(undone: UndoneOperation): string | undefined {
  if (undone.kind === 'restart' || undone.kind === 'savepoint' || undone.kind === 'restore') {
    return `${undone.id} was a ${undone.kind}: restart, savepoint and restore are nonce-driven: nothing can be put back`;
  }
  if (!isUndoable(undone.kind)) return `${undone.id} was an ${undone.kind}: an undo cannot be undone; request the change again`;
  if (!(UNDOABLE_STATES as readonly string[]).includes(undone.state)) {
    return `${undone.id} is ${undone.state}: only a COMPLETED, FAILED or TIMED_OUT operation can be undone`;
  }
  if (undone.plan.change.type !== 'patch') return `${undone.id} changed no spec field: nothing can be put back`;
  return undefined;
}

/**
 * The undo plan for `undone` against the live target: every undoable field of its diff goes back to its
 * `before` value (`null`, i.e. removed, when it was absent), provided the target still holds what the
 * operation set. The plan carries the undo's own op id and requester in its annotations.
 */
export function planUndo(undone: UndoneOperation, live: LiveTarget, ctx: PlanContext): UndoResult {
  const refusal = undoRefusal(undone);
  if (refusal !== undefined) return { ok: false, refusal };
  const kind = undone.kind as UndoableKind;
  const target = undone.plan.target;
  const identity = identify(target, live.resource);
  if (!identity.ok) return identity;
  if (identity.uid !== undone.plan.uid) {
    return { ok: false, refusal: `${formatTarget(target)} was deleted and recreated since ${undone.id} (its uid changed): nothing to put back` };
  }

  const edits: FieldEdit[] = [];
  for (const path of UNDOABLE_PATHS) {
    const change = undone.plan.diff.find((c) => c.path === path.join('.'));
    if (!change) continue;
    const now = getPath(live.resource, path);
    if (!jsonEqual(now ?? null, change.after)) {
      return { ok: false, refusal: `${change.path} was changed since ${undone.id}: now ${shown(now)} (${undone.id} set ${shown(change.after)})` };
    }
    edits.push({ path, after: change.before ?? null });
  }
  if (edits.length === 0) return { ok: false, refusal: `${undone.id} changed none of job.state, job.upgradeMode, job.parallelism, image` };

  const plan = patchPlan({
    target,
    identity,
    edits,
    notes: [`puts back the values ${formatTarget(target)} had before ${undone.id}`],
    effectiveUpgradeMode: modeAfterUndo(edits, live.resource),
    ctx,
  });
  return { ok: true, plan, invertedKind: INVERTED_KIND[kind] };
}

/** The upgrade mode the inverted change redeploys with: the restored one when undo puts it back. */
function modeAfterUndo(edits: readonly FieldEdit[], resource: unknown): UpgradeMode {
  const restored = edits.find((e) => e.path === PATHS.upgradeMode);
  if (restored === undefined) return upgradeModeOf(resource) ?? DEFAULT_UPGRADE_MODE;
  const mode = restored.after;
  return (UPGRADE_MODES as readonly unknown[]).includes(mode) ? (mode as UpgradeMode) : DEFAULT_UPGRADE_MODE;
}
