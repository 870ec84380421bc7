// What the simulated Flux kustomize-controller does beside applying Git (docs/sandbox.md#gitops-switches): the marks
// that make it leave one object alone — `reconcile: disabled` and `ssa: Ignore` on the object or in Git,
// `ssa: IfNotPresent` in Git once the object exists, values in any case — and its `--override-manager` takeover.
import { decodeFields, type FieldSet } from '../managed-fields.js';
import type { KubeObject, ManagedFieldsEntry } from '../store.js';
import type { GitCopy } from './git-copy.js';

/** The Flux annotation (or label) that pauses reconciliation of one object. */
export const FLUX_RECONCILE = 'kustomize.toolkit.fluxcd.io/reconcile';
/** The Flux annotation (or label) that says how to apply one object: `Ignore`, `IfNotPresent` or `Merge`. */
export const FLUX_SSA = 'kustomize.toolkit.fluxcd.io/ssa';

type Mark = readonly [key: string, value: string];
const EXCLUDED: readonly Mark[] = [
  [FLUX_RECONCILE, 'disabled'],
  [FLUX_SSA, 'Ignore'],
];
const IF_NOT_PRESENT: Mark = [FLUX_SSA, 'IfNotPresent'];

const same = (value: unknown, wanted: string): boolean =>
  typeof value === 'string' && value !== '' && value.toLowerCase() === wanted.toLowerCase();

function liveHas(object: KubeObject, [key, value]: Mark): boolean {
  return same(object.metadata.labels?.[key], value) || same(object.metadata.annotations?.[key], value);
}

function gitHas(git: GitCopy, [key, value]: Mark): boolean {
  return (
    same(git.valueOf(['metadata', 'labels', key]), value) || same(git.valueOf(['metadata', 'annotations', key]), value)
  );
}

/** The mark (`key: value`) for which Flux skips applying the existing object, or undefined when it applies it. */
export function fluxSkips(object: KubeObject, git: GitCopy): string | undefined {
  const found = EXCLUDED.find((mark) => liveHas(object, mark) || gitHas(git, mark));
  if (found) return `${found[0]}: ${found[1]}`;
  return gitHas(git, IF_NOT_PRESENT) ? `${IF_NOT_PRESENT[0]}: ${IF_NOT_PRESENT[1]}` : undefined;
}

/** Whether `--override-manager` names the entry's manager (a prefix, as Flux matches), for Apply or Update writes. */
const overridden = (entry: ManagedFieldsEntry, managers: readonly string[]): boolean =>
  entry.subresource === undefined && managers.some((m) => entry.manager.startsWith(m));

/**
 * `--override-manager`: before it applies, Flux folds the named managers' entries into its own, so its apply owns
 * their fields; those Git does not declare (`applied`) and no other manager owns are then removed from the object.
 * The entries that remain, and the fields removed.
 */
export function overrideManagers(
  entries: readonly ManagedFieldsEntry[],
  managers: readonly string[],
  applied: FieldSet,
): { kept: ManagedFieldsEntry[]; removed: FieldSet } {
  const kept = entries.filter((e) => !overridden(e, managers));
  const others = new Set(kept.flatMap((e) => [...decodeFields(e.fieldsV1)]));
  const taken = entries.filter((e) => overridden(e, managers)).flatMap((e) => [...decodeFields(e.fieldsV1)]);
  return { kept, removed: new Set(taken.filter((key) => !applied.has(key) && !others.has(key))) };
}
