// The registry of operation kinds: KINDS is the only list of them; every other list is derived from it or its traits.
import { z } from 'zod';
import { formatTarget, type Target } from '../model/target.js';
import type { KindModule, KindTraits, TargetedIntent } from './kind.js';
import { config } from './config.js';
import { gitopsResume } from './gitops-resume.js';
import { resources } from './resources.js';
import { restart } from './restart.js';
import { restore } from './restore.js';
import { resume } from './resume.js';
import { savepoint } from './savepoint.js';
import { scale } from './scale.js';
import { suspend } from './suspend.js';
import { UndoIntent, isUndo, undoModule } from './undo.js';
import { upgrade } from './upgrade.js';

export { isUndo };
export type { KindModule, KindTraits, TargetedIntent, UndoSpec } from './kind.js';

/** In help order. Adding a kind: its module, its import and entry here, its test (docs/development.md#adding-a-kind). */
export const KINDS = {
  suspend,
  resume,
  restart,
  scale,
  upgrade,
  savepoint,
  restore,
  resources,
  config,
  'gitops-resume': gitopsResume,
} as const;

/** The kinds planned directly against a target (all but undo). */
export type KindName = keyof typeof KINDS;
export const KIND_NAMES = Object.keys(KINDS) as KindName[];

/** The kinds an undo can invert (those with an undo spec), in registry order. */
export const UNDOABLE_KINDS: readonly KindName[] = KIND_NAMES.filter((k) => kindModule(k).undo !== undefined);
export const undo = undoModule(UNDOABLE_KINDS);

type IntentSchema = (typeof KINDS)[KindName]['intent'] | typeof UndoIntent;
/** Every kind's intent schema, then undo's: the union is built from the registry, never listed by hand. */
const INTENT_SCHEMAS: IntentSchema[] = [...KIND_NAMES.map((k) => KINDS[k].intent), UndoIntent];

export const OperationIntentSchema = z.discriminatedUnion('kind', INTENT_SCHEMAS as [IntentSchema, ...IntentSchema[]]);
export type OperationIntent = z.infer<typeof OperationIntentSchema>;
export type IntentKind = OperationIntent['kind'];
export type IntentOf<K extends IntentKind> = Extract<OperationIntent, { kind: K }>;
export type KindIntent = IntentOf<KindName>;
/** Every operation kind, as policy rules name them. */
export const INTENT_KINDS = [...KIND_NAMES, undo.name] as const satisfies readonly IntentKind[];

export function isKindName(value: unknown): value is KindName {
  return typeof value === 'string' && Object.hasOwn(KINDS, value);
}

/**
 * The module of a kind, typed for the engines that dispatch on a kind known only at run time. Each module is
 * checked against its own intent where it is written (`satisfies KindModule<…>`); this is the one widening.
 */
export function kindModule(kind: KindName): KindModule<TargetedIntent> {
  return KINDS[kind] as unknown as KindModule<TargetedIntent>;
}

export function traitsOf(kind: KindName): KindTraits {
  return KINDS[kind].traits;
}

/** The kinds whose trait `name` holds, e.g. `kindsWhere('onSessionCluster')` → restart, upgrade. */
export function kindsWhere(
  name: { [T in keyof KindTraits]: KindTraits[T] extends boolean ? T : never }[keyof KindTraits],
): KindName[] {
  return KIND_NAMES.filter((k) => KINDS[k].traits[name]);
}

/** Whether policy rules can match this kind on `upgradeModes`. */
export function usesUpgradeMode(kind: IntentKind): boolean {
  return isKindName(kind) ? KINDS[kind].traits.usesUpgradeMode : undo.usesUpgradeMode;
}

/** `scale ns/name to parallelism 8`: what was asked, in words (unescaped); `target` overrides the intent's own. */
export function describeIntent(intent: OperationIntent, target?: Target): string {
  const where = target ? formatTarget(target) : 'target' in intent ? formatTarget(intent.target) : '';
  if (isUndo(intent)) return undo.describe(intent, where);
  const suffix = kindModule(intent.kind).describe(intent);
  return `${`${intent.kind} ${where}`.trim()}${suffix}`;
}

/** The kind an undo of `kind` is judged as, or undefined when `kind` cannot be undone. */
export function inverseOf(kind: string): KindName | undefined {
  if (!isKindName(kind)) return undefined;
  const inverse = kindModule(kind).undo?.inverse;
  return isKindName(inverse) ? inverse : undefined;
}

/** The kind a change is judged as: its own, or for an undo the one its plan recorded when it was planned. */
export function judgedKind(kind: IntentKind, plan: { judgedAs?: string }): KindName {
  if (isKindName(kind)) return kind;
  if (isKindName(plan.judgedAs)) return plan.judgedAs;
  throw new TypeError(
    `an ${kind} plan must record the kind it is judged as (plan.judgedAs); got ${String(plan.judgedAs)}`,
  );
}
