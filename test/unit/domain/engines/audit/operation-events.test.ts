// Which history entries become which audit events (docs/audit.md#what-each-operation-writes), on records the store
// would accept.
import { describe, expect, it } from 'vitest';
import { sealAfter, GENESIS_HASH } from '../../../../../src/domain/kit/audit/event.js';
import { operationAuditDrafts } from '../../../../../src/domain/engines/audit/operation-events.js';
import type { OperationRecord } from '../../../../../src/domain/engines/operation.js';
import {
  acceptedRecord,
  awaitingRecord,
  queuedRecord,
  step,
  submittingRecord,
  toState,
} from '../../../../support/records.js';

const ids = () => {
  let n = 0;
  return () => `aud-${(++n).toString(16).padStart(20, '0')}`;
};

/** The drafts of the entries `next` added after `before`. */
function draftsOf(before: OperationRecord | undefined, next: OperationRecord) {
  return operationAuditDrafts(next, next.history.slice(before?.history.length ?? 0), ids());
}

describe('operationAuditDrafts', () => {
  it('records the request with its planned change, in the workspace it came from', () => {
    const record = { ...acceptedRecord(), team: 'T0ACME', enterprise: 'E0ORG' };
    const [requested] = draftsOf(undefined, record);
    expect(requested).toMatchObject({
      action: 'requested',
      actor: { user: record.requester, team: 'T0ACME', enterprise: 'E0ORG' },
      op: { id: record.id, kind: 'scale', cluster: 'default', namespace: 'streaming-prod', uid: record.plan?.uid },
      change: { plan: record.plan?.change },
      at: new Date(record.createdAt).toISOString(),
    });
  });

  it('writes the approval and the queueing, attributed to the approver; a waiting note writes nothing', () => {
    const awaiting = awaitingRecord();
    const queued = queuedRecord();
    const drafts = draftsOf(awaiting, queued);
    expect(drafts.map((d) => [d.action, d.actor.user])).toEqual([
      ['approved', 'U0LEAD1'],
      ['queued', 'U0LEAD1'],
    ]);
    expect(drafts[0]?.decision).toMatchObject({ countsFor: ['prod-needs-a-lead'] });
    const submitting = submittingRecord();
    expect(draftsOf(queued, submitting).map((d) => d.action)).toEqual(['submitting']);
  });

  it('gives a submission the exact patch and the target before and after the call', () => {
    const submitting = submittingRecord();
    const withRv = step(submitting, [], undefined, 0);
    const last = withRv.history.at(-1);
    if (last) last.detail = { ...last.detail, resourceVersion: '812' };
    const submitted = toState(withRv, 'SUBMITTED', 'worker', 'worker', {
      generation: 4,
      resourceVersion: '815',
      uid: withRv.plan?.uid,
      how: 'patched',
    });
    const [event] = draftsOf(withRv, submitted);
    expect(event).toMatchObject({
      action: 'submitted',
      actor: { user: 'worker', team: 'unknown' },
      change: {
        patch: submitted.plan?.change as unknown as Record<string, unknown>,
        before: { uid: submitted.plan?.uid, resourceVersion: '812', generation: submitted.plan?.generation },
        after: { uid: submitted.plan?.uid, resourceVersion: '815', generation: 4 },
      },
    });
  });

  it('puts break_glass before the first QUEUED of a break-glass operation only', () => {
    const accepted = acceptedRecord();
    const glass = {
      ...accepted,
      decision: {
        ...(accepted.decision as NonNullable<OperationRecord['decision']>),
        breakGlass: { skippedRequirements: [], skippedDenies: ['friday'] },
      },
    } as OperationRecord;
    const queued = toState(glass, 'QUEUED', glass.requester, 'bot');
    expect(draftsOf(glass, queued).map((d) => d.action)).toEqual(['break_glass', 'queued']);
    expect(draftsOf(glass, queued)[0]?.decision).toEqual({ skippedRequirements: [], skippedDenies: ['friday'] });
  });

  it('drops undefined members, so a draft seals as the event it will be read back as', () => {
    const accepted = acceptedRecord();
    const cancelled = toState(accepted, 'CANCELLED', 'sweep', 'bot', { reason: 'gone', card: undefined });
    const drafts = draftsOf(accepted, cancelled);
    expect(drafts[0]?.decision).toEqual({ reason: 'gone', from: 'ACCEPTED' });
    const [sealed] = sealAfter(drafts, { seq: 0, hash: GENESIS_HASH });
    expect(sealed).toMatchObject({ seq: 1, prevHash: GENESIS_HASH, action: 'cancelled' });
  });

  it('adds gitops_paused to the submission of a change that pauses Flux, and reverted for a revert note', () => {
    const submitting = submittingRecord();
    const plan = submitting.plan as NonNullable<OperationRecord['plan']>;
    const pausing = {
      ...submitting,
      plan: {
        ...plan,
        gitops: {
          declared: [],
          undeclared: [],
          onManaged: 'pause',
          pauses: true,
          paused: false,
          revertWatchMs: 60_000,
        },
      },
    } as OperationRecord;
    const submitted = toState(pausing, 'SUBMITTED', 'worker', 'worker', { generation: 4 });
    expect(draftsOf(pausing, submitted).map((d) => d.action)).toEqual(['submitted', 'gitops_paused']);
    const completed = toState(submitted, 'COMPLETED', 'worker', 'worker', { summary: 'parallelism 8' });
    const reverted = step(completed, [
      { type: 'note', name: 'REVERTED', actor: 'worker', detail: { fields: ['spec.job.parallelism'], by: 'argocd' } },
    ]);
    expect(draftsOf(completed, reverted)).toEqual([
      expect.objectContaining({ action: 'reverted', evidence: { fields: ['spec.job.parallelism'], by: 'argocd' } }),
    ]);
  });
});
