// Reading `metadata.managedFields`: which field manager owns which field (docs/policy.md#gitops-managed-targets).
import { getPath, isRecord } from './merge-patch.js';

// Paths are arrays of keys, never dotted strings: flinkConfiguration keys such as `taskmanager.numberOfTaskSlots`
// contain dots themselves.
export type FieldPath = readonly string[];

export interface ManagedFieldsEntry {
  manager: string;
  operation?: string;
  time?: string;
  subresource?: string;
  fieldsV1?: unknown;
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function entryOf(raw: unknown): ManagedFieldsEntry | undefined {
  if (!isRecord(raw)) return undefined;
  const manager = optionalString(raw['manager']);
  if (manager === undefined) return undefined;
  const entry: ManagedFieldsEntry = { manager };
  const operation = optionalString(raw['operation']);
  const time = optionalString(raw['time']);
  const subresource = optionalString(raw['subresource']);
  if (operation !== undefined) entry.operation = operation;
  if (time !== undefined) entry.time = time;
  if (subresource !== undefined) entry.subresource = subresource;
  if (raw['fieldsV1'] !== undefined) entry.fieldsV1 = raw['fieldsV1'];
  return entry;
}

/** The object's managedFields entries in their order; an entry without a manager name (or not an object) is skipped. */
export function managedFieldsOf(resource: unknown): ManagedFieldsEntry[] {
  const raw = getPath(resource, ['metadata', 'managedFields']);
  if (!Array.isArray(raw)) return [];
  const entries: ManagedFieldsEntry[] = [];
  for (const item of raw) {
    const entry = entryOf(item);
    if (entry) entries.push(entry);
  }
  return entries;
}

/**
 * Whether a fieldsV1 set covers `path`: the node `f:<k1>` → `f:<k2>` … exists, or an ancestor on the way is a leaf
 * `{}` (atomic). A node holding only `".": {}` owns the map's existence, not its keys, so it covers no key below it.
 */
export function fieldsCover(fieldsV1: unknown, path: FieldPath): boolean {
  if (!isRecord(fieldsV1)) return false;
  let node: Record<string, unknown> = fieldsV1;
  for (const key of path) {
    const next = node[`f:${key}`];
    if (!isRecord(next)) return false;
    if (Object.keys(next).length === 0) return true;
    node = next;
  }
  return true;
}

/** An entry's own subresource writes (the operator's status) never own spec fields. */
export function isStatusEntry(entry: ManagedFieldsEntry): boolean {
  return entry.subresource === 'status';
}

function timeOf(entry: ManagedFieldsEntry): number {
  const ms = entry.time === undefined ? Number.NaN : Date.parse(entry.time);
  return Number.isNaN(ms) ? Number.NEGATIVE_INFINITY : ms;
}

/** Managers whose (non-status-subresource) entries cover `path`, the most recent `time` first, each once. */
export function ownersOf(resource: unknown, path: FieldPath): string[] {
  const covering = managedFieldsOf(resource).filter((e) => !isStatusEntry(e) && fieldsCover(e.fieldsV1, path));
  // Array.prototype.sort is stable: entries without a usable time keep their order, after the dated ones.
  covering.sort((a, b) => timeOf(b) - timeOf(a) || 0);
  return [...new Set(covering.map((e) => e.manager))];
}

/**
 * Leaf paths of a JSON merge patch below `under` (default the root), as full paths from the root: objects are
 * descended; scalars, arrays and null are leaves, and so is an empty object (it may create the member). When the
 * patch replaces or removes an ancestor of `under`, that ancestor's path is the one leaf: it changes everything below.
 */
export function patchLeaves(patch: unknown, under: FieldPath = []): FieldPath[] {
  let node = patch;
  for (let i = 0; i < under.length; i++) {
    if (!isRecord(node)) return i === 0 ? [] : [under.slice(0, i)];
    const key = under[i] as string;
    if (!Object.hasOwn(node, key) || node[key] === undefined) return [];
    node = node[key];
  }
  if (!isRecord(node)) return under.length === 0 ? [] : [[...under]];
  return leavesBelow(node, under);
}

function leavesBelow(node: Record<string, unknown>, prefix: FieldPath): FieldPath[] {
  const leaves: FieldPath[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (value === undefined) continue;
    const path = [...prefix, key];
    if (isRecord(value) && Object.keys(value).length > 0) leaves.push(...leavesBelow(value, path));
    else leaves.push(path);
  }
  return leaves;
}
