// Help and parser share one table: every documented verb, flag and example parses; nothing undocumented does.
import { describe, expect, it } from 'vitest';
import { parseCommand, type ParseContext } from '../../src/domain/language/parse.js';
import { FLAG_OWNERS, VERB_NAMES, argPlaceholder, verbSpec, type ValueKind, type Verb } from '../../src/domain/language/verbs.js';
import { helpText, usageLine } from '../../src/domain/language/help.js';
import type { ParseResult } from '../../src/domain/language/requests.js';

const CTX: ParseContext = { defaultNamespace: 'analytics' };

/** A valid value of each kind, to build commands that use every flag. */
const SAMPLE: Record<ValueKind, string> = {
  target: 'analytics/clickstream',
  namespace: 'analytics',
  verb: 'scale',
  opId: 'op-7f3c2a9b',
  parallelism: '4',
  limit: '5',
  mode: 'savepoint',
  image: 'ghcr.io/acme/app:1.2',
  uri: 's3://bucket/savepoints/sp-1',
  memory: '4g',
  cpu: '2',
  configAction: 'set',
  configEntry: 'execution.checkpointing.interval=30s',
  text: '"why not"',
  channel: '<#C0123ABCD|inc>',
  command: 'scale analytics/clickstream 4',
  time: '02:00',
  window: 'nightly',
  switch: '',
};

/** What a verb's own cross-value check needs beyond its required values (resources: at least one of its flags). */
const AT_LEAST_ONE: Partial<Record<Verb, string[]>> = { resources: ['--tm-cpu', '2'] };

/** The verb's required arguments and flags, filled with samples. */
function minimal(verb: Verb): string[] {
  const spec = verbSpec(verb);
  const args = spec.args.filter((a) => a.required).map((a) => SAMPLE[a.kind]);
  const flags = spec.flags.filter((f) => f.required).flatMap((f) => [`--${f.name}`, SAMPLE[f.kind]]);
  return [verb, ...args, ...flags, ...(AT_LEAST_ONE[verb] ?? [])];
}

/** What a verb's result is called in the result union. */
function kindOf(result: ParseResult): string | undefined {
  if (result.type === 'intent') return result.intent.kind;
  if (result.type === 'query') return result.query.kind;
  if (result.type === 'command') return result.command.kind;
  return undefined;
}

const GROUP_RESULT = { query: 'query', operation: 'intent', command: 'command' } as const;

/** Flags named in help text; `--flag value …` is the generic syntax line, not a flag. */
const flagsIn = (text: string) =>
  new Set(Array.from(text.matchAll(/--([a-z][a-z-]*)/g), (m) => m[1] as string).filter((name) => name !== 'flag'));

describe('help', () => {
  it.each(VERB_NAMES.flatMap((verb) => verbSpec(verb).examples.map((example) => [verb, example] as const)))(
    '%s example parses: %s',
    (verb, example) => {
      const result = parseCommand(example, CTX);
      expect(result.type, JSON.stringify(result)).toBe(GROUP_RESULT[verbSpec(verb).group]);
      expect(kindOf(result)).toBe(verb);
    },
  );

  it.each(VERB_NAMES)('parses every documented flag of %s, and shows each in its help', (verb) => {
    const text = helpText(verb);
    expect(text).toContain(`Usage: \`${usageLine(verb)}\``);
    for (const flag of verbSpec(verb).flags) {
      expect(text).toContain(`--${flag.name}`);
      expect(text).toContain(flag.description);
      const withFlag = flag.required ? minimal(verb) : [...minimal(verb), `--${flag.name}`, SAMPLE[flag.kind]];
      const result = parseCommand(withFlag.join(' '), CTX);
      expect(result.type, `${withFlag.join(' ')} → ${JSON.stringify(result)}`).toBe(GROUP_RESULT[verbSpec(verb).group]);
    }
  });

  it.each(VERB_NAMES)('refuses flags %s does not document', (verb) => {
    // explain's other flags belong to the operation it explains, and its examples show them.
    const inner = verb === 'explain' ? VERB_NAMES.filter((v) => verbSpec(v).group === 'operation').flatMap((v) => verbSpec(v).flags) : [];
    const own = new Set([...verbSpec(verb).flags, ...inner].map((f) => f.name));
    const shown = flagsIn(helpText(verb));
    for (const name of [...FLAG_OWNERS.keys(), 'bogus']) {
      if (own.has(name)) continue;
      expect(shown.has(name), `help for ${verb} mentions --${name}`).toBe(false);
      const result = parseCommand([...minimal(verb), `--${name}`, 'x'].join(' '), CTX);
      expect(result.type).toBe('reply');
    }
  });

  it('documents every verb and every flag in the overview, and nothing the parser refuses', () => {
    const overview = helpText();
    for (const verb of VERB_NAMES) expect(overview).toContain(`/flink ${verb}`);
    const documented = flagsIn(overview);
    for (const name of FLAG_OWNERS.keys()) expect(documented, `--${name}`).toContain(name);
    for (const name of documented) {
      const owner = FLAG_OWNERS.get(name)?.[0];
      if (owner === undefined) {
        // Only --help is global; it turns any command into its help.
        expect(name).toBe('help');
        expect(parseCommand('restart analytics/clickstream --help', CTX)).toStrictEqual({ type: 'query', query: { kind: 'help', verb: 'restart', public: false } });
        continue;
      }
      const flag = verbSpec(owner).flags.find((f) => f.name === name);
      const args = flag?.required ? minimal(owner) : [...minimal(owner), `--${name}`, SAMPLE[flag?.kind ?? 'switch']];
      expect(parseCommand(args.join(' '), CTX).type).not.toBe('reply');
    }
  });

  it('documents each argument of each verb', () => {
    for (const verb of VERB_NAMES) {
      const text = helpText(verb);
      for (const arg of verbSpec(verb).args) expect(text).toContain(`• \`${argPlaceholder(arg)}\``);
      const argLines = text.split('\n').filter((l) => l.startsWith('• `') && !l.startsWith('• `--') && !l.startsWith('• `/'));
      expect(argLines.length).toBe(verbSpec(verb).args.length);
    }
  });

  it('answers an unknown verb with the nearest one and the overview', () => {
    const text = helpText('sacle');
    expect(text).toMatch(/^Unknown command "sacle"\. Did you mean `scale`\?/);
    expect(text).toContain(helpText());
  });

  it('uses the configured command name', () => {
    expect(helpText(undefined, '/ops')).toContain('`/ops scale <target> <parallelism> [--reset-autoscaler]`');
    expect(helpText('scale', '/ops')).toContain('Usage: `/ops scale <target> <parallelism> [--reset-autoscaler]');
    expect(helpText('scale', '/ops')).not.toContain('/flink');
  });

  it('shows channel examples as people type them', () => {
    expect(helpText('restart')).toContain('--incident #inc-4711');
    expect(helpText('restart')).not.toContain('<#C');
  });
});
