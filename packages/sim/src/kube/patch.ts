// JSON merge patch (RFC 7386) and JSON patch (RFC 6902, with `test`), the two patch types the server accepts for CRs.
import { ApiError } from './store.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export const PATCH_TYPES = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
} as const;

function isObject(value: unknown): value is Record<string, Json> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** RFC 7386: objects merge recursively, `null` removes, anything else (arrays included) replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return structuredClone(patch);
  const result: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

interface Operation {
  op: string;
  path: string;
  value?: unknown;
  from?: string;
}

function invalidPatch(message: string): ApiError {
  // kube-apiserver answers a JSON patch it cannot apply with 422 (bad operations) or 500; 422 tells the client what to fix.
  return new ApiError(422, 'Invalid', message);
}

function pointer(path: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/')) throw invalidPatch(`invalid JSON pointer "${path}": must start with "/"`);
  return path
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function parentOf(
  doc: unknown,
  tokens: string[],
  path: string,
): { parent: Record<string, unknown> | unknown[]; last: string } {
  let current = doc;
  for (const token of tokens.slice(0, -1)) {
    if (Array.isArray(current)) current = current[Number(token)];
    else if (isObject(current)) current = current[token];
    else current = undefined;
    if (current === undefined) throw invalidPatch(`doc is missing path: "${path}": missing value`);
  }
  if (!Array.isArray(current) && !isObject(current))
    throw invalidPatch(`doc is missing path: "${path}": missing value`);
  return { parent: current, last: tokens[tokens.length - 1] as string };
}

function arrayIndex(arr: unknown[], token: string, path: string, forInsert: boolean): number {
  if (forInsert && token === '-') return arr.length;
  if (!/^(0|[1-9]\d*)$/.test(token)) throw invalidPatch(`invalid array index "${token}" in "${path}"`);
  const index = Number(token);
  if (index > arr.length || (!forInsert && index === arr.length))
    throw invalidPatch(`array index out of bounds in "${path}"`);
  return index;
}

function get(doc: unknown, path: string): unknown {
  let current = doc;
  for (const token of pointer(path)) {
    if (Array.isArray(current)) current = current[Number(token)];
    else if (isObject(current)) current = current[token];
    else current = undefined;
    if (current === undefined) throw invalidPatch(`doc is missing path: "${path}": missing value`);
  }
  return current;
}

function remove(doc: unknown, path: string): unknown {
  const tokens = pointer(path);
  if (tokens.length === 0) throw invalidPatch('cannot remove the whole document');
  const { parent, last } = parentOf(doc, tokens, path);
  if (Array.isArray(parent)) return parent.splice(arrayIndex(parent, last, path, false), 1)[0];
  if (!(last in parent)) throw invalidPatch(`doc is missing path: "${path}": missing value`);
  const value = parent[last];
  delete parent[last];
  return value;
}

function add(doc: unknown, path: string, value: unknown, replace: boolean): unknown {
  const tokens = pointer(path);
  if (tokens.length === 0) return structuredClone(value);
  const { parent, last } = parentOf(doc, tokens, path);
  if (Array.isArray(parent)) {
    const index = arrayIndex(parent, last, path, !replace);
    parent.splice(index, replace ? 1 : 0, structuredClone(value));
  } else {
    if (replace && !(last in parent)) throw invalidPatch(`doc is missing key: "${path}": missing value`);
    parent[last] = structuredClone(value);
  }
  return doc;
}

function applyOne(doc: unknown, op: Operation): unknown {
  switch (op.op) {
    case 'add':
      return add(doc, op.path, op.value, false);
    case 'replace':
      return add(doc, op.path, op.value, true);
    case 'remove':
      remove(doc, op.path);
      return doc;
    case 'move': {
      const value = remove(doc, requireFrom(op));
      return add(doc, op.path, value, false);
    }
    case 'copy':
      return add(doc, op.path, get(doc, requireFrom(op)), false);
    case 'test':
      if (JSON.stringify(canonical(get(doc, op.path))) !== JSON.stringify(canonical(op.value))) {
        throw invalidPatch(`testing value ${op.path} failed: expected ${JSON.stringify(op.value)}`);
      }
      return doc;
    default:
      throw invalidPatch(`unexpected kind of operation: "${op.op}"`);
  }
}

function requireFrom(op: Operation): string {
  if (typeof op.from !== 'string') throw invalidPatch(`operation "${op.op}" needs "from"`);
  return op.from;
}

/** Key order does not matter when `test` compares objects. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (isObject(value)) {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical(value[k])]),
    );
  }
  return value;
}

/** RFC 6902; all or nothing: the document is copied first. */
export function jsonPatch(target: unknown, patch: unknown): unknown {
  if (!Array.isArray(patch)) {
    throw new ApiError(
      400,
      'BadRequest',
      'json: cannot unmarshal object into Go value of type jsonpatch.Patch (a JSON patch is an array of operations)',
    );
  }
  let doc = structuredClone(target);
  for (const raw of patch) {
    if (!isObject(raw) || typeof raw.op !== 'string' || typeof raw.path !== 'string') {
      throw invalidPatch(`invalid JSON patch operation ${JSON.stringify(raw)}: "op" and "path" are required`);
    }
    doc = applyOne(doc, raw as unknown as Operation);
  }
  return doc;
}
