// The one table of the /flink command language — verbs, arguments, flags, value kinds, descriptions and examples —
// read by both the parser (parse.ts) and the help (help.ts). Operation verbs come from the kind modules.
import { KINDS, KIND_NAMES, undo, type KindName } from '../../kinds/index.js';
import {
  DEFAULT_COMMAND,
  OP_ID,
  PUBLIC,
  REASON,
  TARGET,
  type ArgSpec,
  type FlagSpec,
  type OperationVerbSpec,
  type VerbSpec,
} from '../../kit/language/verb-kit.js';
import { VALUE_KINDS, badValue, okValue, show, type ValueSpec } from '../../kit/language/values.js';
import { nearest } from '../../kit/language/suggest.js';
import { LOGS_VERB } from '../../kit/language/logs.js';
import { LIST_VERB } from '../../kit/language/list.js';
import { FREEZE_FOR } from '../../kit/language/freeze-for.js';

export { DEFAULT_COMMAND, VERB_GROUPS } from '../../kit/language/verb-kit.js';
export { VALUE_KINDS } from '../../kit/language/values.js';
export type {
  ArgSpec,
  Bound,
  FlagSpec,
  OperationVerbSpec,
  SharedBound,
  VerbGroup,
  VerbSpec,
} from '../../kit/language/verb-kit.js';
export type { ValueSpec } from '../../kit/language/values.js';

/** The operation verbs, in the registry's order, then undo. */
const OPERATION_VERBS = { ...kindVerbs(), undo: undo.verb };

function kindVerbs(): Record<KindName, OperationVerbSpec> {
  const verbs = {} as Record<KindName, OperationVerbSpec>;
  for (const name of KIND_NAMES) verbs[name] = KINDS[name].verb;
  return verbs;
}

/** `help <verb>`: a command name, checked against this table (so it lives here, not with the shared values). */
const VERB_VALUE: ValueSpec = {
  placeholder: '<verb>',
  description: 'a command name, e.g. `status`',
  example: 'status',
  check: (text) => {
    const verb = text.toLowerCase();
    if (isVerb(verb) || verbFamily(verb) !== undefined) return okValue(verb);
    const suggestion = nearest(verb, VERB_NAMES, VERB_SYNONYMS);
    if (suggestion !== undefined)
      return badValue(`unknown command ${show(text)}; did you mean \`${suggestion}\`?`, suggestion);
    return badValue(`unknown command ${show(text)}; the commands are ${VERB_NAMES.join(', ')}`);
  },
};

export const VERBS = {
  help: {
    group: 'query',
    summary: 'show all commands, or the details of one',
    args: [{ key: 'verb', kind: VERB_VALUE, required: false }],
    flags: [PUBLIC],
    examples: ['help', 'help scale'],
    synonyms: ['?', 'usage', 'man'],
  },
  status: {
    group: 'query',
    summary: 'lifecycle and job state, image, parallelism, upgrade mode, last savepoint, lock, last operation',
    args: [TARGET],
    flags: [PUBLIC],
    examples: [
      'status analytics/clickstream',
      'status clickstream --public',
      'status sessionjob:analytics/sessionizer',
    ],
    synonyms: ['get', 'show', 'describe', 'info', 'state'],
  },
  list: LIST_VERB,
  ops: {
    group: 'query',
    summary: 'recent operations, newest first',
    args: [{ key: 'target', kind: VALUE_KINDS.target, required: false, description: 'only operations on this target' }],
    flags: [
      { name: 'limit', key: 'limit', kind: VALUE_KINDS.limit, description: 'how many to show (1–100, default 10)' },
      PUBLIC,
    ],
    examples: ['ops', 'ops analytics/clickstream --limit 5'],
    synonyms: ['history', 'operations', 'recent'],
  },
  op: {
    group: 'query',
    summary: 'one operation: intent, plan, checks, approvals, history and evidence',
    args: [OP_ID],
    flags: [PUBLIC],
    examples: ['op op-7f3c2a9b'],
    synonyms: ['operation'],
  },
  explain: {
    group: 'query',
    summary: 'the plan and policy decision for an operation command, without running it',
    args: [{ key: 'command', kind: VALUE_KINDS.command, required: true }],
    flags: [PUBLIC],
    examples: [
      'explain scale analytics/clickstream 12',
      'explain upgrade clickstream --image registry.example.com/analytics/clickstream:2.4.1 --public',
    ],
    synonyms: ['plan', 'dry-run', 'dryrun', 'whatif'],
  },
  locks: {
    group: 'query',
    summary: 'current execution leases and freezes, with holders and ages',
    args: [],
    flags: [PUBLIC],
    examples: ['locks'],
    synonyms: ['leases', 'freezes'],
  },
  savepoints: {
    group: 'query',
    summary:
      "the target's savepoints and checkpoints, newest first, each completed one with the restore command that uses it",
    args: [TARGET],
    flags: [
      { name: 'limit', key: 'limit', kind: VALUE_KINDS.limit, description: 'how many snapshots to show, newest first' },
      PUBLIC,
    ],
    examples: ['savepoints analytics/clickstream', 'savepoints clickstream --limit 3'],
    synonyms: ['snapshots', 'checkpoints'],
  },
  exceptions: {
    group: 'query',
    summary:
      "what went wrong recently: the job's exceptions (time, task, first line), restarts and the operator's error",
    args: [TARGET],
    flags: [
      {
        name: 'limit',
        key: 'limit',
        kind: VALUE_KINDS.limit,
        description: 'how many exceptions to show, newest first',
      },
      PUBLIC,
    ],
    examples: ['exceptions analytics/clickstream', 'exceptions clickstream --limit 5 --public'],
    synonyms: ['errors', 'failures', 'failovers', 'why'],
  },
  logs: LOGS_VERB,
  ...OPERATION_VERBS,
  cancel: {
    group: 'command',
    summary: 'cancel your operation before it is submitted (approvers use Reject)',
    args: [OP_ID],
    flags: [],
    examples: ['cancel op-7f3c2a9b'],
    synonyms: ['abort', 'withdraw'],
  },
  lock: {
    group: 'command',
    summary: 'freeze a target: every operation on it is denied until unlock',
    args: [TARGET],
    flags: [
      { ...REASON, required: true, description: 'why it is frozen; shown to everyone who is denied' },
      { name: 'for', key: 'forMs', kind: FREEZE_FOR, description: 'lift it by itself after this long' },
    ],
    examples: [
      'lock analytics/clickstream --reason "quarter-end close"',
      'lock analytics/clickstream --reason "load test" --for 2h',
    ],
    synonyms: ['freeze'],
  },
  unlock: {
    group: 'command',
    summary: 'lift a freeze',
    args: [TARGET],
    flags: [],
    examples: ['unlock analytics/clickstream'],
    synonyms: ['unfreeze', 'thaw'],
  },
} satisfies Record<string, VerbSpec>;
export type Verb = keyof typeof VERBS;

/** In help order, which is also the order ties between suggestions are broken in. */
export const VERB_NAMES = Object.keys(VERBS) as Verb[];

/** `--help` after any verb shows that verb's help; listed in the overview rather than on every usage line. */
export const HELP_FLAG = 'help';

export function isVerb(word: string): word is Verb {
  return Object.hasOwn(VERBS, word);
}

export function verbSpec(verb: Verb): VerbSpec {
  return VERBS[verb];
}

/**
 * Two-word verbs (docs/commands.md#flink-gitops-resume): a verb named `<family>-<word>` is typed as two words,
 * `gitops resume`; its own name is read too. The family word alone is no verb: the parser asks for one of its words.
 */
const FAMILIES: ReadonlyMap<string, ReadonlyMap<string, Verb>> = (() => {
  const families = new Map<string, Map<string, Verb>>();
  for (const verb of VERB_NAMES) {
    const dash = verb.indexOf('-');
    if (dash < 0) continue;
    const family = verb.slice(0, dash);
    if (isVerb(family)) throw new TypeError(`verbs: "${verb}" cannot be typed as two words: "${family}" is a verb`);
    families.set(family, (families.get(family) ?? new Map<string, Verb>()).set(verb.slice(dash + 1), verb));
  }
  return families;
})();

/** The verbs a family word starts (word → verb), or undefined when `word` starts none. */
export function verbFamily(word: string): ReadonlyMap<string, Verb> | undefined {
  return FAMILIES.get(word.toLowerCase());
}

/** How a verb is typed: `gitops resume` for gitops-resume; any other verb as it is named. */
export function spelledVerb(verb: string): string {
  const dash = verb.indexOf('-');
  return dash > 0 && verbFamily(verb.slice(0, dash))?.get(verb.slice(dash + 1)) === verb
    ? `${verb.slice(0, dash)} ${verb.slice(dash + 1)}`
    : verb;
}

/** The verb a command's first words name (`scale`, `gitops resume`, `gitops-resume`), or undefined. */
export function verbNamed(first: string, second?: string): Verb | undefined {
  const word = first.toLowerCase();
  if (isVerb(word)) return word;
  return second === undefined ? undefined : verbFamily(word)?.get(second.toLowerCase());
}

/** Synonym → verb, for suggestions only. */
export const VERB_SYNONYMS: Readonly<Record<string, Verb>> = Object.fromEntries(
  VERB_NAMES.flatMap((verb) => (verbSpec(verb).synonyms ?? []).map((s) => [s, verb] as const)),
);

/** Flag name → the verbs that take it, to say "--image belongs to upgrade" when given to scale. */
export const FLAG_OWNERS: ReadonlyMap<string, readonly Verb[]> = (() => {
  const owners = new Map<string, Verb[]>();
  for (const verb of VERB_NAMES) {
    for (const f of verbSpec(verb).flags) owners.set(f.name, [...(owners.get(f.name) ?? []), verb]);
  }
  return owners;
})();

export function argPlaceholder(arg: ArgSpec): string {
  return arg.kind.placeholder;
}

export function flagSyntax(flag: FlagSpec): string {
  const value = flag.kind.placeholder;
  return value === '' ? `--${flag.name}` : `--${flag.name} ${value}`;
}

/** `/flink upgrade <target> --image <image> [--mode savepoint|last-state|stateless] [--reason "…"] …` */
export function usageLine(verb: string, command: string = DEFAULT_COMMAND): string {
  const v = verb.toLowerCase();
  if (!isVerb(v)) return `${command} <verb> [target] [args] [--flag value …]`;
  const spec = verbSpec(v);
  const parts = [command, spelledVerb(v)];
  for (const arg of spec.args) parts.push(arg.required ? argPlaceholder(arg) : `[${argPlaceholder(arg)}]`);
  for (const flag of spec.flags) {
    const syntax = flagSyntax(flag);
    parts.push(flag.required ? syntax : `[${syntax}]${flag.repeatable ? '…' : ''}`);
  }
  return parts.join(' ');
}
