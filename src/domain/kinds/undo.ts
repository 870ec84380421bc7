// undo: invert a finished operation through the operation it names; planned by planning/undo.ts, judged as the inverse kind.
import { z } from 'zod';
import { OPERATION_FLAGS, OP_ID, type OperationVerbSpec } from '../kit/language/verb-kit.js';
import { COMMON_INTENT_FIELDS, OpIdSchema } from '../kit/language/intent-base.js';

export const UndoIntent = z.object({ kind: z.literal('undo'), opId: OpIdSchema, ...COMMON_INTENT_FIELDS });
export type UndoIntentValue = z.infer<typeof UndoIntent>;

const NAME = 'undo';

/** `a, b or c`. */
function orList(names: readonly string[]): string {
  return names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} or ${names.at(-1) ?? ''}`;
}

/** undo as the registry holds it, its verb worded from the kinds it can invert (kinds/index.ts passes them, in order). */
export function undoModule(undoable: readonly string[]) {
  const named = orList(undoable);
  return {
    name: NAME,
    intent: UndoIntent,
    verb: {
      group: 'operation',
      summary: `put back what a finished ${named} changed (including "was unset")`,
      args: [{ ...OP_ID, description: `the ${named} to invert` }],
      flags: [...OPERATION_FLAGS],
      examples: ['undo op-7f3c2a9b --reason "the new image leaks memory"'],
      synonyms: ['revert', 'rollback'],
      build: (b) => ({ opId: b.opId }),
    } satisfies OperationVerbSpec,
    /** Policy rules may match an undo on `upgradeModes`: it redeploys or stops like the kind it inverts. */
    usesUpgradeMode: true,
    /** `undo op-… on ns/name`: the whole line (an undo names its operation, not a target). */
    describe: (intent: UndoIntentValue, where: string) => `undo ${intent.opId}${where ? ` on ${where}` : ''}`,
  } as const;
}

export function isUndo(intent: { kind: string }): intent is UndoIntentValue {
  return intent.kind === NAME;
}
