// The last guard before a write (docs/lifecycle.md#record-integrity): every leaf a change sets lies in its kind's
// declared fields or is one of the bot's own annotations.
import { isKindName, KIND_NAMES, kindModule, type IntentKind } from '../../kinds/index.js';
import type { FieldScope } from '../../kinds/kind.js';
import { ANNOTATION_FLUX_RECONCILE, ANNOTATION_GITOPS_PAUSED_BY } from '../../model/gitops.js';
import { isRecord } from '../../model/merge-patch.js';
import { ANNOTATION_OPERATION_ID, ANNOTATION_REQUESTED_BY, type PlanChange } from '../../model/plan.js';
import type { Target } from '../../model/target.js';

/** The annotations the bot writes on a target for itself: the operation, its requester and a GitOps pause. */
const OWN_ANNOTATIONS: readonly string[] = [
  ANNOTATION_OPERATION_ID,
  ANNOTATION_REQUESTED_BY,
  ANNOTATION_FLUX_RECONCILE,
  ANNOTATION_GITOPS_PAUSED_BY,
];

/** Where the declared fields of an operation come from: its kind's `writes` (else its undo's). */
function scopesOf(kind: IntentKind, judgedAs: string | undefined): FieldScope[] {
  if (isKindName(kind)) {
    const module = kindModule(kind);
    const own = module.writes ?? module.undo;
    return own ? [own] : [];
  }
  // An undo writes what the undone kind's undo restores; it is judged as that undo's inverse.
  if (judgedAs === undefined) return [];
  return KIND_NAMES.flatMap((k) => {
    const undo = kindModule(k).undo;
    return undo?.inverse === judgedAs ? [undo] : [];
  });
}

/** Dotted paths of the leaves of a merge patch (an object value is walked, anything else is a leaf). */
function leaves(value: unknown, at: readonly string[] = []): string[][] {
  if (!isRecord(value) || (at.length > 0 && Object.keys(value).length === 0)) return [[...at]];
  return Object.entries(value).flatMap(([key, child]) => leaves(child, [...at, key]));
}

function startsWith(path: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= path.length && prefix.every((segment, i) => path[i] === segment);
}

function declared(path: readonly string[], scopes: readonly FieldScope[]): boolean {
  if (path.length === 3 && path[0] === 'metadata' && path[1] === 'annotations')
    return OWN_ANNOTATIONS.includes(path[2] ?? '');
  return scopes.some(
    (s) => s.paths.some((p) => startsWith(path, p)) || (s.under ?? []).some((u) => startsWith(path, u)),
  );
}

/**
 * What the change would write outside the operation's declared fields, in words (empty: nothing). A snapshot must
 * be a FlinkStateSnapshot of the target, in its namespace.
 */
export function undeclaredWrites(
  kind: IntentKind,
  judgedAs: string | undefined,
  change: PlanChange,
  target: Target,
): string[] {
  if (change.type === 'create-snapshot') {
    const s = change.snapshot;
    const meta = isRecord(s.metadata) ? s.metadata : {};
    const spec = isRecord(s.spec) ? s.spec : {};
    const ref = isRecord(spec.jobReference) ? spec.jobReference : {};
    const ok =
      s.kind === 'FlinkStateSnapshot' &&
      meta.namespace === target.namespace &&
      ref.name === target.name &&
      ref.kind === target.kind;
    return ok ? [] : [`a snapshot that is not one of ${target.kind} ${target.namespace}/${target.name}`];
  }
  const scopes = scopesOf(kind, judgedAs);
  return leaves(change.patch)
    .filter((path) => !declared(path, scopes))
    .map((path) => path.join('.'));
}
