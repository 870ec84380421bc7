// The bot's reading of a key with several spellings agrees with the operator's flattening as the simulator models it
// (ConfigObjectNode.asFlatMap over the API server's sorted keys: docs/lifecycle.md#config-spellings).
import { describe, expect, it } from 'vitest';
import { flattenConf } from '@flink-chatops/sim/kube/spec-json';
import { configLocations, configValue } from '../../../../src/domain/model/flink-config.js';

const KEY = 'execution.checkpointing.interval';
const nested = (v: string) => ({ execution: { checkpointing: { interval: v } } });
const partly = (v: string) => ({ 'execution.checkpointing': { interval: v } });
const innerFlat = (v: string) => ({ execution: { 'checkpointing.interval': v } });

describe('a key with several spellings', () => {
  it.each<[string, Record<string, unknown>, string]>([
    ['flat vs nested', { ...nested('nested'), [KEY]: 'flat' }, 'flat'],
    ['flat written before nested', { [KEY]: 'flat', ...nested('nested') }, 'flat'],
    ['partly nested vs nested', { ...nested('nested'), ...partly('partly') }, 'partly'],
    ['partly nested written before nested', { ...partly('partly'), ...nested('nested') }, 'partly'],
    ['all three', { ...partly('partly'), [KEY]: 'flat', ...nested('nested') }, 'flat'],
    [
      'two spellings under one leading key',
      { execution: { checkpointing: { interval: 'inner-nested' }, 'checkpointing.interval': 'inner-flat' } },
      'inner-flat',
    ],
    ['inner flat vs partly nested', { ...innerFlat('inner-flat'), ...partly('partly') }, 'partly'],
    ['a list is ;-joined', { execution: { checkpointing: { interval: ['1s', '2s'] } } }, '1s;2s'],
  ])('%s: the bot reads what the operator keeps', (_label, configuration, expected) => {
    expect(flattenConf(configuration)[KEY]).toBe(expected);
    expect(configValue(configuration, KEY)).toBe(expected);
    // The place a config change writes holds that value.
    const [first] = configLocations(configuration, KEY);
    let at: unknown = configuration;
    for (const segment of first ?? []) at = (at as Record<string, unknown>)[segment];
    expect(configValue({ x: at }, 'x')).toBe(expected);
  });
});
