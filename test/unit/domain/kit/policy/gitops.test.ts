import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  DEFAULT_ON_MANAGED,
  DEFAULT_REVERT_WATCH,
  DEFAULT_REVERT_WATCH_MS,
  GITOPS_ON_MANAGED,
  gitopsSchema,
  revertWatchMs,
  type OneOf,
} from '../../../../../src/domain/kit/policy/gitops.js';

/** A stand-in for the policy schema's `oneOf`: the wording is the caller's, so the noun is enough to see. */
const oneOf: OneOf = <T extends string>(values: readonly T[], noun: string) =>
  z.string().refine((v) => (values as readonly string[]).includes(v), {
    error: (iss) => `unknown ${noun} ${JSON.stringify(iss.input)}`,
  }) as unknown as z.ZodType<T>;

const KINDS = ['restart', 'savepoint', 'scale'] as const;
const schema = gitopsSchema(KINDS, oneOf);

function problems(input: unknown): string[] {
  const parsed = schema.safeParse(input);
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}

describe('the gitops block defaults', () => {
  it('are warn and a 15 minute revert watch', () => {
    expect(DEFAULT_ON_MANAGED).toBe('warn');
    expect(DEFAULT_REVERT_WATCH).toBe('15m');
    expect(revertWatchMs(DEFAULT_REVERT_WATCH)).toEqual({ ok: true, ms: DEFAULT_REVERT_WATCH_MS });
    expect(DEFAULT_REVERT_WATCH_MS).toBe(900_000);
    expect(GITOPS_ON_MANAGED).toEqual(['warn', 'refuse', 'pause']);
  });
});

describe('gitopsSchema', () => {
  it('keeps only the keys written, so a later scope can fill the rest', () => {
    expect(schema.parse({})).toEqual({});
    expect(schema.parse({ onManaged: 'refuse' })).toEqual({ onManaged: 'refuse' });
    expect(schema.parse({ exempt: [] })).toEqual({ exempt: [] });
  });

  it('reads every key, the revert watch with its milliseconds', () => {
    expect(schema.parse({ onManaged: 'pause', revertWatch: '30m', exempt: ['savepoint', 'restart'] })).toEqual({
      onManaged: 'pause',
      revertWatch: '30m',
      revertWatchMs: 1_800_000,
      exempt: ['savepoint', 'restart'],
    });
  });

  it('lists an exempt kind once however often it is written', () => {
    expect(schema.parse({ exempt: ['restart', 'savepoint', 'restart'] })).toEqual({ exempt: ['restart', 'savepoint'] });
  });

  it.each([[0], ['0'], ['0s'], ['0m'], [' 0ms ']])('switches the revert watch off with %j', (value) => {
    const parsed = schema.parse({ revertWatch: value });
    expect(parsed.revertWatchMs).toBe(0);
    expect(parsed.revertWatch).toBe(String(value).trim());
  });

  it.each([
    ['15', '"15" is not a duration; write <n>ms, <n>s, <n>m or <n>h (e.g. 30s), or 0 to switch the revert watch off'],
    [15, '"15" is not a duration; write <n>ms, <n>s, <n>m or <n>h (e.g. 30s), or 0 to switch the revert watch off'],
    ['-1m', '"-1m" is not a duration; write <n>ms, <n>s, <n>m or <n>h (e.g. 30s), or 0 to switch the revert watch off'],
    [
      'soon',
      '"soon" is not a duration; write <n>ms, <n>s, <n>m or <n>h (e.g. 30s), or 0 to switch the revert watch off',
    ],
  ])('refuses revertWatch %j, naming the key', (value, message) => {
    expect(problems({ revertWatch: value })).toEqual([`revertWatch: ${message}`]);
  });

  it('words unknown values through the caller, naming each path', () => {
    expect(problems({ onManaged: 'refuze', exempt: ['savepoint', 'rstart'] })).toEqual([
      'onManaged: unknown onManaged setting "refuze"',
      'exempt.1: unknown operation "rstart"',
    ]);
  });

  it('is strict: an unknown key is a problem', () => {
    const parsed = schema.safeParse({ onManage: 'warn' });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues).toMatchObject([{ code: 'unrecognized_keys', keys: ['onManage'] }]);
  });

  it('refuses a list of kinds that is not a list', () => {
    expect(problems({ exempt: 'savepoint' })).toHaveLength(1);
  });
});
