// The one table of the /flink command language — verbs, arguments, flags, value kinds, descriptions and
// examples — read by both the parser (command.ts) and the help (help.ts), so neither can drift from the other.
import { MAX_PARALLELISM, MIN_PARALLELISM, UPGRADE_MODES } from '../model/intent.js';

export const DEFAULT_COMMAND = '/flink';

export const VERB_GROUPS = {
  query: 'Queries: read-only, answered only to you unless --public',
  operation: 'Operations: planned, checked against policy, may need approval; progress and evidence in a thread',
  command: 'Commands: act at once and are kept in the audit history',
} as const;
export type VerbGroup = keyof typeof VERB_GROUPS;

/** How each kind of value is written and described; command.ts owns the checks (`satisfies` keeps them 1:1). */
export const VALUE_KINDS = {
  target: {
    placeholder: '<target>',
    description: "`name`, `namespace/name`, or `sessionjob:namespace/name` for a FlinkSessionJob; a bare name uses the channel's default namespace",
  },
  namespace: { placeholder: '<namespace>', description: 'a Kubernetes namespace' },
  verb: { placeholder: '<verb>', description: 'a command name, e.g. `scale`' },
  opId: { placeholder: '<op id>', description: '`op-` followed by 6–12 lowercase letters or digits, as shown on the card' },
  parallelism: {
    placeholder: '<parallelism>',
    description: `the new job parallelism, a whole number from ${MIN_PARALLELISM} to ${MAX_PARALLELISM}`,
  },
  limit: { placeholder: '<n>', description: 'a whole number from 1 to 100 (default 10)' },
  mode: {
    placeholder: UPGRADE_MODES.join('|'),
    description: 'the upgrade mode: `savepoint` (take one first), `last-state` (resume from HA metadata), `stateless` (drop state)',
  },
  image: {
    placeholder: '<image>',
    description: 'a container image reference: `registry/repository[:tag][@sha256:<digest>]`',
  },
  uri: {
    placeholder: '<uri>',
    description: 'the savepoint or checkpoint directory as a URI with a scheme, e.g. `s3://bucket/savepoints/savepoint-1a2b3c`',
  },
  text: { placeholder: '"…"', description: 'free text; quote it when it has spaces ("…", \'…\', “…” all work)' },
  channel: { placeholder: '<#channel>', description: 'a Slack channel: type # and pick it from the list' },
  command: { placeholder: '<operation command…>', description: 'a whole operation command, exactly as you would run it' },
  switch: { placeholder: '', description: 'takes no value' },
} as const;
export type ValueKind = keyof typeof VALUE_KINDS;

/** Where a value lands in the parser's bound values (command.ts builds intents from them). */
export type BoundKey =
  | 'target'
  | 'namespace'
  | 'verb'
  | 'opId'
  | 'parallelism'
  | 'limit'
  | 'mode'
  | 'image'
  | 'from'
  | 'reason'
  | 'incidentChannels'
  | 'public'
  | 'allowNonRestoredState'
  | 'command';

export interface ArgSpec {
  readonly key: BoundKey;
  readonly kind: ValueKind;
  readonly required: boolean;
  /** Overrides the kind's description where the verb gives the value a narrower meaning. */
  readonly description?: string;
}

export interface FlagSpec {
  /** Written `--name`; lowercase. */
  readonly name: string;
  readonly key: BoundKey;
  readonly kind: ValueKind;
  readonly description: string;
  readonly required?: boolean;
  /** Repeatable flags accumulate; any other flag may repeat only with the same value. */
  readonly repeatable?: boolean;
}

export interface VerbSpec {
  readonly group: VerbGroup;
  readonly summary: string;
  readonly args: readonly ArgSpec[];
  readonly flags: readonly FlagSpec[];
  /** Written without the command name; each must parse (help.test.ts proves it). */
  readonly examples: readonly string[];
  /** Words people type meaning this verb; they only ever produce a suggestion, never run anything. */
  readonly synonyms?: readonly string[];
}

const TARGET: ArgSpec = { key: 'target', kind: 'target', required: true };
const OP_ID: ArgSpec = { key: 'opId', kind: 'opId', required: true };
const PUBLIC: FlagSpec = { name: 'public', key: 'public', kind: 'switch', description: 'post the answer in the channel instead of only to you' };
const REASON: FlagSpec = {
  name: 'reason',
  key: 'reason',
  kind: 'text',
  description: 'why; kept in the operation record and shown on the card; policy may require it',
};
const INCIDENT: FlagSpec = {
  name: 'incident',
  key: 'incidentChannels',
  kind: 'channel',
  repeatable: true,
  description: 'also post a digest at start and end in that channel',
};
const MODE: FlagSpec = { name: 'mode', key: 'mode', kind: 'mode', description: 'the upgrade mode to use (default: the one in the spec)' };
const OPERATION_FLAGS = [REASON, INCIDENT] as const;

export const VERBS = {
  help: {
    group: 'query',
    summary: 'show all commands, or the details of one',
    args: [{ key: 'verb', kind: 'verb', required: false }],
    flags: [PUBLIC],
    examples: ['help', 'help scale'],
    synonyms: ['?', 'usage', 'man'],
  },
  status: {
    group: 'query',
    summary: 'lifecycle and job state, image, parallelism, upgrade mode, last savepoint, lock, last operation',
    args: [TARGET],
    flags: [PUBLIC],
    examples: ['status analytics/clickstream', 'status clickstream --public', 'status sessionjob:analytics/sessionizer'],
    synonyms: ['get', 'show', 'describe', 'info', 'state'],
  },
  list: {
    group: 'query',
    summary: 'the managed deployments and session jobs with their states',
    args: [{ key: 'namespace', kind: 'namespace', required: false, description: 'only this namespace (default: every managed one)' }],
    flags: [PUBLIC],
    examples: ['list', 'list analytics'],
    synonyms: ['ls', 'jobs', 'deployments'],
  },
  ops: {
    group: 'query',
    summary: 'recent operations, newest first',
    args: [{ key: 'target', kind: 'target', required: false, description: 'only operations on this target' }],
    flags: [{ name: 'limit', key: 'limit', kind: 'limit', description: 'how many to show (1–100, default 10)' }, PUBLIC],
    examples: ['ops', 'ops analytics/clickstream --limit 5'],
    synonyms: ['history', 'log', 'operations', 'recent'],
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
    args: [{ key: 'command', kind: 'command', required: true }],
    flags: [PUBLIC],
    examples: ['explain scale analytics/clickstream 12', 'explain upgrade clickstream --image registry.example.com/analytics/clickstream:2.4.1 --public'],
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
  suspend: {
    group: 'operation',
    summary: 'stop the job (spec.job.state: suspended)',
    args: [TARGET],
    flags: [MODE, ...OPERATION_FLAGS],
    examples: ['suspend analytics/clickstream --mode savepoint --reason "schema migration"', 'suspend sessionjob:analytics/sessionizer'],
    synonyms: ['stop', 'pause', 'halt'],
  },
  resume: {
    group: 'operation',
    summary: 'start a suspended job again (spec.job.state: running)',
    args: [TARGET],
    flags: [...OPERATION_FLAGS],
    examples: ['resume analytics/clickstream'],
    synonyms: ['start', 'unpause', 'run', 'unsuspend'],
  },
  restart: {
    group: 'operation',
    summary: 'restart the job with the same spec (a new spec.restartNonce)',
    args: [TARGET],
    flags: [...OPERATION_FLAGS],
    examples: ['restart analytics/clickstream --incident <#C0123ABCD|inc-4711>', 'restart clickstream --reason "stuck checkpoints"'],
    synonyms: ['bounce', 'reboot', 'redeploy', 'reload'],
  },
  scale: {
    group: 'operation',
    summary: 'change the job parallelism (spec.job.parallelism)',
    args: [TARGET, { key: 'parallelism', kind: 'parallelism', required: true }],
    flags: [...OPERATION_FLAGS],
    examples: ['scale analytics/clickstream 12', 'scale clickstream 4 --reason "backlog drained"'],
    synonyms: ['rescale', 'parallelism', 'resize'],
  },
  upgrade: {
    group: 'operation',
    summary: 'deploy a new image (spec.image)',
    args: [TARGET],
    flags: [
      { name: 'image', key: 'image', kind: 'image', required: true, description: 'the image to run' },
      MODE,
      ...OPERATION_FLAGS,
    ],
    examples: ['upgrade analytics/clickstream --image registry.example.com/analytics/clickstream:2.4.1 --mode savepoint'],
    synonyms: ['deploy', 'update', 'rollout', 'image'],
  },
  savepoint: {
    group: 'operation',
    summary: 'take a savepoint (creates a FlinkStateSnapshot that is never deleted with its record)',
    args: [TARGET],
    flags: [...OPERATION_FLAGS],
    examples: ['savepoint analytics/clickstream --reason "before the schema change"'],
    synonyms: ['snapshot', 'checkpoint', 'backup', 'sp'],
  },
  restore: {
    group: 'operation',
    summary: 'redeploy the job from a savepoint (spec.job.initialSavepointPath + savepointRedeployNonce)',
    args: [TARGET],
    flags: [
      { name: 'from', key: 'from', kind: 'uri', required: true, description: 'where to start from' },
      {
        name: 'allow-non-restored-state',
        key: 'allowNonRestoredState',
        kind: 'switch',
        description: 'start even if some state in the savepoint maps to no operator (it stays set after the restore)',
      },
      ...OPERATION_FLAGS,
    ],
    examples: ['restore analytics/clickstream --from s3://flink-state/savepoints/savepoint-4c1d2e-8f0a1b2c3d4e', 'restore clickstream --from=gs://state/sp-1 --allow-non-restored-state'],
    synonyms: ['recover', 'reset'],
  },
  undo: {
    group: 'operation',
    summary: 'put back what a finished suspend, resume, scale or upgrade changed',
    args: [{ ...OP_ID, description: 'the suspend, resume, scale or upgrade to invert' }],
    flags: [...OPERATION_FLAGS],
    examples: ['undo op-7f3c2a9b --reason "the new image leaks memory"'],
    synonyms: ['revert', 'rollback'],
  },
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
    flags: [{ ...REASON, required: true, description: 'why it is frozen; shown to everyone who is denied' }],
    examples: ['lock analytics/clickstream --reason "quarter-end close"'],
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
} as const satisfies Record<string, VerbSpec>;
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
  return VALUE_KINDS[arg.kind].placeholder;
}

export function flagSyntax(flag: FlagSpec): string {
  const value = VALUE_KINDS[flag.kind].placeholder;
  return value === '' ? `--${flag.name}` : `--${flag.name} ${value}`;
}

/** `/flink upgrade <target> --image <image> [--mode savepoint|last-state|stateless] [--reason "…"] …` */
export function usageLine(verb: string, command: string = DEFAULT_COMMAND): string {
  const v = verb.toLowerCase();
  if (!isVerb(v)) return `${command} <verb> [target] [args] [--flag value …]`;
  const spec = verbSpec(v);
  const parts = [command, v];
  for (const arg of spec.args) parts.push(arg.required ? argPlaceholder(arg) : `[${argPlaceholder(arg)}]`);
  for (const flag of spec.flags) {
    const syntax = flagSyntax(flag);
    parts.push(flag.required ? syntax : `[${syntax}]${flag.repeatable ? '…' : ''}`);
  }
  return parts.join(' ');
}
