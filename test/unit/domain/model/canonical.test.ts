import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalDigest, canonicalJson, jsonEqual, sha256Hex } from '../../../../src/domain/model/canonical.js';

describe('canonicalJson', () => {
  it.each([
    ['null', null, 'null'],
    ['booleans', [true, false], '[true,false]'],
    ['numbers', [0, -1.5, 1e21, 9007199254740991], '[0,-1.5,1e+21,9007199254740991]'],
    ['strings with quotes and unicode', 'a"b\\c\n→', '"a\\"b\\\\c\\n→"'],
    ['nested objects with sorted keys', { b: { d: 1, c: 2 }, a: [] }, '{"a":[],"b":{"c":2,"d":1}}'],
    ['arrays keep their order', [3, 1, 2], '[3,1,2]'],
    ['undefined members dropped', { a: undefined, b: 1 }, '{"b":1}'],
    ['undefined array items become null', [undefined, 1], '[null,1]'],
    ['dates through toJSON', { at: new Date(0) }, '{"at":"1970-01-01T00:00:00.000Z"}'],
  ])('writes %s', (_name, value, expected) => {
    expect(canonicalJson(value)).toBe(expected);
  });

  it('gives the same text whatever order keys were inserted in', () => {
    const a = {
      kind: 'FlinkDeployment',
      change: { patch: { spec: { job: { state: 'suspended', upgradeMode: 'savepoint' } } } },
    };
    const b = {
      change: { patch: { spec: { job: { upgradeMode: 'savepoint', state: 'suspended' } } } },
      kind: 'FlinkDeployment',
    };
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(canonicalDigest(a)).toBe(canonicalDigest(b));
  });

  it('agrees with JSON.parse: the text is valid JSON of the same value', () => {
    const value = { z: [1, { y: 'x', a: null }], a: { 'flink-chatops/operation-id': 'op-abc123' } };
    expect(JSON.parse(canonicalJson(value))).toEqual(value);
  });

  it.each([
    ['NaN', Number.NaN],
    ['Infinity', { a: Number.POSITIVE_INFINITY }],
    ['bigint', { a: 1n }],
    ['function', { a: () => 1 }],
    ['undefined at the top', undefined],
  ])('refuses %s rather than letting two values share a digest', (_name, value) => {
    expect(() => canonicalJson(value)).toThrow(/canonicalJson/);
  });

  it('refuses cycles but accepts a shared (acyclic) sub-object', () => {
    const shared = { x: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(/cycle/);
  });
});

describe('sha256Hex', () => {
  it('is the lowercase hex sha256 of the UTF-8 bytes', () => {
    const text = 'plan → digest';
    expect(sha256Hex(text)).toBe(createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex'));
    expect(sha256Hex(text)).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('jsonEqual', () => {
  it.each([
    [{ a: 1, b: [1, 2] }, { b: [1, 2], a: 1 }, true],
    [[1, 2], [2, 1], false],
    [null, undefined, false],
    [4, 4, true],
    ['4', 4, false],
    [{ a: 1 }, null, false],
  ])('%j vs %j → %s', (a, b, expected) => {
    expect(jsonEqual(a, b)).toBe(expected);
  });
});
