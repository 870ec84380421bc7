// Operation records as values: the record of one operation of any kind, its history entries, ids, and how a
// decided change applies to it (its states and transitions are model/lifecycle.ts).
import type { Approval, PolicyDecision } from '../model/decision.js';
import type { IntentKind, OperationIntent } from '../kinds/index.js';
import { OP_ID_PATTERN } from '../kit/language/intent-base.js';
import type { Plan } from '../model/plan.js';
import type { Target } from '../model/target.js';
import {
  ACTOR_ROLES,
  type ActorRole,
  checkTransition,
  isOrdered,
  NEW_STATE,
  OPERATION_STATES,
  type OperationState,
} from '../model/lifecycle.js';
import type { OperationSchedule } from '../kit/schedule/resolve.js';

export const HISTORY_TYPES = [
  'state',
  'approval',
  'waiting',
  'replanned',
  'retry',
  'evidence',
  'command',
  'note',
] as const;
export type HistoryType = (typeof HISTORY_TYPES)[number];

/**
 * One append-only history entry; the same fields go to the `{prefix}:events` stream
 * (docs/lifecycle.md#records-and-the-event-stream).
 */
export interface HistoryEntry {
  /** 1-based index in the record's history; `<op>:<seq>` is the idempotency key of each Slack post. */
  seq: number;
  type: HistoryType;
  /** The new state for `state` entries, the criterion for `evidence`, otherwise a short label. */
  name: string;
  /** Who caused it: a Slack user id, `system`, or a process name such as `worker` or `sweep`. */
  actor: string;
  /** ms since the epoch, from the writer's clock. */
  at: number;
  /** Free JSON; `state` entries always carry `from` (the previous state, `(new)` for the first). */
  detail: Record<string, unknown>;
}

/** What a caller appends; the store numbers and timestamps it. A `state` entry IS the transition. */
export type EntryInput =
  | { type: 'state'; name: OperationState; actor: string; role: ActorRole; detail?: Record<string, unknown> }
  | { type: Exclude<HistoryType, 'state'>; name: string; actor: string; detail?: Record<string, unknown> };

export interface CardRef {
  channel: string;
  ts: string;
}

export interface OperationRecord {
  id: string;
  /** Compare-and-set counter: 1 when created, +1 on every committed change. */
  version: number;
  kind: IntentKind;
  intent: OperationIntent;
  /** What the operation acts on; for `undo`, the undone operation's target. */
  target: Target;
  /** Slack user id of the requester. */
  requester: string;
  /** The Slack workspace (team id) the request came from, and its Enterprise Grid org: the audit events' `actor.team`. */
  team?: string;
  enterprise?: string;
  /** Slack channel the command came from. */
  channel: string;
  card?: CardRef;
  responseUrl?: string;
  /** Slack channel ids digests are mirrored into (`--incident` plus the namespace's incidentChannel). */
  incidentChannels: string[];
  /** The current plan; `plan.revision` counts re-plans. */
  plan?: Plan;
  decision?: PolicyDecision;
  approvals: Approval[];
  /** ms; when AWAITING_APPROVAL turns EXPIRED. */
  expiresAt?: number;
  state: OperationState;
  createdAt: number;
  updatedAt: number;
  /** metadata.generation our submission produced ("made by this bot": docs/lifecycle.md#drift). */
  submittedGeneration?: number;
  /** Shape defined by the worker; opaque to the store. */
  evidence?: unknown;
  /** How often the sweep enqueued it again (reported stuck after 5: docs/lifecycle.md#the-sweep). */
  reenqueues: number;
  /**
   * `--at`/`--window` resolved (docs/policy.md#scheduled-operations): when it may start; kept after it starts, for the
   * card and `op`.
   */
  schedule?: OperationSchedule;
  /** Position ticket from when it last joined its target's FIFO order (set by the store, kept after leaving). */
  firstQueuedSeq?: number;
  /**
   * HMAC-SHA256 (hex) over the sealed content (record-seal.ts): id, kind, requester, intent, plan digest and approvals;
   * set by the store that holds the key, checked by the worker (docs/lifecycle.md#record-integrity).
   */
  mac?: string;
  history: HistoryEntry[];
}

/** The fields a change may set; everything else is the store's (state, history, version, times, order). */
export const MUTABLE_FIELDS = [
  'card',
  'responseUrl',
  'incidentChannels',
  'plan',
  'decision',
  'approvals',
  'expiresAt',
  'submittedGeneration',
  'evidence',
  'reenqueues',
  'schedule',
] as const satisfies readonly (keyof OperationRecord)[];
export type MutableField = (typeof MUTABLE_FIELDS)[number];
export type MutableFields = Partial<Pick<OperationRecord, MutableField>>;

const OP_ID_LENGTH = 10;
const BASE36 = '0123456789abcdefghijklmnopqrstuvwxyz';
/** Largest multiple of 36 below 256: bytes at or above it are dropped so every character is equally likely. */
const UNBIASED_LIMIT = 252;

/** `op-` + 10 lowercase base36 characters (~52 bits) from the given random bytes. */
export function newOperationId(random: () => Uint8Array): string {
  let id = 'op-';
  for (let calls = 0; id.length < 3 + OP_ID_LENGTH; calls++) {
    const bytes = random();
    if (bytes.length === 0 || calls > 100) throw new Error('newOperationId: the random source gives no usable bytes');
    for (const byte of bytes) {
      if (byte >= UNBIASED_LIMIT) continue;
      id += BASE36[byte % 36];
      if (id.length === 3 + OP_ID_LENGTH) break;
    }
  }
  return id;
}

/** A decided change: fields to set and entries to append (a `state` entry moves the record). */
export interface Change {
  set?: MutableFields;
  entries: EntryInput[];
}

/** How a committed change moves the record in its target's FIFO order. */
export type OrderMove = 'join' | 'leave' | 'stay';

export type ChangeOutcome =
  { ok: true; record: OperationRecord; entries: HistoryEntry[]; order: OrderMove } | { ok: false; reason: string };

/** The initial record: ACCEPTED, version 1, with its `(new) → ACCEPTED` entry. */
export function initialRecord(
  fields: Omit<OperationRecord, 'version' | 'history' | 'state' | 'createdAt' | 'updatedAt'>,
  actor: string,
  at: number,
): OperationRecord {
  if (!OP_ID_PATTERN.test(fields.id))
    throw new Error(`"${fields.id}" is not an operation id (op- and 6-12 lowercase letters or digits)`);
  checkActor(actor);
  const entry: HistoryEntry = { seq: 1, type: 'state', name: 'ACCEPTED', actor, at, detail: { from: NEW_STATE } };
  return { ...fields, version: 1, state: 'ACCEPTED', createdAt: at, updatedAt: at, history: [entry] };
}

/**
 * Applies a change to a record as the store will commit it: each `state` entry must be legal from the state
 * before it and written by the right role, else the whole change is refused. Entering AWAITING_APPROVAL voids
 * the approvals (a re-plan, docs/lifecycle.md#drift), whatever `set` says. Malformed input (unknown field or type)
 * throws.
 */
export function applyChange(current: OperationRecord, change: Change, at: number): ChangeOutcome {
  const set = change.set ?? {};
  for (const key of Object.keys(set)) {
    if (!(MUTABLE_FIELDS as readonly string[]).includes(key))
      throw new Error(`"${key}" cannot be set on an operation record`);
  }
  let state = current.state;
  let order: OrderMove = 'stay';
  let voidApprovals = false;
  const entries: HistoryEntry[] = [];
  for (const input of change.entries) {
    checkEntry(input);
    let detail = input.detail ?? {};
    if (input.type === 'state') {
      const check = checkTransition(state, input.name, input.role);
      if (!check.ok) return { ok: false, reason: `${current.id} is ${state} now; ${check.reason}` };
      detail = { ...detail, from: state };
      if (isOrdered(state) && !isOrdered(input.name)) order = 'leave';
      if (!isOrdered(state) && isOrdered(input.name)) order = 'join';
      if (input.name === 'AWAITING_APPROVAL') voidApprovals = true;
      state = input.name;
    }
    entries.push({
      seq: current.history.length + entries.length + 1,
      type: input.type,
      name: input.name,
      actor: input.actor,
      at,
      detail,
    });
  }
  const record: OperationRecord = {
    ...current,
    ...set,
    ...(voidApprovals ? { approvals: [] } : {}),
    version: current.version + 1,
    state,
    updatedAt: at,
    history: [...current.history, ...entries],
  };
  return { ok: true, record, entries, order };
}

function checkActor(actor: string): void {
  if (typeof actor !== 'string' || actor.trim() === '')
    throw new Error('a history entry needs an actor (Slack user id or process name)');
}

function checkEntry(input: EntryInput): void {
  if (!(HISTORY_TYPES as readonly string[]).includes(input.type)) {
    throw new Error(`unknown history entry type "${String(input.type)}" (one of ${HISTORY_TYPES.join(', ')})`);
  }
  if (typeof input.name !== 'string' || input.name === '')
    throw new Error(`a "${input.type}" history entry needs a name`);
  if (input.type === 'state' && !(OPERATION_STATES as readonly string[]).includes(input.name)) {
    throw new Error(`"${input.name}" is not an operation state (one of ${OPERATION_STATES.join(', ')})`);
  }
  if (input.type === 'state' && !(ACTOR_ROLES as readonly string[]).includes(input.role)) {
    throw new Error(`a state entry needs the writer's role (one of ${ACTOR_ROLES.join(', ')})`);
  }
  if (
    input.detail !== undefined &&
    (input.detail === null || typeof input.detail !== 'object' || Array.isArray(input.detail))
  ) {
    throw new Error('a history entry detail must be a JSON object');
  }
  checkActor(input.actor);
}
