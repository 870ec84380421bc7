// The `list` verb (docs/commands.md#paging-through-list) as the parser reads it: its page and cluster, and the
// refusals of a page or cluster that cannot be.
import { describe, expect, it } from 'vitest';
import { helpText } from '../../../../../src/domain/engines/language/help.js';
import { parseCommand } from '../../../../../src/domain/engines/language/parse.js';
import type { ParseResult } from '../../../../../src/domain/engines/language/requests.js';

const list = (fields: Record<string, unknown> = {}): ParseResult =>
  ({ type: 'query', query: { kind: 'list', public: false, ...fields } }) as ParseResult;

describe('list parses', () => {
  it.each<[string, ParseResult]>([
    ['list', list()],
    ['list --page 1', list({ page: 1 })],
    ['list --page 20', list({ page: 20 })],
    ['list --page 10000', list({ page: 10_000 })],
    ['list --page last', list({ page: 'last' })],
    ['list --page LAST', list({ page: 'last' })],
    ['list streaming-prod --page 2', list({ namespace: 'streaming-prod', page: 2 })],
    ['list --cluster us', list({ cluster: 'us' })],
    ['list --cluster US --page 3 --public', list({ cluster: 'us', page: 3, public: true })],
    ['list --page 2 --page 2', list({ page: 2 })],
  ])('%s', (text, expected) => {
    expect(parseCommand(text, {})).toEqual(expected);
  });
});

describe('list refuses clearly', () => {
  it.each([
    ['list --page 0', '--page takes a page number from 1 to 10000 or `last`; got "0" (pages count from 1)'],
    ['list --page x', '--page takes a page number from 1 to 10000 or `last`; got "x"'],
    ['list --page -1', '--page'],
    ['list --page 2.5', 'got "2.5"'],
    ['list --page 10001', 'got "10001"'],
    ['list --page', '--page needs a value'],
    ['list --page 2 --page 3', '--page'],
    ['list --cluster eu_west', '--cluster: cluster "eu_west" is not a valid cluster name'],
    ['list --cluster', '--cluster needs a value'],
  ])('%s', (text, message) => {
    const result = parseCommand(text, {});
    expect(result.type).toBe('reply');
    expect(result.type === 'reply' ? result.message : '').toContain(message);
    // The refusal shows how to write it.
    expect(result.type === 'reply' ? result.message : '').toContain(
      'Usage: `/flink list [<namespace>] [--page <n>] [--cluster <cluster>] [--public]`',
    );
  });
});

describe('list help', () => {
  it('names the page and cluster options and what they take', () => {
    const help = helpText('list', '/flink');
    expect(help).toContain('--page <n>');
    expect(help).toContain('a page number from 1 to 10000 (default 1), or `last`');
    expect(help).toContain('--cluster <cluster>');
    expect(help).toContain('100 a page, cluster by cluster');
  });
});
