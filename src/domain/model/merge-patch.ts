// JSON merge patch (RFC 7386): building one from field paths, applying one, and listing what one sets.

export type JsonRecord = Record<string, unknown>;

export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `target` with `patch` applied, as the API server applies `application/merge-patch+json`: objects merge,
 * `null` removes a member, anything else (arrays included) replaces. Neither argument is modified.
 */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) return structuredClone(patch);
  const result: JsonRecord = isRecord(target) ? structuredClone(target) : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else if (value !== undefined) result[key] = applyMergePatch(result[key], value);
  }
  return result;
}

/** Sets `value` at `path` inside `into`, creating the intermediate objects. */
export function setPath(into: JsonRecord, path: readonly string[], value: unknown): void {
  if (path.length === 0) throw new RangeError('setPath: the path is empty');
  let node = into;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (isRecord(next)) {
      node = next;
    } else {
      const created: JsonRecord = {};
      node[key] = created;
      node = created;
    }
  }
  node[path[path.length - 1] as string] = value;
}

/** The value at `path`, or undefined when any step is missing or not an object. */
export function getPath(from: unknown, path: readonly string[]): unknown {
  let node: unknown = from;
  for (const key of path) {
    if (!isRecord(node)) return undefined;
    node = node[key];
  }
  return node;
}

/** Every leaf a merge patch sets (a leaf is a non-object value, `null` included), with its path. */
export function patchLeaves(patch: JsonRecord, prefix: readonly string[] = []): { path: string[]; value: unknown }[] {
  const leaves: { path: string[]; value: unknown }[] = [];
  for (const [key, value] of Object.entries(patch)) {
    const path = [...prefix, key];
    if (isRecord(value) && Object.keys(value).length > 0) leaves.push(...patchLeaves(value, path));
    else if (value !== undefined) leaves.push({ path, value });
  }
  return leaves;
}
