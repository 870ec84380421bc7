// flinkConfiguration as the operator flattens it (flink-kubernetes-operator ConfigObjectNode.asFlatMap, release-1.15.0:
// nested keys joined with `.`, arrays `;`-joined, a later key overwrites) over the object as kube-apiserver serialises
// it (Go's encoding/json writes map keys sorted), whatever order the keys were written in.
import { describe, expect, it } from 'vitest';
import { flattenConf } from '../../../src/kube/spec-json.js';

const KEY = 'execution.checkpointing.interval';

describe('flattenConf (ConfigObjectNode.asFlatMap over sorted keys)', () => {
  it.each([
    ['flat alone', { [KEY]: '10s' }, '10s'],
    ['nested alone', { execution: { checkpointing: { interval: '10s' } } }, '10s'],
    ['partly nested alone', { 'execution.checkpointing': { interval: '10s' } }, '10s'],
    ['flat after nested', { execution: { checkpointing: { interval: 'nested' } }, [KEY]: 'flat' }, 'flat'],
    [
      'flat written first, still last in sorted order',
      { [KEY]: 'flat', execution: { checkpointing: { interval: 'nested' } } },
      'flat',
    ],
    [
      'partly nested over nested, though written first',
      { 'execution.checkpointing': { interval: 'partly' }, execution: { checkpointing: { interval: 'nested' } } },
      'partly',
    ],
    [
      'flat over partly nested over nested',
      {
        [KEY]: 'flat',
        'execution.checkpointing': { interval: 'partly' },
        execution: { checkpointing: { interval: 'nested' } },
      },
      'flat',
    ],
    [
      'inside one leading key, the longer inner key wins too',
      { execution: { 'checkpointing.interval': 'inner-flat', checkpointing: { interval: 'inner-nested' } } },
      'inner-flat',
    ],
  ])('%s', (_label, conf, expected) => {
    expect(flattenConf(conf)[KEY]).toBe(expected);
  });

  it('arrays are ;-joined and an empty one sets nothing; scalars become text', () => {
    expect(flattenConf({ 'env.java.opts': ['-Da=1', '-Db=2'], empty: [], n: 4, on: true })).toEqual({
      'env.java.opts': '-Da=1;-Db=2',
      n: '4',
      on: 'true',
    });
  });
});
