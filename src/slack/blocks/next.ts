// "What happens next" for an operation in each state, in plain words (card and incident digest).
import type { OperationRecord } from '../../domain/engines/operation.js';
import type { OperationState } from '../../domain/model/lifecycle.js';
import { detailText, stillNeeded } from './parts.js';
import { escapeText, slackDate } from './text.js';

/** The operation this one last waited behind, if it has waited since it last joined the queue. */
export function waitingBehind(record: OperationRecord): string | undefined {
  for (let i = record.history.length - 1; i >= 0; i--) {
    const e = record.history[i];
    if (!e) continue;
    if (e.type === 'waiting') return detailText(e, 'behind', 'opId', 'holder', 'waitingFor') ?? e.name;
    if (e.type === 'state') return undefined;
  }
  return undefined;
}

const NEXT = {
  ACCEPTED: () => 'the bot is checking policy',
  DENIED: () => 'nothing: policy does not allow it; the cluster was not changed',
  AWAITING_APPROVAL: (r) => {
    const needed = stillNeeded(r);
    const until = r.expiresAt === undefined ? '' : ` until ${slackDate(r.expiresAt)}`;
    return needed ? `waiting for ${needed}${until}` : `waiting for approval${until}`;
  },
  REJECTED: () => 'nothing: the cluster was not changed',
  EXPIRED: () => 'nothing: no decision in time; the cluster was not changed',
  CANCELLED: () => 'nothing: the cluster was not changed',
  SCHEDULED: () =>
    'it waits for its time, holding no place in the target order; the requester or an approver may cancel it until then',
  QUEUED: (r) => {
    const behind = waitingBehind(r);
    return behind ? `waiting for its turn behind ${escapeText(behind)}` : 'waiting for a worker';
  },
  SUBMITTING: () => 'a worker is submitting the change',
  UNCERTAIN: () => 'the worker is reading the target to learn whether the change was applied',
  SUBMITTED: () => 'the worker is verifying',
  COMPLETED: () => 'done',
  FAILED: () => 'done; the change did not take effect as planned (evidence in the thread)',
  TIMED_OUT: () => 'done; the evidence was incomplete at the deadline: check the job (thread has what was seen)',
  ABORTED: () => 'nothing: never submitted; the cluster was not changed by this operation',
} satisfies Record<OperationState, (r: OperationRecord) => string>;

export function nextStep(record: OperationRecord): string {
  return NEXT[record.state](record);
}
