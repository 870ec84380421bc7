// The `logs` verb (docs/commands.md#flink-logs) as the parser reads it: one table of inputs and results.
import { describe, expect, it } from 'vitest';
import { parseCommand } from '../../../../../src/domain/engines/language/parse.js';
import type { ParseResult } from '../../../../../src/domain/engines/language/requests.js';

const ctx = { defaultNamespace: 'streaming-prod' };
const deployment = (namespace: string, name: string) => ({ kind: 'FlinkDeployment', namespace, name });
const logs = (fields: Record<string, unknown>): ParseResult =>
  ({ type: 'query', query: { kind: 'logs', lines: 50, public: false, ...fields } }) as ParseResult;

describe('logs parses', () => {
  it.each<[string, ParseResult]>([
    ['logs orders', logs({ target: deployment('streaming-prod', 'orders') })],
    ['logs streaming-dev/orders --tm 2', logs({ target: deployment('streaming-dev', 'orders'), tm: 2 })],
    ['logs orders --lines 500', logs({ target: deployment('streaming-prod', 'orders'), lines: 500 })],
    [
      'logs orders --lines 1 --grep Checkpoint',
      logs({ target: deployment('streaming-prod', 'orders'), lines: 1, grep: 'Checkpoint' }),
    ],
    [
      'logs orders --grep "switched from"',
      logs({ target: deployment('streaming-prod', 'orders'), grep: 'switched from' }),
    ],
    [
      'LOGS sessionjob:streaming-prod/etl',
      logs({ target: { kind: 'FlinkSessionJob', namespace: 'streaming-prod', name: 'etl' } }),
    ],
  ])('%s', (text, expected) => {
    expect(parseCommand(text, ctx)).toEqual(expected);
  });
});

describe('logs refuses clearly', () => {
  it.each([
    ['logs orders --lines 9999', '--lines must be a whole number from 1 to 500; got "9999"'],
    ['logs orders --lines 0', '--lines must be a whole number from 1 to 500'],
    ['logs orders --tm 0', '--tm must be a whole number from 1 to 32768'],
    ['logs orders --tm one', '--tm must be a whole number'],
    ['logs orders --grep ""', '--grep needs the text to look for'],
    ['logs orders --public', '--public is not an option of logs'],
    ['logs', 'logs needs <target>'],
    ['log orders', 'did you mean `logs`?'],
  ])('%s', (text, message) => {
    const result = parseCommand(text, ctx);
    expect(result.type).toBe('reply');
    expect(result.type === 'reply' ? result.message : '').toContain(message);
  });
});
