// The vocabulary verbs are written in: value kinds, argument and flag specs, the flags every operation takes, and
// the values a command binds to. Kind modules describe their verb with it; verbs.ts assembles the one table.
import type { Target } from '../model/target.js';
import { MAX_PARALLELISM, MIN_PARALLELISM } from '../model/intent-base.js';
import { MODE, UPGRADE_MODES, type UpgradeMode } from '../model/upgrade-mode.js';
import type { RunAt } from '../schedule/run-at.js';

export const DEFAULT_COMMAND = '/flink';

/** `config <target> set|unset …`: the sub-verb, the second positional. */
export const CONFIG_ACTIONS = ['set', 'unset'] as const;
export type ConfigAction = (typeof CONFIG_ACTIONS)[number];
/** One `key=value` (set) or `key` (unset) of a `config` command. */
export interface ConfigEntry {
  key: string;
  value?: string;
}

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
    description:
      "`name`, `namespace/name` or `cluster/namespace/name` (with several clusters), prefixed `sessionjob:` for a FlinkSessionJob; a bare name uses the channel's default namespace, a target without a cluster the channel's default cluster",
  },
  namespace: { placeholder: '<namespace>', description: 'a Kubernetes namespace' },
  verb: { placeholder: '<verb>', description: 'a command name, e.g. `status`' },
  opId: { placeholder: '<op id>', description: '`op-` followed by 6–12 lowercase letters or digits, as shown on the card' },
  parallelism: {
    placeholder: '<parallelism>',
    description: `the new job parallelism, a whole number from ${MIN_PARALLELISM} to ${MAX_PARALLELISM}`,
  },
  limit: { placeholder: '<n>', description: 'a whole number from 1 to 100 (default 10)' },
  mode: {
    placeholder: UPGRADE_MODES.join('|'),
    description: `the upgrade mode: \`${MODE.savepoint}\` (take one first), \`${MODE.lastState}\` (resume from HA metadata), \`${MODE.stateless}\` (drop state)`,
  },
  image: {
    placeholder: '<image>',
    description: 'a container image reference: `registry/repository[:tag][@sha256:<digest>]`',
  },
  uri: {
    placeholder: '<uri>',
    description: 'the savepoint or checkpoint directory as a URI with a scheme, e.g. `s3://bucket/savepoints/savepoint-1a2b3c`',
  },
  memory: {
    placeholder: '<size>',
    description: 'a Flink memory size: a number and a unit b, k/kb, m/mb, g/gb or t/tb (any case), e.g. `2048m`, `4g`, `1.5gb`; written to the spec as a whole number in the largest exact unit',
  },
  cpu: { placeholder: '<cores>', description: 'CPU cores, a positive decimal number, e.g. `0.5`, `2`, `1.25`' },
  configAction: { placeholder: 'set|unset', description: '`set` writes the values, `unset` removes the keys (writes null)' },
  configEntry: {
    placeholder: '<key>[=<value>]…',
    description: 'Flink configuration keys as Flink writes them flat (`execution.checkpointing.interval`); `set` takes `key=value`, `unset` takes `key`; quote an entry whose value has spaces; a value cannot contain `=`',
  },
  text: { placeholder: '"…"', description: 'free text; quote it when it has spaces ("…", \'…\', “…” all work)' },
  channel: { placeholder: '<#channel>', description: 'a Slack channel: type # and pick it from the list' },
  command: { placeholder: '<operation command…>', description: 'a whole operation command, exactly as you would run it' },
  time: {
    placeholder: '<time>',
    description:
      "RFC 3339 with an offset (`2026-12-02T02:00:00+01:00`), or `HH:MM [<IANA zone>]` meaning the next such time (zone default: the policy's `timezone`, else UTC); at most 7 days ahead",
  },
  window: { placeholder: '<window>', description: "the name of an execution window in the policy's `windows`" },
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
  | 'taskManagerMemory'
  | 'taskManagerCpu'
  | 'jobManagerMemory'
  | 'jobManagerCpu'
  | 'configAction'
  | 'configEntries'
  | 'at'
  | 'window'
  | 'breakGlass'
  | 'resetAutoscaler'
  | 'command';

export interface ArgSpec {
  readonly key: BoundKey;
  readonly kind: ValueKind;
  readonly required: boolean;
  /** Overrides the kind's description where the verb gives the value a narrower meaning. */
  readonly description?: string;
  /** The last argument only: takes every remaining word (each checked alone), at most `max` of them; binds a list. */
  readonly rest?: { readonly max: number };
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
  /** What no single value check can see (e.g. `config … set` needs `key=value`, `unset` a bare key): a refusal, or undefined. */
  readonly validate?: (bound: Bound) => string | undefined;
}

export const TARGET: ArgSpec = { key: 'target', kind: 'target', required: true };
export const OP_ID: ArgSpec = { key: 'opId', kind: 'opId', required: true };
export const PUBLIC: FlagSpec = { name: 'public', key: 'public', kind: 'switch', description: 'post the answer in the channel instead of only to you' };
export const REASON: FlagSpec = {
  name: 'reason',
  key: 'reason',
  kind: 'text',
  description: 'why; kept in the operation record and shown on the card; policy may require it',
};
export const INCIDENT: FlagSpec = {
  name: 'incident',
  key: 'incidentChannels',
  kind: 'channel',
  repeatable: true,
  description: 'also post a digest at start and end in that channel',
};
export const MODE_FLAG: FlagSpec = { name: 'mode', key: 'mode', kind: 'mode', description: 'the upgrade mode to use (default: the one in the spec)' };
export const AT: FlagSpec = { name: 'at', key: 'at', kind: 'time', description: 'run later, at this time (approvals happen now)' };
export const WINDOW: FlagSpec = { name: 'window', key: 'window', kind: 'window', description: "run later, in the policy's named execution window" };
export const BREAK_GLASS: FlagSpec = {
  name: 'break-glass',
  key: 'breakGlass',
  kind: 'switch',
  description: 'emergency: skip approvals where the policy allows you to (needs --reason; reviewed afterwards)',
};
export const OPERATION_FLAGS = [REASON, INCIDENT, AT, WINDOW, BREAK_GLASS] as const;
/** scale: clear the autoscaler's stored per-vertex overrides together with the new parallelism. */
export const RESET_AUTOSCALER: FlagSpec = {
  name: 'reset-autoscaler',
  key: 'resetAutoscaler',
  kind: 'switch',
  description: "also reset the autoscaler (a new spec.job.autoscalerResetNonce): it drops the per-vertex parallelism it holds, so the new parallelism applies",
};


/** What the arguments and flags of one command bound to, before the intent is built. */
export interface BoundValues extends Record<BoundKey, unknown> {
  target: Target;
  namespace: string;
  verb: string;
  opId: string;
  parallelism: number;
  limit: number;
  mode: UpgradeMode;
  image: string;
  from: string;
  reason: string;
  incidentChannels: string[];
  public: boolean;
  allowNonRestoredState: boolean;
  /** resources: normalised Flink memory sizes (`4g`) and CPU cores. */
  taskManagerMemory: string;
  taskManagerCpu: number;
  jobManagerMemory: string;
  jobManagerCpu: number;
  configAction: ConfigAction;
  configEntries: ConfigEntry[];
  /** `--at` as typed; `--window` by name; `--break-glass`. */
  at: RunAt;
  window: string;
  breakGlass: boolean;
  /** scale `--reset-autoscaler`. */
  resetAutoscaler: boolean;
  /** explain: the inner operation intent (the schemas check it). */
  command: unknown;
}
export type Bound = Partial<BoundValues> & Pick<BoundValues, 'incidentChannels' | 'public' | 'allowNonRestoredState'>;

/** An operation verb: its grammar, and how the values it bound become the kind's own intent fields. */
export interface OperationVerbSpec extends VerbSpec {
  readonly group: 'operation';
  /** Required values are guaranteed by the parser's binding; the intent schema re-checks everything. */
  build(bound: Bound): Record<string, unknown>;
}
