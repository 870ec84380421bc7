// Zod issues about a policy file turned into one line each, named by its path (`rules[2].require.from[0]: …`),
// with the keys allowed where an unknown one was written and the nearest of them.
import type { z } from 'zod';
import { nearest } from '../../kit/policy/nearest.js';
import { PolicySchema } from './schema.js';

/** `rules[2].require.from[0]`; keys that are not identifiers are quoted: `groups["a b"]`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (typeof seg === 'string' && /^[A-Za-z_][A-Za-z0-9_-]*$/.test(seg)) out += out ? `.${seg}` : seg;
    else out += `[${JSON.stringify(String(seg))}]`;
  }
  return out || '(top level)';
}

type Def = {
  type: string;
  innerType?: Schema;
  in?: Schema;
  shape?: Record<string, Schema>;
  element?: Schema;
  valueType?: Schema;
};
type Schema = { _zod: { def: unknown } };

/** The object keys allowed at `path`, found by walking the schema (for "did you mean" on unknown keys). */
function allowedKeysAt(path: readonly PropertyKey[]): string[] {
  let schema: Schema | undefined = PolicySchema as unknown as Schema;
  const unwrap = (s: Schema | undefined): Schema | undefined => {
    let current = s;
    for (
      let def = current?._zod.def as Def | undefined;
      def && (def.innerType || def.in);
      def = current?._zod.def as Def | undefined
    ) {
      current = def.innerType ?? def.in;
    }
    return current;
  };
  for (const seg of path) {
    const def = unwrap(schema)?._zod.def as Def | undefined;
    if (def?.type === 'object') schema = def.shape?.[String(seg)];
    else if (def?.type === 'array') schema = def.element;
    else if (def?.type === 'record') schema = def.valueType;
    else return [];
  }
  const def = unwrap(schema)?._zod.def as Def | undefined;
  return def?.type === 'object' && def.shape ? Object.keys(def.shape) : [];
}

function describeType(input: unknown): string {
  if (input === null) return 'null';
  if (Array.isArray(input)) return 'a list';
  if (typeof input === 'object') return 'a mapping';
  return `${typeof input} ${JSON.stringify(input)}`;
}

const TYPE_WORDS: Record<string, string> = {
  object: 'a mapping',
  record: 'a mapping',
  array: 'a list',
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
};

/** One line per problem, each starting with its path. */
export function issueLines(issues: readonly z.core.$ZodIssue[]): string[] {
  const lines: string[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      const allowed = allowedKeysAt(issue.path);
      for (const key of issue.keys) {
        const hint = nearest(key, allowed);
        const tail = hint ? ` (did you mean "${hint}"?)` : allowed.length ? ` (allowed: ${allowed.join(', ')})` : '';
        lines.push(`${formatPath([...issue.path, key])}: unknown key${tail}`);
      }
    } else if (issue.code === 'invalid_type') {
      const expected = TYPE_WORDS[issue.expected] ?? issue.expected;
      const present = 'input' in issue && issue.input !== undefined;
      lines.push(
        `${formatPath(issue.path)}: ${present ? `must be ${expected}, not ${describeType(issue.input)}` : `required (${expected})`}`,
      );
    } else if (issue.code === 'invalid_value' && !('input' in issue && issue.input !== undefined)) {
      lines.push(`${formatPath(issue.path)}: required (${issue.message})`);
    } else {
      lines.push(`${formatPath(issue.path)}: ${issue.message}`);
    }
  }
  return lines;
}
