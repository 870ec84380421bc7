// Help and parser share one table: every documented verb, flag and example parses; nothing undocumented does.
import { describe, expect, it } from 'vitest';
import { parseCommand, type ParseContext } from '../../../../../src/domain/engines/language/parse.js';
import {
  FLAG_OWNERS,
  VERB_NAMES,
  argPlaceholder,
  spelledVerb,
  verbSpec,
  type FlagSpec,
  type Verb,
} from '../../../../../src/domain/engines/language/verbs.js';
import { helpText, usageLine } from '../../../../../src/domain/engines/language/help.js';
import type { ParseResult } from '../../../../../src/domain/engines/language/requests.js';

const CTX: ParseContext = { defaultNamespace: 'analytics' };

/** The verb's required arguments and flags, each filled with its value's own example. */
function required(verb: Verb): string {
  const spec = verbSpec(verb);
  const args = spec.args.filter((a) => a.required).map((a) => a.kind.example);
  const flags = spec.flags.filter((f) => f.required).flatMap((f) => [`--${f.name}`, f.kind.example]);
  return [verb, ...args, ...flags].join(' ');
}

/** A command of the verb that parses: its required values, or its first example when its own check wants more. */
function minimal(verb: Verb): string {
  const command = required(verb);
  return parseCommand(command, CTX).type === 'reply' ? (verbSpec(verb).examples[0] ?? command) : command;
}

/** `minimal` with `flag` given (as it is when the flag is required or the example already shows it). */
function withFlag(verb: Verb, flag: FlagSpec): string {
  const command = minimal(verb);
  if (flag.required || new RegExp(`--${flag.name}(?=[\\s=]|$)`).test(command)) return command;
  return `${command} --${flag.name} ${flag.kind.example}`.trimEnd();
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
      const command = withFlag(verb, flag);
      const result = parseCommand(command, CTX);
      expect(result.type, `${command} → ${JSON.stringify(result)}`).toBe(GROUP_RESULT[verbSpec(verb).group]);
    }
  });

  it.each(VERB_NAMES)('refuses flags %s does not document', (verb) => {
    // explain's other flags belong to the operation it explains, and its examples show them.
    const inner =
      verb === 'explain'
        ? VERB_NAMES.filter((v) => verbSpec(v).group === 'operation').flatMap((v) => verbSpec(v).flags)
        : [];
    const own = new Set([...verbSpec(verb).flags, ...inner].map((f) => f.name));
    const shown = flagsIn(helpText(verb));
    for (const name of [...FLAG_OWNERS.keys(), 'bogus']) {
      if (own.has(name)) continue;
      expect(shown.has(name), `help for ${verb} mentions --${name}`).toBe(false);
      const result = parseCommand(`${minimal(verb)} --${name} x`, CTX);
      expect(result.type).toBe('reply');
    }
  });

  it('documents every verb and every flag in the overview, and nothing the parser refuses', () => {
    const overview = helpText();
    for (const verb of VERB_NAMES) expect(overview).toContain(`/flink ${spelledVerb(verb)}`);
    const documented = flagsIn(overview);
    for (const name of FLAG_OWNERS.keys()) expect(documented, `--${name}`).toContain(name);
    for (const name of documented) {
      const owner = FLAG_OWNERS.get(name)?.[0];
      if (owner === undefined) {
        // Only --help is global; it turns any command into its help.
        expect(name).toBe('help');
        expect(parseCommand('restart analytics/clickstream --help', CTX)).toStrictEqual({
          type: 'query',
          query: { kind: 'help', verb: 'restart', public: false },
        });
        continue;
      }
      const flag = verbSpec(owner).flags.find((f) => f.name === name);
      expect(flag, `--${name} of ${owner}`).toBeDefined();
      if (flag !== undefined) expect(parseCommand(withFlag(owner, flag), CTX).type).not.toBe('reply');
    }
  });

  it('documents each argument of each verb', () => {
    for (const verb of VERB_NAMES) {
      const text = helpText(verb);
      for (const arg of verbSpec(verb).args) expect(text).toContain(`• \`${argPlaceholder(arg)}\``);
      const argLines = text
        .split('\n')
        .filter((l) => l.startsWith('• `') && !l.startsWith('• `--') && !l.startsWith('• `/'));
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

  it('writes a two-word verb as it is typed, and shows it for its family word', () => {
    const text = helpText('gitops-resume');
    expect(text).toMatch(/^\*\/flink gitops resume\* — end a GitOps pause/);
    expect(text).toContain('Usage: `/flink gitops resume <target> [--reason "…"]');
    expect(helpText('gitops')).toBe(text);
    expect(helpText()).toContain('• `/flink gitops resume <target>` — end a GitOps pause');
    expect(usageLine('gitops-resume', '/ops')).toMatch(/^\/ops gitops resume <target> /);
  });

  it('shows channel examples as people type them', () => {
    expect(helpText('restart')).toContain('--incident #inc-4711');
    expect(helpText('restart')).not.toContain('<#C');
  });
});
