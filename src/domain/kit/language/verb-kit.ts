// The vocabulary verbs are written in: argument and flag specs, the flags every operation takes, and the values a
// command binds to. Kind modules describe their verb with it (and their own values, values.ts); verbs.ts assembles
// the one table.
import type { Target } from '../../model/target.js';
import type { UpgradeMode } from '../../model/upgrade-mode.js';
import type { RunAt } from '../schedule/run-at.js';
import { VALUE_KINDS, type ValueSpec } from './values.js';

export const DEFAULT_COMMAND = '/flink';

export const VERB_GROUPS = {
  query: 'Queries: read-only, answered only to you unless --public',
  operation: 'Operations: planned, checked against policy, may need approval; progress and evidence in a thread',
  command: 'Commands: act at once and are kept in the audit history',
} as const;
export type VerbGroup = keyof typeof VERB_GROUPS;

export interface ArgSpec {
  /** Where the value lands in the bound values: a shared key (SharedBound) or one of the kind's own. */
  readonly key: string;
  readonly kind: ValueSpec;
  readonly required: boolean;
  /** Overrides the kind's description where the verb gives the value a narrower meaning. */
  readonly description?: string;
  /** The last argument only: takes every remaining word (each checked alone), at most `max` of them; binds a list. */
  readonly rest?: { readonly max: number };
}

export interface FlagSpec {
  /** Written `--name`; lowercase. */
  readonly name: string;
  readonly key: string;
  readonly kind: ValueSpec;
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
  validate?(bound: Bound): string | undefined;
}

export const TARGET: ArgSpec = { key: 'target', kind: VALUE_KINDS.target, required: true };
export const OP_ID: ArgSpec = { key: 'opId', kind: VALUE_KINDS.opId, required: true };
export const PUBLIC: FlagSpec = {
  name: 'public',
  key: 'public',
  kind: VALUE_KINDS.switch,
  description: 'post the answer in the channel instead of only to you',
};
export const REASON: FlagSpec = {
  name: 'reason',
  key: 'reason',
  kind: VALUE_KINDS.text,
  description: 'why; kept in the operation record and shown on the card; policy may require it',
};
export const INCIDENT: FlagSpec = {
  name: 'incident',
  key: 'incidentChannels',
  kind: VALUE_KINDS.channel,
  repeatable: true,
  description: 'also post a digest at start and end in that channel',
};
export const MODE_FLAG: FlagSpec = {
  name: 'mode',
  key: 'mode',
  kind: VALUE_KINDS.mode,
  description: 'the upgrade mode to use (default: the one in the spec)',
};
export const AT: FlagSpec = {
  name: 'at',
  key: 'at',
  kind: VALUE_KINDS.time,
  description: 'run later, at this time (approvals happen now)',
};
export const WINDOW: FlagSpec = {
  name: 'window',
  key: 'window',
  kind: VALUE_KINDS.window,
  description: "run later, in the policy's named execution window",
};
export const BREAK_GLASS: FlagSpec = {
  name: 'break-glass',
  key: 'breakGlass',
  kind: VALUE_KINDS.switch,
  description: 'emergency: skip approvals where the policy allows you to (needs --reason; reviewed afterwards)',
};
export const OPERATION_FLAGS = [REASON, INCIDENT, AT, WINDOW, BREAK_GLASS] as const;

/** What the shared arguments and flags bind to; a kind's own keys arrive beside them. */
export interface SharedBound {
  target: Target;
  namespace: string;
  verb: string;
  opId: string;
  limit: number;
  mode: UpgradeMode;
  reason: string;
  incidentChannels: string[];
  public: boolean;
  /** `--at` as typed; `--window` by name; `--break-glass`. */
  at: RunAt;
  window: string;
  breakGlass: boolean;
  /** explain: the inner operation intent (the schemas check it). */
  command: unknown;
}

/**
 * What the arguments and flags of one command bound to, before the intent is built. `Own` names the types of a
 * kind's own keys as its value checks produce them; the intent schema re-checks everything the verb builds.
 */
export type Bound<Own extends object = object> = Partial<SharedBound & Own> &
  Pick<SharedBound, 'incidentChannels' | 'public'> & { readonly [key: string]: unknown };

/** An operation verb: its grammar, and how the values it bound become the kind's own intent fields. */
export interface OperationVerbSpec extends VerbSpec {
  readonly group: 'operation';
  /**
   * Required values are guaranteed by the parser's binding; the intent schema re-checks everything. A kind types
   * its own keys with `Bound<Own>` in its module.
   */
  build(bound: Bound): Record<string, unknown>;
}
