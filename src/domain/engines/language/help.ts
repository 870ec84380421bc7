// Help text (Slack mrkdwn) generated from the command table the parser uses, so help cannot drift from parsing.
import {
  DEFAULT_COMMAND,
  HELP_FLAG,
  VALUE_KINDS,
  VERB_GROUPS,
  VERB_NAMES,
  VERB_SYNONYMS,
  argPlaceholder,
  flagSyntax,
  isVerb,
  spelledVerb,
  usageLine,
  verbFamily,
  verbSpec,
  type ArgSpec,
  type FlagSpec,
  type Verb,
  type VerbGroup,
} from './verbs.js';
import { OPERATION_FLAGS, PUBLIC } from '../../kit/language/verb-kit.js';
import { nearest } from '../../kit/language/suggest.js';

export { usageLine } from './verbs.js';

/** Flags every verb of a group shares, named once in the overview instead of on every line. */
const SHARED_FLAGS: Readonly<Record<VerbGroup, readonly string[]>> = {
  query: [PUBLIC.name],
  operation: OPERATION_FLAGS.map((f) => f.name),
  command: [],
};

/** Channel escapes in examples are what Slack sends; people see and type `#name`. */
function displayed(example: string): string {
  return example.replace(/<#[A-Z0-9]+\|([^<>]*)>/g, '#$1');
}

/** `/flink scale <target> <parallelism>`: the verb with its arguments and required flags only. */
function shortUsage(verb: Verb, command: string): string {
  const spec = verbSpec(verb);
  const parts = [command, spelledVerb(verb)];
  for (const arg of spec.args) parts.push(arg.required ? argPlaceholder(arg) : `[${argPlaceholder(arg)}]`);
  for (const flag of spec.flags) {
    if (flag.required) parts.push(flagSyntax(flag));
    else if (!SHARED_FLAGS[spec.group].includes(flag.name)) parts.push(`[${flagSyntax(flag)}]`);
  }
  return parts.join(' ');
}

function sharedFlagLine(group: VerbGroup): string | undefined {
  const names = SHARED_FLAGS[group];
  if (names.length === 0) return undefined;
  const verb = VERB_NAMES.find((v) => verbSpec(v).group === group);
  const flags = verb === undefined ? [] : verbSpec(verb).flags.filter((f) => names.includes(f.name));
  const described = flags.map((f) => `\`${flagSyntax(f)}\` (${f.description})`);
  const listed =
    described.length <= 1 ? described.join('') : `${described.slice(0, -1).join(', ')} and ${described.at(-1) ?? ''}`;
  return `  All of them take ${listed}.`;
}

function overview(command: string): string {
  const lines = [
    `*${command}* operates Flink jobs on Kubernetes. Write \`${usageLine('', command)}\`.`,
    `A target is ${VALUE_KINDS.target.description}.`,
  ];
  for (const group of Object.keys(VERB_GROUPS) as VerbGroup[]) {
    lines.push('', `*${VERB_GROUPS[group]}*`);
    for (const verb of VERB_NAMES.filter((v) => verbSpec(v).group === group)) {
      lines.push(`• \`${shortUsage(verb, command)}\` — ${verbSpec(verb).summary}`);
    }
    const shared = sharedFlagLine(group);
    if (shared !== undefined) lines.push(shared);
  }
  lines.push(
    '',
    `Quote values that have spaces. \`${command} help <verb>\` or \`--${HELP_FLAG}\` after any command shows its arguments, options and examples.`,
  );
  return lines.join('\n');
}

function argLine(arg: ArgSpec): string {
  const kind = arg.kind.description;
  const text = arg.description === undefined ? kind : `${arg.description}; ${kind}`;
  return `• \`${argPlaceholder(arg)}\`${arg.required ? '' : ' (optional)'} — ${text}`;
}

function flagLine(flag: FlagSpec): string {
  const notes = [flag.required ? 'required' : '', flag.repeatable ? 'repeatable' : ''].filter(Boolean);
  const kind = flag.kind === VALUE_KINDS.switch ? '' : `; ${flag.kind.description}`;
  return `• \`${flagSyntax(flag)}\`${notes.length > 0 ? ` (${notes.join(', ')})` : ''} — ${flag.description}${kind}`;
}

function verbHelp(verb: Verb, command: string): string {
  const spec = verbSpec(verb);
  const lines = [
    `*${command} ${spelledVerb(verb)}* — ${spec.summary}`,
    // A query without --public (logs) is always answered only to the asker: its help does not offer the flag.
    `_${spec.flags.some((f) => f.name === 'public') ? VERB_GROUPS[spec.group] : VERB_GROUPS[spec.group].replace(/ unless --public$/, '')}_`,
    `Usage: \`${usageLine(verb, command)}\``,
  ];
  if (spec.args.length > 0) lines.push('Arguments:', ...spec.args.map(argLine));
  if (spec.flags.length > 0) lines.push('Options:', ...spec.flags.map(flagLine));
  lines.push('Examples:', ...spec.examples.map((e) => `• \`${command} ${displayed(e)}\``));
  return lines.join('\n');
}

/** The overview of every verb, or one verb's usage, arguments, options and examples. */
export function helpText(verb?: string, command: string = DEFAULT_COMMAND): string {
  if (verb === undefined || verb.trim() === '') return overview(command);
  const v = verb.trim().toLowerCase();
  if (isVerb(v)) return verbHelp(v, command);
  // `help gitops`: every verb the family word starts (docs/commands.md#flink-gitops-resume).
  const family = verbFamily(v);
  if (family !== undefined) return [...family.values()].map((f) => verbHelp(f, command)).join('\n\n');
  const suggestion = nearest(v, VERB_NAMES, VERB_SYNONYMS);
  const guess = suggestion === undefined ? '' : ` Did you mean \`${suggestion}\`?`;
  return `Unknown command ${JSON.stringify(v)}.${guess}\n\n${overview(command)}`;
}
