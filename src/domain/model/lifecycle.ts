// The life of an operation as a state machine: its states, which of them are terminal or hold the target's FIFO
// place, and the legal transitions with the role that writes each (docs/lifecycle.md#transitions). No kind in it.

export const OPERATION_STATES = [
  'ACCEPTED',
  'DENIED',
  'AWAITING_APPROVAL',
  'REJECTED',
  'EXPIRED',
  'CANCELLED',
  'SCHEDULED',
  'QUEUED',
  'SUBMITTING',
  'UNCERTAIN',
  'SUBMITTED',
  'COMPLETED',
  'FAILED',
  'TIMED_OUT',
  'ABORTED',
] as const;
export type OperationState = (typeof OPERATION_STATES)[number];

/** The pseudo-state before a record exists: only `(new) → ACCEPTED` leaves it. */
export const NEW_STATE = '(new)';
export type FromState = OperationState | typeof NEW_STATE;

export const TERMINAL_STATES = [
  'DENIED',
  'REJECTED',
  'EXPIRED',
  'CANCELLED',
  'COMPLETED',
  'FAILED',
  'TIMED_OUT',
  'ABORTED',
] as const satisfies readonly OperationState[];
export type TerminalState = (typeof TERMINAL_STATES)[number];
export type ActiveState = Exclude<OperationState, TerminalState>;
export const ACTIVE_STATES = OPERATION_STATES.filter((s): s is ActiveState => !isTerminal(s));

/**
 * States in which an operation holds its place in the target's FIFO order (from QUEUED until terminal:
 * docs/lifecycle.md#queue-order-and-leases).
 */
export const ORDERED_STATES = [
  'QUEUED',
  'SUBMITTING',
  'UNCERTAIN',
  'SUBMITTED',
] as const satisfies readonly ActiveState[];

export const ACTOR_ROLES = ['bot', 'worker', 'sweep'] as const;
export type ActorRole = (typeof ACTOR_ROLES)[number];

/**
 * The table of docs/lifecycle.md#transitions: for each state, the states it may move to and the role, or roles, that
 * may write that move. QUEUED → SCHEDULED (worker) is a window operation that could not start before its window
 * closed going back for the next opening.
 */
export const TRANSITIONS = {
  [NEW_STATE]: { ACCEPTED: 'bot' },
  ACCEPTED: { DENIED: 'bot', AWAITING_APPROVAL: 'bot', SCHEDULED: 'bot', QUEUED: 'bot', CANCELLED: 'bot' },
  AWAITING_APPROVAL: {
    SCHEDULED: 'bot',
    QUEUED: 'bot',
    REJECTED: 'bot',
    CANCELLED: 'bot',
    ABORTED: 'bot',
    EXPIRED: 'sweep',
    AWAITING_APPROVAL: 'bot',
  },
  SCHEDULED: {
    QUEUED: ['worker', 'sweep'],
    ABORTED: ['worker', 'sweep'],
    EXPIRED: ['worker', 'sweep'],
    CANCELLED: 'bot',
  },
  QUEUED: {
    SUBMITTING: 'worker',
    ABORTED: 'worker',
    AWAITING_APPROVAL: 'worker',
    SCHEDULED: 'worker',
    CANCELLED: 'bot',
  },
  SUBMITTING: { SUBMITTED: 'worker', UNCERTAIN: 'worker', FAILED: 'worker', ABORTED: 'worker', SUBMITTING: 'worker' },
  UNCERTAIN: { SUBMITTING: 'worker', SUBMITTED: 'worker', ABORTED: 'worker' },
  SUBMITTED: { COMPLETED: 'worker', FAILED: 'worker', TIMED_OUT: 'worker' },
  DENIED: {},
  REJECTED: {},
  EXPIRED: {},
  CANCELLED: {},
  COMPLETED: {},
  FAILED: {},
  TIMED_OUT: {},
  ABORTED: {},
} as const satisfies Record<FromState, Partial<Record<OperationState, ActorRole | readonly ActorRole[]>>>;

export function isTerminal(state: OperationState): state is TerminalState {
  return (TERMINAL_STATES as readonly string[]).includes(state);
}

export function isOrdered(state: FromState): boolean {
  return (ORDERED_STATES as readonly string[]).includes(state);
}

/** The roles that may write `from → to`; empty when the table does not allow that transition at all. */
export function writersOf(from: FromState, to: OperationState): readonly ActorRole[] {
  const row: Partial<Record<OperationState, ActorRole | readonly ActorRole[]>> = TRANSITIONS[from];
  const writers = row[to];
  if (writers === undefined) return [];
  return typeof writers === 'string' ? [writers] : writers;
}

/** The role that writes `from → to` ("worker or sweep" where several may), or undefined when it is illegal. */
export function writerOf(from: FromState, to: OperationState): string | undefined {
  const writers = writersOf(from, to);
  return writers.length === 0 ? undefined : writers.join(' or ');
}

export function canTransition(from: FromState, to: OperationState): boolean {
  return writersOf(from, to).length > 0;
}

export type TransitionCheck = { ok: true } | { ok: false; reason: string };

/** Whether `role` may move a record from `from` to `to`; the reason says which rule refused it. */
export function checkTransition(from: FromState, to: OperationState, role: ActorRole): TransitionCheck {
  const writers = writersOf(from, to);
  if (writers.length === 0) return { ok: false, reason: `${from} → ${to} is not a legal transition` };
  if (!writers.includes(role))
    return { ok: false, reason: `${from} → ${to} is written by the ${writers.join(' or the ')}, not the ${role}` };
  return { ok: true };
}
