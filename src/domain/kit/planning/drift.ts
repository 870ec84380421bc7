// The drift rule (docs/lifecycle.md#drift): did the target change between plan and execution, and if so, may the plan
// be redone?
import { jsonEqual } from '../../model/canonical.js';
import { getPath, isRecord, patchLeaves } from '../../model/merge-patch.js';
import type { Plan } from '../../model/plan.js';
import { generationOf, uidOf } from '../../model/resource.js';

export const CHANGED_REASON = 'target changed since the plan; request again';

export type DriftOutcome =
  | { outcome: 'unchanged' }
  | { outcome: 'replan'; reason: string }
  | { outcome: 'already-desired' }
  | { outcome: 'changed'; reason: typeof CHANGED_REASON };

export interface DriftInput {
  plan: Plan;
  /** The target as just read. */
  current: unknown;
  /** Generations recorded by SUBMITTED operations of this bot on this target that ran ahead of this one. */
  ourGenerations: readonly number[];
  /** Whether the target already holds what the plan would set (see desiredStateHolds). */
  desiredAlreadyHolds: boolean;
}

const CHANGED = { outcome: 'changed', reason: CHANGED_REASON } as const;

/**
 * A moved resourceVersion alone is never drift (operator status writes move it all the time): only a new
 * uid or generation is. A generation that moved only through our own earlier operations asks for a
 * re-plan; a target that already holds the desired values needs nothing; anything else is someone else's
 * change. Snapshot plans ignore generations: creating a snapshot does not depend on the spec.
 */
export function checkDrift(input: DriftInput): DriftOutcome {
  const { plan, current } = input;
  if (uidOf(current) !== plan.uid) return CHANGED;
  if (plan.change.type === 'create-snapshot') return { outcome: 'unchanged' };

  const generation = generationOf(current);
  if (generation === undefined) return CHANGED;
  if (generation === plan.generation) return { outcome: 'unchanged' };
  // An ahead-running operation of ours may already have put the target where this one wants it: re-planning
  // would only find nothing to do, so that case ends here.
  if (input.desiredAlreadyHolds) return { outcome: 'already-desired' };
  if (generation > plan.generation && everyGenerationOurs(plan.generation, generation, input.ourGenerations)) {
    return {
      outcome: 'replan',
      reason: `generation moved from ${plan.generation} to ${generation} through this bot's earlier operations`,
    };
  }
  return CHANGED;
}

function everyGenerationOurs(planned: number, now: number, ours: readonly number[]): boolean {
  const recorded = new Set(ours);
  for (let g = planned + 1; g <= now; g++) if (!recorded.has(g)) return false;
  return true;
}

/**
 * True when every field the plan's patch sets (annotations aside) already has the desired value in the
 * live spec; a `null` in the patch (remove) holds when the field is absent. A snapshot plan never holds:
 * a new snapshot is always something to do.
 */
export function desiredStateHolds(plan: Plan, current: unknown): boolean {
  if (plan.change.type !== 'patch' || !isRecord(current)) return false;
  const leaves = patchLeaves(plan.change.patch).filter(
    (leaf) => !(leaf.path[0] === 'metadata' && leaf.path[1] === 'annotations'),
  );
  if (leaves.length === 0) return false;
  return leaves.every((leaf) => {
    const now = getPath(current, leaf.path);
    return leaf.value === null ? now === undefined || now === null : jsonEqual(now, leaf.value);
  });
}
