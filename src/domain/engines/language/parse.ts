// Parses /flink command text into an operation intent, a query, a command or a reply; never throws.
import { KINDS, OperationIntentSchema, isKindName, undo, type OperationIntent } from '../../kinds/index.js';
import { CommandSchema, QuerySchema, type ParseResult } from './requests.js';
import {
  DEFAULT_COMMAND,
  HELP_FLAG,
  VERB_NAMES,
  VERB_SYNONYMS,
  argPlaceholder,
  isVerb,
  spelledVerb,
  verbFamily,
  verbSpec,
  type Bound,
  type Verb,
} from './verbs.js';
import { show, type Env } from '../../kit/language/values.js';
import { nearest } from '../../kit/language/suggest.js';
import { tokenize, unwrapLinks, type Token } from '../../kit/language/tokenize.js';
import { bind, refuse, switchProblem, type Reply } from './bind.js';
import { DEFAULT_LOG_LINES } from '../../kit/language/logs.js';
import type { ListPageNumber } from '../../kit/language/list.js';

export { usageLine } from './verbs.js';

export interface ParseContext {
  /** The channel's default namespace from the policy; bare target names use it. */
  defaultNamespace?: string;
  /** The slash command as configured (`SLACK_COMMAND`), used in usage lines. */
  command?: string;
}

const OPERATION_VERBS = VERB_NAMES.filter((v) => verbSpec(v).group === 'operation');
const OPERATION_SYNONYMS = Object.fromEntries(
  Object.entries(VERB_SYNONYMS).filter(([, v]) => OPERATION_VERBS.includes(v)),
);

/** Drops undefined fields so results compare exactly and match what the schemas produce. */
function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

const common = (b: Bound) =>
  defined({
    reason: b.reason,
    incidentChannels: b.incidentChannels,
    at: b.at,
    window: b.window,
    breakGlass: b.breakGlass === true ? true : undefined,
  });
const q = (query: Extract<ParseResult, { type: 'query' }>['query']): ParseResult => ({ type: 'query', query });
const op = (intent: Record<string, unknown>): ParseResult => ({ type: 'intent', intent: intent as OperationIntent });
const cmd = (command: Extract<ParseResult, { type: 'command' }>['command']): ParseResult => ({
  type: 'command',
  command,
});

// Required arguments are guaranteed by bind(); `!` marks where, and finish() re-checks with the schemas.
const BUILDERS = {
  help: (b) => q(defined({ kind: 'help', verb: b.verb, public: b.public })),
  status: (b) => q({ kind: 'status', target: b.target!, public: b.public }),
  list: (b) =>
    q(
      defined({
        kind: 'list',
        namespace: b.namespace,
        cluster: b.cluster as string | undefined,
        page: b.page as ListPageNumber | undefined,
        public: b.public,
      }),
    ),
  ops: (b) => q(defined({ kind: 'ops', target: b.target, limit: b.limit ?? 10, public: b.public })),
  op: (b) => q({ kind: 'op', opId: b.opId!, public: b.public }),
  explain: (b) => q({ kind: 'explain', intent: b.command as OperationIntent, public: b.public }),
  locks: (b) => q({ kind: 'locks', public: b.public }),
  savepoints: (b) => q({ kind: 'savepoints', target: b.target!, limit: b.limit ?? 10, public: b.public }),
  exceptions: (b) => q({ kind: 'exceptions', target: b.target!, limit: b.limit ?? 10, public: b.public }),
  logs: (b) =>
    q(
      defined({
        kind: 'logs',
        target: b.target!,
        tm: b.tm as number | undefined,
        lines: (b.lines as number | undefined) ?? DEFAULT_LOG_LINES,
        grep: b.grep as string | undefined,
        public: false,
      }),
    ),
  cancel: (b) => cmd({ kind: 'cancel', opId: b.opId! }),
  lock: (b) =>
    cmd(defined({ kind: 'lock', target: b.target!, reason: b.reason!, forMs: b.forMs as number | undefined })),
  unlock: (b) => cmd({ kind: 'unlock', target: b.target! }),
} satisfies Record<Exclude<Verb, OperationVerb>, (b: Bound) => ParseResult>;

type OperationVerb = keyof typeof KINDS | typeof undo.name;

/** An operation verb's intent: the kind's own fields from its verb, then the options every operation takes. */
function operationIntent(verb: OperationVerb, b: Bound): ParseResult {
  const fields = isKindName(verb) ? KINDS[verb].verb.build(b) : undo.verb.build(b);
  return op(defined({ kind: verb, ...fields, ...common(b) }));
}

function build(verb: Verb, b: Bound): ParseResult {
  return verb === undo.name || isKindName(verb)
    ? operationIntent(verb, b)
    : BUILDERS[verb as Exclude<Verb, OperationVerb>](b);
}

/**
 * The command language (docs/commands.md#command-reference). Repeated flags: `--incident` accumulates (duplicates
 * dropped); a switch may repeat; any other flag may repeat only with the same value, else it is refused naming the flag
 * (a silent last-wins could run `--mode stateless` when the person also wrote `--mode savepoint`).
 */
export function parseCommand(text: string, ctx: ParseContext): ParseResult {
  const env: Env = { ctx, command: ctx.command ?? DEFAULT_COMMAND };
  const tokenized = tokenize(text);
  if (!tokenized.ok) {
    const first = text.trim().split(/\s+/, 1)[0]?.toLowerCase() ?? '';
    return refuse(env, isVerb(first) ? first : undefined, tokenized.message);
  }
  let tokens = tokenized.tokens;
  // Slack strips the command; a person pasting "/flink status x" into the text still means "status x".
  const head = tokens[0];
  if (head?.type === 'word' && head.text.toLowerCase() === env.command.toLowerCase()) tokens = tokens.slice(1);
  return parseTokens(tokens, env);
}

/**
 * A family word and one of its words (`gitops resume`) folded into the one word of the verb they name
 * (docs/commands.md#flink-gitops-resume); anything else as it is.
 */
function folded(tokens: readonly Token[]): readonly Token[] {
  const [first, second, ...rest] = tokens;
  if (first?.type !== 'word' || second?.type !== 'word') return tokens;
  const verb = verbFamily(unwrapLinks(first.text))?.get(second.text.toLowerCase());
  return verb === undefined ? tokens : [{ type: 'word', text: verb, quoted: false }, ...rest];
}

/** A family word without one of its words: say which ones it takes. */
function familyRefusal(env: Env, word: string, next: Token | undefined, usageVerb?: Verb): Reply {
  const verbs = [...(verbFamily(word)?.values() ?? [])];
  const shown = verbs.map(
    (v) =>
      `\`${[
        spelledVerb(v),
        ...verbSpec(v)
          .args.filter((a) => a.required)
          .map(argPlaceholder),
      ].join(' ')}\``,
  );
  const use = `use ${shown.join(' or ')}`;
  const problem =
    next?.type === 'word' ? `unknown ${word} command ${show(next.text)}; ${use}` : `${word} needs a command; ${use}`;
  return refuse(env, usageVerb ?? (verbs.length === 1 ? verbs[0] : undefined), problem);
}

function parseTokens(all: readonly Token[], env: Env): ParseResult {
  const [first, ...rest] = folded(all);
  if (first === undefined) return q({ kind: 'help', public: false });
  if (first.type === 'flag') {
    if (first.name === HELP_FLAG) return q({ kind: 'help', public: false });
    return refuse(
      env,
      undefined,
      `start with a command word, e.g. \`${env.command} status <target>\`; ${show(first.raw)} is an option`,
    );
  }
  const word = unwrapLinks(first.text).toLowerCase();
  const asksHelp = rest.some((t) => t.type === 'flag' && t.name === HELP_FLAG);
  if (!isVerb(word)) {
    if (verbFamily(word) === undefined) return unknownVerb(env, first.text, VERB_NAMES, VERB_SYNONYMS, 'command');
    return asksHelp ? q({ kind: 'help', verb: word, public: false }) : familyRefusal(env, word, rest[0]);
  }
  if (asksHelp) return q({ kind: 'help', verb: word, public: false });
  if (word === 'explain') return parseExplain(rest, env);
  const binding = bind(word, word === 'help' ? folded(rest) : rest, env);
  return binding.ok ? finish(build(word, binding.bound)) : binding.reply;
}

/** `explain <operation command…> [--public]`: --public is explain's; everything else is the inner command's. */
function parseExplain(tokens: readonly Token[], env: Env): ParseResult {
  let isPublic = false;
  const inner: Token[] = [];
  for (const [i, t] of tokens.entries()) {
    if (t.type === 'flag' && t.name === 'public') {
      const problem = switchProblem(t, tokens[i + 1]);
      if (problem !== undefined) return refuse(env, 'explain', problem);
      isPublic = true;
    } else inner.push(t);
  }
  const [first, ...rest] = folded(inner);
  if (first === undefined) return refuse(env, 'explain', 'explain needs the operation command to explain');
  if (first.type === 'flag')
    return refuse(env, 'explain', `explain needs an operation command first; ${show(first.raw)} is an option`);
  const word = unwrapLinks(first.text).toLowerCase();
  if (verbFamily(word) !== undefined) return familyRefusal(env, word, rest[0], 'explain');
  if (!isVerb(word)) return unknownVerb(env, first.text, OPERATION_VERBS, OPERATION_SYNONYMS, 'operation', 'explain');
  if (verbSpec(word).group !== 'operation') {
    const problem = `explain works on operation commands (${OPERATION_VERBS.join(', ')}); \`${word}\` is a ${verbSpec(word).group}`;
    return refuse(env, 'explain', problem);
  }
  const binding = bind(word, rest, env);
  if (!binding.ok) return binding.reply;
  const explained = finish(build(word, binding.bound));
  if (explained.type !== 'intent') return explained;
  return finish(BUILDERS.explain({ command: explained.intent, public: isPublic, incidentChannels: [] }));
}

function unknownVerb(
  env: Env,
  word: string,
  candidates: readonly Verb[],
  synonyms: Readonly<Record<string, string>>,
  what: 'command' | 'operation',
  usageVerb?: Verb,
): Reply {
  const suggestion = nearest(word, candidates, synonyms) as Verb | undefined;
  if (suggestion !== undefined) {
    return refuse(
      env,
      usageVerb ?? suggestion,
      `unknown ${what} ${show(word)}; did you mean \`${spelledVerb(suggestion)}\`?`,
      suggestion,
    );
  }
  return refuse(env, usageVerb, `unknown ${what} ${show(word)}; the ${what}s are ${candidates.join(', ')}`);
}

/** The schemas have the last word, so nothing that leaves the parser can be malformed. */
function finish(result: ParseResult): ParseResult {
  switch (result.type) {
    case 'intent': {
      const parsed = OperationIntentSchema.safeParse(result.intent);
      return parsed.success ? { type: 'intent', intent: parsed.data } : malformed(parsed.error.issues);
    }
    case 'query': {
      const parsed = QuerySchema.safeParse(result.query);
      return parsed.success ? { type: 'query', query: parsed.data } : malformed(parsed.error.issues);
    }
    case 'command': {
      const parsed = CommandSchema.safeParse(result.command);
      return parsed.success ? { type: 'command', command: parsed.data } : malformed(parsed.error.issues);
    }
    default:
      return result;
  }
}

function malformed(issues: readonly { path: readonly PropertyKey[]; message: string }[]): Reply {
  const issue = issues[0];
  return {
    type: 'reply',
    message:
      `that command is not well-formed: ${issue?.path.map(String).join('.') ?? ''} ${issue?.message ?? ''}`.trim(),
  };
}
