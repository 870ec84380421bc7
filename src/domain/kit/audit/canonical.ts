// Canonical JSON (RFC 8785, JCS) of JSON data: the exact text an audit event's hash is taken over
// (docs/audit.md#the-hash-chain). Anything that is not JSON data is refused with the path where it was found.

/** A JSON value as JSON.parse returns it. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
export type JsonObject = { [key: string]: JsonValue };

/** A lone UTF-16 surrogate: not a Unicode character, so JCS refuses it rather than escape it. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** `$`, `$.a.b`, `$.list[2]`, `$["a key"]`. */
function pathTo(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`;
}

function refuse(path: string, what: string): never {
  throw new Error(`canonical JSON: ${what} at ${path} is not JSON data`);
}

function serialiseString(value: string, path: string): string {
  if (LONE_SURROGATE.test(value)) refuse(path, 'a string with a lone UTF-16 surrogate');
  // JSON.stringify escapes exactly what JCS asks: `"`, `\`, and the control characters (as \b \t \n \f \r or \u00xx).
  return JSON.stringify(value);
}

function serialiseNumber(value: number, path: string): string {
  if (!Number.isFinite(value)) refuse(path, String(value));
  // ECMAScript's Number-to-string, which JCS adopts: 1e+21, 1e-7, 0.1, and -0 as 0.
  return JSON.stringify(value);
}

function isPlainObject(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function serialise(value: unknown, path: string, open: Set<object>): string {
  switch (typeof value) {
    case 'string':
      return serialiseString(value, path);
    case 'number':
      return serialiseNumber(value, path);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      if (value === null) return 'null';
      break;
    default:
      return refuse(path, typeof value === 'undefined' ? 'undefined' : `a ${typeof value}`);
  }
  if (open.has(value)) refuse(path, 'a circular reference');
  open.add(value);
  let text: string;
  if (Array.isArray(value)) {
    text = `[${value.map((item, i) => serialise(item, pathTo(path, i), open)).join(',')}]`;
  } else if (isPlainObject(value)) {
    const record = value as Record<string, unknown>;
    // Default sort compares UTF-16 code units, the order JCS prescribes; undefined members are left out, as
    // JSON.stringify leaves them out, so an optional field that is absent and one set to undefined hash alike.
    const keys = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort();
    const members = keys.map((key) => {
      const at = pathTo(path, key);
      return `${serialiseString(key, at)}:${serialise(record[key], at, open)}`;
    });
    text = `{${members.join(',')}}`;
  } else {
    refuse(path, `a ${value.constructor?.name ?? 'non-plain'} object`);
  }
  open.delete(value);
  return text;
}

/**
 * The RFC 8785 serialisation of `value`: members sorted by key (UTF-16 code units), no whitespace. Throws on what
 * JSON cannot carry (NaN, Infinity, bigint, functions, symbols, undefined outside an object member, class instances
 * such as Date or Map, circular references, lone surrogates), naming where it is.
 */
export function canonicalJson(value: unknown): string {
  return serialise(value, '$', new Set());
}
