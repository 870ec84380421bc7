// Canonical JSON (sorted keys, no whitespace) and its sha256: the stable bytes plan digests are computed over.
import { createHash } from 'node:crypto';

/**
 * JSON with object keys sorted (by UTF-16 code unit, like `Array.prototype.sort`) at every depth and no
 * whitespace, so two equal values give the same text whatever order their keys were built in. Arrays keep
 * their order. `undefined` object members are dropped and `undefined` array items become `null`, as in
 * `JSON.stringify`; values JSON cannot carry (NaN, Infinity, bigint, functions, symbols, cycles) throw,
 * because silently turning them into `null` would let two different plans share a digest.
 */
export function canonicalJson(value: unknown): string {
  const out = write(value, new Set());
  if (out === undefined) throw new TypeError('canonicalJson: the value itself is undefined');
  return out;
}

function write(value: unknown, seen: Set<object>): string | undefined {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'undefined':
      return undefined;
    case 'boolean':
      return value ? 'true' : 'false';
    case 'string':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`canonicalJson: ${value} is not representable in JSON`);
      return JSON.stringify(value);
    case 'object':
      return writeObject(value, seen);
    default:
      throw new TypeError(`canonicalJson: a ${typeof value} is not representable in JSON`);
  }
}

function writeObject(value: object, seen: Set<object>): string | undefined {
  const withToJson = value as { toJSON?: () => unknown };
  if (typeof withToJson.toJSON === 'function') return write(withToJson.toJSON(), seen);
  if (seen.has(value)) throw new TypeError('canonicalJson: the value contains a cycle');
  seen.add(value);
  try {
    if (Array.isArray(value)) {
      return `[${value.map((item: unknown) => write(item, seen) ?? 'null').join(',')}]`;
    }
    const record = value as Record<string, unknown>;
    const members: string[] = [];
    for (const key of Object.keys(record).sort()) {
      const text = write(record[key], seen);
      if (text !== undefined) members.push(`${JSON.stringify(key)}:${text}`);
    }
    return `{${members.join(',')}}`;
  } finally {
    seen.delete(value);
  }
}

/** Lowercase hex sha256 of the UTF-8 bytes of `text`. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** sha256 hex of the canonical JSON of `value`. */
export function canonicalDigest(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}

/** Deep equality of JSON values (key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  return canonicalJson(a) === canonicalJson(b);
}
