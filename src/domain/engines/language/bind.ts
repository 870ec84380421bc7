// Binding a verb's tokens to its arguments and flags (values checked one by one), and the refusals that name what
// was wrong with the usage of the verb it concerns.
import type { ParseResult } from './requests.js';
import {
  FLAG_OWNERS,
  argPlaceholder,
  flagSyntax,
  spelledVerb,
  usageLine,
  verbSpec,
  type Bound,
  type FlagSpec,
  type Verb,
  type VerbSpec,
} from './verbs.js';
import { VALUE_KINDS, show, type Env } from '../../kit/language/values.js';
import { nearest } from '../../kit/language/suggest.js';
import type { Token } from '../../kit/language/tokenize.js';
import { looksLikeZone } from '../../kit/schedule/run-at.js';

export type Reply = Extract<ParseResult, { type: 'reply' }>;
export type Binding = { ok: true; bound: Bound } | { ok: false; reply: Reply };

const BOOLEAN_WORDS = /^(true|false|yes|no|on|off)$/i;

/** A switch given a value: `--public=yes`, or `--public true` (which would otherwise be an odd positional). */
export function switchProblem(flag: Extract<Token, { type: 'flag' }>, next: Token | undefined): string | undefined {
  const valued = flag.value !== undefined || (next?.type === 'word' && !next.quoted && BOOLEAN_WORDS.test(next.text));
  return valued ? `--${flag.name} takes no value; write just --${flag.name} (leave it out for the default)` : undefined;
}

interface Positional {
  text: string;
  /** Set when this word followed an unquoted free-text value: probably the rest of an unquoted --reason. */
  spill?: { flag: string; words: string[] };
}

export function bind(verb: Verb, tokens: readonly Token[], env: Env): Binding {
  const spec = verbSpec(verb);
  const positionals: Positional[] = [];
  const given = new Map<FlagSpec, string[]>();
  let spill: Positional['spill'];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as Token;
    if (t.type === 'word') {
      spill?.words.push(t.text);
      positionals.push({ text: t.text, spill });
      continue;
    }
    spill = undefined;
    const flag = spec.flags.find((f) => f.name === t.name);
    if (flag === undefined) return { ok: false, reply: unknownFlag(env, verb, spec, t) };
    if (flag.kind === VALUE_KINDS.switch) {
      const problem = switchProblem(t, tokens[i + 1]);
      if (problem !== undefined) return { ok: false, reply: refuse(env, verb, problem) };
      given.set(flag, ['']);
      continue;
    }
    let value = t.value;
    let quoted = t.quoted;
    if (value === undefined) {
      const next = tokens[i + 1];
      if (next?.type !== 'word')
        return { ok: false, reply: refuse(env, verb, `--${flag.name} needs a value: ${flagSyntax(flag)}`) };
      value = next.text;
      quoted = next.quoted;
      i++;
    }
    // `--at 02:00 Europe/Berlin` unquoted: the zone is the next word.
    const zone = tokens[i + 1];
    if (flag.kind === VALUE_KINDS.time && zone?.type === 'word' && !zone.quoted && looksLikeZone(value, zone.text)) {
      value = `${value} ${zone.text}`;
      i++;
    }
    if (flag.kind === VALUE_KINDS.text && !quoted) spill = { flag: flag.name, words: [value] };
    given.set(flag, [...(given.get(flag) ?? []), value]);
  }
  const bound: Bound = { incidentChannels: [], public: false };
  const args = bindArgs(verb, spec, positionals, bound, env);
  if (args !== undefined) return { ok: false, reply: args };
  for (const flag of spec.flags) {
    const values = given.get(flag);
    if (values === undefined) {
      if (flag.required)
        return { ok: false, reply: refuse(env, verb, `${spelledVerb(verb)} needs ${flagSyntax(flag)}`) };
      continue;
    }
    const problem = bindFlag(flag, values, bound, env);
    if (problem !== undefined) return { ok: false, reply: refuse(env, verb, problem.message, problem.suggestion) };
  }
  return validated(verb, { ok: true, bound }, env);
}

function bindArgs(
  verb: Verb,
  spec: VerbSpec,
  positionals: readonly Positional[],
  bound: Bound,
  env: Env,
): Reply | undefined {
  const rest = spec.args.at(-1)?.rest;
  if (rest !== undefined) return bindRest(verb, spec, positionals, bound, env, rest.max);
  if (positionals.length > spec.args.length) {
    const spilled = positionals.find((p) => p.spill !== undefined)?.spill;
    if (spilled !== undefined) return spillRefusal(env, verb, spilled);
    const extra = positionals[spec.args.length]?.text ?? '';
    const dashHint = /^-[a-z]/i.test(extra) ? `; options start with two dashes (-${extra})` : '';
    const takes =
      spec.args.length === 0
        ? `${spelledVerb(verb)} takes no arguments`
        : `${spelledVerb(verb)} takes ${spec.args.map(argPlaceholder).join(' ')}`;
    return refuse(env, verb, `unexpected ${show(extra)}: ${takes}${dashHint}`);
  }
  for (const [k, arg] of spec.args.entries()) {
    const p = positionals[k];
    if (p === undefined) {
      if (arg.required) return refuse(env, verb, `${spelledVerb(verb)} needs ${argPlaceholder(arg)}`);
      continue;
    }
    const checked = arg.kind.check(p.text, env, argPlaceholder(arg).replace(/^<(.*)>$/, '$1'));
    if (!checked.ok) return refuse(env, verb, checked.message, checked.suggestion);
    (bound as Record<string, unknown>)[arg.key] = checked.value;
  }
  return undefined;
}

function spillRefusal(env: Env, verb: Verb, spilled: NonNullable<Positional['spill']>): Reply {
  const words = Array.from(spilled.words.join(' '));
  const text = words.length > 60 ? `${words.slice(0, 60).join('')}…` : words.join('');
  return refuse(env, verb, `--${spilled.flag} takes one word unless quoted; write \`--${spilled.flag} "${text}"\``);
}

/** Args whose last one takes every remaining word (each checked alone, at most `max`): bound as a list. */
function bindRest(
  verb: Verb,
  spec: VerbSpec,
  positionals: readonly Positional[],
  bound: Bound,
  env: Env,
  max: number,
): Reply | undefined {
  const fixed = spec.args.length - 1;
  const last = spec.args[fixed] as VerbSpec['args'][number];
  const extra = positionals.length - fixed;
  if (extra > max)
    return refuse(
      env,
      verb,
      `${spelledVerb(verb)} takes at most ${max} of ${argPlaceholder(last)} in one command; got ${extra}`,
    );
  const problem = bindArgs(verb, { ...spec, args: spec.args.slice(0, fixed) }, positionals.slice(0, fixed), bound, env);
  if (problem !== undefined) return problem;
  if (extra <= 0)
    return last.required ? refuse(env, verb, `${spelledVerb(verb)} needs ${argPlaceholder(last)}`) : undefined;
  const values: unknown[] = [];
  for (const p of positionals.slice(fixed)) {
    if (p.spill !== undefined) return spillRefusal(env, verb, p.spill);
    const checked = last.kind.check(p.text, env, argPlaceholder(last));
    if (!checked.ok) return refuse(env, verb, checked.message, checked.suggestion);
    values.push(checked.value);
  }
  (bound as Record<string, unknown>)[last.key] = values;
  return undefined;
}

function bindFlag(
  flag: FlagSpec,
  values: readonly string[],
  bound: Bound,
  env: Env,
): { message: string; suggestion?: string } | undefined {
  const checkedValues: unknown[] = [];
  for (const value of values) {
    const checked = flag.kind.check(value, env, `--${flag.name}`);
    if (!checked.ok) return checked;
    if (!checkedValues.includes(checked.value)) checkedValues.push(checked.value);
  }
  if (flag.repeatable) {
    (bound as Record<string, unknown>)[flag.key] = checkedValues;
    return undefined;
  }
  if (checkedValues.length > 1) {
    const shown = values.map((v) => show(v, 30)).join(', ');
    return {
      message: `--${flag.name} was given ${values.length} times with different values (${shown}); give it once`,
    };
  }
  (bound as Record<string, unknown>)[flag.key] = checkedValues[0];
  return undefined;
}

function unknownFlag(env: Env, verb: Verb, spec: VerbSpec, t: Extract<Token, { type: 'flag' }>): Reply {
  const owners = FLAG_OWNERS.get(t.name);
  if (owners !== undefined) {
    const names = owners.map(spelledVerb);
    const list = names.length <= 3 ? names.join(', ') : `${names.slice(0, 3).join(', ')} and others`;
    return refuse(env, verb, `--${t.name} is not an option of ${spelledVerb(verb)}; it belongs to ${list}`);
  }
  const names = spec.flags.map((f) => f.name);
  const suggestion = nearest(t.name, names);
  if (suggestion !== undefined) {
    return refuse(
      env,
      verb,
      `unknown option ${show(t.raw)} for ${spelledVerb(verb)}; did you mean --${suggestion}?`,
      `--${suggestion}`,
    );
  }
  const options =
    names.length === 0
      ? `${spelledVerb(verb)} takes no options`
      : `its options are ${names.map((n) => `--${n}`).join(', ')}`;
  return refuse(env, verb, `unknown option ${show(t.raw)} for ${spelledVerb(verb)}; ${options}`);
}

/** The verb's own cross-value check (e.g. `config … set` needs `key=value`), after every value bound. */
function validated(verb: Verb, binding: Binding, env: Env): Binding {
  if (!binding.ok) return binding;
  if (binding.bound.at !== undefined && binding.bound.window !== undefined) {
    return { ok: false, reply: refuse(env, verb, 'give either --at or --window, not both') };
  }
  // Break-glass runs now or not at all (docs/policy.md#break-glass): a change planted for later skips nobody's approval.
  if (binding.bound.breakGlass === true && (binding.bound.at !== undefined || binding.bound.window !== undefined)) {
    const problem =
      '--break-glass runs now or not at all: it cannot be combined with --at or --window (request the scheduled change without --break-glass, so it is approved); nothing was recorded';
    return { ok: false, reply: refuse(env, verb, problem) };
  }
  const problem = verbSpec(verb).validate?.(binding.bound);
  return problem === undefined ? binding : { ok: false, reply: refuse(env, verb, problem) };
}

/** Every refusal says what was wrong and shows the usage of the verb it concerns. */
export function refuse(env: Env, verb: Verb | undefined, problem: string, suggestion?: string): Reply {
  const message = `${problem}\nUsage: \`${usageLine(verb ?? '', env.command)}\``;
  return suggestion === undefined ? { type: 'reply', message } : { type: 'reply', message, suggestion };
}
