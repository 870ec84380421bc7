// "Made by this bot" (docs/lifecycle.md#drift): the generations this bot's other operations produced on the planned
// object.
import type { Plan } from '../../model/plan.js';

/** An earlier operation of this bot on the same target object and the generation its submission produced. */
export interface OurSubmission {
  opId: string;
  generation: number;
}

/** What the rule reads of an operation record. */
export interface SubmittedRecord {
  id: string;
  submittedGeneration?: number | undefined;
  plan?: Pick<Plan, 'uid'> | undefined;
}

/** How many recent operations on a target are read to find them (both the approval re-check and the worker use it). */
export const OURS_LOOKBACK = 100;

/**
 * The submissions of other operations on the same object (same uid: a recreated object's history is not ours) that
 * produced a generation after the plan's. Snapshots record no generation and so never count.
 */
export function ourSubmissionsAfter(
  records: readonly SubmittedRecord[],
  plan: Pick<Plan, 'uid' | 'generation'>,
  selfId: string,
): OurSubmission[] {
  return records.flatMap((r) =>
    r.id !== selfId &&
    typeof r.submittedGeneration === 'number' &&
    r.plan?.uid === plan.uid &&
    r.submittedGeneration > plan.generation
      ? [{ opId: r.id, generation: r.submittedGeneration }]
      : [],
  );
}
