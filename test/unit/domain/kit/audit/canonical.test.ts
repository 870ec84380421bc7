// Canonical JSON (src/domain/kit/audit/canonical.ts): RFC 8785's kinds of cases — member order by UTF-16 code units,
// ECMAScript numbers, JSON.stringify's string escapes — and every value JSON cannot carry refused by path.
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../../../src/domain/kit/audit/canonical.js';

describe('canonicalJson', () => {
  it('sorts members by UTF-16 code units, not by code point or locale', () => {
    // U+1F600 is the surrogate pair D83D DE00, which sorts before U+FB33 (a single unit) although its code point is
    // larger; "\r" (000D) comes before "1" (0031), capitals before lower case, "ö" (00F6) after "z".
    const value = { '\uFB33': 'hebrew', '\u{1F600}': 'smiley', z: 1, '\u00f6': 2, a: 3, B: 4, '1': 5, '\r': 6 };
    expect(canonicalJson(value)).toBe(
      '{"\\r":6,"1":5,"B":4,"a":3,"z":1,"\u00f6":2,"\u{1F600}":"smiley","\uFB33":"hebrew"}',
    );
  });

  it('writes nested arrays and objects with no whitespace, sorting every level and keeping array order', () => {
    const value = { outer: { z: [3, 1, { y: true, x: null }], a: [] }, empty: {}, list: [[], [[]], 'b', 'a'] };
    expect(canonicalJson(value)).toBe(
      '{"empty":{},"list":[[],[[]],"b","a"],"outer":{"a":[],"z":[3,1,{"x":null,"y":true}]}}',
    );
  });

  it.each([
    [0, '0'],
    [-0, '0'],
    [1, '1'],
    [-1.5, '-1.5'],
    [0.1, '0.1'],
    [0.1 + 0.2, '0.30000000000000004'],
    [1e21, '1e+21'],
    [1e20, '100000000000000000000'],
    [1e-7, '1e-7'],
    [0.000001, '0.000001'],
    [Number.MAX_SAFE_INTEGER, '9007199254740991'],
    [Number.MIN_VALUE, '5e-324'],
    [Number.MAX_VALUE, '1.7976931348623157e+308'],
    [333333333.3333333, '333333333.3333333'],
  ])('writes the number %s as ECMAScript does: %s', (value, text) => {
    expect(canonicalJson(value)).toBe(text);
    expect(canonicalJson([value])).toBe(`[${text}]`);
  });

  it('escapes strings as JSON.stringify does: quote, backslash and control characters only', () => {
    const value = '"\\/\b\f\n\r\t\u0000\u001f\u007f é € \u{1F600}';
    expect(canonicalJson(value)).toBe('"\\"\\\\/\\b\\f\\n\\r\\t\\u0000\\u001f\u007f é € \u{1F600}"');
    expect(canonicalJson({ 'a"b': 'x' })).toBe('{"a\\"b":"x"}');
  });

  it('writes the literals and leaves out object members that are undefined, as JSON.stringify does', () => {
    expect(canonicalJson([true, false, null])).toBe('[true,false,null]');
    expect(canonicalJson({ b: undefined, a: 1 })).toBe('{"a":1}');
    expect(canonicalJson(Object.assign(Object.create(null) as object, { k: 'v' }))).toBe('{"k":"v"}');
  });

  it('gives the same text for the same data whatever order its members were written in', () => {
    const a = { actor: { user: 'U1', team: 'T1' }, seq: 2, action: 'approved' };
    const b = { action: 'approved', seq: 2, actor: { team: 'T1', user: 'U1' } };
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(canonicalJson(a)).toBe('{"action":"approved","actor":{"team":"T1","user":"U1"},"seq":2}');
  });

  it.each([
    ['NaN', { a: Number.NaN }, 'canonical JSON: NaN at $.a is not JSON data'],
    ['Infinity', [1, Number.POSITIVE_INFINITY], 'canonical JSON: Infinity at $[1] is not JSON data'],
    ['-Infinity', Number.NEGATIVE_INFINITY, 'canonical JSON: -Infinity at $ is not JSON data'],
    ['undefined in an array', { list: [1, undefined] }, 'canonical JSON: undefined at $.list[1] is not JSON data'],
    ['undefined itself', undefined, 'canonical JSON: undefined at $ is not JSON data'],
    ['a function', { f: () => 1 }, 'canonical JSON: a function at $.f is not JSON data'],
    ['a bigint', { 'a key': 10n }, 'canonical JSON: a bigint at $["a key"] is not JSON data'],
    ['a symbol', [Symbol('s')], 'canonical JSON: a symbol at $[0] is not JSON data'],
    ['a Date', { at: new Date(0) }, 'canonical JSON: a Date object at $.at is not JSON data'],
    ['a Map', { m: new Map() }, 'canonical JSON: a Map object at $.m is not JSON data'],
    [
      'a lone surrogate',
      { s: 'a\uD800b' },
      'canonical JSON: a string with a lone UTF-16 surrogate at $.s is not JSON data',
    ],
    ['a lone surrogate key', { '\uDC00': 1 }, 'canonical JSON: a string with a lone UTF-16 surrogate at $["\\udc00"]'],
  ])('refuses %s, naming where it is', (_name, value, message) => {
    expect(() => canonicalJson(value)).toThrow(message);
  });

  it('refuses a circular reference instead of overflowing the stack, but not a value seen twice', () => {
    const loop: Record<string, unknown> = { a: 1 };
    loop.self = loop;
    expect(() => canonicalJson({ top: loop })).toThrow('canonical JSON: a circular reference at $.top.self');
    const shared = { x: 1 };
    expect(canonicalJson({ a: shared, b: [shared] })).toBe('{"a":{"x":1},"b":[{"x":1}]}');
  });
});
