// The policy's `logs` block schema (docs/policy.md#logs): strict, with redact patterns that must compile.
import { describe, expect, it } from 'vitest';
import { LogsSchema, redactPatternProblem } from '../../../../../src/domain/kit/policy/logs.js';

const messages = (input: unknown) => {
  const parsed = LogsSchema.safeParse(input);
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('LogsSchema', () => {
  it('accepts either key, both, or none', () => {
    expect(messages({})).toEqual([]);
    expect(messages({ allowedFor: ['oncall'] })).toEqual([]);
    expect(messages({ allowedFor: ['oncall'], redact: ['customer-\\d+', 'IBAN [A-Z]{2}'] })).toEqual([]);
    expect(messages({ redact: [] })).toEqual([]);
  });

  it.each([
    [{ allowedFor: [] }, 'allowedFor: list at least one group'],
    [{ allowedFor: 'oncall' }, 'allowedFor: '],
    [{ redact: ['(unclosed'] }, 'redact.0: "(unclosed" is not a valid regular expression'],
    [{ redact: ['a|'] }, 'redact.0: "a|" matches the empty line'],
    [{ redact: [''] }, 'redact.0: must not be empty'],
    [{ redact: ['(a+)+$'] }, 'redact.0: "(a+)+$" repeats a repetition (the group at character 1)'],
    [{ grep: 'x' }, 'Unrecognized key'],
  ])('%j is refused naming the problem', (input, expected) => {
    expect(messages(input).join('\n')).toContain(expected);
  });

  it('names the bad pattern and why', () => {
    expect(redactPatternProblem('[a-')).toMatch(/^"\[a-" is not a valid regular expression: /);
    expect(redactPatternProblem('x'.repeat(501))).toContain('at most 500');
    expect(redactPatternProblem('token-\\w+')).toBeUndefined();
  });

  it.each(['(a+)+$', '(\\w*\\s?)*x', '(?:x{2,})+', 'x((ab)+c)*y', '(a|[b+]+){3,}'])(
    'a pattern that repeats a repetition is refused: %s',
    (pattern) => {
      expect(redactPatternProblem(pattern)).toContain('repeats a repetition');
    },
  );

  it.each(['customer-\\d+', '(a|b)+c', '(\\+)+x', '[(a+)]+', 'x(ab){1}', '(?:key=)\\w+', '(a{1,1})+'])(
    'a pattern without nested repetition is kept: %s',
    (pattern) => {
      expect(redactPatternProblem(pattern)).toBeUndefined();
    },
  );
});
