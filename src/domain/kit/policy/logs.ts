// Policy `logs` (docs/policy.md#logs): who may read pod logs with `/flink logs` and which lines are masked. The block
// may stand at the top level and in a `namespaces` entry, every key optional; engines/policy/logs.ts resolves it key by
// key (the namespace's setting wins).
import { z } from 'zod';
import { nestedRepetitionAt } from './nested-repetition.js';

/** One `logs:` block as written; a key left out falls through to the next scope. */
export interface LogsBlock {
  /** Group names; absent: the namespace's requesters. */
  allowedFor?: string[];
  /** Regular expressions (case-insensitive): a line matching one is masked whole. */
  redact?: string[];
}

/** Longer patterns are refused: a redaction list is a few short expressions, and each runs on every line. */
export const MAX_REDACT_PATTERN = 500;

/** The problem with a `redact` pattern, or undefined when it compiles (case-insensitively, as masking uses it). */
export function redactPatternProblem(pattern: string): string | undefined {
  if (pattern.length === 0) return 'must not be empty (an empty pattern would mask every line)';
  if (pattern.length > MAX_REDACT_PATTERN)
    return `is ${pattern.length} characters long; a redact pattern has at most ${MAX_REDACT_PATTERN}`;
  try {
    new RegExp(pattern, 'iu');
  } catch (error) {
    const why = error instanceof Error ? error.message.replace(/^Invalid regular expression: /, '') : String(error);
    return `${JSON.stringify(pattern)} is not a valid regular expression: ${why}`;
  }
  if (new RegExp(pattern, 'iu').test('')) return `${JSON.stringify(pattern)} matches the empty line, so every line`;
  const nested = nestedRepetitionAt(pattern);
  if (nested !== undefined)
    return `${JSON.stringify(pattern)} repeats a repetition (the group at character ${nested + 1}), which can take exponential time on a long line: repeat the group or its content, not both`;
  return undefined;
}

const RedactPattern = z.string().superRefine((value, ctx) => {
  const problem = redactPatternProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

/** The strict schema of one `logs:` block. Group names are checked against `groups` by validatePolicy. */
export const LogsSchema: z.ZodType<LogsBlock> = z.strictObject({
  allowedFor: z
    .array(z.string().min(1, { error: 'must not be empty' }))
    .min(1, { error: 'list at least one group, or leave the key out (then the namespace requesters may read logs)' })
    .optional(),
  redact: z.array(RedactPattern).optional(),
});

/** The compiled `redact` patterns, as masking runs them. */
export function compileRedact(patterns: readonly string[]): RegExp[] {
  return patterns.map((p) => new RegExp(p, 'iu'));
}
