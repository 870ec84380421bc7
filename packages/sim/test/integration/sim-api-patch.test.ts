// The simulated API server's patch and selector engines against the RFC examples and kube's selector grammar.
import { describe, expect, it } from 'vitest';
import { jsonPatch, mergePatch } from '../../src/kube/patch.js';
import { matchesLabels, parseFieldSelector, parseLabelSelector } from '../../src/kube/selectors.js';
import { ApiError } from '../../src/kube/store.js';

describe('merge patch (RFC 7386 appendix A)', () => {
  it.each([
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ])('%j + %j = %j', (target, patch, expected) => {
    expect(mergePatch(target, patch)).toEqual(expected);
  });
});

describe('JSON patch (RFC 6902)', () => {
  const doc = { spec: { job: { parallelism: 2, args: ['a', 'b'] } }, metadata: { name: 'x', 'a/b': 1 } };

  it.each([
    [
      'add member',
      [{ op: 'add', path: '/spec/image', value: 'i' }],
      (d: typeof doc & { spec: { image?: string } }) => d.spec.image === 'i',
    ],
    [
      'add to array end',
      [{ op: 'add', path: '/spec/job/args/-', value: 'c' }],
      (d: typeof doc) => d.spec.job.args.join() === 'a,b,c',
    ],
    [
      'insert into array',
      [{ op: 'add', path: '/spec/job/args/0', value: 'z' }],
      (d: typeof doc) => d.spec.job.args.join() === 'z,a,b',
    ],
    ['remove', [{ op: 'remove', path: '/spec/job/parallelism' }], (d: typeof doc) => !('parallelism' in d.spec.job)],
    [
      'replace',
      [{ op: 'replace', path: '/spec/job/parallelism', value: 5 }],
      (d: typeof doc) => d.spec.job.parallelism === 5,
    ],
    [
      'escaped pointer',
      [{ op: 'replace', path: '/metadata/a~1b', value: 2 }],
      (d: typeof doc) => d.metadata['a/b'] === 2,
    ],
    [
      'move',
      [{ op: 'move', from: '/metadata/name', path: '/metadata/old' }],
      (d: typeof doc & { metadata: { old?: string } }) => d.metadata.old === 'x',
    ],
    [
      'copy',
      [{ op: 'copy', from: '/spec/job/parallelism', path: '/spec/replicas' }],
      (d: typeof doc & { spec: { replicas?: number } }) => d.spec.replicas === 2,
    ],
    ['test passes', [{ op: 'test', path: '/spec/job', value: { args: ['a', 'b'], parallelism: 2 } }], () => true],
  ])('%s', (_label, ops, check) => {
    const before = structuredClone(doc);
    expect(check(jsonPatch(doc, ops) as never)).toBe(true);
    expect(doc).toEqual(before);
  });

  it.each([
    ['failed test', [{ op: 'test', path: '/spec/job/parallelism', value: 3 }]],
    ['replace of a missing member', [{ op: 'replace', path: '/spec/nope', value: 1 }]],
    ['remove of a missing member', [{ op: 'remove', path: '/spec/nope' }]],
    ['unknown op', [{ op: 'merge', path: '/spec', value: {} }]],
    ['out of bounds index', [{ op: 'add', path: '/spec/job/args/5', value: 'x' }]],
    ['not an array', { op: 'add', path: '/x', value: 1 }],
  ])('%s is an API error', (_label, ops) => {
    expect(() => jsonPatch(doc, ops)).toThrow(ApiError);
  });
});

describe('label selectors', () => {
  const labels = { env: 'prod', tier: 'gold', replicas: '3' };
  it.each([
    ['env=prod', true],
    ['env = prod', true],
    ['env!=prod', false],
    ['env in (dev,prod)', true],
    ['env notin (dev, prod)', false],
    ['missing notin (x)', true],
    ['missing!=x', true],
    ['tier,!missing', true],
    ['replicas>2', true],
    ['replicas<2', false],
    ['example.com/team', false],
  ])('%s → %s', (selector, expected) => {
    const parsed = parseLabelSelector(selector);
    if (!parsed.ok) throw new Error(parsed.message);
    expect(matchesLabels(parsed.value, labels)).toBe(expected);
  });

  it.each(['env in prod', 'a b', '=x', 'env=-bad-', ',', 'x>y'])('refuses %j with a message', (selector) => {
    const parsed = parseLabelSelector(selector);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message).toMatch(/unable to parse requirement/);
  });
});

describe('field selectors', () => {
  it('parses equality forms and escapes, refusing unknown fields', () => {
    expect(parseFieldSelector('reason=A\\,B,type!=Warning', ['reason', 'type'], true)).toEqual({
      ok: true,
      value: [
        { field: 'reason', op: 'eq', value: 'A,B' },
        { field: 'type', op: 'neq', value: 'Warning' },
      ],
    });
    expect(parseFieldSelector('spec.x=1', ['metadata.name'], false)).toEqual({
      ok: false,
      message: '"spec.x" is not a known field selector: only "metadata.name"',
    });
    expect(parseFieldSelector('nonsense', ['metadata.name'], true).ok).toBe(false);
  });
});
