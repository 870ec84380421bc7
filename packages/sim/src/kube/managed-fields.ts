// metadata.managedFields as kube-apiserver keeps them: field sets in FieldsV1, the fields a write changed, and
// ownership moving to the manager that changed them (docs/sandbox.md#managed-fields).
import type { FieldsV1, KubeObject, ManagedFieldsEntry } from './store.js';

export type FieldPath = readonly string[];

/** A set of field paths, each kept as its JSON text (so a key holding "." or "/" stays one key). */
export type FieldSet = Set<string>;

export const pathKey = (path: FieldPath): string => JSON.stringify(path);
export const keyPath = (key: string): string[] => JSON.parse(key) as string[];

/** Who writes, as the entry names it. */
export interface Writer {
  manager: string;
  operation: ManagedFieldsEntry['operation'];
  apiVersion: string;
  time: string;
  subresource?: 'status';
}

/** What a write did to the object's fields: those whose value changed or appeared, and those it removed. */
export interface FieldChange {
  changed: FieldSet;
  removed: FieldSet;
}

/** Metadata the server sets; no manager owns it (kube-apiserver strips the same fields). */
const SERVER_META = new Set([
  'name',
  'namespace',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'managedFields',
  'selfLink',
]);

type Json = Record<string, unknown>;
const isMap = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The part of an object managers can own: for a write to the `status` subresource only status; otherwise all but
 * apiVersion, kind, the server's metadata and — where status is a subresource — status.
 */
export function managedContent(
  object: KubeObject,
  scope: { subresource?: 'status'; statusSubresource: boolean },
): Json {
  if (scope.subresource === 'status') return object.status === undefined ? {} : { status: object.status };
  const { apiVersion: _a, kind: _k, metadata, status, ...rest } = object;
  const meta = Object.fromEntries(Object.entries(metadata).filter(([key]) => !SERVER_META.has(key)));
  const content: Json = { ...rest, metadata: meta };
  if (!scope.statusSubresource && status !== undefined) content.status = status;
  return content;
}

type Node = { map: true } | { map: false; value: unknown };

/** Every field of `content`: maps (but the root and metadata, which are always there) and leaves; arrays are leaves. */
function flatten(content: Json): Map<string, Node> {
  const out = new Map<string, Node>();
  const walk = (value: Json, path: string[]): void => {
    for (const [key, child] of Object.entries(value)) {
      const at = [...path, key];
      if (isMap(child)) {
        if (!(at.length === 1 && key === 'metadata')) out.set(pathKey(at), { map: true });
        walk(child, at);
      } else {
        out.set(pathKey(at), { map: false, value: child });
      }
    }
  };
  walk(content, []);
  return out;
}

/** Key order does not make two values different. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (isMap(value))
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical(value[k])]),
    );
  return value;
}

export const sameValue = (a: unknown, b: unknown): boolean =>
  JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));

/** The fields of `content` (its maps and leaves), as a creating manager owns them. */
export function fieldSet(content: Json): FieldSet {
  return new Set(flatten(content).keys());
}

/** Fields whose value changed or appeared between `before` and `after`, and fields `after` no longer has. */
export function diffFields(before: Json, after: Json): FieldChange {
  const old = flatten(before);
  const now = flatten(after);
  const changed: FieldSet = new Set();
  for (const [key, node] of now) {
    const was = old.get(key);
    if (!was || was.map !== node.map || (!node.map && !was.map && !sameValue(was.value, node.value))) changed.add(key);
  }
  const removed: FieldSet = new Set([...old.keys()].filter((key) => !now.has(key)));
  return { changed, removed };
}

interface Tree {
  member: boolean;
  children: Map<string, Tree>;
}

/** FieldsV1 of a set: `f:<key>` per key, `".": {}` where a map is itself a member and has members below. */
export function encodeFields(set: Iterable<string>): FieldsV1 {
  const root: Tree = { member: false, children: new Map() };
  for (const key of set) {
    let node = root;
    for (const part of keyPath(key)) {
      let next = node.children.get(part);
      if (!next) node.children.set(part, (next = { member: false, children: new Map() }));
      node = next;
    }
    node.member = true;
  }
  const render = (node: Tree): FieldsV1 => {
    const out: FieldsV1 = {};
    if (node.member && node.children.size > 0) out['.'] = {};
    for (const part of [...node.children.keys()].sort()) out[`f:${part}`] = render(node.children.get(part) as Tree);
    return out;
  };
  return render(root);
}

/** The set FieldsV1 describes (only `f:` keys; list keys `k:`/`v:`/`i:` never occur here, arrays being atomic). */
export function decodeFields(fields: FieldsV1): FieldSet {
  const out: FieldSet = new Set();
  const walk = (node: FieldsV1, path: string[]): void => {
    for (const [key, child] of Object.entries(node)) {
      if (key === '.') {
        if (path.length > 0) out.add(pathKey(path));
        continue;
      }
      if (!key.startsWith('f:')) continue;
      const at = [...path, key.slice(2)];
      if (Object.keys(child).length === 0) out.add(pathKey(at));
      else walk(child, at);
    }
  };
  walk(fields, []);
  return out;
}

const isWriters = (entry: ManagedFieldsEntry, writer: Writer): boolean =>
  entry.manager === writer.manager &&
  entry.operation === writer.operation &&
  (entry.subresource ?? '') === (writer.subresource ?? '');

const sameSet = (a: FieldSet, b: FieldSet): boolean => a.size === b.size && [...a].every((k) => b.has(k));

function entryOf(writer: Writer, set: FieldSet): ManagedFieldsEntry {
  const entry: ManagedFieldsEntry = {
    manager: writer.manager,
    operation: writer.operation,
    apiVersion: writer.apiVersion,
    time: writer.time,
    fieldsType: 'FieldsV1',
    fieldsV1: encodeFields(set),
  };
  if (writer.subresource) entry.subresource = writer.subresource;
  return entry;
}

/** kube-apiserver's order: Apply before Update, then by time, manager, apiVersion, subresource. */
function byServerOrder(a: ManagedFieldsEntry, b: ManagedFieldsEntry): number {
  const keys = (e: ManagedFieldsEntry): string[] => [e.operation, e.time, e.manager, e.apiVersion, e.subresource ?? ''];
  const [ka, kb] = [keys(a), keys(b)];
  for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return (ka[i] as string) < (kb[i] as string) ? -1 : 1;
  return 0;
}

/** The entries of a create: the creating manager owns every field it sent. */
export function createEntries(writer: Writer, content: Json): ManagedFieldsEntry[] {
  const set = fieldSet(content);
  return set.size === 0 ? [] : [entryOf(writer, set)];
}

/**
 * The entries after a write. Changed fields become the writer's and leave every other set; removed fields leave
 * every set; an emptied entry is dropped. `owned` (an apply's whole configuration, or fields a controller takes
 * over) is taken the same way; for an Apply it is exactly the writer's new set. A write that changes nothing and
 * takes nothing returns the entries as they were.
 */
export function recordWrite(
  entries: readonly ManagedFieldsEntry[],
  writer: Writer,
  change: FieldChange,
  owned?: FieldSet,
): ManagedFieldsEntry[] {
  const taken = new Set([...change.changed, ...(owned ?? [])]);
  const out: ManagedFieldsEntry[] = [];
  let found = false;
  for (const entry of entries) {
    const before = decodeFields(entry.fieldsV1);
    const mine = isWriters(entry, writer);
    found ||= mine;
    let set = new Set([...before].filter((k) => !change.removed.has(k)));
    if (mine) set = writer.operation === 'Apply' && owned ? new Set(owned) : new Set([...set, ...taken]);
    else for (const key of taken) set.delete(key);
    if (set.size === 0) continue;
    const touched = mine && change.changed.size > 0;
    if (sameSet(before, set) && !touched) out.push(entry);
    else out.push(mine ? entryOf(writer, set) : { ...entry, fieldsV1: encodeFields(set) });
  }
  const fresh = writer.operation === 'Apply' && owned ? owned : taken;
  if (!found && fresh.size > 0) out.push(entryOf(writer, fresh));
  return out.sort(byServerOrder);
}

/** The managers whose sets hold `path` (a leaf, or a map itself), in the entries' order. */
export function fieldOwners(entries: readonly ManagedFieldsEntry[] | undefined, path: FieldPath): string[] {
  const key = pathKey(path);
  return (entries ?? []).filter((e) => decodeFields(e.fieldsV1).has(key)).map((e) => e.manager);
}
