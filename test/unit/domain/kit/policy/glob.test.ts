// Policy globs (docs/policy.md#glob-matching): `*` is any run of characters, matched without a regular expression, so a
// pattern of many stars against a long name answers at once instead of backtracking.
import { describe, expect, it } from 'vitest';
import { matchesAny, matchesGlob } from '../../../../../src/domain/kit/policy/glob.js';

describe('matchesGlob', () => {
  it('matches exact names, prefixes, suffixes and pieces in order', () => {
    const cases: [string, string, boolean][] = [
      ['prod', 'prod', true],
      ['prod', 'prod-eu', false],
      ['prod-*', 'prod-eu', true],
      ['prod-*', 'prod-', true],
      ['prod-*', 'prod', false],
      ['*-eu', 'prod-eu', true],
      ['*-eu', 'prod-us', false],
      ['*', '', true],
      ['**', 'x', true],
      ['a*a', 'a', false],
      ['a*a', 'aa', true],
      ['team-*-prod-*', 'team-a-prod-eu', true],
      ['team-*-prod-*', 'team-a-staging-eu', false],
      ['execution.checkpointing.*', 'execution.checkpointing.interval', true],
      ['execution.checkpointing.*', 'executionXcheckpointing.interval', false],
      ['*ab*ab*', 'abab', true],
      ['*ab*ab*', 'aba', false],
      ['x*y*z', 'xzyz', true],
      ['x*y*z', 'xzzy', false],
    ];
    for (const [pattern, name, expected] of cases)
      expect(matchesGlob(pattern, name), `${pattern} ~ ${name}`).toBe(expected);
  });

  it('a pattern of many stars against a long name answers (a regular expression backtracks for hours)', () => {
    const name = 'a'.repeat(5000);
    expect(matchesGlob('*a*a*a*a*a*a*b', name)).toBe(false);
    expect(matchesGlob('*a*a*a*a*a*a*a', name)).toBe(true);
    expect(matchesAny(['*a*a*a*a*a*a*b', `${'a*'.repeat(30)}c`], name)).toBe(false);
  });
});
